import { type SubmitEvent, useEffect, useEffectEvent, useId, useRef } from "react";
import { challengeUrl, waitlistEndpoint } from "../config";
import { type Core, type Field, constants } from "../core";
import { company } from "../content/company";
import { fieldText, formText } from "../content/form";
import { useReferral } from "../hooks/useReferral";
import { useWaitlistForm } from "../hooks/useWaitlistForm";
import { FieldControl } from "./FieldControl";
import { FormField } from "./FormField";
import { RichText } from "./RichText";
import { ThankYouPanel } from "./ThankYouPanel";

interface WaitlistFormProps {
  /** The core once loaded; null while loading or if it failed. */
  readonly core: Core | null;
  /** True if the core failed to load: the form keeps its text and says what to do. */
  readonly unavailable: boolean;
  /** Where to post sign-ups; null sends nothing (the original site). The build's WAITLIST_URL by default. */
  readonly endpoint?: string | null;
}

const { fields, initial } = constants.form;

/**
 * The early-access form. It renders what the core says: values, errors beneath their
 * fields, the submit label, and the thank-you panel while the core is in "submitted".
 */
export function WaitlistForm({
  core,
  unavailable,
  endpoint = waitlistEndpoint,
}: WaitlistFormProps) {
  const referral = useReferral(core, endpoint !== null);
  const form = useWaitlistForm(
    core,
    endpoint === null
      ? null
      : {
          endpoint,
          privacyNotice: formText.privacyVersion,
          challenge: challengeUrl(endpoint),
          referral,
        },
  );
  const idPrefix = useId();
  const id = (field: Field | "website") => `${idPrefix}-${field}`;
  const statusRef = useRef<HTMLDivElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const unavailableRef = useRef<HTMLParagraphElement>(null);
  const notSentRef = useRef<HTMLParagraphElement>(null);
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
    for (const { field } of fields) {
      const element = elements.namedItem(field);
      const typed =
        element instanceof HTMLInputElement ||
        element instanceof HTMLTextAreaElement ||
        element instanceof HTMLSelectElement
          ? element.value
          : initial.values[field];
      if (typed !== initial.values[field]) set(field, typed);
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

  // A send that ends back in idle: focus goes to what the visitor must read, the first
  // error or the message, unless they have moved on to a field.
  const focusFailure = useEffectEvent(() => {
    const active = document.activeElement;
    const moved = active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement;
    if (moved || active instanceof HTMLSelectElement) return;
    const first = form.errors[0];
    if (first) document.getElementById(id(first.field))?.focus();
    else notSentRef.current?.focus();
  });
  const { submitsReturned } = form;
  useEffect(() => {
    if (submitsReturned > 0) focusFailure();
  }, [submitsReturned]);

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const honeypot = formRef.current?.elements.namedItem("website");
    const result = form.submit(honeypot instanceof HTMLInputElement ? honeypot.value : "");
    if (result === null) {
      // No core: the message saying where to write instead is already shown; go to it.
      unavailableRef.current?.focus();
      return;
    }
    const first = result.errors[0];
    if (first) document.getElementById(id(first.field))?.focus();
  };

  const errorFor = (field: Field) => form.errors.find((e) => e.field === field)?.message;

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
          {fields.map((spec) => (
            <FormField
              key={spec.field}
              id={id(spec.field)}
              label={fieldText[spec.field].label}
              marked={spec.marked}
              hint={fieldText[spec.field].hint}
              error={errorFor(spec.field)}
            >
              {(describedBy) => (
                <FieldControl
                  spec={spec}
                  id={id(spec.field)}
                  values={form.values}
                  error={errorFor(spec.field)}
                  describedBy={describedBy}
                  busy={busy}
                  onChange={(value) => {
                    form.set(spec.field, value);
                  }}
                />
              )}
            </FormField>
          ))}
          {!unavailable && (
            // Hidden unless the pre-paint script found the browser unable to run the app.
            <p className="form-unsupported">
              {formText.unsupported} <a href={`mailto:${company.email}`}>{company.email}</a>.
            </p>
          )}
          {endpoint !== null && (
            // The honeypot: off screen and hidden from assistive technology, so only a bot
            // fills it in; the server then answers as usual and keeps nothing.
            <div className="form-trap" aria-hidden="true">
              <label htmlFor={id("website")}>{formText.honeypot}</label>
              <input
                id={id("website")}
                name="website"
                type="text"
                tabIndex={-1}
                autoComplete="off"
              />
            </div>
          )}
          {form.notice === "not-sent" && (
            <p ref={notSentRef} className="form-unavailable" role="alert" tabIndex={-1}>
              {formText.notSent} <a href={`mailto:${company.email}`}>{company.email}</a>.
            </p>
          )}
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
          <p className="form-privacy small">
            <RichText text={formText.privacy} />
          </p>
        </form>
      )}
    </div>
  );
}
