import { useMemo } from "react";
import type { Core } from "../core";
import { keptReferral } from "../referral";

/**
 * The referral code this visit arrived with (src/referral.ts), for a form that sends: only
 * once the core is here to say it has a code's shape. Null otherwise; a code the core
 * rejects is dropped, never a reason to stop the sign-up.
 */
export function useReferral(core: Core | null, sending: boolean): string | null {
  return useMemo(() => {
    if (!core || !sending) return null;
    const code = keptReferral();
    return code !== null && core.isReferralCode(code) ? code : null;
  }, [core, sending]);
}
