// The theme's storage key and values (spec §9), and the media query for the system's
// preference. The pre-paint script (src/inline/theme.ts) and the app share them.
export const themeStorageKey = "theme";
export const themes = ["light", "dark"] as const;
export type Theme = (typeof themes)[number];
export const systemDarkQuery = "(prefers-color-scheme: dark)";
