import { fontFromNote, fontNote } from "./fontNote";

describe("the web font's copy in local storage", () => {
  // Every byte value, and more than one slice of String.fromCharCode's arguments.
  const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7 + (i >> 8)) % 256);

  it("gives back the very bytes it was made from", () => {
    const note = fontNote("geist-latin-5.3.0", bytes.buffer);
    expect(note.startsWith("geist-latin-5.3.0,")).toBe(true);
    expect(fontFromNote(note, "geist-latin-5.3.0")).toEqual(bytes);
  });

  it("is not taken for another font, nor from nothing", () => {
    const note = fontNote("geist-latin-5.2.0", bytes.buffer);
    expect(fontFromNote(note, "geist-latin-5.3.0")).toBeNull();
    expect(fontFromNote(note, "geist-latin-5.2")).toBeNull();
    expect(fontFromNote(null, "geist-latin-5.3.0")).toBeNull();
    // The note of the site before it kept a copy: the id alone.
    expect(fontFromNote("geist-latin-5.3.0", "geist-latin-5.3.0")).toBeNull();
  });

  it("refuses a copy that is not base64", () => {
    expect(() => fontFromNote("geist-latin-5.3.0,not base64!", "geist-latin-5.3.0")).toThrow();
  });
});

describe("the copy read with the browser's own base64 decoder", () => {
  const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 13) % 256);
  const note = fontNote("geist-latin-5.3.0", bytes.buffer);
  const native = Uint8Array as unknown as {
    fromBase64?: ((base64: string) => Uint8Array) | undefined;
  };
  const own = native.fromBase64;

  afterEach(() => {
    native.fromBase64 = own;
  });

  it("uses it where the browser has it, with the same bytes as without", () => {
    const decoded: string[] = [];
    native.fromBase64 = (base64) => {
      decoded.push(base64);
      return new Uint8Array(Buffer.from(base64, "base64"));
    };
    expect(fontFromNote(note, "geist-latin-5.3.0")).toEqual(bytes);
    expect(decoded).toEqual([note.slice("geist-latin-5.3.0,".length)]);
    native.fromBase64 = undefined;
    expect(fontFromNote(note, "geist-latin-5.3.0")).toEqual(bytes);
  });
});
