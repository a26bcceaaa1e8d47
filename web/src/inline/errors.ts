// Part of the pre-paint script, so it is the first code on every page: every error the
// page meets, kept in memory for diagnosis and never sent anywhere. Uncaught errors,
// rejected promises, Content-Security-Policy violations and console.error calls, as short
// lines in `window.latheErrors` (at most 50). Browsers whose console a WebDriver client
// cannot read (WebKitGTK) are tested through it.

declare global {
  interface Window {
    latheErrors?: string[];
  }
}

const MAX_RECORDED = 50;
const errors: string[] = [];
window.latheErrors = errors;

function record(line: string) {
  if (errors.length < MAX_RECORDED) errors.push(line);
}

addEventListener("error", (event) => {
  record(`error: ${event.message}`);
});
addEventListener("unhandledrejection", (event) => {
  record(`unhandled rejection: ${String(event.reason)}`);
});
document.addEventListener("securitypolicyviolation", (event) => {
  record(`csp: ${event.violatedDirective} ${event.blockedURI}`);
});
const consoleError = console.error.bind(console);
console.error = (...args: unknown[]) => {
  record(`console.error: ${args.map(String).join(" ")}`);
  consoleError(...args);
};

export {};
