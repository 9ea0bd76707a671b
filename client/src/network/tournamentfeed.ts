// Tournaments over the shared websocket (docs/protocol.md): following one event's page
// (`follow_tournament`, sent again after each reconnect, as the server forgets it with the
// socket), its `tournament` frames (a snapshot) and `tournament_delta` frames (what changed,
// folded into the snapshot: logic/tournamentdelta.ts; a gap is answered by following again),
// and `tournament_game` (a player's next game). No DOM.

import { normalise, rememberTournamentGame, type Tournament } from "../logic/tournament";
import { foldFrame, type Held } from "../logic/tournamentdelta";
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
  /** tournament id -> its view and version as the frames gave them */
  private readonly held = new Map<string, Held>();
  private readonly listeners = new Set<(change: TournamentChange) => void>();
  /** the last `tournament_game` of this page load (a page opened later may still show it) */
  lastGame: TournamentGameFrame | null = null;

  constructor(private readonly transport: TournamentTransport) {
    transport.onFrame((frame) => this.handle(frame));
    transport.subscribe((change) => {
      if (change.type === "hello") {
        this.held.clear(); // a new socket: each follow is answered by a snapshot
        for (const id of this.followed.keys()) this.send(id, true);
      }
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
      this.held.delete(id);
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
    if (frame.t === "tournament" || frame.t === "tournament_delta") {
      const raw = frame as unknown as Record<string, unknown> & { tournament: unknown; id?: string };
      // The frame carries the event's JSON beside `t`; `tournament` is its id.
      if (typeof raw.tournament === "object" && raw.tournament !== null) {
        const t = normalise(raw.tournament); // an older hub's shape
        if (t.id && this.followed.has(t.id)) this.emit({ type: "tournament", tournament: t });
        return true;
      }
      const id = String(raw.tournament ?? raw.id ?? "");
      if (!id || !this.followed.has(id)) return true; // no page shows it any more
      const folded = foldFrame(this.held.get(id) ?? null, raw);
      if (folded.held) this.held.set(id, folded.held);
      if (folded.refollow) this.send(id, true);
      if (folded.changed && folded.held) {
        this.emit({ type: "tournament", tournament: normalise({ ...folded.held.view, id: folded.held.view.id ?? id }) });
      }
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
