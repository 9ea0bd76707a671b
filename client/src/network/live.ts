// The one websocket: hello, heartbeat, watching games, sending moves and the other
// actions (resign, abort, draw offers, rematches), the server's clock, and reconnecting
// with backoff (docs/protocol.md §3–4). No DOM here; pages listen for changes.

import { CLAIM_GRACE_MS } from "../panels/claim";
import { ServerClock } from "./clock";
import { GameTracker } from "./gamestate";
import { PendingMoves, isSilentTooLong, jitteredDelay, type PendingMove, type Settlement } from "./pending";
import {
  decodeFrame,
  type AckFrame,
  encodeFrame,
  type ClientFrame,
  type PlayerInfo,
  type ServerFrame,
  type TurnFrame,
} from "./protocol";
import type { Side } from "../board/notation";
import { sideOf } from "../logic/status";

/** The parts of a browser WebSocket this client uses (tests pass a fake). */
export interface SocketLike {
  binaryType: string;
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code?: number }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
}

export type ConnectionState = "connecting" | "open" | "down";

/** A player's action on a game other than a move. */
export type ActionKind =
  | "resign"
  | "abort"
  | "offer_draw"
  | "answer_draw"
  | "claim_victory"
  | "claim_draw"
  | "rematch"
  | "decline_rematch"
  | "takeback"
  | "takeback_offer"
  | "takeback_answer";

/** An action waiting for its answer (`ack` or `error` with its id). */
export interface PendingAction {
  id: string;
  game: string;
  kind: ActionKind;
  /** answer_draw, takeback_answer: accept or decline */
  accept?: boolean;
  /** takeback: the game's ply when asked */
  ply?: number;
}

export type Change =
  | { type: "connection" }
  | { type: "hello" }
  | { type: "game"; game: string }
  | { type: "watchers"; game: string }
  | { type: "pending"; game: string }
  | { type: "settled"; game: string; settlement: Settlement }
  | { type: "action"; game: string; action: PendingAction; ok: true }
  | { type: "action"; game: string; action: PendingAction; ok: false; code: string; message: string }
  | { type: "rematch"; game: string }
  | { type: "presence"; game: string }
  | { type: "match"; game: string }
  | { type: "turn"; game: string; frame: TurnFrame }
  | { type: "sides"; game: string | null; ok: boolean; code?: string; message?: string }
  | { type: "error"; game: string | null; code: string; message: string };

export interface LiveOptions {
  url: string;
  createSocket?: (url: string) => SocketLike;
  now?: () => number;
  random?: () => number;
  idPrefix?: string;
}

const OPEN = 1;
/** While open, the client pings this often, so that silence means a dead connection at once. */
export const CLIENT_PING_MS = 1000;

function randomPrefix(): string {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(36).padStart(2, "0")).join("");
}

export class LiveClient {
  connection: ConnectionState = "down";
  player: PlayerInfo | null = null;
  /** attempts since the last good hello: the backoff step */
  attempt = 0;
  /** when the next reconnect is due (ms, client clock), while down */
  retryAt: number | null = null;
  readonly games = new Map<string, GameTracker>();
  readonly pending: PendingMoves;
  /** the server's clock, from `hello.now` and each `ping.now` (deadlines count by it) */
  readonly clock = new ServerClock();
  /** how long an opponent must be gone before a claim (`hello.limits.claim_grace`) */
  claimGraceMs = CLAIM_GRACE_MS;
  /** actions sent (or waiting for the connection) whose answer has not come */
  private readonly actions = new Map<string, PendingAction>();

  private ws: SocketLike | null = null;
  private ready = false; // hello received on the current socket
  private lastFrameAt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private watchdog: ReturnType<typeof setInterval> | null = null;
  private holdUntil = 0;
  private pingN = 0;
  private lastPingAt = 0;
  /** why the last connection attempt started: the backoff timer, the browser coming back
   *  online, or the "Retry now" button (for tests and the console) */
  connectReason: "start" | "backoff" | "online" | "retry" = "start";
  /** the browser says it is offline (`navigator.onLine`, the offline event) */
  browserOffline = false;
  /** `choose_sides` requests waiting for their `ack` */
  private readonly sides = new Map<string, string>();
  private stopped = false;
  private listeners = new Set<(change: Change) => void>();
  private frameHooks = new Set<(frame: { t: string }) => boolean | void>();
  private readonly opts: Required<LiveOptions>;

  constructor(opts: LiveOptions) {
    this.opts = {
      createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      now: () => Date.now(),
      random: Math.random,
      idPrefix: randomPrefix(),
      ...opts,
    };
    this.pending = new PendingMoves(this.opts.idPrefix);
  }

  // -- listening ------------------------------------------------------------------------

  subscribe(fn: (change: Change) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(change: Change): void {
    for (const fn of [...this.listeners]) fn(change);
  }

  /**
   * Frames for another part of the page that keeps its own state (the lobby, lobbyfeed.ts):
   * each hook sees every frame first; one that returns true has handled it.
   */
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void {
    this.frameHooks.add(fn);
    return () => this.frameHooks.delete(fn);
  }

  /** Send a frame that such a part builds and tracks itself; false while offline. */
  sendExtra(frame: { t: string }): boolean {
    return this.isOpen && this.send(frame as ClientFrame);
  }

  // -- the socket's life ----------------------------------------------------------------

  start(): void {
    this.stopped = false;
    if (this.watchdog === null) {
      this.watchdog = setInterval(() => this.checkHeartbeat(), 250);
    }
    if (this.ws === null && this.retryTimer === null) this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = null;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      this.detach(ws);
      ws.close(1000);
    }
    this.connection = "down";
  }

  get isOpen(): boolean {
    return this.ready && this.ws !== null;
  }

  private connect(): void {
    this.retryTimer = null;
    this.retryAt = null;
    if (this.stopped) return;
    this.ready = false;
    this.connection = "connecting";
    this.lastFrameAt = this.opts.now();
    let ws: SocketLike;
    try {
      ws = this.opts.createSocket(this.opts.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      if (ws === this.ws) this.lastFrameAt = this.opts.now();
    };
    ws.onmessage = (ev) => {
      if (ws === this.ws) this.onData(ev.data);
    };
    ws.onclose = () => this.onDown(ws);
    ws.onerror = () => undefined; // a close event follows
    this.emit({ type: "connection" });
  }

  private detach(ws: SocketLike): void {
    ws.onopen = null;
    ws.onmessage = null;
    ws.onclose = null;
    ws.onerror = null;
  }

  /** The socket is gone, or we drop it (dropConnection, going offline, a silent server):
   *  the one place a socket is closed and forgotten before reconnecting. */
  private onDown(ws: SocketLike): void {
    if (ws !== this.ws) return; // an old socket closing late
    this.ws = null;
    this.ready = false;
    this.detach(ws);
    try {
      ws.close();
    } catch {
      /* already closed */
    }
    for (const p of this.pending.all()) p.sent = false; // resend every one after reconnecting
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.connection = "down";
    if (this.stopped) return;
    if (this.browserOffline) {
      // Nothing can connect: the online event reconnects (setBrowserOnline).
      this.retryAt = null;
      this.emit({ type: "connection" });
      return;
    }
    const now = this.opts.now();
    const delay = Math.max(jitteredDelay(this.attempt, this.opts.random), this.holdUntil - now);
    this.attempt += 1;
    this.retryAt = now + delay;
    this.retryTimer = setTimeout(() => {
      this.connectReason = "backoff";
      this.connect();
    }, delay);
    this.emit({ type: "connection" });
  }

  /** Reconnect now instead of waiting for the backoff (the "retry now" button). */
  retryNow(): void {
    if (this.ws !== null || this.stopped) return;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.holdUntil = 0;
    this.connectReason = "retry";
    this.connect();
  }

  /** Close the socket and open a new one at once: after a login without a reload, so that
   *  the server speaks to the new session (games being watched are watched again). */
  reconnect(): void {
    this.dropConnection(0);
    this.retryNow();
  }

  /** Close the socket as if the network had dropped it (for tests and the dev console). */
  dropConnection(holdMs = 0): void {
    this.holdUntil = this.opts.now() + holdMs;
    if (this.ws) this.onDown(this.ws);
  }

  private checkHeartbeat(): void {
    const now = this.opts.now();
    if (this.ws !== null && isSilentTooLong(this.lastFrameAt, now)) {
      this.onDown(this.ws);
      return;
    }
    // Our own pings, answered at once by the server: a second or two of silence is a dead
    // connection, not a quiet one (the server's own pings come only every 2.5 s).
    if (this.isOpen && now - this.lastPingAt >= CLIENT_PING_MS) {
      this.lastPingAt = now;
      this.pingN += 1;
      this.send({ t: "ping", n: this.pingN });
    }
  }

  /**
   * The browser's online/offline events: going offline drops the socket at once (a socket
   * over a dead network may never say so); coming back reconnects at once, without waiting
   * for the backoff.
   */
  setBrowserOnline(online: boolean): void {
    if (online === !this.browserOffline) return;
    this.browserOffline = !online;
    if (!online) {
      if (this.ws) this.onDown(this.ws);
      else this.emit({ type: "connection" });
      return;
    }
    this.attempt = 0;
    this.retryNow();
    this.connectReason = "online";
  }

  private send(frame: ClientFrame): boolean {
    const ws = this.ws;
    if (ws === null || ws.readyState !== OPEN) return false;
    try {
      ws.send(encodeFrame(frame));
      return true;
    } catch {
      return false;
    }
  }

  // -- frames in --------------------------------------------------------------------------

  private onData(data: unknown): void {
    this.lastFrameAt = this.opts.now();
    if (!(data instanceof ArrayBuffer) && !(data instanceof Uint8Array)) return;
    const frame = decodeFrame(data);
    if (frame === null) return;
    let taken = false;
    for (const fn of [...this.frameHooks]) taken = fn(frame) === true || taken;
    if (!taken) this.handle(frame);
  }

  handle(frame: ServerFrame): void {
    switch (frame.t) {
      case "hello":
        if (frame.now !== undefined) this.clock.observe(frame.now, this.opts.now());
        if (frame.limits?.claim_grace !== undefined) this.claimGraceMs = frame.limits.claim_grace * 1000;
        this.onHello(frame.player);
        break;
      case "ping":
        if (frame.now !== undefined) this.clock.observe(frame.now, this.opts.now());
        this.send({ t: "pong", n: frame.n });
        break;
      case "pong":
        break;
      case "snapshot": {
        const tracker = this.games.get(frame.game);
        if (tracker && tracker.applySnapshot(frame) === "applied") this.afterState(frame.game);
        break;
      }
      case "event": {
        const tracker = this.games.get(frame.game);
        if (!tracker) break;
        const outcome = tracker.applyEvent(frame);
        if (outcome === "applied") this.afterState(frame.game);
        else if (outcome === "gap") this.sendWatch(tracker);
        break;
      }
      case "watchers": {
        const tracker = this.games.get(frame.game);
        if (tracker) {
          tracker.setWatchers(frame.count);
          this.emit({ type: "watchers", game: frame.game });
        }
        break;
      }
      case "presence": {
        const tracker = this.games.get(frame.game);
        if (tracker) {
          tracker.setOnline(frame.online ?? [], frame.gone ?? {});
          this.emit({ type: "presence", game: frame.game });
        }
        break;
      }
      case "turn":
        this.emit({ type: "turn", game: frame.game, frame });
        break;
      case "match": {
        const tracker = this.games.get(frame.game);
        if (tracker) tracker.match = frame.match;
        this.emit({ type: "match", game: frame.game });
        break;
      }
      case "ack": {
        if (frame.of === "choose_sides") {
          if (this.sides.delete(frame.id)) this.emit({ type: "sides", game: frame.game ?? null, ok: true });
          break;
        }
        if (frame.of === "rematch" || frame.of === "decline_rematch") {
          this.onRematchAck(frame);
          break;
        }
        const action = this.takeAction(frame.id);
        if (action) {
          this.emit({ type: "action", game: action.game, action, ok: true });
          break;
        }
        const s = this.pending.ack(frame.id, frame.duplicate === true);
        if (s) this.emit({ type: "settled", game: s.move.game, settlement: s });
        break;
      }
      case "rematch": {
        const tracker = this.games.get(frame.game);
        if (tracker?.applyRematch({ offer: frame.offer, next: frame.next, declined: frame.declined })) {
          this.emit({ type: "rematch", game: frame.game });
        }
        break;
      }
      case "error": {
        const action = frame.id ? this.takeAction(frame.id) : undefined;
        if (action) {
          this.emit({ type: "action", game: action.game, action, ok: false, code: frame.code, message: frame.message });
          break;
        }
        if (frame.id && this.sides.has(frame.id)) {
          this.sides.delete(frame.id);
          this.emit({ type: "sides", game: null, ok: false, code: frame.code, message: frame.message });
          break;
        }
        const s = frame.id ? this.pending.error(frame.id, frame.code, frame.message) : null;
        if (s) this.emit({ type: "settled", game: s.move.game, settlement: s });
        else this.emit({ type: "error", game: null, code: frame.code, message: frame.message });
        break;
      }
    }
  }

  private onRematchAck(frame: AckFrame): void {
    const action = this.takeAction(frame.id);
    const tracker = frame.game ? this.games.get(frame.game) : undefined;
    if (tracker && frame.game) {
      const state = tracker.state;
      const mine = state ? sideOf(state, this.player?.id) : null;
      const news =
        frame.of === "decline_rematch"
          ? frame.next
            ? { next: frame.next }
            : { declined: mine }
          : frame.outcome === "agreed"
            ? { next: frame.next }
            : { offer: mine };
      if (tracker.applyRematch(news)) this.emit({ type: "rematch", game: frame.game });
    }
    if (action) this.emit({ type: "action", game: action.game, action, ok: true });
  }

  private onHello(player: PlayerInfo | null): void {
    this.player = player;
    this.ready = true;
    this.connection = "open";
    this.attempt = 0;
    this.holdUntil = 0;
    for (const tracker of this.games.values()) this.sendWatch(tracker);
    for (const p of this.pending.toResend()) {
      if (this.sendMove(p)) this.pending.markSent(p.id);
    }
    // Resent unchanged, like moves: the server answers a resend of an applied action with
    // its ack again (and a second rematch request only repeats the first).
    for (const a of this.actions.values()) this.sendAction(a);
    this.emit({ type: "hello" });
    this.emit({ type: "connection" });
    for (const p of this.pending.all()) this.emit({ type: "pending", game: p.game });
  }

  private afterState(game: string): void {
    const tracker = this.games.get(game);
    const state = tracker?.state;
    if (!tracker || !state) return;
    this.emit({ type: "game", game });
    for (const s of this.pending.advance(game, state.ply)) {
      this.emit({ type: "settled", game, settlement: s });
    }
    if (state.status !== "active") {
      for (const move of this.pending.dropGame(game)) {
        const message =
          state.status === "ended" ? "the game is over" : "the game has not started yet";
        this.emit({
          type: "settled",
          game,
          settlement: { kind: "refused", move, code: "game_not_active", message },
        });
      }
    }
  }

  // -- frames out -------------------------------------------------------------------------

  private sendWatch(tracker: GameTracker): void {
    const since = tracker.since;
    this.send(since === undefined ? { t: "watch", game: tracker.game } : { t: "watch", game: tracker.game, since });
  }

  private sendMove(p: PendingMove): boolean {
    return this.send({ t: "move", game: p.game, ply: p.ply, move: p.move, id: p.id });
  }

  private sendAction(a: PendingAction): boolean {
    if (a.kind === "answer_draw") {
      return this.send({ t: "answer_draw", game: a.game, accept: a.accept === true, id: a.id });
    }
    if (a.kind === "takeback_answer") {
      return this.send({ t: "takeback_answer", game: a.game, accept: a.accept === true, id: a.id });
    }
    if (a.kind === "takeback") {
      return this.send({ t: "takeback", game: a.game, ply: a.ply ?? 0, id: a.id });
    }
    if (a.kind === "claim_victory" || a.kind === "claim_draw") {
      return this.send({ t: "claim", game: a.game, draw: a.kind === "claim_draw", id: a.id });
    }
    return this.send({ t: a.kind, game: a.game, id: a.id });
  }

  private takeAction(id: string): PendingAction | undefined {
    const action = this.actions.get(id);
    if (action) this.actions.delete(id);
    return action;
  }

  /**
   * Resign, abort, offer or answer a draw, or ask for a rematch. Sent now, or as soon as the
   * connection is back; answered by a change of type "action" (and "rematch").
   */
  act(game: string, kind: ActionKind, accept?: boolean, ply?: number): PendingAction {
    const action: PendingAction = { id: this.pending.nextId(), game, kind };
    if (kind === "answer_draw" || kind === "takeback_answer") action.accept = accept === true;
    if (kind === "takeback") action.ply = ply ?? 0;
    this.actions.set(action.id, action);
    if (this.isOpen) this.sendAction(action);
    return action;
  }

  /** The match's chooser picks sides for the tie-breaker; answered by a "sides" change. */
  chooseSides(match: string, side: Side): boolean {
    const id = this.pending.nextId();
    this.sides.set(id, match);
    const sent = this.isOpen && this.send({ t: "choose_sides", match, side, id });
    if (!sent) this.sides.delete(id);
    return sent;
  }

  /** The actions of a game still waiting for their answer. */
  actionsFor(game: string): PendingAction[] {
    return [...this.actions.values()].filter((a) => a.game === game);
  }

  /** Follow a game (again, after reconnecting, from its last event). */
  watch(game: string): GameTracker {
    let tracker = this.games.get(game);
    if (!tracker) {
      tracker = new GameTracker(game);
      this.games.set(game, tracker);
      if (this.isOpen) this.sendWatch(tracker);
    }
    return tracker;
  }

  unwatch(game: string): void {
    if (this.games.delete(game) && this.isOpen) this.send({ t: "unwatch", game });
  }

  /** Play a move chosen in the state at `ply`; pending until its ack, event or error. */
  move(game: string, ply: number, text: string): PendingMove {
    const p = this.pending.add(game, ply, text, false);
    if (this.isOpen && this.sendMove(p)) this.pending.markSent(p.id);
    this.emit({ type: "pending", game });
    return p;
  }
}
