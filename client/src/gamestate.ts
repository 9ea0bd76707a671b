// Keeping one game in step with the server (docs/protocol.md §4): a snapshot sets
// everything; each event must carry the next number; older ones are duplicates; a jump
// ahead is a gap that the caller fills with `watch` + `since`. Pure: no I/O.

import type { EventFrame, SnapshotFrame, State } from "./protocol";

export type ApplyOutcome = "applied" | "duplicate" | "gap" | "stale";

export class GameTracker {
  readonly game: string;
  /** Number of the last event applied; -1 before the first snapshot. */
  n = -1;
  state: State | null = null;
  moves: string[] = [];
  watchers = 0;

  constructor(game: string) {
    this.game = game;
  }

  /** Whether a snapshot (or the events from the start) has been applied. */
  get synced(): boolean {
    return this.state !== null;
  }

  /** What to send in `watch.since` when (re)connecting: undefined before any state. */
  get since(): number | undefined {
    return this.state !== null && this.n >= 0 ? this.n : undefined;
  }

  applySnapshot(frame: SnapshotFrame): ApplyOutcome {
    if (frame.game !== this.game) return "stale";
    // A snapshot older than what we hold would move the board backwards: ignore it.
    if (this.state !== null && frame.n < this.n) return "stale";
    this.n = frame.n;
    this.state = frame.state;
    this.moves = [...frame.moves];
    this.watchers = frame.watchers;
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
    return "applied";
  }

  setWatchers(count: number): void {
    this.watchers = count;
  }
}
