// WebDriver sessions in the engines Playwright cannot drive from Debian's packages:
// Firefox ESR through geckodriver (with WebDriver BiDi), and WebKitGTK (Safari's engine)
// through WebKitWebDriver, in a virtual X display. The paths come from the environment
// the Makefile sets, with Debian's defaults.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { Builder, type WebDriver } from "selenium-webdriver";
import firefox from "selenium-webdriver/firefox.js";

export type Engine = "firefox" | "webkit";

export interface Session {
  readonly driver: WebDriver;
  /** Sets the viewport's CSS width (and height), as closely as the engine allows. */
  readonly resize: (width: number, height: number) => Promise<void>;
  readonly close: () => Promise<void>;
}

const env = process.env;
const firefoxBinary = env.FIREFOX ?? "/usr/bin/firefox-esr";
const geckodriver = env.GECKODRIVER ?? join(homedir(), ".cargo", "bin", "geckodriver");
const webkitDriver = env.WEBKIT_WEBDRIVER ?? "/usr/bin/WebKitWebDriver";
const miniBrowser = env.MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

export async function startSession(engine: Engine): Promise<Session> {
  return engine === "firefox" ? startFirefox() : startWebKit();
}

async function startFirefox(): Promise<Session> {
  const options = new firefox.Options().setBinary(firefoxBinary).addArguments("-headless");
  options.windowSize({ width: 1280, height: 900 });
  options.enableBidi();
  const driver = await new Builder()
    .forBrowser("firefox")
    .setFirefoxOptions(options)
    .setFirefoxService(new firefox.ServiceBuilder(geckodriver))
    .build();
  return {
    driver,
    async resize(width, height) {
      // Firefox windows do not shrink below ~500 px: set the viewport itself (BiDi).
      const { default: browsingContext } =
        await import("selenium-webdriver/bidi/browsingContext.js");
      const context = await browsingContext(driver, {
        browsingContextId: await driver.getWindowHandle(),
      });
      await context.setViewport(width, height);
    },
    close: () => driver.quit(),
  };
}

async function startWebKit(): Promise<Session> {
  const children: ChildProcess[] = [];
  const display = env.DISPLAY ?? (await startXvfb(children));
  const port = await freePort();
  const server = spawn(webkitDriver, [`--port=${String(port)}`], {
    env: { ...env, DISPLAY: display },
    stdio: "ignore",
  });
  children.push(server);
  await waitForPort(port);
  const driver = await new Builder()
    .usingServer(`http://127.0.0.1:${String(port)}`)
    .withCapabilities({
      browserName: "MiniBrowser",
      "webkitgtk:browserOptions": { binary: miniBrowser, args: ["--automation"] },
    })
    .build();
  await driver.manage().window().setRect({ width: 1280, height: 900 });
  return {
    driver,
    async resize(width, height) {
      // WebKitGTK windows stop shrinking at ~450 px; the test reads the width it got.
      await driver.manage().window().setRect({ width, height });
    },
    async close() {
      await driver.quit();
      for (const child of children) child.kill();
    },
  };
}

/** A virtual X display for WebKitGTK, which has no headless mode. */
function startXvfb(children: ChildProcess[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const xvfb = spawn(
      "Xvfb",
      ["-displayfd", "3", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
      {
        stdio: ["ignore", "ignore", "ignore", "pipe"],
      },
    );
    children.push(xvfb);
    xvfb.on("error", reject);
    xvfb.stdio[3]?.once("data", (data: Buffer) => {
      resolve(`:${data.toString().trim()}`);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
    server.on("error", reject);
  });
}

async function waitForPort(port: number) {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await fetch(`http://127.0.0.1:${String(port)}/status`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`WebKitWebDriver did not start on port ${String(port)}`);
}
