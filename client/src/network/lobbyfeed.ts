// The lobby over the shared websocket (docs/protocol.md §3.6): following it (again after
// each reconnect), seeks, quick pairing, and `paired`. One feed per page load, shared by the
// lobby and watch pages and by the pairing notice in the header; no DOM here.

import {
  SeekBook,
  isLobbyFrame,
  type GameSummary,
  type LobbyClientFrame,
  type LobbyRequestKind,
  type LobbyServerFrame,
  type PairedFrame,
  type SeekTerms,
} from "../logic/lobby";
import type { PlayerInfo } from "./protocol";

/** What the feed needs of the live connection (LiveClient; tests pass a fake). */
export interface LobbyTransport {
  readonly isOpen: boolean;
  readonly player: PlayerInfo | null;
  /** send a frame; false while offline */
  sendExtra(frame: { t: string }): boolean;
  /** every frame as it arrives; a hook returning true has handled it */
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void;
  /** connection changes: "hello" after each (re)connect, "connection" otherwise */
  subscribe(fn: (change: { type: string }) => void): () => void;
}

export type LobbyReply =
  | { ok: true; seek?: string; game?: string | null; left?: boolean }
  | { ok: false; code: string; message: string };

export interface QuickWait {
  ruleset: string;
  move_time: number;
  /** when the wait began (ms, client clock) */
  since: number;
  /** the id of the `quick` request now in force */
  id: string;
  /** the server confirmed the wait (an ack without a game) */
  confirmed: boolean;
}

export type LobbyChange =
  | { type: "seeks" }
  | { type: "games" }
  | { type: "quick" }
  | { type: "paired"; game: string; players: string[] }
  | { type: "connection" };

interface Request {
  kind: LobbyRequestKind;
  resolve: (reply: LobbyReply) => void;
}

export class LobbyFeed {
  readonly seeks = new SeekBook();
  games: GameSummary[] = [];
  /** whether a `lobby` snapshot has arrived on this connection */
  gamesSynced = false;
  quick: QuickWait | null = null;
  /** the last pairing announced on this page load */
  lastPaired: PairedFrame | null = null;

  private followers = 0;
  private counter = 0;
  private readonly prefix: string;
  private readonly requests = new Map<string, Request>();
  private readonly listeners = new Set<(change: LobbyChange) => void>();
  private readonly transport: LobbyTransport;
  private readonly now: () => number;

  constructor(transport: LobbyTransport, opts: { now?: () => number; prefix?: string } = {}) {
    this.transport = transport;
    this.now = opts.now ?? (() => Date.now());
    this.prefix = opts.prefix ?? `L${Math.floor(Math.random() * 36 ** 6).toString(36)}`;
    transport.onFrame((frame) => (isLobbyFrame(frame) ? this.handle(frame) : this.handleOther(frame)));
    transport.subscribe((change) => {
      if (change.type === "hello") this.onHello();
      else if (change.type === "connection" && !transport.isOpen) this.onDown();
      if (change.type === "hello" || change.type === "connection") this.emit({ type: "connection" });
    });
  }

  get me(): string | null {
    return this.transport.player?.id ?? null;
  }

  get isOpen(): boolean {
    return this.transport.isOpen;
  }

  subscribe(fn: (change: LobbyChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(change: LobbyChange): void {
    for (const fn of [...this.listeners]) fn(change);
  }

  // -- following ------------------------------------------------------------------------

  /** Follow the lobby while a page shows it; call the returned function to stop. */
  follow(): () => void {
    this.followers += 1;
    if (this.followers === 1 && this.transport.isOpen) this.sendFollow(true);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.followers -= 1;
      if (this.followers === 0 && this.transport.isOpen) this.sendFollow(false);
    };
  }

  get following(): boolean {
    return this.followers > 0;
  }

  private sendFollow(on: boolean): void {
    if (on) this.seeks.awaitSnapshot();
    const frame: LobbyClientFrame = { t: "lobby", on };
    this.transport.sendExtra(frame);
  }

  private onHello(): void {
    if (this.followers > 0) this.sendFollow(true);
    // Waiting for a quick pairing ends with the socket that waited: wait again.
    if (this.quick) {
      const id = this.nextId();
      this.quick = { ...this.quick, id, confirmed: false };
      this.sendRequest(id, "quick", { t: "quick", ruleset: this.quick.ruleset, move_time: this.quick.move_time, id }, () => undefined);
      this.emit({ type: "quick" });
    }
  }

  private onDown(): void {
    this.gamesSynced = false;
    for (const [id, req] of [...this.requests]) {
      this.requests.delete(id);
      // A quick pairing goes on waiting: it is asked for again after the reconnect.
      if (this.quick && id === this.quick.id) req.resolve({ ok: true, game: null });
      else req.resolve({ ok: false, code: "dropped", message: "" });
    }
  }

  // -- frames in --------------------------------------------------------------------------

  private handle(frame: LobbyServerFrame): boolean {
    switch (frame.t) {
      case "lobby":
        this.seeks.snapshot(frame.seeks ?? []);
        this.games = frame.games ?? [];
        this.gamesSynced = true;
        this.emit({ type: "seeks" });
        this.emit({ type: "games" });
        break;
      case "seek_added":
        if (this.seeks.add(frame.seek)) this.emit({ type: "seeks" });
        break;
      case "seek_removed":
        if (this.seeks.remove(frame.seek)) this.emit({ type: "seeks" });
        break;
      case "games":
        this.games = frame.games ?? [];
        this.gamesSynced = true;
        this.emit({ type: "games" });
        break;
      case "paired":
        this.onPaired(frame);
        break;
      case "ack": {
        const req = this.requests.get(frame.id);
        if (!req) break;
        this.requests.delete(frame.id);
        if (frame.of === "quick" && this.quick?.id === frame.id) {
          if (frame.game) this.quickDone();
          else {
            this.quick.confirmed = true;
            this.emit({ type: "quick" });
          }
        }
        const reply: LobbyReply = { ok: true };
        if (frame.seek !== undefined) reply.seek = frame.seek;
        if (frame.game !== undefined) reply.game = frame.game;
        if (frame.left !== undefined) reply.left = frame.left;
        req.resolve(reply);
        break;
      }
    }
    return true;
  }

  /** An `error` answering one of the feed's requests is the feed's; everything else is not. */
  private handleOther(frame: { t: string }): boolean {
    if (frame.t !== "error") return false;
    const err = frame as { t: "error"; code?: string; message?: string; id?: string };
    if (!err.id) return false;
    const req = this.requests.get(err.id);
    if (!req) return false;
    this.requests.delete(err.id);
    if (this.quick?.id === err.id) this.quickDone();
    req.resolve({ ok: false, code: err.code ?? "error", message: err.message ?? "" });
    return true;
  }

  private onPaired(frame: PairedFrame): void {
    this.lastPaired = frame;
    if (this.quick) this.quickDone();
    this.emit({ type: "paired", game: frame.game, players: frame.players ?? [] });
  }

  private quickDone(): void {
    this.quick = null;
    this.emit({ type: "quick" });
  }

  // -- requests ---------------------------------------------------------------------------

  private nextId(): string {
    this.counter += 1;
    return `${this.prefix}.${this.counter}`;
  }

  private sendRequest(id: string, kind: LobbyRequestKind, frame: LobbyClientFrame, resolve: (r: LobbyReply) => void): boolean {
    this.requests.set(id, { kind, resolve });
    if (!this.transport.isOpen || !this.transport.sendExtra(frame)) {
      this.requests.delete(id);
      resolve({ ok: false, code: "offline", message: "" });
      return false;
    }
    return true;
  }

  private request(kind: LobbyRequestKind, build: (id: string) => LobbyClientFrame): Promise<LobbyReply> {
    return new Promise((resolve) => {
      const id = this.nextId();
      this.sendRequest(id, kind, build(id), resolve);
    });
  }

  /** Open a seek; `seek` in the reply is its id. */
  openSeek(terms: SeekTerms): Promise<LobbyReply> {
    return this.request("seek", (id) => ({
      t: "seek",
      ruleset: terms.ruleset,
      move_time: terms.move_time,
      rated: terms.rated,
      match: terms.match,
      id,
    }));
  }

  cancelSeek(seek: string): Promise<LobbyReply> {
    return this.request("cancel_seek", (id) => ({ t: "cancel_seek", seek, id }));
  }

  /** Take someone's seek; `game` in the reply is the new game (a `paired` frame follows too). */
  acceptSeek(seek: string): Promise<LobbyReply> {
    return this.request("accept_seek", (id) => ({ t: "accept_seek", seek, id }));
  }

  /** Wait to be paired; the wait lasts (across reconnects) until `paired`, an error or `cancelQuick`. */
  startQuick(ruleset: string, moveTime: number): Promise<LobbyReply> {
    return new Promise((resolve) => {
      const id = this.nextId();
      const previous = this.quick;
      this.quick = { ruleset, move_time: moveTime, since: previous?.since ?? this.now(), id, confirmed: false };
      this.emit({ type: "quick" });
      const sent = this.sendRequest(id, "quick", { t: "quick", ruleset, move_time: moveTime, id }, resolve);
      if (!sent) this.quickDone();
    });
  }

  /** Stop waiting for a quick pairing (nothing to do when not waiting). */
  cancelQuick(): Promise<LobbyReply> {
    if (!this.quick) return Promise.resolve({ ok: true, left: false });
    const waiting = this.requests.get(this.quick.id);
    this.requests.delete(this.quick.id);
    waiting?.resolve({ ok: false, code: "cancelled", message: "" });
    this.quickDone();
    if (!this.transport.isOpen) return Promise.resolve({ ok: true, left: false });
    return this.request("cancel_quick", (id) => ({ t: "cancel_quick", id }));
  }

  /** Seconds waited in quick pairing so far. */
  quickSeconds(): number {
    return this.quick ? Math.max(0, (this.now() - this.quick.since) / 1000) : 0;
  }
}

let shared: LobbyFeed | null = null;

/** The page's one lobby feed, made on first use. */
export function lobbyFeed(transport: LobbyTransport): LobbyFeed {
  shared ??= new LobbyFeed(transport);
  return shared;
}
