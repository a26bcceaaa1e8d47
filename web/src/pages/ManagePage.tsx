import { useEffect, useRef, useState } from "react";
import { interestLabels } from "../content/form";
import { linkProblems, manageText } from "../content/links";
import { pages } from "../content/site";
import type { Interest } from "../core";
import { PlaceInLine } from "../components/PlaceInLine";
import { type LineStanding, type StoredEntry, postLink } from "../hooks/postLink";
import { useLinkToken } from "../hooks/useLinkToken";
import { usePageMeta } from "../hooks/usePageMeta";

type Step =
  | { readonly kind: "loading" }
  | {
      readonly kind: "shown";
      readonly entry: StoredEntry;
      /** Where it stands in the line (undefined when referrals are off). */
      readonly line: LineStanding | undefined;
      /** The erase button was pressed: the page asks before erasing. */
      readonly asking: boolean;
      /** The last erase could not reach the server. */
      readonly failed?: boolean;
    }
  | {
      readonly kind: "erasing";
      readonly entry: StoredEntry;
      readonly line: LineStanding | undefined;
    }
  | { readonly kind: "erased" }
  | { readonly kind: "problem"; readonly text: string; readonly retry: "load" | "erase" | null };

/** What the page says for an answer other than the one it asked for. */
function problemText(status: string): string {
  if (status === "unknown") return linkProblems.unknown;
  if (status === "invalid") return linkProblems.invalid;
  return linkProblems.failed;
}

/** A stored time, in the visitor's own time zone. */
function when(iso: string | null): string {
  if (!iso) return manageText.none;
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString("en-GB", { dateStyle: "long", timeStyle: "short" });
}

/** The entry's fields as the page lists them. */
function rows(entry: StoredEntry): readonly (readonly [string, string])[] {
  const f = manageText.fields;
  const text = (value: string) => value || manageText.none;
  return [
    [f.email, entry.email],
    [f.name, entry.name],
    [f.company, text(entry.company)],
    [f.role, text(entry.role)],
    [
      f.interest,
      Object.hasOwn(interestLabels, entry.interest)
        ? interestLabels[entry.interest as Interest]
        : entry.interest,
    ],
    [f.message, entry.message],
    [f.created_at, when(entry.created_at)],
    [f.status, manageText.statuses[entry.status]],
    [f.confirmed_at, when(entry.confirmed_at)],
    ...(entry.invited_at ? [[f.invited_at, when(entry.invited_at)] as const] : []),
    [f.privacy_notice, entry.privacy_notice],
  ];
}

/** Offers the entry as a JSON file, exactly as the server sent it. */
function download(entry: StoredEntry) {
  const blob = new Blob([`${JSON.stringify(entry, null, 2)}\n`], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = manageText.downloadFile;
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * Where the manage link in every waitlist email leads: what is kept about the visitor
 * (access), as a JSON download (portability), and erasure after a second press.
 */
export function ManagePage() {
  usePageMeta(pages.manage);
  const token = useLinkToken();
  // A new link (another fragment, without a reload) starts afresh.
  return <ManageLink key={token} token={token} />;
}

function ManageLink({ token }: { readonly token: string | undefined }) {
  const [step, setStep] = useState<Step>({ kind: "loading" });
  const said = useRef<HTMLParagraphElement>(null);

  // Asks the server for the entry: on arrival, and again on "Try again" (`attempt`). An
  // answer for a page since left changes nothing.
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!token) return;
    let current = true;
    void postLink("manage", token).then((answer) => {
      if (!current) return;
      setStep(
        answer.status === "found"
          ? { kind: "shown", entry: answer.entry, line: answer.line, asking: false }
          : {
              kind: "problem",
              text: problemText(answer.status),
              retry: answer.status === "failed" ? "load" : null,
            },
      );
    });
    return () => {
      current = false;
    };
  }, [token, attempt]);

  useEffect(() => {
    if (
      step.kind === "erased" ||
      step.kind === "problem" ||
      (step.kind === "shown" && step.failed)
    ) {
      said.current?.focus();
    }
  }, [step]);

  const erase = async (entry: StoredEntry, line: LineStanding | undefined) => {
    if (!token) return;
    setStep({ kind: "erasing", entry, line });
    const answer = await postLink("erase", token);
    if (answer.status === "erased") setStep({ kind: "erased" });
    else if (answer.status === "failed")
      setStep({ kind: "shown", entry, line, asking: true, failed: true });
    else setStep({ kind: "problem", text: problemText(answer.status), retry: null });
  };

  const status =
    token === ""
      ? linkProblems.missing
      : step.kind === "loading" && token !== undefined
        ? manageText.loading
        : step.kind === "erased"
          ? manageText.erased
          : step.kind === "problem"
            ? step.text
            : step.kind === "shown" && step.failed
              ? linkProblems.failed
              : "";

  return (
    <div className="container page link-page">
      <header className="page-header">
        <h1>{step.kind === "erased" ? manageText.erasedHeading : manageText.heading}</h1>
        {step.kind !== "erased" && <p className="lead">{manageText.lead}</p>}
      </header>
      <div className="card link-card">
        <p ref={said} tabIndex={-1} role="status" className="link-status">
          {status}
        </p>
        {step.kind === "problem" && step.retry === "load" && token && (
          <button
            type="button"
            className="button button-primary"
            onClick={() => {
              setStep({ kind: "loading" });
              setAttempt((n) => n + 1);
            }}
          >
            {manageText.retry}
          </button>
        )}
        {(step.kind === "shown" || step.kind === "erasing") && (
          <>
            {step.line && <PlaceInLine line={step.line} status={step.entry.status} />}
            <dl className="entry-list">
              {rows(step.entry).map(([label, value]) => (
                <div key={label}>
                  <dt>{label}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
            <div className="link-actions">
              <button
                type="button"
                className="button button-secondary"
                onClick={() => {
                  download(step.entry);
                }}
              >
                {manageText.download}
              </button>
              {step.kind === "shown" && !step.asking && (
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => {
                    setStep({ ...step, asking: true });
                  }}
                >
                  {manageText.erase}
                </button>
              )}
            </div>
            {(step.kind === "erasing" || step.asking) && (
              <div className="erase-question" role="group" aria-labelledby="erase-question">
                <p id="erase-question">{manageText.eraseQuestion}</p>
                <div className="link-actions">
                  <button
                    type="button"
                    className="button button-primary"
                    disabled={step.kind === "erasing"}
                    onClick={() => void erase(step.entry, step.line)}
                  >
                    {step.kind === "erasing" ? manageText.erasing : manageText.eraseYes}
                  </button>
                  <button
                    type="button"
                    className="button button-secondary"
                    disabled={step.kind === "erasing"}
                    onClick={() => {
                      setStep({ kind: "shown", entry: step.entry, line: step.line, asking: false });
                    }}
                  >
                    {manageText.eraseNo}
                  </button>
                </div>
              </div>
            )}
          </>
        )}
      </div>
    </div>
  );
}
