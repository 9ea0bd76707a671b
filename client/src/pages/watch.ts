// `/watch`: the games in progress (the lobby's `games` list, pushed every few seconds), each
// a click away from watching it as a spectator at /g/<id>.

import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import {
  moveNumberText,
  orderGames,
  toMoveText,
  ratingText,
  rulesetName,
  spectatorsText,
  type GameSummary,
  type RatedPlayer,
} from "../logic/lobby";
import { lobbyFeed, type LobbyFeed } from "../network/lobbyfeed";
import { originLabel } from "../logic/status";

function playerCell(side: "attackers" | "defenders", p: RatedPlayer, bot: boolean): HTMLElement {
  return h(
    "span",
    { class: `wg-player wg-${side}` },
    h("span", { class: `side-dot side-dot-${side}`, title: side, "aria-hidden": "true" }),
    h("span", { class: "wg-name", text: p.name }),
    bot && p.id === "bot" ? null : h("span", { class: "rating", text: ratingText(p.rating, p.provisional) }),
  );
}

/** One game to watch: a link to it. */
export function gameCard(g: GameSummary): HTMLElement {
  const bot = g.opponent === "bot";
  const a = g.players.attackers;
  const d = g.players.defenders;
  return h(
    "li",
    { class: "watch-item" },
    h(
      "a",
      {
        href: `/g/${g.id}`,
        class: "watch-game",
        "data-game": g.id,
        "aria-label": `Watch ${a.name} (attackers) against ${d.name} (defenders): ${rulesetName(g.ruleset)}, ${moveNumberText(g).toLowerCase()}, ${toMoveText(g.ply)}, ${spectatorsText(g.watchers)}`,
      },
      h(
        "span",
        { class: "wg-players" },
        playerCell("attackers", a, bot),
        h("span", { class: "wg-vs", text: "vs" }),
        playerCell("defenders", d, bot),
      ),
      h(
        "span",
        { class: "wg-meta" },
        h("span", { class: "tag", text: rulesetName(g.ruleset) }),
        bot ? h("span", { class: "tag tag-bot", text: "vs bot" }) : h("span", { class: "tag tag-origin", text: originLabel(g.origin, g.opponent) }),
        h("span", { class: "wg-move", text: `${moveNumberText(g)}, ${toMoveText(g.ply)}` }),
        h("span", { class: "wg-watchers", text: spectatorsText(g.watchers) }),
        h("span", { class: "wg-go", "aria-hidden": "true", text: "Watch →" }),
      ),
    ),
  );
}

/**
 * A list of games to watch that keeps itself up to date; `limit` shows only the first few.
 * Returns the element and a function to stop updating it.
 */
export function gamesPanel(feed: LobbyFeed, opts: { limit?: number; id: string }): { el: HTMLElement; stop: () => void } {
  const list = h("ul", { class: "watch-list", id: opts.id, "aria-live": "polite" });
  const empty = h("p", { class: "muted empty", text: "" });
  const more = h("p", { class: "more-link" }, h("a", { href: "/watch", text: "All games in progress →" }));
  const legend = h(
    "p",
    { class: "hint wg-legend" },
    h("span", {}, h("span", { class: "side-dot side-dot-attackers", "aria-hidden": "true" }), " attackers"),
    h("span", {}, h("span", { class: "side-dot side-dot-defenders", "aria-hidden": "true" }), " defenders"),
    h("span", { text: "“?”: a provisional rating" }),
  );
  const el = h("div", { class: "games-panel" }, legend, list, empty, more);
  const render = () => {
    const games = orderGames(feed.games);
    const shown = opts.limit ? games.slice(0, opts.limit) : games;
    clear(list);
    for (const g of shown) list.appendChild(gameCard(g));
    list.dataset.count = String(games.length);
    empty.hidden = games.length > 0;
    legend.hidden = games.length === 0;
    empty.textContent = feed.gamesSynced || games.length
      ? "No games in progress right now. Start one, and it appears here for others to watch."
      : "Loading the games in progress…";
    more.hidden = !opts.limit || games.length <= shown.length;
  };
  const stop = feed.subscribe((c) => {
    if (c.type === "games" || c.type === "connection") render();
  });
  render();
  return { el, stop };
}

export function mountWatch(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Watch");
  const feed = lobbyFeed(ctx.live);
  const unfollow = feed.follow();
  const panel = gamesPanel(feed, { id: "watch-list" });
  root.append(
    h(
      "div",
      { class: "page page-watch" },
      h("h1", { text: "Watch a game" }),
      h("p", {
        class: "lead muted",
        text: "The games being played now: games between people first, newest first. The list updates itself every few seconds. Pick a game to watch it live: you see every move as it is made, but take no part.",
      }),
      h("section", { class: "panel", "aria-labelledby": "watch-h" }, h("h2", { id: "watch-h", text: "Games in progress" }), panel.el),
      h("p", { class: "hint" }, "Want to play instead? ", h("a", { href: "/lobby", text: "Find an opponent in the lobby" }), " or ", h("a", { href: "/", text: "play the bot" }), "."),
    ),
  );
  return () => {
    panel.stop();
    unfollow();
  };
}
