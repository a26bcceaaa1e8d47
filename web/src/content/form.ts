// The waitlist form's words. Everything else about the form (its fields and their
// order, which are required or marked, the interests, rows, labels of the submit button,
// messages and timings) comes from the core: `constants.form` in ../core.

import { type Field, type Interest, constants } from "../core";
import { company } from "./company";

const { pendingDays, inactiveYears } = constants.retention;

/** Each field's label, an optional hint beneath it, and its autofill token. */
export const fieldText: Record<
  Field,
  { readonly label: string; readonly hint?: string; readonly autoComplete?: string }
> = {
  name: { label: "Full name", autoComplete: "name" },
  email: { label: "Email address", autoComplete: "email" },
  company: { label: "Company", autoComplete: "organization" },
  role: { label: "Role", autoComplete: "organization-title" },
  interest: { label: "I'm interested in" },
  message: { label: "Message", hint: "What would you like to build with Lathe?" },
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
  unsupported:
    "This browser is too old to send the form (it needs Chrome or Edge 97, Firefox 102 or Safari 16, or newer). Everything on the page can still be read; to join the waitlist, email us at",
  /** When a form that sends could not deliver a submit (WAITLIST_URL builds only). */
  notSent:
    "Your request could not be sent, but nothing is lost: everything you typed is still here. Please try again in a moment, or email us at",
  /** The honeypot's label: never seen, as the field is off screen and hidden from assistive technology. */
  honeypot: "Leave this field empty",
  /** Beneath the button: who keeps what is sent, why, how long, and the visitor's rights. */
  privacy: `${company.parent} keeps what you send here to answer you and to invite you to the beta, for ${String(inactiveYears)} years after our last contact, and never sells it. We email you a link to confirm your address, and delete it if it is not confirmed within ${String(pendingDays)} days. Every email from us links to a page where you can see, download or erase what we keep; more in our {gdpr}.`,
  /**
   * The version of the privacy notice above, stored with each sign-up a server collects.
   * Change it whenever the notice's words change.
   */
  privacyVersion: "2026-11-24",
  thankYouHeading: "Thank you!",
  thankYouBody: "You're on the list. We'll email you when your early-access invitation is ready.",
} as const;
