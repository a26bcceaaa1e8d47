import { type FieldSpec, type FormValues, constants } from "../core";
import { fieldText, interestLabels } from "../content/form";

const { interests, messageRows } = constants.form;

interface FieldControlProps {
  /** The row of the core's field table this control is for. */
  readonly spec: FieldSpec;
  readonly id: string;
  readonly values: FormValues;
  readonly error: string | undefined;
  /** The ids of its hint and error. */
  readonly describedBy: string | undefined;
  /** Submitting or thanking: nothing can change. */
  readonly busy: boolean;
  readonly onChange: (value: string) => void;
}

/** The control for one row of the core's field table: a select, a textarea or an input. */
export function FieldControl({
  spec: { field, control, required, marked },
  id,
  values,
  error,
  describedBy,
  busy,
  onChange,
}: FieldControlProps) {
  const common = {
    id,
    name: field,
    "aria-describedby": describedBy,
    "aria-invalid": error ? true : undefined,
    // Validated as required but not marked (spec §5 marks only name and email).
    "aria-required": required && !marked ? true : undefined,
    onChange: (event: { target: { value: string } }) => {
      onChange(event.target.value);
    },
  } as const;
  switch (control) {
    case "choice":
      return (
        <select {...common} value={values.interest} disabled={busy}>
          {interests.map((interest) => (
            <option key={interest} value={interest}>
              {interestLabels[interest]}
            </option>
          ))}
        </select>
      );
    case "multiline":
      return <textarea {...common} rows={messageRows} value={values[field]} readOnly={busy} />;
    case "text":
    case "email":
      return (
        <input
          {...common}
          // Never type="email": the browser would strip spaces before the rules see them.
          type="text"
          {...(control === "email"
            ? { inputMode: "email", autoCapitalize: "none", autoCorrect: "off", spellCheck: false }
            : {})}
          autoComplete={fieldText[field].autoComplete}
          required={marked}
          value={values[field]}
          readOnly={busy}
        />
      );
  }
}
