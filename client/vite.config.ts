import { defineConfig } from "vitest/config";

// `npm run dev` serves the client on :5173 and forwards the API, the websocket and the
// session to a hub that is already running (BRANDUBH_HUB, default http://127.0.0.1:8000).
const hub = process.env.BRANDUBH_HUB ?? "http://127.0.0.1:8000";

export default defineConfig({
  base: "/",
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    target: "es2020",
  },
  server: {
    proxy: {
      "/api": { target: hub, changeOrigin: false },
      "/ws": { target: hub.replace(/^http/, "ws"), ws: true, changeOrigin: false },
    },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
