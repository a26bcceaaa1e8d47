// The waitlist form's words. Validation messages, delays and the "Submitting..." label
// come from the core at run time; the few values the first paint needs before the core
// has loaded are below, and a test checks them against the core.

import type { Field, FormValues, Interest } from "../core";

export const formDefaults = {
  values: {
    name: "",
    email: "",
    company: "",
    role: "",
    message: "",
    interest: "general",
  } satisfies FormValues,
  messageRows: 4,
  submitLabel: "Request Early Access",
} as const;

/** Fields whose labels carry an asterisk and whose inputs carry `required` (spec §5). */
export const markedRequired: readonly Field[] = ["name", "email"];

export const fieldLabels: Record<Field, string> = {
  name: "Full name",
  email: "Email address",
  company: "Company",
  role: "Role",
  message: "Message",
  interest: "I'm interested in",
};

export const fieldHints: Partial<Record<Field, string>> = {
  message: "What would you like to build with Lathe?",
};

export const autoComplete: Partial<Record<Field, string>> = {
  name: "name",
  email: "email",
  company: "organization",
  role: "organization-title",
};

export const interestLabels: Record<Interest, string> = {
  general: "General early access",
  enterprise: "Enterprise",
  developer: "Developer",
  partnership: "Partnership",
  press: "Press",
};

export const formText = {
  heading: "Join the waitlist",
  intro:
    "Tell us a little about yourself and what you want to build. We invite people from the waitlist in small groups.",
  requiredNote: "Fields marked * are required. Please include a message too.",
  unavailable:
    "The form can't be sent right now. Everything you typed is still here: please copy it and email us at",
  thankYouHeading: "Thank you!",
  thankYouBody: "You're on the list. We'll email you when your early-access invitation is ready.",
} as const;

/** Where a draft of the form is kept in this tab's sessionStorage until it is sent. */
export const draftStorageKey = "lathe:waitlist-draft";
