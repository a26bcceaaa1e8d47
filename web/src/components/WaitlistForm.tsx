import { type SubmitEvent, useEffect, useId, useRef, useState } from "react";
import { type Core, type Field, errorFor } from "../core";
import { company } from "../content/company";
import {
  autoComplete,
  fieldHints,
  fieldLabels,
  formDefaults,
  formText,
  interestLabels,
  markedRequired,
} from "../content/form";
import { useWaitlistForm } from "../hooks/useWaitlistForm";
import { FormField } from "./FormField";
import { ThankYouPanel } from "./ThankYouPanel";

interface WaitlistFormProps {
  /** The core once loaded; null while loading or if it failed. */
  readonly core: Core | null;
  /** True if the core failed to load: the form keeps its text and says what to do. */
  readonly unavailable: boolean;
}

const textFields = ["name", "email", "company", "role"] as const;

/**
 * The early-access form. It renders what the core says: values, errors beneath their
 * fields, the submit label, and the thank-you panel while the core is in "submitted".
 */
export function WaitlistForm({ core, unavailable }: WaitlistFormProps) {
  const form = useWaitlistForm(core);
  const idPrefix = useId();
  const id = (field: Field) => `${idPrefix}-${field}`;
  const [triedWithoutCore, setTriedWithoutCore] = useState(false);
  const statusRef = useRef<HTMLDivElement>(null);
  const submitted = form.phase === "submitted";
  const busy = form.phase !== "idle";

  // When the panel goes, hand focus back to the form if the panel still held it.
  const wasSubmitted = useRef(false);
  useEffect(() => {
    if (wasSubmitted.current && !submitted) {
      const active = document.activeElement;
      if (active === document.body || statusRef.current?.contains(active)) {
        document.getElementById(id("name"))?.focus();
      }
    }
    wasSubmitted.current = submitted;
  });

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = form.submit();
    if (result === null) {
      setTriedWithoutCore(true);
      return;
    }
    const first = result.errors[0];
    if (first) document.getElementById(id(first.field))?.focus();
  };

  const describedError = (field: Field) => errorFor(form.errors, field);

  return (
    <div className="waitlist">
      <div ref={statusRef} role="status" className="waitlist-status">
        {submitted && <ThankYouPanel />}
      </div>
      {!submitted && (
        <form className="waitlist-form" noValidate onSubmit={onSubmit} aria-busy={busy}>
          <p className="form-note">{formText.requiredNote}</p>
          {textFields.map((field) => {
            const error = describedError(field);
            const marked = markedRequired.includes(field);
            return (
              <FormField
                key={field}
                id={id(field)}
                label={fieldLabels[field]}
                marked={marked}
                error={error}
              >
                {(describedBy) => (
                  <input
                    id={id(field)}
                    name={field}
                    type={field === "email" ? "email" : "text"}
                    autoComplete={autoComplete[field]}
                    required={marked}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={describedBy}
                    value={form.values[field]}
                    readOnly={busy}
                    onChange={(e) => {
                      form.set(field, e.target.value);
                    }}
                  />
                )}
              </FormField>
            );
          })}
          <FormField id={id("interest")} label={fieldLabels.interest}>
            {(describedBy) => (
              <select
                id={id("interest")}
                name="interest"
                aria-describedby={describedBy}
                value={form.values.interest}
                disabled={busy}
                onChange={(e) => {
                  form.set("interest", e.target.value);
                }}
              >
                {Object.entries(interestLabels).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField
            id={id("message")}
            label={fieldLabels.message}
            hint={fieldHints.message}
            error={describedError("message")}
          >
            {(describedBy) => (
              <textarea
                id={id("message")}
                name="message"
                rows={core?.form.messageRows ?? formDefaults.messageRows}
                aria-required="true"
                aria-invalid={describedError("message") ? true : undefined}
                aria-describedby={describedBy}
                value={form.values.message}
                readOnly={busy}
                onChange={(e) => {
                  form.set("message", e.target.value);
                }}
              />
            )}
          </FormField>
          {(unavailable || triedWithoutCore) && (
            <p className="form-unavailable" role="alert">
              {formText.unavailable} <a href={`mailto:${company.email}`}>{company.email}</a>.
            </p>
          )}
          <button
            type="submit"
            className="button button-primary"
            disabled={form.phase === "submitting"}
          >
            {form.submitLabel}
          </button>
        </form>
      )}
    </div>
  );
}
