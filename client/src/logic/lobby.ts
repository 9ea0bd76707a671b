// The lobby of docs/protocol.md §3.6, pure: its frames, the list of open seeks kept in step
// with `lobby` snapshots and `seek_added` / `seek_removed`, and the words the lobby and
// watch pages show. No DOM and no socket here (lobbyfeed.ts talks to the server).

import { durationText } from "./status";

/** Move times under this many seconds make a *live* seek (and game); longer ones are correspondence. */
export const LIVE_UNDER_S = 3600;
/** The time-per-move presets of a seek: 1, 3, 10 minutes, 1 hour, 1, 3, 7 days. */
export const SEEK_TIMES = [60, 180, 600, 3600, 86_400, 259_200, 604_800];
/** Quick pairing is for live games only. */
export const QUICK_TIMES = SEEK_TIMES.filter((s) => s < LIVE_UNDER_S);
/** At most this many open seeks per player (the server refuses more: `too_many_seeks`). */
export const MAX_SEEKS = 5;
/** Quick pairing's accepted rating difference: 100, widening by 25 a second, up to 1000. */
export const WINDOW_BASE = 100;
export const WINDOW_PER_S = 25;
export const WINDOW_WIDEST = 1000;

export type {
  GameSummary,
  GamesFrame,
  LobbyAckFrame,
  LobbyClientFrame,
  LobbyRequestKind,
  LobbyServerFrame,
  LobbySnapshotFrame,
  PairedFrame,
  RatedPlayer,
  Seek,
  SeekAddedFrame,
  SeekKind,
  SeekRemovedFrame,
} from "../network/protocol";
import type { GameSummary, LobbyServerFrame, RatedPlayer, Seek, SeekKind } from "../network/protocol";

export const LOBBY_FRAME_TYPES: ReadonlySet<string> = new Set([
  "lobby",
  "seek_added",
  "seek_removed",
  "games",
  "paired",
]);

const LOBBY_REQUESTS: ReadonlySet<string> = new Set([
  "seek",
  "cancel_seek",
  "accept_seek",
  "quick",
  "cancel_quick",
]);

/** Lobby frames, and the acks of lobby requests (an ack's `of` names the request). */
export function isLobbyFrame(frame: { t: string; of?: unknown }): frame is LobbyServerFrame {
  if (frame.t === "ack") return typeof frame.of === "string" && LOBBY_REQUESTS.has(frame.of);
  return LOBBY_FRAME_TYPES.has(frame.t);
}

export interface SeekTerms {
  ruleset: string;
  move_time: number;
  rated: boolean;
  match: boolean;
}

// -- the list of open seeks -------------------------------------------------------------

type SeekChange = { add: Seek } | { remove: string };

/**
 * The open seeks, in step with the server: a `lobby` snapshot replaces the list, then each
 * `seek_added` / `seek_removed` changes it. An id is never listed twice (a repeated
 * `seek_added` replaces the seek in place); removing an unknown id changes nothing.
 *
 * The server starts sending `seek_added` / `seek_removed` as soon as it has the `lobby`
 * request, and reads the list for the snapshot after that, so a few of those frames may
 * arrive before the snapshot and describe changes the snapshot does not yet show (or
 * already shows). Call `awaitSnapshot()` when sending `lobby`: the frames that arrive
 * before the snapshot are applied at once and remembered, then replayed, in order, on top
 * of the snapshot.
 */
export class SeekBook {
  private seeks = new Map<string, Seek>();
  private early: SeekChange[] | null = null;
  /** whether a snapshot has arrived since the list was last (re)requested */
  synced = false;

  awaitSnapshot(): void {
    this.early = [];
    this.synced = false;
  }

  snapshot(seeks: readonly Seek[]): void {
    this.seeks.clear();
    for (const s of seeks) this.seeks.set(s.id, s);
    for (const change of this.early ?? []) this.apply(change);
    this.early = null;
    this.synced = true;
  }

  /** A `seek_added`: true when the list changed. */
  add(seek: Seek): boolean {
    this.early?.push({ add: seek });
    return this.apply({ add: seek });
  }

  /** A `seek_removed`: true when the list changed. */
  remove(id: string): boolean {
    this.early?.push({ remove: id });
    return this.apply({ remove: id });
  }

  private apply(change: SeekChange): boolean {
    if ("add" in change) {
      this.seeks.set(change.add.id, change.add); // a known id keeps its place
      return true;
    }
    return this.seeks.delete(change.remove);
  }

  get(id: string): Seek | undefined {
    return this.seeks.get(id);
  }

  get size(): number {
    return this.seeks.size;
  }

  /** Live seeks first, then correspondence; each in the order they were opened. */
  list(): Seek[] {
    return orderSeeks([...this.seeks.values()]);
  }
}

/** Live seeks first, then correspondence; otherwise the given order (oldest first). */
export function orderSeeks(seeks: readonly Seek[]): Seek[] {
  const rank = (s: Seek) => (seekKind(s) === "live" ? 0 : 1);
  return seeks
    .map((s, i) => [s, i] as const)
    .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
    .map(([s]) => s);
}

export function seekKind(seek: Pick<Seek, "move_time"> & { kind?: SeekKind }): SeekKind {
  if (seek.kind === "live" || seek.kind === "correspondence") return seek.kind;
  return kindOfMoveTime(seek.move_time);
}

export function kindOfMoveTime(moveTime: number): SeekKind {
  return moveTime < LIVE_UNDER_S ? "live" : "correspondence";
}

/** Whether the seek was opened by the player `me` (a player id; null: nobody's). */
export function isMine(seek: Seek, me: string | null | undefined): boolean {
  return !!me && seek.player.id === me;
}

/** The seeks of `me`, and everyone else's. */
export function splitMine(seeks: readonly Seek[], me: string | null | undefined): { mine: Seek[]; others: Seek[] } {
  const mine: Seek[] = [];
  const others: Seek[] = [];
  for (const s of seeks) (isMine(s, me) ? mine : others).push(s);
  return { mine, others };
}

// -- words --------------------------------------------------------------------------------

/** "1 minute", "10 minutes", "1 hour", "90 minutes", "3 days" (the game page's wording). */
export const durationWords = durationText;

/** "3 minutes per move". */
export function timeControlText(moveTime: number): string {
  return `${durationWords(moveTime)} per move`;
}

/** The short form for chips and narrow tables: "1 min", "1 h", "3 d". */
export function timeControlShort(moveTime: number): string {
  if (moveTime % 86_400 === 0) return `${moveTime / 86_400} d`;
  if (moveTime % 3_600 === 0) return `${moveTime / 3_600} h`;
  if (moveTime % 60 === 0) return `${moveTime / 60} min`;
  return `${moveTime} s`;
}

export function kindText(kind: SeekKind): string {
  return kind === "live" ? "Live" : "Correspondence";
}

/** A rating, with "?" when it is still provisional: "1500?". */
export function ratingText(rating: number, provisional: boolean): string {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

export function seekTermsText(seek: Pick<Seek, "rated" | "match">): string {
  return `${seek.rated ? "Rated" : "Casual"} · ${seek.match ? "two-game match" : "one game"}`;
}

const RULESET_NAMES: Record<string, string> = {
  nielsen: "Nielsen",
  federation: "Federation",
  common: "Common",
  walker: "Walker",
  newsome: "Newsome",
};

/** A rule set's short name for lists ("Nielsen"); unknown ids as they are. */
export function rulesetName(id: string): string {
  return RULESET_NAMES[id] ?? id;
}

/** A one-line description of a seek, for screen readers and titles. */
export function seekLabel(seek: Seek, me?: string | null): string {
  const who = isMine(seek, me) ? "Your seek" : `${seek.player.name} (${ratingText(seek.rating, seek.provisional)})`;
  return `${who}: ${rulesetName(seek.ruleset)}, ${timeControlText(seek.move_time)}, ${seekTermsText(seek).replace(" · ", ", ").toLowerCase()}, ${kindText(seekKind(seek)).toLowerCase()}`;
}

/** Quick pairing's accepted rating difference after waiting `seconds`. */
export function quickWindow(seconds: number): number {
  return Math.min(WINDOW_WIDEST, WINDOW_BASE + WINDOW_PER_S * Math.max(0, Math.floor(seconds)));
}

/** "waiting… (12 s)" */
export function waitingText(seconds: number): string {
  return `waiting… (${Math.max(0, Math.floor(seconds))} s)`;
}

/** "Swift Raven 42 (1500?)" */
export function ratedName(p: RatedPlayer): string {
  return `${p.name} (${ratingText(p.rating, p.provisional)})`;
}

/** "Move 12" */
export function moveNumberText(game: Pick<GameSummary, "move" | "ply">): string {
  const n = typeof game.move === "number" ? game.move : Math.floor(game.ply / 2) + 1;
  return `Move ${n}`;
}

/** Whose move it is at `ply` (the attackers move first): "attackers to move". */
export function toMoveText(ply: number): string {
  return `${ply % 2 === 0 ? "attackers" : "defenders"} to move`;
}

export function spectatorsText(count: number): string {
  if (count <= 0) return "no spectators";
  return count === 1 ? "1 spectator" : `${count} spectators`;
}

/** Games to watch: people's games first, then games against the bot; otherwise as sent. */
export function orderGames(games: readonly GameSummary[]): GameSummary[] {
  return games
    .map((g, i) => [g, i] as const)
    .sort((a, b) => (a[0].opponent === "bot" ? 1 : 0) - (b[0].opponent === "bot" ? 1 : 0) || a[1] - b[1])
    .map(([g]) => g);
}

/** The error codes that mean: this needs an account (sign up or log in). */
const ACCOUNT_CODES = new Set(["account_required", "not_logged_in"]);

export function needsAccount(code: string): boolean {
  return ACCOUNT_CODES.has(code);
}

/** Words for an error answering a lobby request. */
export function lobbyErrorText(code: string, message: string): string {
  switch (code) {
    case "seek_gone":
      return "That seek is no longer open: someone else took it, or its player cancelled it.";
    case "own_seek":
      return "That is your own seek. Wait for someone to accept it, or cancel it.";
    case "not_yours":
      return "Only the player who opened a seek can cancel it.";
    case "too_many_seeks":
      return `You already have ${MAX_SEEKS} open seeks. Cancel one before opening another.`;
    case "already_waiting":
      return "You are already waiting for a quick pairing with other terms. Cancel that first.";
    case "rate_limited":
      return "Too many requests at once. Wait a few seconds and try again.";
    case "offline":
      return "You are offline. Wait until the connection is back, then try again.";
    case "dropped":
      return "The connection dropped before the server answered. Check the list and try again.";
    default:
      if (needsAccount(code)) return message ? capitalise(message) : "You need an account for this.";
      return message ? capitalise(message) : `The server refused (${code}).`;
  }
}

function capitalise(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
