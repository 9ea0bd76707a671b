// Accounts, profiles, leaderboards and the archive: the HTTP calls of docs/protocol.md §2
// that concern them, and pure helpers that put their answers into words.

import { ApiError, request as call } from "./api";
import type { Side } from "../board/notation";
import type { GameResult, PlayerInfo } from "./protocol";
import { reasonText } from "../logic/status";

/** The player of a session (`GET /api/me` with one, a login); `account` false for a guest. */
export interface Me extends PlayerInfo {
  account: boolean;
  email: string | null;
  /** a newcomer seated from an invitation (a guest session): the address it gave, not yet
   *  confirmed, and the game it may join (docs/accounts.md) */
  pending?: string;
  invited?: string;
}

/** Whether a session is a newcomer's seated from an invitation, its address unconfirmed. */
export function isNewcomer(me: unknown): me is Me & { pending: string } {
  return !!me && typeof (me as Me).pending === "string" && !(me as Me).account;
}

/** What a newcomer is told on asking for a game other than the one they were invited to. */
export function confirmFirst(email: string): string {
  return `Confirm your email address first: open the link we mailed to ${email}. Until then you can play the game you were invited to, and the bot.`;
}

/** `POST /api/signup`: the same answer whether or not the address has an account. */
export interface SignupAnswer {
  sent: true;
  email: string;
  message: string;
  /** a sign-up from an invitation: the game this browser may join now */
  game?: string;
}

export interface HistoryPoint {
  /** when the game ended, ms since the epoch */
  t: number;
  rating: number;
  rd: number;
  game: string;
}

export interface RatingInfo {
  rating: number;
  rd: number;
  volatility: number;
  games: number;
  provisional: boolean;
  history: HistoryPoint[];
}

export interface Profile {
  id: string;
  name: string;
  since: number;
  leaderboard: boolean;
  /** a bot account (docs/protocol.md §2.8): plays through the Bot API only */
  bot: boolean;
  /** the profile is the viewer's own */
  me: boolean;
  /** whether the viewer's account follows / blocks this player (docs/protocol.md §2.11) */
  following: boolean;
  blocking: boolean;
  ratings: Record<string, RatingInfo>;
}

export interface GameSummary {
  id: string;
  ruleset: string;
  rated: boolean;
  opponent: "bot" | "friend";
  bot_level: number | null;
  players: { attackers: PlayerInfo | null; defenders: PlayerInfo | null };
  result: GameResult;
  plies: number;
  move_time: number;
  created: number;
  ended: number;
  ratings: Record<string, { before: number; after: number; provisional: boolean }> | null;
  /** where the game came from; null or absent for games archived before it was kept */
  origin?: string | null;
}

export interface LeaderRow {
  rank: number;
  id: string;
  name: string;
  rating: number;
  rd: number;
  games: number;
  provisional: boolean;
  /** true in the bot accounts' list (`?bots=1`) only */
  bot?: boolean;
}

export interface Replay {
  id: string;
  ruleset: string;
  status: string;
  players: Record<"attackers" | "defenders", { id: string; name: string } | null>;
  moves: string[];
  /** positions[0] is the start; positions[i] the position after move i */
  positions: string[];
  result: GameResult | null;
}


const enc = encodeURIComponent;

/** A guest's player id starts so (the hub's sessions.GUEST_PREFIX): a guest has no
 *  profile, so the client never asks for one. */
export const GUEST_PREFIX = "g_";

export function isGuestId(id: string): boolean {
  return id.startsWith(GUEST_PREFIX);
}

export const accountApi = {
  me: () => call<Me>("GET", "/api/me"),
  signup: (email: string, password: string, name?: string) =>
    call<SignupAnswer>("POST", "/api/signup", name ? { email, password, name } : { email, password }),
  /** A newcomer's sign-up on an invitation's card: this browser may then join that game. */
  signupToPlay: (email: string, password: string, name: string | undefined, game: string, invite: string) =>
    call<SignupAnswer>("POST", "/api/signup", { email, password, game, invite, ...(name ? { name } : {}) }),
  login: (email: string, password: string) => call<Me>("POST", "/api/login", { email, password }),
  logout: (everywhere: boolean) => call<{ ended: number }>("POST", "/api/logout", { everywhere }),
  changePassword: (current: string, next: string) =>
    call<{ ended: number }>("POST", "/api/password", { current, new: next }),
  setLeaderboard: (on: boolean) => call<{ leaderboard: boolean }>("POST", "/api/settings", { leaderboard: on }),
  profile: (id: string) => call<Profile>("GET", `/api/players/${enc(id)}`),
  games: (id: string, offset = 0) =>
    call<{ games: GameSummary[]; next: number | null }>("GET", `/api/players/${enc(id)}/games?offset=${offset}`),
  leaderboard: (ruleset: string, bots = false) =>
    call<{ ruleset: string; bots: boolean; players: LeaderRow[] }>("GET", `/api/leaderboard/${enc(ruleset)}${bots ? "?bots=1" : ""}`),
  positions: (game: string) => call<Replay>("GET", `/api/games/${enc(game)}/positions`),
};

/** A rating for people: rounded, with "?" while provisional (RD ≥ 110). */
export function ratingText(rating: number, provisional: boolean): string {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

/** A rating change: "+12", "−7", "±0". */
export function deltaText(before: number, after: number): string {
  const d = Math.round(after) - Math.round(before);
  if (d > 0) return `+${d}`;
  if (d < 0) return `−${-d}`;
  return "±0";
}

export type Outcome = "won" | "lost" | "drawn" | "aborted";

/** How a finished game went for one player. */
export function outcomeFor(summary: GameSummary, playerId: string): { outcome: Outcome; side: Side | null } {
  const side: Side | null =
    summary.players.attackers?.id === playerId ? "attackers" : summary.players.defenders?.id === playerId ? "defenders" : null;
  const { winner, reason } = summary.result;
  if (reason === "aborted") return { outcome: "aborted", side };
  if (winner === null) return { outcome: "drawn", side };
  return { outcome: winner === side ? "won" : "lost", side };
}

/** The opponent of a player in a finished game (the bot is named by the state). */
export function opponentOf(summary: GameSummary, playerId: string): PlayerInfo | null {
  const { attackers, defenders } = summary.players;
  if (attackers?.id === playerId) return defenders;
  if (defenders?.id === playerId) return attackers;
  return null;
}

const OUTCOME_WORDS: Record<Outcome, string> = { won: "Won", lost: "Lost", drawn: "Draw", aborted: "Aborted" };

/** "Won as the defenders: the king reached a corner" */
export function outcomeLine(summary: GameSummary, playerId: string): string {
  const { outcome, side } = outcomeFor(summary, playerId);
  const as = side ? ` as the ${side}` : "";
  return `${OUTCOME_WORDS[outcome]}${as}: ${reasonText(summary.result.reason, summary.result.winner)}`;
}

/** Words for the account errors (stable codes; the server's sentence otherwise). */
export function accountErrorText(err: unknown): string {
  if (!(err instanceof ApiError)) return "Something went wrong. Please try again.";
  switch (err.code) {
    case "bad_credentials":
      return "The email address or the password is not right. A new account can log in once the link we mailed to it is opened.";
    case "rate_limited":
      return `Too many attempts: ${err.message.replace(/^too many login attempts for [^:]*: /, "")}.`;
    case "not_logged_in":
      return "You are not logged in any more. Log in again.";
    default:
      return err.message.charAt(0).toUpperCase() + err.message.slice(1) + (err.message.endsWith(".") ? "" : ".");
  }
}

/** The date of a time in ms, e.g. "30 Nov 2026". */
export function dateText(ms: number): string {
  return new Date(ms).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
}

/**
 * Where to go after logging in: a path on this site from `?next=`, else the fallback.
 * The target is resolved the way the browser will resolve it (`/\host`, `/<TAB>/host` and
 * `/%2F/host` forms become `//host` there), and only a path of this origin is kept.
 */
export function nextPath(search: string, fallback: string, origin: string = globalThis.location?.origin ?? "http://localhost"): string {
  const next = new URLSearchParams(search).get("next");
  if (!next || !next.startsWith("/")) return fallback;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return fallback;
  }
  const path = url.pathname + url.search + url.hash;
  return url.origin === new URL(origin).origin && !path.startsWith("//") ? path : fallback;
}
