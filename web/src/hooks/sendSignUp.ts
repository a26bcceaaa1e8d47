import type { FormValues, ReportedFieldError } from "../core";

/** What the form posts: its values, the privacy notice's version, and the honeypot. */
export interface SignUp extends FormValues {
  /** The version of the privacy notice shown beside the form. */
  readonly privacyNotice: string;
  /** A field people never see; a bot fills it in, and the server drops its sign-up. */
  readonly website: string;
}

/** How a send ended. */
export type Delivery =
  | { readonly kind: "delivered" }
  | { readonly kind: "refused"; readonly errors: readonly ReportedFieldError[] }
  | { readonly kind: "failed" }
  | { readonly kind: "aborted" };

/**
 * Posts a sign-up as JSON. Any 2xx is delivered; a 422 with `errors` (the server's run of
 * the core's rules) is refused; anything else (no network, another status, a body that is
 * not what was promised) failed. Never throws.
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
    if (response.status === 422) {
      const body: unknown = await response.json();
      const errors = (body as { errors?: unknown } | null)?.errors;
      if (Array.isArray(errors)) return { kind: "refused", errors: errors as ReportedFieldError[] };
    }
    return { kind: "failed" };
  } catch {
    return signal.aborted ? { kind: "aborted" } : { kind: "failed" };
  }
}
