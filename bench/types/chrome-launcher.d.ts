// The part of chrome-launcher's API that bench/run.mjs uses (see lighthouse.d.ts for why
// it is declared here).

/** A Chrome started for Lighthouse. */
export interface LaunchedChrome {
  port: number;
  kill(): Promise<void>;
}

/** Starts Chrome with its remote debugging port open. */
export function launch(options: {
  chromePath?: string;
  chromeFlags?: string[];
}): Promise<LaunchedChrome>;
