import { act, renderHook } from "@testing-library/react";
import { refuseStorage, setMedia } from "../test-setup";
import { savedTheme, useTheme } from "./useTheme";

const DARK = "(prefers-color-scheme: dark)";

describe("useTheme", () => {
  it("follows the system when nothing is saved, without saving anything", () => {
    setMedia(DARK, true);
    const { result } = renderHook(() => useTheme());
    expect(result.current.theme).toBe("dark");
    expect(localStorage.getItem("theme")).toBeNull();
  });

  it("toggles, applies to <html> and saves under 'theme'", () => {
    const { result } = renderHook(() => useTheme());
    expect(result.current.theme).toBe("light");
    act(() => {
      result.current.toggle();
    });
    expect(result.current.theme).toBe("dark");
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(document.documentElement.style.colorScheme).toBe("dark");
    expect(localStorage.getItem("theme")).toBe("dark");
    act(() => {
      result.current.toggle();
    });
    expect(localStorage.getItem("theme")).toBe("light");
  });

  it("reads only 'light' or 'dark' from storage", () => {
    localStorage.setItem("theme", "dark");
    expect(savedTheme()).toBe("dark");
    localStorage.setItem("theme", "Dark");
    expect(savedTheme()).toBeNull();
    localStorage.setItem("theme", "");
    expect(savedTheme()).toBeNull();
  });

  it("keeps working when storage throws", () => {
    refuseStorage("SecurityError");
    setMedia(DARK, true);
    const { result } = renderHook(() => useTheme());
    expect(savedTheme()).toBeNull();
    expect(result.current.theme).toBe("dark");
    act(() => {
      result.current.toggle();
    });
    expect(result.current.theme).toBe("light");
  });
});

// Module state (the visitor's choice this visit) starts fresh for this file's last test.
describe("useTheme and the system preference", () => {
  it("follows changes live until the visitor toggles, then keeps their choice", async () => {
    vi.resetModules();
    const { useTheme: fresh } = await import("./useTheme");
    const { result } = renderHook(() => fresh());
    act(() => {
      setMedia(DARK, true);
    });
    expect(result.current.theme).toBe("dark");
    act(() => {
      setMedia(DARK, false);
    });
    expect(result.current.theme).toBe("light");
    act(() => {
      result.current.toggle();
    });
    act(() => {
      setMedia(DARK, false);
      setMedia(DARK, true);
      setMedia(DARK, false);
    });
    expect(result.current.theme).toBe("dark");
  });
});
