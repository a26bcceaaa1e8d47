/** A token of a code line: its kind decides its colour. */
export interface Token {
  readonly kind: "keyword" | "string" | "tag" | "text";
  readonly text: string;
}

const pattern =
  /("[^"]*")|\b(export|default|async|function|const|await|return|if)\b|(<\/?[A-Z]\w*)/g;

/** Splits a line of the demo's TypeScript into coloured tokens; nothing is lost. */
export function highlight(line: string): Token[] {
  const tokens: Token[] = [];
  let last = 0;
  for (const match of line.matchAll(pattern)) {
    const [text, string, keyword] = match;
    if (match.index > last) tokens.push({ kind: "text", text: line.slice(last, match.index) });
    tokens.push({ kind: string ? "string" : keyword ? "keyword" : "tag", text });
    last = match.index + text.length;
  }
  if (last < line.length) tokens.push({ kind: "text", text: line.slice(last) });
  return tokens;
}
