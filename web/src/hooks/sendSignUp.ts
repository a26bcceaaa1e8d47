import type { FormValues, ReportedFieldError } from "../core";

/**
 * What the form posts: its values, the privacy notice's version, the honeypot, its proof
 * of work when it has one, and the referral code the visit came with, if any.
 */
export interface SignUp extends FormValues {
  /** The version of the privacy notice shown beside the form. */
  readonly privacyNotice: string;
  /** A field people never see; a bot fills it in, and the server drops its sign-up. */
  readonly website: string;
  /** The proof of work (ALTCHA's payload), when the server asks for one. */
  readonly altcha?: string;
  /** The code of the share link the visitor came by, if any. */
  readonly ref?: string;
}

/** The server's reasons for refusing a sign-up's proof of work. */
const PROOF_REFUSALS = new Set(["no-proof", "bad-proof", "expired-proof", "used-proof"]);

/** How a send ended. */
export type Delivery =
  | { readonly kind: "delivered" }
  | { readonly kind: "refused"; readonly errors: readonly ReportedFieldError[] }
  | { readonly kind: "proof-refused" }
  | { readonly kind: "failed" }
  | { readonly kind: "aborted" };

/**
 * Posts a sign-up as JSON. Any 2xx is delivered; a 422 with `errors` (the server's run of
 * the core's rules) is refused; a refusal whose `reason` is about the proof of work
 * (missing, not valid, expired or used) is proof-refused; anything else (no network,
 * another status, a body that is not what was promised) failed. Never throws.
 */
export async function sendSignUp(
  endpoint: string,
  signUp: SignUp,
  signal: AbortSignal,
): Promise<Delivery> {
  try {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(signUp),
      cache: "no-store",
      signal,
    });
    if (response.ok) return { kind: "delivered" };
    const body = (await response.json().catch(() => null)) as {
      errors?: unknown;
      reason?: unknown;
    } | null;
    if (response.status === 422 && Array.isArray(body?.errors)) {
      return { kind: "refused", errors: body.errors as ReportedFieldError[] };
    }
    if (typeof body?.reason === "string" && PROOF_REFUSALS.has(body.reason)) {
      return { kind: "proof-refused" };
    }
    return { kind: "failed" };
  } catch {
    return signal.aborted ? { kind: "aborted" } : { kind: "failed" };
  }
}
