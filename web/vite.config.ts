/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { type Plugin, defineConfig } from "vite";
import wasm from "vite-plugin-wasm";

export default defineConfig({
  // vite-plugin-wasm declares its plugin as `any`.
  plugins: [react(), wasm() as Plugin],
  build: {
    // Top-level await in wasm-pack's bundler output needs ES2022.
    target: "es2022",
  },
  preview: { port: 4173, strictPort: true },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test-setup.ts"],
    restoreMocks: true,
  },
});
