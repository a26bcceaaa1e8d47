import { useEffect, useState } from "react";
import { type Core, loadCore } from "../core";

export type CoreStatus =
  | { readonly state: "loading" }
  | { readonly state: "ready"; readonly core: Core }
  | { readonly state: "failed"; readonly error: unknown };

/** The wasm core: loading, ready, or failed to load (the page must still work). */
export function useCore(): CoreStatus {
  const [status, setStatus] = useState<CoreStatus>({ state: "loading" });
  useEffect(() => {
    let live = true;
    loadCore().then(
      (core) => {
        if (live) setStatus({ state: "ready", core });
      },
      (error: unknown) => {
        if (live) setStatus({ state: "failed", error });
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return status;
}
