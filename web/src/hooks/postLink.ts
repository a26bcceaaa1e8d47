import { waitlistEndpoint } from "../config";
import { constants } from "../core";

/** What the server does with the token of a link from its emails. */
export type LinkAction = "confirm" | "resend" | "manage" | "erase";

/** An entry as the server keeps it (and as the owner's export writes it). */
export interface StoredEntry {
  readonly email: string;
  readonly name: string;
  readonly company: string;
  readonly role: string;
  readonly interest: string;
  readonly message: string;
  readonly privacy_notice: string;
  readonly created_at: string;
  readonly repeats: number;
  readonly last_repeat_at: string | null;
  readonly status: "confirmed" | "pending" | "unconfirmed" | "invited";
  readonly confirmed_at: string | null;
  readonly invited_at: string | null;
  readonly wave: number | null;
  /** Its place in line while it stands in it (confirmed, not invited). */
  readonly place: number | null;
  /** Friends who joined through its share link and confirmed. */
  readonly referrals: number;
}

/**
 * Where an entry stands in the line, as the server says (on a confirmation, and with an
 * entry): never who its friends are. Absent when referrals are off.
 */
export interface LineStanding {
  /** 1 is the next to be invited; null out of the line (not confirmed yet, or invited). */
  readonly place: number | null;
  /** How many stand in the line. */
  readonly of: number;
  /** The entry's referral code: its share link is `/?ref=CODE`. */
  readonly code: string;
  /** Friends who signed up through the link. */
  readonly joined: number;
  /** Of those, how many confirmed. */
  readonly confirmed: number;
  /** What a confirmed friend is worth, in places. */
  readonly placesPerReferral: number;
}

/** How a request about a link ended: the server's word for it, or `failed`. */
export type LinkAnswer =
  | { readonly status: "found"; readonly entry: StoredEntry; readonly line?: LineStanding }
  | { readonly status: "confirmed"; readonly line?: LineStanding }
  | {
      readonly status: "erased" | "sent" | "used" | "expired" | "unknown" | "invalid" | "failed";
    };

/** `value` if it is a standing as the server sends one. */
function standing(value: unknown): LineStanding | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const line = value as Record<string, unknown>;
  const counts = ["of", "joined", "confirmed", "placesPerReferral"].every(
    (key) => typeof line[key] === "number",
  );
  const place = line.place === null || typeof line.place === "number";
  return counts && place && typeof line.code === "string"
    ? (line as unknown as LineStanding)
    : undefined;
}

const known = new Set(["confirmed", "erased", "sent", "used", "expired", "unknown", "invalid"]);

/**
 * Posts a link's token to the waitlist's server (`WAITLIST_URL/ACTION`). Any network
 * failure, timeout, or answer that is not what the server promises is `failed`. Never
 * throws.
 */
export async function postLink(action: LinkAction, token: string): Promise<LinkAnswer> {
  if (!waitlistEndpoint) return { status: "failed" };
  try {
    const response = await fetch(`${waitlistEndpoint}/${action}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ token }),
      cache: "no-store",
      signal: AbortSignal.timeout(constants.form.deliveryTimeoutMs),
    });
    const body = (await response.json()) as {
      status?: unknown;
      entry?: unknown;
      line?: unknown;
    } | null;
    const status = body?.status;
    const line = standing(body?.line);
    if (status === "found" && response.ok && typeof body?.entry === "object" && body.entry) {
      return { status, entry: body.entry as StoredEntry, ...(line && { line }) };
    }
    if (status === "confirmed" && response.ok) return { status, ...(line && { line }) };
    if (typeof status === "string" && known.has(status)) {
      return { status } as LinkAnswer;
    }
    return { status: "failed" };
  } catch {
    return { status: "failed" };
  }
}
