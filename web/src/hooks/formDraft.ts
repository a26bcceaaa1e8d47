import { type Field, type FormValues, type Interest, constants } from "../core";
import { draftStorageKey } from "../browserState";

// A draft of the form in this tab's sessionStorage, so that a refresh loses nothing
// typed. It never leaves the browser. Storage that throws or holds anything unexpected
// is ignored: the draft is a convenience, never a reason for an error.

const empty = constants.form.initial.values;
/** The fields typed as text: every one but the interest, which is a choice. */
const textFields = constants.form.fields
  .filter((spec) => spec.control !== "choice")
  .map((spec) => spec.field) as Exclude<Field, "interest">[];

function isInterest(value: unknown): value is Interest {
  return constants.form.interests.some((interest) => interest === value);
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
  const values: FormValues = { ...empty };
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
  return textFields.every((field) => values[field] === "") && values.interest === empty.interest;
}
