import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Router } from "wouter";
import { Header } from "./Header";

function renderHeader(path = "/") {
  window.history.replaceState(null, "", path);
  return render(
    <Router>
      <Header />
    </Router>,
  );
}

describe("the header", () => {
  it("links to the features, the FAQ and contact, and to the waitlist", () => {
    renderHeader();
    const nav = screen.getByRole("navigation", { name: "Main" });
    const links = within(nav).getAllByRole("link");
    expect(links.map((l) => [l.textContent, l.getAttribute("href")])).toEqual([
      ["Features", "/#features"],
      ["FAQ", "/contact#faq"],
      ["Contact", "/contact"],
    ]);
    expect(screen.getByRole("link", { name: "Get Early Access" })).toHaveAttribute(
      "href",
      "/contact",
    );
    expect(screen.getByRole("link", { name: "Lathe home" })).toHaveAttribute("href", "/");
  });

  // Opening by Enter and Space is the browser's own <summary> behaviour: the end-to-end
  // tests (tests/site.spec.ts) press them in a real browser.
  it("marks the link to the page shown, and only that one", () => {
    renderHeader("/contact");
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "Contact" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    for (const name of ["Features", "FAQ"])
      expect(within(nav).getByRole("link", { name })).not.toHaveAttribute("aria-current");
  });

  it("has a menu that closes with Escape, focus back on its button", async () => {
    const user = userEvent.setup();
    renderHeader();
    const details = document.querySelector("details.menu") as HTMLDetailsElement;
    const summary = within(details).getByText("Menu").closest("summary") as HTMLElement;
    await user.click(summary);
    expect(details.open).toBe(true);
    const menu = within(details).getByRole("navigation", { name: "Menu" });
    await user.tab();
    expect(within(menu).getByRole("link", { name: "Features" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(details.open).toBe(false);
    expect(summary).toHaveFocus();
  });

  it("closes its menu when a link in it is followed, or on a click elsewhere", async () => {
    const user = userEvent.setup();
    renderHeader();
    const details = document.querySelector("details.menu") as HTMLDetailsElement;
    details.open = true;
    await user.click(within(details).getByRole("link", { name: "Contact" }));
    expect(details.open).toBe(false);
    expect(window.location.pathname).toBe("/contact");
    details.open = true;
    await user.click(document.body);
    expect(details.open).toBe(false);
  });
});
