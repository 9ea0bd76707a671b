// Reconnect bookkeeping: moves waiting for their ack, the reconnect backoff and the
// heartbeat deadline. Pure: the clock is passed in.

export interface PendingMove {
  /** the message id: sent unchanged on every resend */
  id: string;
  game: string;
  /** the ply of the state the move was chosen in */
  ply: number;
  move: string;
  /** whether it has gone out on some socket (false: made while the connection was down) */
  sent: boolean;
}

export type Settlement =
  | { kind: "acked"; move: PendingMove; duplicate: boolean }
  | { kind: "refused"; move: PendingMove; code: string; message: string }
  | { kind: "overtaken"; move: PendingMove };

/**
 * Moves sent (or to be sent) whose fate is not known yet. A move leaves the list on its
 * `ack`, on an `error` with its id, or when the game's ply moves past it (its event arrived,
 * or the game went on without it — the server will then refuse a resend as stale).
 */
export class PendingMoves {
  private items: PendingMove[] = [];
  private counter = 0;
  private readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** A fresh message id: unique per move, valid protocol characters only. */
  nextId(): string {
    this.counter += 1;
    return `${this.prefix}.${this.counter}`;
  }

  add(game: string, ply: number, move: string, sent: boolean): PendingMove {
    const item: PendingMove = { id: this.nextId(), game, ply, move, sent };
    this.items.push(item);
    return item;
  }

  markSent(id: string): void {
    const item = this.items.find((p) => p.id === id);
    if (item) item.sent = true;
  }

  /** Every pending move, oldest first. */
  all(): readonly PendingMove[] {
    return this.items;
  }

  forGame(game: string): PendingMove | undefined {
    return this.items.find((p) => p.game === game);
  }

  /** The moves to (re)send after (re)connecting, unchanged: same id, same ply. */
  toResend(): PendingMove[] {
    return [...this.items];
  }

  private take(id: string): PendingMove | undefined {
    const i = this.items.findIndex((p) => p.id === id);
    if (i < 0) return undefined;
    return this.items.splice(i, 1)[0];
  }

  ack(id: string, duplicate: boolean): Settlement | null {
    const move = this.take(id);
    return move ? { kind: "acked", move, duplicate } : null;
  }

  error(id: string, code: string, message: string): Settlement | null {
    const move = this.take(id);
    return move ? { kind: "refused", move, code, message } : null;
  }

  /** The game is now at `ply`: moves chosen at an earlier ply are settled. */
  advance(game: string, ply: number): Settlement[] {
    const out: Settlement[] = [];
    this.items = this.items.filter((p) => {
      if (p.game === game && p.ply < ply) {
        out.push({ kind: "overtaken", move: p });
        return false;
      }
      return true;
    });
    return out;
  }

  /** The game ended or was left: drop its moves. */
  dropGame(game: string): PendingMove[] {
    const gone = this.items.filter((p) => p.game === game);
    this.items = this.items.filter((p) => p.game !== game);
    return gone;
  }
}

/** Reconnect delays of docs/protocol.md §4: 0.5 s, 1 s, 2 s, … up to 10 s. */
export function backoffDelay(attempt: number, baseMs = 500, maxMs = 10_000): number {
  if (attempt < 0) return baseMs;
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 20));
}

/** With jitter (±20 %) so that many clients do not all come back at the same instant. */
export function jitteredDelay(attempt: number, random: () => number = Math.random): number {
  const d = backoffDelay(attempt);
  return Math.round(d * (0.8 + 0.4 * random()));
}

/** The client pings every second and the server answers at once (and pings every 2.5 s
 *  itself): 3 s without any frame means the connection is dead. */
export const DEAD_AFTER_MS = 3_000;

export function isSilentTooLong(lastFrameAt: number, now: number, limit = DEAD_AFTER_MS): boolean {
  return now - lastFrameAt > limit;
}
