// Keeping one game in step with the server (docs/protocol.md §4): a snapshot sets
// everything; each event must carry the next number; older ones are duplicates; a jump
// ahead is a gap that the caller fills with `watch` + `since`. Pure: no I/O.
//
// Besides the state it keeps what the page tells people about events other than moves
// (draw offers and answers, resignations, …) and where a rematch stands.

import { NO_REMATCH, eventNote, updateRematch, type GameNote, type RematchBook } from "../logic/lifecycle";
import type { Side } from "../board/notation";
import type { EventFrame, MatchSummary, SnapshotFrame, State } from "./protocol";

/** Notes kept per game (the oldest go first). */
const MAX_NOTES = 50;

export type ApplyOutcome = "applied" | "duplicate" | "gap" | "stale";

export class GameTracker {
  readonly game: string;
  /** Number of the last event applied; -1 before the first snapshot. */
  n = -1;
  state: State | null = null;
  moves: string[] = [];
  watchers = 0;
  /** events seen since the page followed the game, in words (draw offers, answers, …) */
  notes: GameNote[] = [];
  /** the rematch after the end: open offer or agreed game */
  rematch: RematchBook = NO_REMATCH;
  /** the ids of the game's players connected now (`presence`); null until told */
  online: string[] | null = null;
  /** each player who left the game: since when (server clock, ms; `presence.gone`) */
  gone: Record<string, number> = {};
  /** an abort because the first move never came: the side whose clock ran out */
  abortTimeout: Side | null = null;
  /** the match this game belongs to, as the last `match` frame told it */
  match: MatchSummary | null = null;

  constructor(game: string) {
    this.game = game;
  }

  /** Whether a snapshot (or the events from the start) has been applied. */
  get synced(): boolean {
    return this.state !== null;
  }

  /**
   * What to send in `watch.since` when (re)connecting: undefined before any state, and for
   * an ended game — it has no more events, but its rematch notices are not numbered and
   * may have been missed meanwhile: a fresh snapshot carries them (`state.rematch`).
   */
  get since(): number | undefined {
    if (this.state === null || this.n < 0 || this.state.status === "ended") return undefined;
    return this.n;
  }

  applySnapshot(frame: SnapshotFrame): ApplyOutcome {
    if (frame.game !== this.game) return "stale";
    // A snapshot older than what we hold would move the board backwards: ignore it.
    if (this.state !== null && frame.n < this.n) return "stale";
    this.n = frame.n;
    this.state = frame.state;
    this.moves = [...frame.moves];
    this.watchers = frame.watchers;
    const r = frame.state.rematch;
    if (r) this.rematch = updateRematch(this.rematch, { offer: r.offer, next: r.game, declined: r.declined ?? null });
    return "applied";
  }

  applyEvent(frame: EventFrame): ApplyOutcome {
    if (frame.game !== this.game) return "stale";
    if (this.state === null) return "gap"; // nothing to build on: ask for a snapshot
    if (frame.n <= this.n) return "duplicate";
    if (frame.n > this.n + 1) return "gap";
    this.n = frame.n;
    this.state = frame.state;
    if (frame.kind === "move" && frame.move) this.moves = [...this.moves, frame.move];
    if (frame.kind === "takeback") {
      // The moves taken back are gone, and so are the notes that came after them.
      const ply = frame.state.ply;
      this.moves = this.moves.slice(0, ply);
      this.notes = this.notes.filter((note) => note.ply <= ply);
    }
    if (frame.kind === "abort" && frame.timeout) this.abortTimeout = frame.timeout;
    const text = eventNote(frame);
    if (text !== null) {
      this.notes = [...this.notes, { n: frame.n, ply: frame.state.ply, kind: frame.kind, text }].slice(-MAX_NOTES);
    }
    return "applied";
  }

  /** A `rematch` notice (an offer, or the agreed game) or what a rematch `ack` said. */
  applyRematch(news: { offer?: Side | null; next?: string | null; declined?: Side | null }): boolean {
    const before = this.rematch;
    this.rematch = updateRematch(before, news);
    return this.rematch !== before;
  }

  setOnline(ids: readonly string[], gone: Record<string, number> = {}): void {
    this.online = [...ids];
    this.gone = { ...gone };
  }

  /** Whether a player is connected: true for the bot, null while unknown. */
  isOnline(playerId: string | null | undefined): boolean | null {
    if (!playerId) return null;
    if (playerId === "bot") return true;
    return this.online === null ? null : this.online.includes(playerId);
  }

  setWatchers(count: number): void {
    this.watchers = count;
  }
}
