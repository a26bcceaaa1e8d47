// The hero's product demo: a Lathe window playing one short conversation. Every word it
// shows and when each part appears (seconds from the page's first paint). The last frame
// stays: it is also what reduced motion shows from the start. The times become CSS
// animation delays at build time (web/scripts/demo-timeline.mjs); no script runs the demo.

import { product } from "./company.ts";

export const demo = {
  /** For assistive technology and as the visible caption: the window itself is hidden. */
  caption: `${product.name} at work: asked for a booking app with Supabase sign-in, it writes the code and runs the app beside the conversation.`,
  windowTitle: `studio-bookings · ${product.name}`,
  chatTitle: "Chat",
  model: "Claude",
  inputPlaceholder: "Describe a change…",
  tabs: { code: "Code", preview: "Preview" },
  file: "app/page.tsx",
  address: "localhost:3000",

  prompt: {
    text: "Build a booking app for my yoga studio, with Supabase sign-in",
    /** Typing starts and how long it takes; the message is sent when it ends. */
    at: 0.8,
    typing: 2.2,
  },
  reply: {
    text: "On it: a Next.js app with Supabase Auth, a classes table and a booking page.",
    at: 3.6,
  },
  steps: [
    { text: "Created a Next.js app", at: 4.4 },
    { text: "Added Supabase sign-in", at: 5.4 },
    { text: "Made the classes table", at: 6.4 },
    { text: "Running on localhost:3000", at: 8.4 },
  ],
  code: {
    at: 4.6,
    /** Seconds between one line and the next. */
    every: 0.38,
    lines: [
      "export default async function Page() {",
      "  const supabase = await createClient();",
      "  const { data } = await supabase.auth.getUser();",
      '  if (!data.user) return <SignIn provider="supabase" />;',
      "",
      "  const { data: classes } = await supabase",
      '    .from("classes")',
      '    .select("*")',
      '    .order("starts_at");',
      "",
      "  return <Schedule classes={classes} />;",
      "}",
    ],
  },
  preview: {
    at: 9.2,
    brand: "Flow Studio",
    user: "maya@example.com",
    heading: "Book a class",
    days: ["Mon 12", "Tue 13", "Wed 14", "Thu 15"],
    classes: [
      { time: "07:30", name: "Sunrise flow", places: "4 places", full: false },
      { time: "12:15", name: "Lunch stretch", places: "Full", full: true },
      { time: "18:00", name: "Vinyasa", places: "2 places", full: false },
    ],
    book: "Book",
  },
  done: {
    text: "Booked: Vinyasa, Monday 18:00",
    at: 10.6,
  },
} as const;
