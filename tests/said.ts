import type { ChildProcess } from "node:child_process";

/**
 * What a program started by a test says: resolves with what it printed to standard output
 * once that matches `ready`, or fails when it exits first. How a test learns where a
 * program listens (it binds port 0 and prints the port it was given) and that it does.
 */
export function said(child: ChildProcess, ready: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (ready.test(text)) resolve(text);
    });
    child.once("exit", (code) => {
      reject(new Error(`${what} exited (${String(code)}) before it was ready: ${text}`));
    });
  });
}
