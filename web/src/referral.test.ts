import { keepReferral, keptReferral } from "./referral";

/** A location and a history for `href`, the history recording what it is told. */
function at(href: string) {
  const replaced: string[] = [];
  const location = { href } as Location;
  const history = {
    state: { from: "router" },
    replaceState: (_state: unknown, _unused: string, url: string) => {
      replaced.push(url);
    },
  } as unknown as History;
  return { location, history, replaced };
}

afterEach(() => {
  sessionStorage.clear();
});

describe("keepReferral", () => {
  it("keeps the code for the visit and takes it out of the address bar", () => {
    const { location, history, replaced } = at(
      "https://lathe.example.com/contact?ref=AbC-_09xyzQW&utm=x#form",
    );
    keepReferral(location, history);
    expect(keptReferral()).toBe("AbC-_09xyzQW");
    expect(replaced).toEqual(["/contact?utm=x#form"]);
  });

  it("keeps the latest link followed", () => {
    sessionStorage.setItem("lathe:ref", "older-code-1");
    const { location, history } = at("https://lathe.example.com/?ref=newer-code-2");
    keepReferral(location, history);
    expect(keptReferral()).toBe("newer-code-2");
  });

  it("leaves a page without one alone, and keeps nothing empty or oversized", () => {
    const plain = at("https://lathe.example.com/gdpr");
    keepReferral(plain.location, plain.history);
    expect(plain.replaced).toEqual([]);
    for (const ref of ["", "x".repeat(65)]) {
      const { location, history, replaced } = at(`https://lathe.example.com/?ref=${ref}`);
      keepReferral(location, history);
      expect(keptReferral()).toBeNull();
      expect(replaced).toEqual(["/"]);
    }
  });

  it("goes on without it where storage throws", () => {
    const { location, history, replaced } = at("https://lathe.example.com/?ref=AbC-_09xyzQW");
    const setItem = vi.spyOn(Storage.prototype, "setItem").mockImplementation(() => {
      throw new DOMException("denied", "SecurityError");
    });
    expect(() => {
      keepReferral(location, history);
    }).not.toThrow();
    expect(replaced).toEqual(["/"]);
    setItem.mockRestore();
  });
});
