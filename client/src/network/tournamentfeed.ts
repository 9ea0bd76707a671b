// Tournaments over the shared websocket (docs/protocol.md): following one event's page
// (`follow_tournament`, sent again after each reconnect, as the server forgets it with the
// socket), its `tournament` frames, and `tournament_game` (a player's next game). No DOM.

import { normalise, rememberTournamentGame, type Tournament } from "../logic/tournament";
import type { TournamentClientFrame, TournamentGameFrame } from "./protocol";

export type { TournamentGameFrame };

/** What the feed needs of the live connection (LiveClient; tests pass a fake). */
export interface TournamentTransport {
  readonly isOpen: boolean;
  sendExtra(frame: { t: string }): boolean;
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void;
  subscribe(fn: (change: { type: string }) => void): () => void;
}

export type TournamentChange =
  | { type: "tournament"; tournament: Tournament }
  | { type: "game"; frame: TournamentGameFrame }
  | { type: "connection"; open: boolean };

export class TournamentFeed {
  /** tournament id -> how many pages follow it */
  private readonly followed = new Map<string, number>();
  private readonly listeners = new Set<(change: TournamentChange) => void>();
  /** the last `tournament_game` of this page load (a page opened later may still show it) */
  lastGame: TournamentGameFrame | null = null;

  constructor(private readonly transport: TournamentTransport) {
    transport.onFrame((frame) => this.handle(frame));
    transport.subscribe((change) => {
      if (change.type === "hello") for (const id of this.followed.keys()) this.send(id, true);
      if (change.type === "hello" || change.type === "connection") this.emit({ type: "connection", open: transport.isOpen });
    });
  }

  get isOpen(): boolean {
    return this.transport.isOpen;
  }

  subscribe(fn: (change: TournamentChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(change: TournamentChange): void {
    for (const fn of [...this.listeners]) fn(change);
  }

  /** Follow an event while a page shows it; call the returned function to stop. */
  follow(id: string): () => void {
    const n = this.followed.get(id) ?? 0;
    this.followed.set(id, n + 1);
    if (n === 0) this.send(id, true);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.followed.get(id) ?? 1) - 1;
      if (left > 0) {
        this.followed.set(id, left);
        return;
      }
      this.followed.delete(id);
      this.send(id, false);
    };
  }

  following(id: string): boolean {
    return this.followed.has(id);
  }

  private send(id: string, on: boolean): void {
    const frame: TournamentClientFrame = { t: "follow_tournament", tournament: id, on };
    if (this.transport.isOpen) this.transport.sendExtra(frame);
  }

  private handle(frame: { t: string }): boolean {
    if (frame.t === "tournament") {
      const raw = frame as unknown as { tournament: unknown; id?: string };
      // The frame carries the event's JSON beside `t`; `tournament` is its id.
      const body = typeof raw.tournament === "object" && raw.tournament !== null ? raw.tournament : { ...raw, id: raw.id ?? raw.tournament };
      const t = normalise(body);
      if (!t.id || !this.followed.has(t.id)) return true; // no page shows it any more
      this.emit({ type: "tournament", tournament: t });
      return true;
    }
    if (frame.t === "tournament_game") {
      const f = frame as TournamentGameFrame;
      rememberTournamentGame(f.game, f.tournament);
      this.lastGame = f;
      this.emit({ type: "game", frame: f });
      return true;
    }
    return false;
  }
}

let shared: TournamentFeed | null = null;

/** The one feed of this page load. */
export function tournamentFeed(transport: TournamentTransport): TournamentFeed {
  shared ??= new TournamentFeed(transport);
  return shared;
}
