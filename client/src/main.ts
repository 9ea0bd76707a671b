// Entry point: the header, the router (`/`, `/g/<id>`, `/join/<id>/<token>`,
// `/rules/<id>`, `/verify`, `/lobby`, `/watch`; the account pages in accountnav.ts) and the
// one live connection shared by every page.

import "./style.css";
import { installAccounts, isAccountPath, routeAccounts } from "./accountnav";
import { api, type RulesetInfo } from "./api";
import type { AppContext, Unmount } from "./context";
import { clear, h } from "./dom";
import { LiveClient } from "./live";
import { installMailBanner, isMailPath, routeMail } from "./mailnav";
import { mountGame } from "./pages/game";
import { mountHome } from "./pages/home";
import { mountJoin } from "./pages/join";
import { mountLobby } from "./pages/lobby";
import { mountWatch } from "./pages/watch";
import { installPairing } from "./pairing";
import { mountRules } from "./pages/rules";
import { mountVerify } from "./pages/verify";
import type { PlayerInfo } from "./protocol";

const GAME_RE = /^\/g\/([A-Za-z0-9_-]{6,32})\/?$/;
const JOIN_RE = /^\/join\/([A-Za-z0-9_-]{6,32})\/([^/]+)\/?$/;
const RULES_RE = /^\/rules\/([^/]+)\/?$/;

function wsUrl(): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}

const live = new LiveClient({ url: wsUrl() });
const me: Promise<PlayerInfo | null> = api.me().catch(() => null);
let rulesetsCache: Promise<RulesetInfo[]> | null = null;

const main = h("main", { id: "main", class: "main", tabindex: -1 });
const connPill = h("span", { class: "conn", id: "conn", role: "status", "data-state": "connecting" });
const retry = h("button", { type: "button", class: "btn btn-small", id: "conn-retry", text: "Retry now", hidden: true });
retry.addEventListener("click", () => live.retryNow());
const whoami = h("span", { class: "whoami", id: "whoami" });
// The site's sections (other pages may add their links here).
const siteNav = h(
  "nav",
  { class: "site-nav", id: "site-nav", "aria-label": "Site" },
  h("a", { href: "/", "data-nav": "/", text: "Play" }),
  h("a", { href: "/lobby", "data-nav": "/lobby", text: "Lobby" }),
  h("a", { href: "/watch", "data-nav": "/watch", text: "Watch" }),
);
const header = h(
  "header",
  { class: "top" },
  h("a", { href: "/", class: "brand", "aria-label": "Brandubh Live: start page" }, h("span", { class: "brand-mark", "aria-hidden": "true" }), "Brandubh Live"),
  siteNav,
  h("div", { class: "top-right" }, whoami, connPill, retry),
);
const appRoot = document.getElementById("app") ?? document.body;
clear(appRoot);
appRoot.append(h("a", { href: "#main", class: "skip", text: "Skip to the page" }), header, main);

void me.then((p) => {
  if (p) whoami.textContent = p.name;
});

function renderConnection(): void {
  const state = live.connection;
  connPill.dataset.state = state;
  document.body.dataset.connection = state;
  if (state === "open") {
    connPill.textContent = "Connected";
    retry.hidden = true;
  } else if (state === "connecting") {
    connPill.textContent = "Connecting…";
    retry.hidden = true;
  } else {
    const secs = live.retryAt ? Math.max(0, Math.ceil((live.retryAt - Date.now()) / 1000)) : 0;
    connPill.textContent = secs > 0 ? `Offline — retrying in ${secs} s` : "Offline — retrying";
    retry.hidden = false;
  }
  if (live.player) whoami.textContent = live.player.name;
}
live.subscribe((c) => {
  if (c.type === "connection" || c.type === "hello") renderConnection();
});
setInterval(() => {
  if (live.connection === "down") renderConnection();
}, 500);

let unmount: Unmount | null = null;

function setTitle(title: string): void {
  document.title = `${title} · Brandubh Live`;
}

const ctx: AppContext = {
  live,
  me,
  rulesets: () => (rulesetsCache ??= api.rulesets()),
  navigate,
  setTitle,
};

function route(): void {
  unmount?.();
  unmount = null;
  clear(main);
  const path = location.pathname;
  const section = path.length > 1 ? path.replace(/\/$/, "") : path;
  for (const a of siteNav.querySelectorAll<HTMLAnchorElement>("a[data-nav]")) {
    if (a.dataset.nav === section) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  let m: RegExpExecArray | null;
  if (path === "/" || path === "/index.html") {
    unmount = mountHome(main, ctx);
  } else if ((m = GAME_RE.exec(path))) {
    unmount = mountGame(main, ctx, m[1]);
  } else if ((m = JOIN_RE.exec(path))) {
    unmount = mountJoin(main, ctx, m[1], decodeURIComponent(m[2]));
  } else if ((m = RULES_RE.exec(path))) {
    unmount = mountRules(main, ctx, decodeURIComponent(m[1]));
  } else if (path === "/lobby" || path === "/lobby/") {
    unmount = mountLobby(main, ctx);
  } else if (path === "/watch" || path === "/watch/") {
    unmount = mountWatch(main, ctx);
  } else if (path === "/verify" || path === "/verify/") {
    unmount = mountVerify(main, ctx, location.search);
  } else if (isAccountPath(path)) {
    unmount = routeAccounts(path, main, ctx);
  } else if (isMailPath(path)) {
    unmount = routeMail(path, main, ctx);
  } else {
    setTitle("Not found");
    main.append(
      h(
        "div",
        { class: "page" },
        h("h1", { text: "Page not found" }),
        h("p", {}, "There is nothing at this address. ", h("a", { href: "/", text: "Start a game" }), "."),
      ),
    );
  }
}

function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
  window.scrollTo(0, 0);
}

// Links inside the app change the page without reloading (the connection stays up).
document.addEventListener("click", (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as HTMLElement | null)?.closest?.("a");
  if (!a || a.target || a.hasAttribute("download")) return;
  const href = a.getAttribute("href");
  if (!href || !href.startsWith("/") || href.startsWith("//")) return;
  e.preventDefault();
  navigate(href);
});
window.addEventListener("popstate", route);

// A small hook for tests and the console.
declare global {
  interface Window {
    __brandubh: {
      live: LiveClient;
      dropConnection: (holdMs?: number) => void;
      navigate: (path: string) => void;
    };
  }
}
window.__brandubh = {
  live,
  dropConnection: (holdMs = 0) => live.dropConnection(holdMs),
  navigate: (path) => navigate(path),
};

installAccounts(ctx, whoami); // who is logged in; the account pages' links
installPairing(ctx); // `paired`: open the new game, on any page
installMailBanner(ctx, main); // an unconfirmed address: what to do
live.start();
renderConnection();
route();
