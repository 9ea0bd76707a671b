// Entry point: the header (sections, your-move count, who is logged in, the connection),
// the router (the one table of routes.ts) and the one live connection shared by every page.

import "./style.css";
import { installAccounts } from "./frame/accountnav";
import { closeHeaderMenu, installHeaderMenu } from "./frame/headermenu";
import { api, type RulesetInfo, type Viewer } from "./network/api";
import type { AppContext, Unmount } from "./context";
import { clear, h } from "./dom";
import { LiveClient } from "./network/live";
import { MyGames, shownNotifications, titleWith } from "./frame/mygames";
import { mountAnalysisBoard } from "./pages/analysisboard";
import { mountAccount, mountLogin, mountSignup } from "./pages/auth";
import { installMailBanner, isMailPath, routeMail } from "./frame/mailnav";
import { mountGame } from "./pages/game";
import { mountGames } from "./pages/games";
import { mountHome } from "./pages/home";
import { mountJoin } from "./pages/join";
import { mountLearn, mountLesson } from "./pages/learn";
import { mountLeaderboard } from "./pages/leaderboard";
import { mountLobby } from "./pages/lobby";
import { mountProfile } from "./pages/profile";
import { mountPuzzles } from "./pages/puzzles";
import { mountReplay } from "./pages/replay";
import { mountRules } from "./pages/rules";
import { mountVerify } from "./pages/verify";
import { mountWatch } from "./pages/watch";
import { mountTournament } from "./pages/tournament";
import { mountTournaments } from "./pages/tournaments";
import { installPairing } from "./frame/pairing";
import { installChallenges } from "./frame/challengenav";
import { installTournaments } from "./frame/tournamentnav";
import { ROUTES, type RouteName, matchRoute } from "./routes";
import { played } from "./panels/sound";

type Mount = (root: HTMLElement, ctx: AppContext, params: string[]) => Unmount | null;

/** What each route of routes.ts mounts. */
const PAGES: Record<RouteName, Mount> = {
  home: (root, ctx) => mountHome(root, ctx),
  game: (root, ctx, [id]) => mountGame(root, ctx, id),
  join: (root, ctx, [id, token]) => mountJoin(root, ctx, id, token),
  rules: (root, ctx, [id]) => mountRules(root, ctx, id),
  lobby: (root, ctx) => mountLobby(root, ctx),
  watch: (root, ctx) => mountWatch(root, ctx),
  games: (root, ctx) => mountGames(root, ctx),
  verify: (root, ctx) => mountVerify(root, ctx, location.search),
  signup: (root, ctx) => mountSignup(root, ctx),
  login: (root, ctx) => mountLogin(root, ctx),
  account: (root, ctx) => mountAccount(root, ctx),
  profile: (root, ctx, [id]) => mountProfile(root, ctx, id),
  leaderboard: (root, ctx, [rs]) => mountLeaderboard(root, ctx, rs || null, new URLSearchParams(location.search).get("bots") === "1"),
  replay: (root, ctx, [id]) => mountReplay(root, ctx, id),
  analysis: (root, ctx) => mountAnalysisBoard(root, ctx, location.search),
  tournaments: (root, ctx) => mountTournaments(root, ctx),
  tournament: (root, ctx, [id]) => mountTournament(root, ctx, id),
  learn: (root, ctx, [rs]) => mountLearn(root, ctx, rs),
  lesson: (root, ctx, [rs, stage]) => mountLesson(root, ctx, rs, stage),
  puzzles: (root, ctx) => mountPuzzles(root, ctx, "rated"),
  puzzleDaily: (root, ctx) => mountPuzzles(root, ctx, "daily"),
  puzzleStreak: (root, ctx) => mountPuzzles(root, ctx, "streak"),
  puzzle: (root, ctx, [id]) => mountPuzzles(root, ctx, "one", id),
};

function wsUrl(): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}

const live = new LiveClient({ url: wsUrl() });
let me: Promise<Viewer | null> = api.me().catch(() => null);
const sessionListeners = new Set<(viewer: Viewer | null) => void>();
let rulesetsCache: Promise<RulesetInfo[]> | null = null;
let shownGame: string | null = null;
const myGames = new MyGames(live, () => shownGame);

const main = h("main", { id: "main", class: "main", tabindex: -1 });
const connPill = h("span", { class: "conn", id: "conn", role: "status", "data-state": "connecting" });
const retry = h("button", { type: "button", class: "btn btn-small btn-on-dark", id: "conn-retry", text: "Retry now", hidden: true });
retry.addEventListener("click", () => live.retryNow());
const whoami = h("span", { class: "whoami", id: "whoami" });
const moveCount = h("span", { class: "count-badge", id: "my-move-count", "data-count": "0", "aria-label": "games waiting for your move", hidden: true });
// On narrow screens the sections past "Play" and "Your games", and the account's links, fold
// into a menu (headermenu.ts); on wide ones the same elements sit in one row.
const navMore = h(
  "div",
  { class: "nav-more", id: "nav-more" },
  h("a", { href: "/lobby", "data-nav": "/lobby", text: "Lobby" }),
  h("a", { href: "/watch", "data-nav": "/watch", text: "Watch" }),
  h("a", { href: "/learn", "data-nav": "/learn", id: "nav-learn", title: "Lessons: learn the rules step by step", text: "Learn" }),
  h("a", { href: "/tournaments", "data-nav": "/tournaments", text: "Tournaments" }),
  h("a", { href: "/puzzles", "data-nav": "/puzzles", id: "nav-puzzles", title: "Puzzles: find the winning move", text: "Puzzles" }),
  h("a", { href: "/analysis", "data-nav": "/analysis", id: "nav-analysis", title: "The analysis board: set up any position and ask the bot", text: "Analysis" }),
  h("div", { class: "nav-user", id: "nav-user" }, whoami),
);
const menuButton = h("button", { type: "button", class: "nav-menu-btn", id: "nav-menu", "aria-expanded": "false", "aria-controls": "nav-more", "aria-label": "Menu" }, h("span", { class: "nav-menu-icon", "aria-hidden": "true" }));
// The site's sections (other pages may add their links to #nav-more).
const siteNav = h(
  "nav",
  { class: "site-nav", id: "site-nav", "aria-label": "Site" },
  h("a", { href: "/", "data-nav": "/", text: "Play" }),
  h("a", { href: "/games", "data-nav": "/games", id: "nav-games" }, "Your games", moveCount),
  navMore,
);
// The connection's slot has one width whatever it says, so going offline moves nothing.
const connBox = h("div", { class: "conn-box", id: "conn-box" }, retry, connPill);
const header = h(
  "header",
  { class: "top", id: "top" },
  h("a", { href: "/", class: "brand", "aria-label": "Brandubh Live: start page" }, h("span", { class: "brand-mark", "aria-hidden": "true" }), h("span", { class: "brand-name", text: "Brandubh Live" })),
  siteNav,
  connBox,
  menuButton,
);
const appRoot = document.getElementById("app") ?? document.body;
clear(appRoot);
appRoot.append(h("a", { href: "#main", class: "skip", text: "Skip to the page" }), header, main);
installHeaderMenu(header, menuButton, navMore);

void me.then((p) => {
  if (p?.name) whoami.textContent = p.name;
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
  } else if (live.browserOffline) {
    connPill.textContent = "Offline — no network";
    retry.hidden = true;
  } else {
    const secs = live.retryAt ? Math.max(0, Math.ceil((live.retryAt - Date.now()) / 1000)) : 0;
    connPill.textContent = secs > 0 ? `Offline — retrying in ${secs} s` : "Offline — retrying";
    retry.hidden = false;
  }
  // Where the pill is a dot (a phone, or a row full of sections), its words show on hover.
  connPill.title = connPill.textContent ?? "";
  if (live.player) whoami.textContent = live.player.name;
}
live.subscribe((c) => {
  if (c.type === "connection" || c.type === "hello") renderConnection();
});
setInterval(() => {
  if (live.connection === "down") renderConnection();
}, 500);
// The browser knows about the network before any socket does.
window.addEventListener("offline", () => live.setBrowserOnline(false));
window.addEventListener("online", () => live.setBrowserOnline(true));
if (navigator.onLine === false) live.setBrowserOnline(false);

let pageTitle = "Brandubh Live";
function showTitle(): void {
  document.title = titleWith(myGames.count, pageTitle);
}
function renderCount(): void {
  const n = myGames.count;
  moveCount.textContent = String(n);
  moveCount.dataset.count = String(n);
  moveCount.hidden = n === 0;
  moveCount.setAttribute("aria-label", n === 1 ? "1 game waiting for your move" : `${n} games waiting for your move`);
  showTitle();
}
myGames.subscribe(renderCount);
void myGames.refresh();

let unmount: Unmount | null = null;

function setTitle(title: string): void {
  pageTitle = `${title} · Brandubh Live`;
  showTitle();
}

const ctx: AppContext = {
  live,
  get me() {
    return me;
  },
  refreshSession: async () => {
    me = api.me().catch(() => null);
    const viewer = await me;
    for (const fn of sessionListeners) fn(viewer);
    live.reconnect(); // the socket was opened for the session before
    void myGames.refresh();
    return viewer;
  },
  onSession: (fn) => {
    sessionListeners.add(fn);
    return () => sessionListeners.delete(fn);
  },
  rulesets: () => (rulesetsCache ??= api.rulesets()),
  navigate,
  setTitle,
  myGames,
};

function route(): void {
  unmount?.();
  unmount = null;
  clear(main);
  const path = location.pathname;
  const matched = matchRoute(path);
  const section = matched?.route.section ?? null;
  closeHeaderMenu();
  for (const a of siteNav.querySelectorAll<HTMLAnchorElement>("a[data-nav]")) {
    if (a.dataset.nav === section) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  shownGame = matched?.route.name === "game" ? matched.params[0] : null;
  document.body.dataset.page = matched?.route.name ?? "not-found";
  if (matched) {
    unmount = PAGES[matched.route.name](main, ctx, matched.params);
    return;
  }
  if (isMailPath(path)) {
    unmount = routeMail(path, main, ctx);
    return;
  }
  setTitle("Page not found");
  main.append(
    h(
      "div",
      { class: "page page-missing", id: "not-found" },
      h("h1", { text: "Page not found" }),
      h("p", {}, `There is nothing at ${path}. It may be mistyped, or the page has moved.`),
      h(
        "p",
        { class: "missing-links" },
        h("a", { href: "/", class: "btn btn-primary", text: "Play a game" }),
        " ",
        h("a", { href: "/games", class: "btn", text: "Your games" }),
        " ",
        h("a", { href: "/watch", class: "btn", text: "Watch games" }),
      ),
    ),
  );
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
  if (!href || !href.startsWith("/") || href.startsWith("//") || href.startsWith("/api/")) return;
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
      routes: typeof ROUTES;
      sounds: typeof played;
      notifications: typeof shownNotifications;
    };
  }
}
window.__brandubh = {
  live,
  dropConnection: (holdMs = 0) => live.dropConnection(holdMs),
  navigate: (path) => navigate(path),
  routes: ROUTES,
  sounds: played,
  notifications: shownNotifications,
};

installAccounts(ctx, whoami); // who is logged in; the account pages' links
installPairing(ctx); // `paired`: open the new game, on any page
installTournaments(ctx); // `tournament_game`: a player's next tournament game, on any page
installChallenges(ctx, connBox); // challenges to and from the player: the header's button and panel
installMailBanner(ctx, main); // an unconfirmed address: what to do
live.start();
renderConnection();
route();
