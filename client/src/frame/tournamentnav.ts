// `tournament_game` on any page: a player of a running arena was paired. A short notice
// ("Your next game: …, opening in 3 s") with "Open now" and "Stay here", then the game
// opens by itself — unless the page shows another game this player is still playing.

import { api } from "../network/api";
import { LIVE_UNDER_S } from "../logic/lobby";
import type { AppContext } from "../context";
import { h } from "../dom";
import { busyInAnotherGame } from "./pairing";
import { tournamentFeed, type TournamentFeed, type TournamentGameFrame } from "../network/tournamentfeed";

/** How long the notice shows before the game opens. */
export const NEXT_GAME_DELAY_MS = 3000;


/** The notice's sentence: "Your next game: you play the attackers against Ann." */
export function nextGameText(frame: Pick<TournamentGameFrame, "side" | "opponent">): string {
  const against = frame.opponent?.name ? ` against ${frame.opponent.name}` : "";
  return `Your next tournament game: you play the ${frame.side}${against}.`;
}

let notice: HTMLElement | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

function dismiss(): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  notice?.remove();
  notice = null;
}

function show(ctx: AppContext, frame: TournamentGameFrame): void {
  dismiss();
  const path = `/g/${frame.game}`;
  if (location.pathname === path) return;
  const secs = Math.round(NEXT_GAME_DELAY_MS / 1000);
  const when = h("span", { class: "tg-when", id: "tournament-notice-when" });
  const open = h("a", { href: path, class: "btn btn-small btn-primary", id: "tournament-notice-open", text: "Open now" });
  const stay = h("button", { type: "button", class: "btn btn-small", id: "tournament-notice-stay", text: "Later" });
  const text = h("span", { text: nextGameText(frame) });
  const el = h(
    "div",
    { class: "pair-notice tournament-notice", role: "alert", id: "tournament-notice", "data-game": frame.game, "data-tournament": frame.tournament },
    h("span", { class: "tg-text" }, text, when),
    h("span", { class: "tg-buttons" }, open, stay),
  );
  notice = el;
  open.addEventListener("click", () => dismiss());
  stay.addEventListener("click", () => dismiss());
  document.body.appendChild(el);

  const countdown = () => {
    // Only a live game (an arena's) opens by itself, and not over another game being played.
    if (notice !== el || busyInAnotherGame(ctx, frame.game)) return;
    el.dataset.auto = "true";
    stay.textContent = "Stay here";
    let left = secs;
    when.textContent = ` Opening in ${left} s…`;
    const tick = () => {
      left -= 1;
      if (notice !== el) return;
      if (left > 0) {
        when.textContent = ` Opening in ${left} s…`;
        timer = setTimeout(tick, 1000);
        return;
      }
      dismiss();
      if (location.pathname !== path) ctx.navigate(path);
    };
    timer = setTimeout(tick, 1000);
  };
  // The game says the opponent and its pace: a round's correspondence game (an hour or more
  // a move) is announced, not opened; its mail and "Your games" lead to it too.
  const me = ctx.live.player?.id;
  void api
    .game(frame.game)
    .then(({ state }) => {
      if (notice !== el) return;
      const other = state.players.attackers?.id === me ? state.players.defenders : state.players.attackers;
      if (other && !frame.opponent) text.textContent = nextGameText({ ...frame, opponent: other });
      if (state.move_time < LIVE_UNDER_S) countdown();
      else el.dataset.auto = "false";
    })
    .catch(() => countdown()); // an arena's game, most likely: open it as announced
}

/** Listen for a player's next tournament game for the whole page load. */
export function installTournaments(ctx: AppContext): TournamentFeed {
  const feed = tournamentFeed(ctx.live);
  feed.subscribe((c) => {
    if (c.type === "game") show(ctx, c.frame);
  });
  return feed;
}
