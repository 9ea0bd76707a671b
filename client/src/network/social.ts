// Follows and blocks (docs/protocol.md §2.11): the HTTP calls, and pure helpers that put
// their answers into words.

import { request as call } from "./api";
import { RULES } from "../board/rules";
import { durationText } from "../logic/status";

/** A game a followed player plays now, which anyone may watch. */
export interface WatchableGame {
  id: string;
  url: string;
  ruleset: string;
  move_time: number;
  rated: boolean;
  /** against the bot */
  bot: boolean;
  opponent: { id: string; name: string };
}

/** One player the viewer follows: online now, and the games they play. */
export interface Followed {
  id: string;
  name: string;
  bot: boolean;
  since: number;
  online: boolean;
  games: WatchableGame[];
}

/** One player the viewer blocks. */
export interface Blocked {
  id: string;
  name: string;
  bot: boolean;
  since: number;
}

const enc = encodeURIComponent;

export const socialApi = {
  follow: (id: string) => call<{ id: string; following: boolean }>("POST", `/api/follow/${enc(id)}`),
  unfollow: (id: string) => call<{ id: string; following: boolean }>("POST", `/api/unfollow/${enc(id)}`),
  block: (id: string) => call<{ id: string; blocking: boolean }>("POST", `/api/block/${enc(id)}`),
  unblock: (id: string) => call<{ id: string; blocking: boolean }>("POST", `/api/unblock/${enc(id)}`),
  following: () => call<{ following: Followed[] }>("GET", "/api/following"),
  blocking: () => call<{ blocking: Blocked[] }>("GET", "/api/blocking"),
};

/** What a followed player's game is, in words: "against Ann · Nielsen · 3 minutes a move · rated". */
export function gameLine(g: WatchableGame): string {
  const against = g.bot ? "the bot" : g.opponent.name;
  const ruleset = RULES[g.ruleset]?.title ?? g.ruleset;
  return `against ${against} · ${ruleset} · ${durationText(g.move_time)} a move · ${g.rated ? "rated" : "casual"}`;
}

/** The players worth a line on the home page: online or playing; online ones first. */
export function shownOnHome(list: Followed[]): Followed[] {
  return list.filter((f) => f.online || f.games.length > 0).sort((a, b) => Number(b.online) - Number(a.online));
}

/** What a player's status is, in words. */
export function presenceText(f: Followed): string {
  if (f.online) return f.games.length ? "online, playing" : "online";
  return f.games.length ? "playing (away)" : "offline";
}
