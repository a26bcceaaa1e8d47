import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { LineStanding } from "../hooks/postLink";
import { PlaceInLine } from "./PlaceInLine";

const line: LineStanding = {
  place: 12,
  of: 1204,
  code: "AbC-_09xyzQW",
  joined: 3,
  confirmed: 2,
  placesPerReferral: 5,
};

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("PlaceInLine", () => {
  it("shows the place, the share link and the friends' counts, never who", () => {
    render(<PlaceInLine line={line} status="confirmed" />);
    expect(screen.getByRole("heading", { name: "Your place in line" })).toBeInTheDocument();
    expect(screen.getByText("12th of 1,204")).toBeInTheDocument();
    const link = screen.getByLabelText("Your share link");
    expect(link).toHaveValue(`${window.location.origin}/?ref=AbC-_09xyzQW`);
    expect(link).toHaveAccessibleDescription(
      "Each friend who joins through your link and confirms their address moves you 5 places ahead.",
    );
    expect(
      screen.getByText("3 friends have joined through your link; 2 confirmed."),
    ).toBeInTheDocument();
  });

  it.each([
    [1, "1st"],
    [2, "2nd"],
    [3, "3rd"],
    [4, "4th"],
    [11, "11th"],
    [12, "12th"],
    [13, "13th"],
    [21, "21st"],
    [102, "102nd"],
    [1111, "1,111th"],
  ])("writes place %i as %s", (place, text) => {
    render(<PlaceInLine line={{ ...line, place }} status="confirmed" />);
    expect(screen.getByText(`${text} of 1,204`)).toBeInTheDocument();
  });

  it("copies the link, and says so; a refusal says what to do instead", async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(() => Promise.resolve());
    vi.spyOn(navigator.clipboard, "writeText").mockImplementation(writeText);
    render(<PlaceInLine line={line} status="confirmed" />);
    expect(screen.queryByRole("button", { name: "Share..." })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Copy link" }));
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/?ref=AbC-_09xyzQW`);
    expect(screen.getByText("Copied. Paste it anywhere you like.")).toBeInTheDocument();
    writeText.mockImplementation(() => Promise.reject(new DOMException("no", "NotAllowedError")));
    await user.click(screen.getByRole("button", { name: "Copy link" }));
    expect(
      screen.getByText("Copying was refused: select the link and copy it yourself."),
    ).toBeInTheDocument();
  });

  it("offers the system's share sheet where the browser has one", async () => {
    const user = userEvent.setup();
    const share = vi.fn(() => Promise.reject(new DOMException("dismissed", "AbortError")));
    vi.stubGlobal("navigator", Object.assign(Object.create(navigator) as Navigator, { share }));
    render(<PlaceInLine line={line} status="confirmed" />);
    await user.click(screen.getByRole("button", { name: "Share..." }));
    expect(share).toHaveBeenCalledWith({
      title: "Join me on the Lathe waitlist",
      url: `${window.location.origin}/?ref=AbC-_09xyzQW`,
    });
  });

  it("says why there is no place: not confirmed yet, or invited (then no link either)", () => {
    const { unmount } = render(<PlaceInLine line={{ ...line, place: null }} status="pending" />);
    expect(
      screen.getByText("You get a place in line once you confirm your address."),
    ).toBeInTheDocument();
    expect(screen.getByLabelText("Your share link")).toBeInTheDocument();
    unmount();
    render(<PlaceInLine line={{ ...line, place: null, joined: 0 }} status="invited" />);
    expect(screen.getByText("You are invited: you have left the line.")).toBeInTheDocument();
    expect(screen.queryByLabelText("Your share link")).not.toBeInTheDocument();
    expect(screen.getByText("No friends have joined through your link yet.")).toBeInTheDocument();
  });
});
