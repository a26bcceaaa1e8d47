import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderToString } from "react-dom/server";
import { type Core, loadCore } from "../core";
import { WaitlistForm } from "./WaitlistForm";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

afterEach(() => {
  vi.useRealTimers();
});

function setup(
  props: { core: Core | null; unavailable?: boolean; endpoint?: string } = { core: null },
) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
  // No delays between keystrokes: the only timers running are the form's own.
  const user = userEvent.setup({ delay: null });
  // The privacy notice links to the policy (the router reads jsdom's location).
  const view = render(
    <WaitlistForm
      core={props.core}
      unavailable={props.unavailable ?? false}
      endpoint={props.endpoint ?? null}
    />,
  );
  return { user, ...view };
}

/** Moves the fake clock (timers and performance.now) on, letting React render. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

const field = (name: RegExp) => screen.getByLabelText(name);
const submitButton = () => screen.getByRole("button", { name: /Request Early Access|Submitting/ });

async function fillValid(user: ReturnType<typeof userEvent.setup>) {
  await user.type(field(/Full name/), "Ada Lovelace");
  await user.type(field(/Email address/), "ada@example.com");
  await user.type(field(/^Message/), "An app for my bakery.");
}

describe("WaitlistForm", () => {
  // The spec's fields, marks and defaults: on the built page, tests/form.spec.ts.

  it("shows the core's three messages beneath their fields and focuses the first", async () => {
    const { user } = setup({ core });
    await user.click(submitButton());
    const expected = [
      [/Full name/, "Full name is required"],
      [/Email address/, "Email address is required"],
      [/^Message/, "Message is required"],
    ] as const;
    for (const [label, message] of expected) {
      const input = field(label);
      expect(input).toHaveAttribute("aria-invalid", "true");
      expect(input).toHaveAccessibleDescription(expect.stringContaining(message));
      const errorId = input.getAttribute("aria-describedby")?.split(" ").at(-1) ?? "";
      expect(document.getElementById(errorId)).toHaveTextContent(message);
    }
    expect(field(/Company/)).not.toHaveAttribute("aria-invalid");
    expect(field(/Full name/)).toHaveFocus();
  });

  it("says when an email address is not valid, and keeps what was typed", async () => {
    const { user } = setup({ core });
    await user.type(field(/Full name/), "Ada");
    await user.type(field(/Email address/), "ada@example");
    await user.type(field(/^Message/), "Hello");
    await user.click(submitButton());
    expect(screen.getByText("Please enter a valid email address")).toBeInTheDocument();
    expect(screen.queryByText("Full name is required")).not.toBeInTheDocument();
    expect(field(/Email address/)).toHaveFocus();
    expect(field(/Email address/)).toHaveValue("ada@example");
    expect(field(/^Message/)).toHaveValue("Hello");
  });

  it("submits for exactly 2000 ms, thanks for exactly 5000 ms, then resets", async () => {
    const { user } = setup({ core });
    await user.click(submitButton());
    await fillValid(user);
    await user.selectOptions(field(/interested in/), "developer");
    await user.click(submitButton());

    expect(submitButton()).toHaveTextContent("Submitting...");
    expect(submitButton()).toBeDisabled();
    expect(screen.queryByText("Full name is required")).not.toBeInTheDocument();

    await advance(1999);
    expect(submitButton()).toHaveTextContent("Submitting...");
    await advance(1);
    const status = screen.getByRole("status");
    expect(within(status).getByRole("heading", { name: "Thank you!" })).toHaveFocus();
    expect(screen.queryByRole("button")).not.toBeInTheDocument();

    await advance(4999);
    expect(within(status).getByText("Thank you!")).toBeInTheDocument();
    await advance(1);
    expect(within(status).queryByText("Thank you!")).not.toBeInTheDocument();
    expect(field(/Full name/)).toHaveValue("");
    expect(field(/Email address/)).toHaveValue("");
    expect(field(/^Message/)).toHaveValue("");
    expect(field(/interested in/)).toHaveValue("general");
    expect(submitButton()).toHaveTextContent("Request Early Access");
    expect(submitButton()).toBeEnabled();
    expect(field(/Full name/)).toHaveFocus();
  });

  it("keeps what was typed before the core was ready", async () => {
    const { user, rerender } = setup({ core: null });
    await user.type(field(/Full name/), "Ada");
    await user.selectOptions(field(/interested in/), "press");
    rerender(<WaitlistForm core={core} unavailable={false} />);
    await user.type(field(/Email address/), "ada@example.com");
    await user.type(field(/^Message/), "Hi");
    await user.click(submitButton());
    expect(submitButton()).toHaveTextContent("Submitting...");
  });

  it("says where to write instead when the core cannot load, keeping the text", async () => {
    const { user } = setup({ core: null, unavailable: true });
    await user.type(field(/^Message/), "Please keep this");
    await user.click(submitButton());
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent(
      "The form can't be sent right now. Everything you typed is still here: please copy it and email us at hello@example.com.",
    );
    expect(alert).toHaveFocus();
    expect(field(/^Message/)).toHaveValue("Please keep this");
  });

  it("cannot be submitted while the core is loading", () => {
    const { rerender } = setup({ core: null });
    expect(submitButton()).toBeDisabled();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    rerender(<WaitlistForm core={core} unavailable={false} />);
    expect(submitButton()).toBeEnabled();
  });

  it("adopts what was typed into the prerendered form before it hydrated", async () => {
    const container = document.createElement("div");
    container.innerHTML = renderToString(<WaitlistForm core={null} unavailable={false} />);
    document.body.append(container);
    const typed = (selector: string, value: string) => {
      const element = container.querySelector<HTMLInputElement>(selector);
      if (!element) throw new Error(`no ${selector}`);
      element.value = value;
    };
    typed('input[name="name"]', "Ada Lovelace");
    typed('input[name="email"]', "ada@example.com");
    typed("textarea", "Typed before hydration");
    typed("select", "press");

    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
    const user = userEvent.setup({ delay: null });
    const { rerender } = render(<WaitlistForm core={null} unavailable={false} />, {
      container,
      hydrate: true,
    });
    rerender(<WaitlistForm core={core} unavailable={false} />);
    expect(field(/Full name/)).toHaveValue("Ada Lovelace");
    expect(field(/interested in/)).toHaveValue("press");
    await user.click(submitButton());
    expect(submitButton()).toHaveTextContent("Submitting...");
    expect(screen.queryByText(/is required|valid email/)).not.toBeInTheDocument();
    container.remove();
  });

  it("restores a draft after a refresh and clears it once the thank-you panel shows", async () => {
    sessionStorage.setItem(
      "lathe:waitlist-draft",
      JSON.stringify({ name: "Ada", email: "ada@example.com", message: "Kept", interest: "press" }),
    );
    const { user } = setup({ core });
    expect(field(/Full name/)).toHaveValue("Ada");
    expect(field(/^Message/)).toHaveValue("Kept");
    expect(field(/interested in/)).toHaveValue("press");
    await user.type(field(/^Message/), " and more");
    await advance(300);
    expect(JSON.parse(sessionStorage.getItem("lathe:waitlist-draft") ?? "{}")).toMatchObject({
      message: "Kept and more",
    });
    await user.click(submitButton());
    expect(submitButton()).toHaveTextContent("Submitting...");
    // Kept while submitting: a submit that sends may still fail.
    expect(sessionStorage.getItem("lathe:waitlist-draft")).toContain("Kept and more");
    await advance(2000);
    expect(screen.getByRole("heading", { name: "Thank you!" })).toBeInTheDocument();
    expect(sessionStorage.getItem("lathe:waitlist-draft")).toBeNull();
  });

  it("cancels its timers when unmounted mid-submit", async () => {
    const { user, unmount } = setup({ core });
    await fillValid(user);
    await user.click(submitButton());
    expect(vi.getTimerCount()).toBe(1);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });

  describe("with an endpoint", () => {
    interface Call {
      url: string;
      init: RequestInit;
      answer: (r: Response | Error) => void;
    }
    /**
     * A fetch that answers when told to, recording what it was sent: sign-ups in the list
     * returned, challenges in `challenges` if given, else answered 204 at once (a server
     * without --proof-of-work).
     */
    function fakeServer(challenges?: Call[]) {
      const calls: Call[] = [];
      vi.stubGlobal(
        "fetch",
        vi.fn((url: string, init: RequestInit) => {
          if (url === "/api/waitlist/challenge" && !challenges) {
            return Promise.resolve(new Response(null, { status: 204 }));
          }
          const list = url === "/api/waitlist/challenge" && challenges ? challenges : calls;
          return new Promise<Response>((resolve, reject) => {
            list.push({
              url,
              init,
              answer: (r) => {
                if (r instanceof Error) reject(r);
                else resolve(r);
              },
            });
            init.signal?.addEventListener("abort", () => {
              reject(new DOMException("aborted", "AbortError"));
            });
          });
        }),
      );
      return calls;
    }

    afterEach(() => {
      vi.unstubAllGlobals();
    });

    it("posts the values as JSON and thanks only once the server says so", async () => {
      const calls = fakeServer();
      const { user } = setup({ core, endpoint: "/api/waitlist" });
      await fillValid(user);
      await user.click(submitButton());
      expect(calls).toHaveLength(1);
      const [call] = calls;
      expect(call?.url).toBe("/api/waitlist");
      expect(call?.init.method).toBe("POST");
      expect(JSON.parse(call?.init.body as string)).toEqual({
        name: "Ada Lovelace",
        email: "ada@example.com",
        company: "",
        role: "",
        interest: "general",
        message: "An app for my bakery.",
        privacyNotice: "2026-11-24",
        website: "",
      });
      await advance(5000);
      expect(submitButton()).toHaveTextContent("Submitting...");
      await act(async () => {
        call?.answer(new Response('{"status":"added"}', { status: 201 }));
        await Promise.resolve();
      });
      expect(await screen.findByRole("heading", { name: "Thank you!" })).toBeInTheDocument();
    });

    it("sends the referral code the visit came with, if the core says it is one", async () => {
      for (const [kept, sent] of [
        ["AbC-_09xyzQW", "AbC-_09xyzQW"],
        ["not a code", undefined],
      ] as const) {
        sessionStorage.setItem("lathe:ref", kept);
        const calls = fakeServer();
        const { user, unmount } = setup({ core, endpoint: "/api/waitlist" });
        await fillValid(user);
        await user.click(submitButton());
        const body = JSON.parse(calls[0]?.init.body as string) as Record<string, unknown>;
        expect(body.ref).toBe(sent);
        unmount();
        vi.unstubAllGlobals();
      }
      sessionStorage.clear();
    });

    it("gives up after 10 s, abandons the request and keeps everything", async () => {
      const calls = fakeServer();
      const { user } = setup({ core, endpoint: "/api/waitlist" });
      await fillValid(user);
      await user.click(submitButton());
      await advance(9999);
      expect(submitButton()).toHaveTextContent("Submitting...");
      expect(calls[0]?.init.signal?.aborted).toBe(false);
      await advance(1);
      expect(screen.getByRole("alert")).toHaveTextContent(/could not be sent, but nothing is lost/);
      expect(calls[0]?.init.signal?.aborted).toBe(true);
      expect(field(/Full name/)).toHaveValue("Ada Lovelace");
      expect(screen.getByRole("alert")).toHaveFocus();
      // A late answer to the abandoned request changes nothing.
      calls[0]?.answer(new Response("{}", { status: 201 }));
      await advance(0);
      expect(screen.queryByRole("heading", { name: "Thank you!" })).not.toBeInTheDocument();
    });

    it("shows a server's field errors, and a plain failure for anything unexpected", async () => {
      const calls = fakeServer();
      const { user } = setup({ core, endpoint: "/api/waitlist" });
      await fillValid(user);
      await user.click(submitButton());
      const refusal = { errors: [{ field: "name", code: "required" }, { field: "x" }] };
      await act(async () => {
        calls[0]?.answer(new Response(JSON.stringify(refusal), { status: 422 }));
        await vi.advanceTimersByTimeAsync(0);
      });
      expect(screen.getByText("Full name is required")).toBeInTheDocument();
      expect(field(/Full name/)).toHaveFocus();
      expect(screen.queryByRole("alert")).not.toBeInTheDocument();
      for (const answer of [
        new Response("<html>", { status: 422 }),
        new Response("{}", { status: 503 }),
        new TypeError("Failed to fetch"),
      ]) {
        await user.click(submitButton());
        await act(async () => {
          calls.at(-1)?.answer(answer);
          await vi.advanceTimersByTimeAsync(0);
        });
        expect(screen.getByRole("alert")).toHaveTextContent(/could not be sent/);
        expect(field(/Email address/)).toHaveValue("ada@example.com");
      }
      expect(calls).toHaveLength(4);
    });

    /** The solver's workers the form starts; each answers when told to. */
    class FakeWorker {
      static made: FakeWorker[] = [];
      challenge: string | null = null;
      terminated = false;
      private readonly listeners = new Map<string, (event: { data: unknown }) => void>();
      constructor() {
        FakeWorker.made.push(this);
      }
      addEventListener(type: string, listener: (event: { data: unknown }) => void) {
        this.listeners.set(type, listener);
      }
      postMessage(challenge: string) {
        this.challenge = challenge;
      }
      terminate() {
        this.terminated = true;
      }
      solve(payload: string) {
        this.listeners.get("message")?.({ data: { payload } });
      }
    }

    /** Answers the last challenge request with `text`, then lets the worker start. */
    async function issue(challenges: Call[], text: string) {
      await act(async () => {
        challenges.at(-1)?.answer(new Response(text, { status: 200 }));
        await vi.advanceTimersByTimeAsync(0);
      });
    }

    async function solve(worker: FakeWorker | undefined, payload: string) {
      await act(async () => {
        worker?.solve(payload);
        await vi.advanceTimersByTimeAsync(0);
      });
    }

    const body = (call: Call | undefined) =>
      JSON.parse(call?.init.body as string) as Record<string, unknown>;

    describe("and a server that asks for proof of work", () => {
      beforeEach(() => {
        FakeWorker.made = [];
        vi.stubGlobal("Worker", FakeWorker);
      });

      it("asks for a challenge at the first change, not before, and solves it in a worker", async () => {
        const challenges: Call[] = [];
        fakeServer(challenges);
        const { user } = setup({ core, endpoint: "/api/waitlist" });
        await advance(0);
        expect(challenges).toHaveLength(0);
        await user.type(field(/Full name/), "A");
        expect(challenges.map((c) => c.url)).toEqual(["/api/waitlist/challenge"]);
        await issue(challenges, '{"challenge":1}');
        expect(FakeWorker.made.map((w) => w.challenge)).toEqual(['{"challenge":1}']);
        await user.type(field(/Full name/), "da");
        expect(challenges).toHaveLength(1);
      });

      it("sends nothing without the solution, then sends it with the sign-up", async () => {
        const challenges: Call[] = [];
        const calls = fakeServer(challenges);
        const { user } = setup({ core, endpoint: "/api/waitlist" });
        await fillValid(user);
        await issue(challenges, "C1");
        await user.click(submitButton());
        expect(submitButton()).toHaveTextContent("Submitting...");
        expect(calls).toHaveLength(0);
        await solve(FakeWorker.made[0], "P1");
        expect(FakeWorker.made[0]?.terminated).toBe(true);
        expect(calls).toHaveLength(1);
        expect(body(calls[0])).toMatchObject({ name: "Ada Lovelace", altcha: "P1" });
        await act(async () => {
          calls[0]?.answer(new Response('{"status":"added"}', { status: 201 }));
          await vi.advanceTimersByTimeAsync(0);
        });
        expect(await screen.findByRole("heading", { name: "Thank you!" })).toBeInTheDocument();
      });

      it("replaces a refused proof and retries once; a second refusal keeps everything", async () => {
        const challenges: Call[] = [];
        const calls = fakeServer(challenges);
        const { user } = setup({ core, endpoint: "/api/waitlist" });
        await fillValid(user);
        await issue(challenges, "C1");
        await solve(FakeWorker.made[0], "P1");
        await user.click(submitButton());
        expect(body(calls[0])).toMatchObject({ altcha: "P1" });
        const refuse = async (status: number, reason: string) => {
          await act(async () => {
            calls.at(-1)?.answer(new Response(JSON.stringify({ error: "…", reason }), { status }));
            await vi.advanceTimersByTimeAsync(0);
          });
        };
        await refuse(409, "used-proof");
        // Still submitting: a new challenge, solved, and the same sign-up sent again.
        expect(submitButton()).toHaveTextContent("Submitting...");
        expect(challenges).toHaveLength(2);
        await issue(challenges, "C2");
        await solve(FakeWorker.made[1], "P2");
        expect(calls).toHaveLength(2);
        expect(body(calls[1])).toMatchObject({ name: "Ada Lovelace", altcha: "P2" });
        await refuse(403, "expired-proof");
        expect(screen.getByRole("alert")).toHaveTextContent(
          /could not be sent, but nothing is lost/,
        );
        expect(field(/Full name/)).toHaveValue("Ada Lovelace");
        // A new proof is already on its way for the next try.
        expect(challenges).toHaveLength(3);
        expect(calls).toHaveLength(2);
      });

      it("says the form was not sent when no challenge can be had", async () => {
        const challenges: Call[] = [];
        const calls = fakeServer(challenges);
        const { user } = setup({ core, endpoint: "/api/waitlist" });
        await fillValid(user);
        await user.click(submitButton());
        await act(async () => {
          challenges[0]?.answer(new Response("", { status: 503 }));
          await vi.advanceTimersByTimeAsync(0);
        });
        expect(screen.getByRole("alert")).toHaveTextContent(/could not be sent/);
        expect(calls).toHaveLength(0);
        expect(FakeWorker.made).toHaveLength(0);
      });
    });
  });
});
