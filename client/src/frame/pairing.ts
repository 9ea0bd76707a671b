// `paired` (docs/protocol.md §3.6) on any page: a seek of yours was taken, you took one, or
// quick pairing found an opponent. The page opens the new game at once — unless you are in
// the middle of another game you play, where a notice with a link appears instead.

import type { AppContext } from "../context";
import { h } from "../dom";
import { lobbyFeed, type LobbyFeed } from "../network/lobbyfeed";

const GAME_PATH = /^\/g\/([A-Za-z0-9_-]{6,32})\/?$/;

/** Whether the page shows a game that this player is playing right now (not the new one). */
export function busyInAnotherGame(ctx: AppContext, game: string): boolean {
  const m = GAME_PATH.exec(location.pathname);
  if (!m || m[1] === game) return false;
  const state = ctx.live.games.get(m[1])?.state;
  const me = ctx.live.player?.id;
  if (!state || !me || state.status !== "active") return false;
  return state.players.attackers?.id === me || state.players.defenders?.id === me;
}

let notice: HTMLElement | null = null;

function showNotice(game: string): void {
  notice?.remove();
  const close = h("button", { type: "button", class: "btn btn-small", text: "Later" });
  notice = h(
    "div",
    { class: "pair-notice", role: "status", id: "pair-notice" },
    h("span", { text: "A new game of yours has started. " }),
    h("a", { href: `/g/${game}`, class: "btn btn-small btn-primary", text: "Open it" }),
    close,
  );
  const el = notice;
  close.addEventListener("click", () => el.remove());
  el.querySelector("a")?.addEventListener("click", () => el.remove());
  document.body.appendChild(el);
}

/** Listen for pairings for the whole page load; returns the shared lobby feed. */
export function installPairing(ctx: AppContext): LobbyFeed {
  const feed = lobbyFeed(ctx.live);
  feed.subscribe((c) => {
    if (c.type !== "paired") return;
    const me = feed.me;
    if (me && c.players.length > 0 && !c.players.includes(me)) return;
    if (location.pathname === `/g/${c.game}`) return;
    if (busyInAnotherGame(ctx, c.game)) showNotice(c.game);
    else ctx.navigate(`/g/${c.game}`);
  });
  return feed;
}
