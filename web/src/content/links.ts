// The words of the two pages the waitlist's emails link to (built only when the site
// collects sign-ups, WAITLIST_URL): /confirm, where a visitor confirms their address,
// and /manage, where they see, download and erase what is kept. The periods come from
// the core's retention constants, which the server enforces.

import { constants } from "../core";

const { confirmLinkHours, pendingDays } = constants.retention;

/** What the pages say when their link is not one the server can act on. */
export const linkProblems = {
  /** The page was opened without the part of the link after `#`. */
  missing:
    "This page needs the whole link from our email, including the part after #. Please open the link again, or copy all of it into the address bar.",
  invalid:
    "This link is not one of ours, or it was not copied whole. Please open the link from our email again.",
  unknown:
    "There is nothing on the waitlist for this link any more: the entry was erased, or deleted because its address was not confirmed in time.",
  failed:
    "Nothing was changed: we could not reach our server. Please check your connection and try again.",
} as const;

export const confirmText = {
  heading: "Confirm your address",
  lead: "Someone, we hope you, asked to join the Lathe waitlist with this address. Press the button to confirm it.",
  button: "Confirm my address",
  busy: "Confirming...",
  confirmedHeading: "You're confirmed",
  confirmed:
    "Thank you: your address is on the waitlist. We'll email you when your early-access invitation is ready.",
  used: "This link has been used already: your address is confirmed, and there is nothing more to do.",
  expired: `This link has expired: a link works for ${String(confirmLinkHours)} hours. We can send you a new one.`,
  resend: "Send me a new link",
  resending: "Sending...",
  sent: `A new link is on its way to your inbox. It works for ${String(confirmLinkHours)} hours.`,
  notYou: `Not you? Do nothing: an address that is not confirmed within ${String(pendingDays)} days is deleted.`,
} as const;

export const manageText = {
  heading: "Your waitlist entry",
  lead: "This is everything we keep about you on the Lathe waitlist. You can download it, or erase it.",
  loading: "Loading your entry...",
  retry: "Try again",
  fields: {
    email: "Email address",
    name: "Full name",
    company: "Company",
    role: "Role",
    interest: "Interest",
    message: "Message",
    created_at: "Signed up",
    status: "Address",
    confirmed_at: "Confirmed",
    invited_at: "Invited to early access",
    privacy_notice: "Privacy notice shown",
  },
  none: "(none)",
  statuses: {
    confirmed: "Confirmed",
    pending: "Waiting for confirmation",
    unconfirmed: "Not confirmed",
    invited: "Confirmed, and invited to early access",
  },
  download: "Download as JSON",
  downloadFile: "lathe-waitlist-entry.json",
  erase: "Erase my entry",
  eraseQuestion:
    "Erase your entry? We delete everything above at once, with any email still waiting to go to you. This cannot be undone.",
  eraseYes: "Yes, erase it",
  eraseNo: "Keep it",
  erasing: "Erasing...",
  erasedHeading: "Your entry is erased",
  erased:
    "We have deleted your entry and every email waiting to go to you. We keep only the fact that an entry was erased, and when: nothing about you.",
} as const;

/** An ordinal in English: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 1,204th. */
function ordinal(n: number): string {
  const suffixes = { one: "st", two: "nd", few: "rd", other: "th" } as const;
  const rule = new Intl.PluralRules("en-GB", { type: "ordinal" }).select(n);
  const suffix = rule in suffixes ? suffixes[rule as keyof typeof suffixes] : "th";
  return `${count(n)}${suffix}`;
}

/** A count with thousands separated: 1,204. */
function count(n: number): string {
  return n.toLocaleString("en-GB");
}

/** The visitor's place in line and share link, on both pages (never who their friends are). */
export const lineText = {
  heading: "Your place in line",
  place: (place: number, of: number) => `${ordinal(place)} of ${count(of)}`,
  placeLabel: "Your place",
  notInLine: {
    pending: "You get a place in line once you confirm your address.",
    unconfirmed: "You get a place in line once you confirm your address.",
    invited: "You are invited: you have left the line.",
    confirmed: "Your place is being worked out: reload the page in a moment.",
  },
  shareLabel: "Your share link",
  shareHint: (places: number) =>
    `Each friend who joins through your link and confirms their address moves you ${count(places)} ${places === 1 ? "place" : "places"} ahead.`,
  copy: "Copy link",
  copied: "Copied. Paste it anywhere you like.",
  copyFailed: "Copying was refused: select the link and copy it yourself.",
  share: "Share...",
  shareTitle: "Join me on the Lathe waitlist",
  friends: (joined: number, confirmed: number) =>
    joined === 0
      ? "No friends have joined through your link yet."
      : `${count(joined)} ${joined === 1 ? "friend has" : "friends have"} joined through your link; ${count(confirmed)} confirmed.`,
} as const;
