import { demo } from "../content/demo";
import { timeline, timelineCss } from "./timeline";

describe("the demo's timeline", () => {
  it("puts every beat in order, the code before the preview and the preview before the end", () => {
    const beats = timeline();
    const at = (name: string) => beats.find((b) => b.name === name)?.at;
    expect(beats.map((b) => b.at)).toEqual([...beats.map((b) => b.at)].sort((a, b) => a - b));
    expect(at("sent")).toBe(demo.prompt.at + demo.prompt.typing);
    const lastLine = at(`code-${String(demo.code.lines.length - 1)}`) ?? Infinity;
    expect(lastLine).toBeLessThan(at("preview") ?? 0);
    expect(at("preview")).toBeLessThan(at("done") ?? 0);
    expect(new Set(beats.map((b) => b.name)).size).toBe(beats.length);
  });

  it("becomes one CSS rule a beat, with the prompt's typing", () => {
    const css = timelineCss();
    expect(css).toContain(`.demo [data-beat="typing"] { --at: ${demo.prompt.at.toFixed(2)}s; }`);
    expect(css).toContain(`--chars: ${String(demo.prompt.text.length)};`);
    expect(css.match(/--at:/g)).toHaveLength(timeline().length);
  });
});
