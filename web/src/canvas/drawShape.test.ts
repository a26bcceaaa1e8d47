import { fadeAt } from "./drawShape";

describe("fading shapes behind the text column", () => {
  const fade = { left: 100, right: 900, edge: 64, strength: 0.4 };

  it("is full strength beside the column and faded inside it", () => {
    expect(fadeAt(fade, 0)).toBe(1);
    expect(fadeAt(fade, 100 - 32)).toBe(1);
    expect(fadeAt(fade, 100 + 32)).toBe(0.4);
    expect(fadeAt(fade, 500)).toBe(0.4);
    expect(fadeAt(fade, 900 - 32)).toBe(0.4);
    expect(fadeAt(fade, 900 + 32)).toBe(1);
    expect(fadeAt(fade, 2000)).toBe(1);
  });

  it("eases across the column's edges, with no step", () => {
    expect(fadeAt(fade, 100)).toBeCloseTo(0.7);
    expect(fadeAt(fade, 900)).toBeCloseTo(0.7);
    for (let x = 0; x < 1000; x += 1)
      expect(Math.abs(fadeAt(fade, x + 1) - fadeAt(fade, x))).toBeLessThan(0.01);
  });

  it("is full strength everywhere without a column", () => {
    expect(fadeAt(undefined, 500)).toBe(1);
  });
});
