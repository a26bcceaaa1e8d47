import type { FormValues, Interest } from "../core";
import { draftStorageKey, formDefaults, interestLabels } from "../content/form";

// A draft of the form in this tab's sessionStorage, so that a refresh loses nothing
// typed. It never leaves the browser. Storage that throws or holds anything unexpected
// is ignored: the draft is a convenience, never a reason for an error.

const textFields = ["name", "email", "company", "role", "message"] as const;

function isInterest(value: unknown): value is Interest {
  return typeof value === "string" && Object.hasOwn(interestLabels, value);
}

/** The saved draft, field by field where it is sound; null if there is none. */
export function loadDraft(): FormValues | null {
  let raw: string | null;
  try {
    raw = sessionStorage.getItem(draftStorageKey);
  } catch {
    return null;
  }
  if (raw === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const record = parsed as Record<string, unknown>;
  const values: FormValues = { ...formDefaults.values };
  for (const field of textFields) {
    const value = record[field];
    if (typeof value === "string") values[field] = value;
  }
  if (isInterest(record.interest)) values.interest = record.interest;
  return isEmpty(values) ? null : values;
}

/** Saves the draft; an empty form removes it. */
export function saveDraft(values: FormValues) {
  try {
    if (isEmpty(values)) sessionStorage.removeItem(draftStorageKey);
    else sessionStorage.setItem(draftStorageKey, JSON.stringify(values));
  } catch {
    // Full, disabled or refused: the form works on without a draft.
  }
}

export function clearDraft() {
  try {
    sessionStorage.removeItem(draftStorageKey);
  } catch {
    // As above.
  }
}

function isEmpty(values: FormValues) {
  return (
    textFields.every((field) => values[field] === "") &&
    values.interest === formDefaults.values.interest
  );
}
