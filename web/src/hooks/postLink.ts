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
}

/** How a request about a link ended: the server's word for it, or `failed`. */
export type LinkAnswer =
  | { readonly status: "found"; readonly entry: StoredEntry }
  | {
      readonly status:
        "confirmed" | "erased" | "sent" | "used" | "expired" | "unknown" | "invalid" | "failed";
    };

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
    const body = (await response.json()) as { status?: unknown; entry?: unknown } | null;
    const status = body?.status;
    if (status === "found" && response.ok && typeof body?.entry === "object" && body.entry) {
      return { status, entry: body.entry as StoredEntry };
    }
    if (typeof status === "string" && known.has(status)) {
      return { status } as LinkAnswer;
    }
    return { status: "failed" };
  } catch {
    return { status: "failed" };
  }
}
