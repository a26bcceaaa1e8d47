// The theme's storage key and values (spec §9). index.html's pre-paint script uses the
// same key; a browser test checks that the two agree.
export const themeStorageKey = "theme";
export const themes = ["light", "dark"] as const;
export type Theme = (typeof themes)[number];
