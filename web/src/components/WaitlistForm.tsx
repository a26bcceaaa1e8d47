import { type SubmitEvent, useEffect, useId, useRef } from "react";
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
const fields = [...textFields, "interest", "message"] as const satisfies readonly Field[];

/**
 * The early-access form. It renders what the core says: values, errors beneath their
 * fields, the submit label, and the thank-you panel while the core is in "submitted".
 */
export function WaitlistForm({ core, unavailable }: WaitlistFormProps) {
  const form = useWaitlistForm(core);
  const idPrefix = useId();
  const id = (field: Field) => `${idPrefix}-${field}`;
  const statusRef = useRef<HTMLDivElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const unavailableRef = useRef<HTMLParagraphElement>(null);
  const submitted = form.phase === "submitted";
  const busy = form.phase !== "idle";
  // Nothing to submit to until the core is here (or known to be missing): disabled, so
  // the click waits for it and Enter in a field does nothing before then.
  const ready = core !== null || unavailable;

  // Text typed into the prerendered form before hydration stays on screen but is not in
  // React's state: adopt it once, so what the visitor sees is what gets validated.
  const { set } = form;
  useEffect(() => {
    const elements = formRef.current?.elements;
    if (!elements) return;
    for (const field of fields) {
      const element = elements.namedItem(field);
      const typed =
        element instanceof HTMLInputElement ||
        element instanceof HTMLTextAreaElement ||
        element instanceof HTMLSelectElement
          ? element.value
          : formDefaults.values[field];
      if (typed !== formDefaults.values[field]) set(field, typed);
    }
  }, [set]);

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
      // No core: the message saying where to write instead is already shown; go to it.
      unavailableRef.current?.focus();
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
        <form
          ref={formRef}
          className="waitlist-form"
          noValidate
          onSubmit={onSubmit}
          aria-busy={busy}
        >
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
          {unavailable && (
            <p ref={unavailableRef} className="form-unavailable" role="alert" tabIndex={-1}>
              {formText.unavailable} <a href={`mailto:${company.email}`}>{company.email}</a>.
            </p>
          )}
          <button
            type="submit"
            className="button button-primary"
            disabled={!ready || form.phase === "submitting"}
          >
            {form.submitLabel}
          </button>
        </form>
      )}
    </div>
  );
}
