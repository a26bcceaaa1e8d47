import { render, screen } from "@testing-library/react";
import { demo } from "../content/demo";
import { timeline } from "../demo/timeline";
import { MotionContext } from "../hooks/motion";
import { ProductDemo } from "./ProductDemo";

function renderDemo(paused: boolean) {
  return render(
    <MotionContext value={{ paused, setPaused: () => undefined }}>
      <ProductDemo />
    </MotionContext>,
  );
}

describe("the product demo", () => {
  it("is hidden from assistive technology, with its caption as the text alternative", () => {
    renderDemo(false);
    const figure = screen.getByRole("figure");
    expect(figure.querySelector("figcaption")).toHaveTextContent(demo.caption);
    expect(figure.querySelector(".demo-window")).toHaveAttribute("aria-hidden", "true");
    // Nothing in it can take focus or be read out.
    expect(screen.queryAllByRole("listitem")).toHaveLength(0);
  });

  it("carries every beat of its script, once each where the CSS gives it a start", () => {
    const { container } = renderDemo(false);
    for (const { name } of timeline()) {
      expect(container.querySelector(`[data-beat="${name}"]`), name).not.toBeNull();
    }
    const named = new Set(
      [...container.querySelectorAll("[data-beat]")].map((e) => e.getAttribute("data-beat")),
    );
    expect([...named].sort()).toEqual(
      timeline()
        .map((b) => b.name)
        .sort(),
    );
  });

  it("shows the whole conversation, its code and the app", () => {
    const { container } = renderDemo(false);
    const text = container.textContent;
    for (const part of [
      demo.prompt.text,
      demo.reply.text,
      ...demo.steps.map((s) => s.text),
      ...demo.code.lines.filter(Boolean),
      demo.preview.heading,
      demo.done.text,
    ])
      expect(text).toContain(part);
  });

  it("pauses with the page's pause control", () => {
    const figure = (paused: boolean) => {
      const { container, unmount } = renderDemo(paused);
      const attribute = container.querySelector("figure")?.hasAttribute("data-paused");
      unmount();
      return attribute;
    };
    expect(figure(false)).toBe(false);
    expect(figure(true)).toBe(true);
  });
});
