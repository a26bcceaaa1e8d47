import { useEffect, useRef, useState } from "react";
import { confirmText, linkProblems } from "../content/links";
import { pages } from "../content/site";
import { PlaceInLine } from "../components/PlaceInLine";
import { type LineStanding, type LinkAnswer, postLink } from "../hooks/postLink";
import { useLinkToken } from "../hooks/useLinkToken";
import { usePageMeta } from "../hooks/usePageMeta";

type Step = "ready" | "confirming" | "resending" | LinkAnswer["status"];

/**
 * Where the confirmation email's link leads. Opening it changes nothing: the address is
 * confirmed only when the visitor presses the button, so the mail scanners that open
 * every link confirm nothing. An expired link offers a new one. Once confirmed, the
 * visitor's place in line and share link (unless the server has referrals off).
 */
export function ConfirmPage() {
  usePageMeta(pages.confirm);
  const token = useLinkToken();
  // A new link (another fragment, without a reload) starts afresh.
  return <ConfirmLink key={token} token={token} />;
}

function ConfirmLink({ token }: { readonly token: string | undefined }) {
  const [step, setStep] = useState<Step>("ready");
  const [line, setLine] = useState<LineStanding | undefined>();
  const said = useRef<HTMLParagraphElement>(null);

  // Each outcome is read out and takes focus, so that keyboard and screen-reader users
  // land on it when the button they pressed is gone.
  useEffect(() => {
    if (step !== "ready" && step !== "confirming" && step !== "resending") said.current?.focus();
  }, [step]);

  const send = async (action: "confirm" | "resend") => {
    if (!token) return;
    setStep(action === "confirm" ? "confirming" : "resending");
    const answer = await postLink(action, token);
    if (answer.status === "confirmed") setLine(answer.line);
    setStep(answer.status);
  };

  const outcome: Partial<Record<Step, string>> = {
    confirmed: confirmText.confirmed,
    used: confirmText.used,
    expired: confirmText.expired,
    sent: confirmText.sent,
    unknown: linkProblems.unknown,
    invalid: linkProblems.invalid,
    failed: linkProblems.failed,
  };
  const missing = token === "";
  const canConfirm = step === "ready" || step === "confirming" || step === "failed";

  return (
    <div className="container page link-page">
      <header className="page-header">
        <h1>{step === "confirmed" ? confirmText.confirmedHeading : confirmText.heading}</h1>
        {step !== "confirmed" && <p className="lead">{confirmText.lead}</p>}
      </header>
      <div className="card link-card">
        <p ref={said} tabIndex={-1} role="status" className="link-status">
          {missing ? linkProblems.missing : outcome[step]}
        </p>
        {canConfirm && !missing && (
          <button
            type="button"
            className="button button-primary"
            disabled={token === undefined || step === "confirming"}
            onClick={() => void send("confirm")}
          >
            {step === "confirming" ? confirmText.busy : confirmText.button}
          </button>
        )}
        {(step === "expired" || step === "resending") && (
          <button
            type="button"
            className="button button-primary"
            disabled={step === "resending"}
            onClick={() => void send("resend")}
          >
            {step === "resending" ? confirmText.resending : confirmText.resend}
          </button>
        )}
        {step !== "confirmed" && step !== "used" && (
          <p className="link-note">{confirmText.notYou}</p>
        )}
        {step === "confirmed" && line && <PlaceInLine line={line} status="confirmed" />}
      </div>
    </div>
  );
}
