import type { ReactNode } from "react";

interface FormFieldProps {
  readonly id: string;
  readonly label: string;
  readonly marked?: boolean;
  readonly hint?: string | undefined;
  readonly error?: string | undefined;
  /** Renders the control, given the ids of its description. */
  readonly children: (describedBy: string | undefined) => ReactNode;
}

/** A label, a control, an optional hint and the core's error beneath it. */
export function FormField({ id, label, marked = false, hint, error, children }: FormFieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field" data-invalid={error ? "" : undefined}>
      <label htmlFor={id}>
        {label}
        {marked && (
          <span className="field-mark" aria-hidden="true">
            {" *"}
          </span>
        )}
      </label>
      {hint && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {children(describedBy)}
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
