import { useEffect, useEffectEvent } from "react";
import type { FormValues, Phase } from "../core";
import { clearDraft, loadDraft, saveDraft } from "./formDraft";

/** The draft is written this long after typing pauses, and on leaving the page. */
const DRAFT_SAVE_DELAY_MS = 300;

/**
 * Keeps a draft of the form in this tab, so a refresh loses nothing typed: restored after
 * hydration (the server has no sessionStorage, so the first render must match its HTML),
 * saved while idle and while a submit is under way (it may fail), on pauses in typing
 * and on leaving the page; the thank-you panel clears it (the reset empties the form).
 */
export function useFormDraft(
  values: FormValues,
  phase: Phase,
  restore: (draft: FormValues) => void,
) {
  const restoreOnce = useEffectEvent(restore);
  useEffect(() => {
    const draft = loadDraft();
    if (draft) restoreOnce(draft);
  }, []);

  useEffect(() => {
    if (phase === "submitted") {
      clearDraft();
      return;
    }
    if (phase !== "idle") return;
    const timer = setTimeout(() => {
      saveDraft(values);
    }, DRAFT_SAVE_DELAY_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [values, phase]);

  const saveNow = useEffectEvent(() => {
    if (phase === "idle") saveDraft(values);
  });
  useEffect(() => {
    const onLeave = () => {
      saveNow();
    };
    addEventListener("pagehide", onLeave);
    return () => {
      removeEventListener("pagehide", onLeave);
    };
  }, []);
}
