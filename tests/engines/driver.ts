// WebDriver sessions in the engines Playwright cannot drive from Debian's packages:
// Firefox ESR through geckodriver (with WebDriver BiDi), and WebKitGTK (Safari's engine)
// through WebKitWebDriver, in a virtual X display. The paths come from the environment
// the Makefile sets, with Debian's defaults.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Builder, type WebDriver } from "selenium-webdriver";
import firefox from "selenium-webdriver/firefox.js";
import { said } from "../said";

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
  // Ports the system picks, for the driver and for BiDi: geckodriver says which it got.
  const server = spawn(geckodriver, ["--port", "0", "--websocket-port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const listening = await said(server, /Listening on 127\.0\.0\.1:\d+/, "geckodriver");
  const address = /Listening on (127\.0\.0\.1:\d+)/.exec(listening)?.[1] ?? "";
  const driver = await new Builder()
    .usingServer(`http://${address}`)
    .forBrowser("firefox")
    .setFirefoxOptions(options)
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
    async close() {
      await driver.quit();
      server.kill();
    },
  };
}

async function startWebKit(): Promise<Session> {
  const children: ChildProcess[] = [];
  const display = env.DISPLAY ?? (await startXvfb(children));
  // A port the system picks; WebKitWebDriver does not say which, its sockets do.
  const server = spawn(webkitDriver, ["--port=0"], {
    env: { ...env, DISPLAY: display },
    stdio: "ignore",
  });
  children.push(server);
  const port = await listeningPort(server);
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

/**
 * The loopback port `child` listens on, read from the kernel's tables: its sockets'
 * inodes (/proc/PID/fd) among the listening TCP sockets (/proc/net/tcp), read again
 * every 20 ms until it has one (it binds as it starts); fails when it exits first. No
 * port is chosen for it, so none can be taken by another process meanwhile.
 */
async function listeningPort(child: ChildProcess): Promise<number> {
  const pid = child.pid;
  if (pid === undefined) throw new Error("WebKitWebDriver did not start");
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`WebKitWebDriver exited (${String(child.exitCode)})`);
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${String(pid)}/fd`)) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${String(pid)}/fd/${fd}`));
        if (socket?.[1]) inodes.add(socket[1]);
      } catch {
        // Closed between the listing and the read.
      }
    }
    for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      // 0A: LISTEN; the address is hex, "0100007F:PORT" for 127.0.0.1.
      if (state === "0A" && inode && inodes.has(inode) && local) {
        return parseInt(local.split(":")[1] ?? "0", 16);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
