import { constants } from "../core";
import { refuseStorage } from "../test-setup";
import { clearDraft, loadDraft, saveDraft } from "./formDraft";

const KEY = "lathe:waitlist-draft";
const typed = { ...constants.form.initial.values, name: "Ada", message: "שלום 😀\n".repeat(3) };

describe("the form draft", () => {
  it("round-trips what was typed, and an empty form removes it", () => {
    saveDraft(typed);
    expect(loadDraft()).toEqual(typed);
    saveDraft(constants.form.initial.values);
    expect(sessionStorage.getItem(KEY)).toBeNull();
    expect(loadDraft()).toBeNull();
  });

  it("takes what is sound from a damaged draft and ignores the rest", () => {
    sessionStorage.setItem(KEY, JSON.stringify({ name: "Ada", email: 42, interest: "sales" }));
    expect(loadDraft()).toEqual({ ...constants.form.initial.values, name: "Ada" });
    for (const garbage of ["{", "null", "[]", '"text"', "42", JSON.stringify({ email: {} })]) {
      sessionStorage.setItem(KEY, garbage);
      expect(loadDraft()).toBeNull();
    }
  });

  it("never throws when storage does", () => {
    refuseStorage("QuotaExceededError");
    expect(loadDraft()).toBeNull();
    expect(() => {
      saveDraft(typed);
      saveDraft(constants.form.initial.values);
      clearDraft();
    }).not.toThrow();
  });
});
