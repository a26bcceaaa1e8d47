import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "./App";

/** The app at `path`, as the browser opens it (jsdom's own history and location). */
function renderAt(path: string) {
  window.history.replaceState(null, "", path);
  return render(<App />);
}

describe("App routes", () => {
  it.each([
    ["/", "Chat with AI to Build Apps", "Lathe: Chat with AI to Build Apps"],
    ["/contact", "Get Early Access", "Get Early Access | Lathe"],
    ["/gdpr", "GDPR Compliance Policy", "GDPR Compliance Policy | Lathe"],
    ["/terms", "Terms of Service", "Terms of Service | Lathe"],
    ["/nowhere", "Page not found", "Page not found | Lathe"],
  ])("%s shows %s", async (path, heading, title) => {
    renderAt(path);
    // The legal pages load lazily: wait for the heading rather than assume it is there.
    expect(await screen.findByRole("heading", { level: 1 })).toHaveTextContent(heading);
    // The title is set by an effect once the page has rendered.
    await waitFor(() => {
      expect(document.title).toBe(title);
    });
    expect(screen.getByRole("link", { name: "Skip to main content" })).toHaveAttribute(
      "href",
      "#main",
    );
    expect(document.querySelector("canvas")).toHaveAttribute("aria-hidden", "true");
  });

  it("the landing page has its buttons and six cards of three lines", () => {
    renderAt("/");
    const access = within(screen.getByRole("main")).getAllByRole("link", {
      name: "Get Early Access",
    });
    expect(access).toHaveLength(2);
    for (const link of access) expect(link).toHaveAttribute("href", "/contact");
    expect(screen.getByRole("link", { name: "Learn More" })).toHaveAttribute("href", "#features");
    expect(screen.getByRole("button", { name: "Join Community" })).toHaveAttribute(
      "type",
      "button",
    );
    const cards = document.querySelectorAll("#features article");
    expect(cards).toHaveLength(6);
    for (const card of cards)
      expect(within(card as HTMLElement).getAllByRole("listitem")).toHaveLength(3);
  });

  // That clicking Support goes nowhere is the pre-paint script's doing (src/inline/theme.ts): tests/site.spec.ts checks it.
  it("the footer links where the spec says, and Support to nowhere", async () => {
    renderAt("/");
    const footer = screen.getByRole("contentinfo");
    const href = (name: string) => within(footer).getByRole("link", { name }).getAttribute("href");
    expect(href("GDPR Compliance")).toBe("/gdpr");
    expect(href("Privacy Policy")).toBe("/gdpr");
    expect(href("Terms of Service")).toBe("/terms");
    expect(href("Contact")).toBe("/contact");
    expect(href("Support")).toBe("#");
    expect(
      await within(footer).findByRole("button", { name: "Switch to dark theme" }),
    ).toBeEnabled();
  });

  it("navigating moves focus to the new page", async () => {
    renderAt("/");
    const [first] = screen.getAllByRole("link", { name: "Get Early Access" });
    if (!first) throw new Error("no Get Early Access link");
    await userEvent.click(first);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Get Early Access");
    expect(screen.getByRole("main")).toHaveFocus();
  });

  it("the contact page has five questions with answers, and a form that becomes ready", async () => {
    renderAt("/contact");
    const items = document.querySelectorAll("#faq details");
    expect(items).toHaveLength(5);
    for (const item of items) {
      expect(item.querySelector("summary")?.textContent).toMatch(/\?$/);
      expect(item.querySelector("p")?.textContent.length).toBeGreaterThan(20);
    }
    const submit = screen.getByRole("button", { name: "Request Early Access" });
    expect(submit).toBeDisabled();
    await waitFor(() => {
      expect(submit).toBeEnabled();
    });
  });
});
