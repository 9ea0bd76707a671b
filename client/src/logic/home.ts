// The home page's pure choices (pages/home.ts): which of the player's games, which
// tournaments and which games to watch it shows, in what order, and their words. No DOM here
// (tested in home.test.ts).

import { orderGames as orderMyGames, type MyGame } from "../frame/mygames";
import { orderGames as orderLiveGames } from "./lobby";
import type { GameSummary } from "../network/protocol";
import { countdown, whenText, type TournamentLists, type TournamentSummary } from "./tournament";

/** How many of each the home page lists before its "All … →" link. */
export const HOME_MY_GAMES = 5;
export const HOME_TOURNAMENTS = 4;
export const HOME_WATCH = 6;
const HOUR_MS = 3_600_000;

/** A few of a list and how many more there are. */
export interface Shown<T> {
  shown: T[];
  more: number;
}

function firstOf<T>(items: readonly T[], limit: number): Shown<T> {
  return { shown: items.slice(0, limit), more: Math.max(0, items.length - limit) };
}

/** The player's games in progress: those yours to move first, then the rest, each by
 *  soonest deadline; at most `limit`. */
export function homeGames(playing: readonly MyGame[], limit = HOME_MY_GAMES): Shown<MyGame> {
  return firstOf(orderMyGames(playing), limit);
}

/** The tournaments the home page shows: the running (arenas, open to join while they
 *  last, first; then by start) and the upcoming (soonest first), at most `limit` each. */
export function homeTournaments(
  lists: Pick<TournamentLists, "running" | "upcoming">,
  limit = HOME_TOURNAMENTS,
): { running: Shown<TournamentSummary>; upcoming: Shown<TournamentSummary> } {
  const byStart = (a: TournamentSummary, b: TournamentSummary) => a.starts_at - b.starts_at || a.id.localeCompare(b.id);
  const running = [...lists.running].sort(
    (a, b) => Number(b.format === "arena") - Number(a.format === "arena") || byStart(a, b),
  );
  const upcoming = [...lists.upcoming].sort(byStart);
  return { running: firstOf(running, limit), upcoming: firstOf(upcoming, limit) };
}

/** Whether a player may still join: before the start, or an arena while it runs. */
export function joinable(t: Pick<TournamentSummary, "status" | "format">): boolean {
  return t.status === "upcoming" || (t.status === "running" && t.format === "arena");
}

/** When, in a line of the home page: "on now · ends in 42:10", "round 2 of 5", "starts Thu
 *  3 Dec, 18:30", or within the hour "starts in 42:10". `now` is the server's clock. The
 *  part that counts comes last, so a line that grows by a digit moves nothing before it. */
export function tournamentWhen(t: TournamentSummary, now: number, locale?: string): string {
  const c = countdown(t, now);
  if (t.status === "upcoming") {
    if (!c.time) return "starting now";
    return t.starts_at - now > HOUR_MS ? `starts ${whenText(t.starts_at, locale)}` : `starts in ${c.time}`;
  }
  if (t.format === "arena") return c.time ? `on now · ends in ${c.time}` : "on now · last games finishing";
  return c.label.charAt(0).toLowerCase() + c.label.slice(1);
}

/** The games in progress to watch: between people first, newest first; at most `limit`. */
export function homeWatch(games: readonly GameSummary[], limit = HOME_WATCH): Shown<GameSummary> {
  return firstOf(orderLiveGames(games), limit);
}

/** Whose move it is in one of the player's games. */
export function turnText(g: Pick<MyGame, "your_move">): string {
  return g.your_move ? "Your move" : "Their move";
}

/** The time left on the clock of a game, in words: "4:12 left"; "" without a deadline. */
export function leftText(left: string | null): string {
  return left ? `${left} left` : "";
}
