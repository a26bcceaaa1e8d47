import { useId, useState } from "react";
import { referralParam } from "../browserState";
import { lineText } from "../content/links";
import type { LineStanding, StoredEntry } from "../hooks/postLink";

interface PlaceInLineProps {
  /** Where the entry stands, as the server said. */
  readonly line: LineStanding;
  /** The entry's status: out of the line, it says why. */
  readonly status: StoredEntry["status"];
}

type Copy = "idle" | "copied" | "failed";

/**
 * The visitor's place in line, their share link (Copy, and the system's share sheet where
 * the browser has one), and how many friends joined through it: never who. On the pages
 * their signed links open, rendered once the server has answered (so in the browser).
 */
export function PlaceInLine({ line, status }: PlaceInLineProps) {
  const id = useId();
  const [copy, setCopy] = useState<Copy>("idle");
  const link = `${window.location.origin}/?${referralParam}=${encodeURIComponent(line.code)}`;
  const canShare = typeof navigator.share === "function";

  const copyLink = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopy("copied");
    } catch {
      setCopy("failed");
    }
  };
  const share = () => {
    // Dismissing the sheet rejects: nothing to say about it.
    navigator.share({ title: lineText.shareTitle, url: link }).catch(() => undefined);
  };

  return (
    <section className="line-card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{lineText.heading}</h2>
      {line.place === null ? (
        <p>{lineText.notInLine[status]}</p>
      ) : (
        <p className="line-place">
          <span className="line-place-label">{lineText.placeLabel}</span>
          <strong>{lineText.place(line.place, line.of)}</strong>
        </p>
      )}
      {status !== "invited" && (
        <div className="line-share">
          <label htmlFor={`${id}-link`}>{lineText.shareLabel}</label>
          <div className="line-share-row">
            <input
              id={`${id}-link`}
              type="url"
              readOnly
              value={link}
              aria-describedby={`${id}-hint`}
              onFocus={(event) => {
                event.currentTarget.select();
              }}
            />
            <button
              type="button"
              className="button button-secondary"
              onClick={() => void copyLink()}
            >
              {lineText.copy}
            </button>
            {canShare && (
              <button type="button" className="button button-secondary" onClick={share}>
                {lineText.share}
              </button>
            )}
          </div>
          <p id={`${id}-hint`} className="link-note">
            {lineText.shareHint(line.placesPerReferral)}
          </p>
          <p className="line-copied" aria-live="polite">
            {copy === "copied" ? lineText.copied : copy === "failed" ? lineText.copyFailed : ""}
          </p>
        </div>
      )}
      <p>{lineText.friends(line.joined, line.confirmed)}</p>
    </section>
  );
}
