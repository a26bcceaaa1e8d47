// Lighthouse's desktop preset (see lighthouse.d.ts for why it is declared here).
declare const config: import("lighthouse").Config;
export default config;
