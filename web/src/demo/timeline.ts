import { demo } from "../content/demo.ts";

/** One part of the demo and when it appears, in seconds from the first paint. */
export interface Beat {
  readonly name: string;
  readonly at: number;
}

/** The moment the prompt has been typed and is sent. */
export const sentAt = demo.prompt.at + demo.prompt.typing;

export const codeBeat = (line: number) => `code-${String(line)}`;
export const stepBeat = (step: number) => `step-${String(step)}`;

/** Every beat of the demo's script (content/demo.ts), in order of appearance. */
export function timeline(): Beat[] {
  const beats: Beat[] = [
    { name: "typing", at: demo.prompt.at },
    { name: "sent", at: sentAt },
    { name: "reply", at: demo.reply.at },
    ...demo.steps.map((step, i) => ({ name: stepBeat(i), at: step.at })),
    ...demo.code.lines.map((_, i) => ({
      name: codeBeat(i),
      at: demo.code.at + i * demo.code.every,
    })),
    { name: "preview", at: demo.preview.at },
    { name: "done", at: demo.done.at },
  ];
  return beats.sort((a, b) => a.at - b.at);
}

/**
 * The script as CSS: each beat's start as `--at` on the element that carries it
 * (`data-beat`), and the prompt's typing. Built into the site's CSS (vite.config.ts),
 * so the demo plays from the first paint, with no script, and under the CSP.
 */
export function timelineCss(): string {
  const rules = timeline().map(
    ({ name, at }) => `.demo [data-beat="${name}"] { --at: ${at.toFixed(2)}s; }`,
  );
  rules.push(
    `.demo [data-beat="typing"] { --typing: ${demo.prompt.typing.toFixed(2)}s; --chars: ${String(demo.prompt.text.length)}; }`,
  );
  return `${rules.join("\n")}\n`;
}
