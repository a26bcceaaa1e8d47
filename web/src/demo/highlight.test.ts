import { highlight } from "./highlight";

describe("the demo's code colouring", () => {
  it("marks keywords, strings and components, and keeps every character", () => {
    const line = '  if (!data.user) return <SignIn provider="supabase" />;';
    const tokens = highlight(line);
    expect(tokens.map((t) => t.text).join("")).toBe(line);
    expect(tokens.filter((t) => t.kind === "keyword").map((t) => t.text)).toEqual(["if", "return"]);
    expect(tokens.filter((t) => t.kind === "string").map((t) => t.text)).toEqual(['"supabase"']);
    expect(tokens.filter((t) => t.kind === "tag").map((t) => t.text)).toEqual(["<SignIn"]);
  });

  it("leaves an empty line empty", () => {
    expect(highlight("")).toEqual([]);
  });
});
