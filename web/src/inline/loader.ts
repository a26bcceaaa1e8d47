// Inlined at the end of every built page's <body> (see vite.config.ts), in place of the
// app's <script type="module">: it imports the app once the browser reports the first
// contentful paint, so the app's files never compete with the page for a slow phone's
// first bytes. At once in a hidden tab (no paint will come) or where paint timing is
// missing; after 2 s at the latest, should a browser list paint timing and never report
// it. It needs no timer or animation frame to run, so a paused test clock still loads
// the page. The build replaces the two constants below.

/** The app's entry module. */
declare const __APP_ENTRY__: string;
/** Every module the app needs to start, to ask for at once. */
declare const __APP_PRELOADS__: readonly string[];

/** The latest the app waits for a first paint, in ms. */
const PAINT_WAIT_LIMIT_MS = 2000;

let started = false;
function load() {
  if (started) return;
  started = true;
  for (const href of __APP_PRELOADS__) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    document.head.appendChild(link);
  }
  void import(/* @vite-ignore */ __APP_ENTRY__);
}

const paintTiming =
  typeof PerformanceObserver !== "undefined" &&
  PerformanceObserver.supportedEntryTypes.includes("paint");
if (!paintTiming || document.visibilityState === "hidden") {
  load();
} else {
  new PerformanceObserver((list) => {
    if (list.getEntriesByName("first-contentful-paint").length > 0) load();
  }).observe({ type: "paint", buffered: true });
  document.addEventListener("visibilitychange", load);
  setTimeout(load, PAINT_WAIT_LIMIT_MS);
}
