// The messages of docs/protocol.md and their msgpack encoding. Nothing else is spoken.

import { decode, encode } from "@msgpack/msgpack";
import type { Side } from "./notation";

export interface PlayerInfo {
  id: string;
  name: string;
}

export interface GameResult {
  winner: Side | null;
  reason: string;
}

export type GameStatus = "waiting" | "active" | "ended";

export interface State {
  id: string;
  ruleset: string;
  status: GameStatus;
  players: { attackers: PlayerInfo | null; defenders: PlayerInfo | null };
  ply: number;
  position: string;
  turn: Side | null;
  legal: string[];
  repetitions: number;
  last: string | null;
  result: GameResult | null;
  commitment: string;
  seed: string | null;
  move_time: number;
  opponent: "bot" | "friend";
  bot_level: number | null;
  created: number;
  /** chosen at creation: the result moves both ratings (games between accounts only) */
  rated: boolean;
  /** who created the game (so the creator knows it while waiting for a friend) */
  creator: PlayerInfo | null;
  /** while active: when the side to move loses on time, ms by the server's clock */
  deadline: number | null;
  /** the side whose draw offer is open */
  draw_offer: Side | null;
  /** the ply from which each side may offer a draw (0: any time) */
  draw_block: { attackers: number; defenders: number };
  /** after the end: a rematch offered (by a side) or agreed (the new game's id) */
  rematch: { offer: Side | null; game: string | null };
}

export interface HelloFrame {
  t: "hello";
  player: PlayerInfo | null;
  ping_interval: number;
  /** the server's clock, ms since the epoch */
  now?: number;
  limits: { max_frame_bytes: number; credits: number; credit_window: number };
}
export interface SnapshotFrame {
  t: "snapshot";
  game: string;
  n: number;
  state: State;
  moves: string[];
  watchers: number;
}
export type EventKind =
  | "start"
  | "move"
  | "draw_offer"
  | "draw_declined"
  | "draw_agreed"
  | "resign"
  | "abort"
  | "timeout"
  | "deadline_extended";

export interface EventFrame {
  t: "event";
  game: string;
  n: number;
  kind: EventKind;
  /** move: the canonical move text */
  move?: string;
  /** who did it; nil for an abort because the first move never came */
  by?: Side | null;
  /** move: this move declined the opponent's open draw offer */
  draw_declined?: boolean;
  /** abort: the side that did not make its first move in time */
  timeout?: Side;
  /** timeout: the side whose deadline passed */
  side?: Side;
  /** deadline_extended: the new deadline */
  deadline?: number;
  /** on the event that ends the game */
  result?: GameResult;
  state: State;
}
/** The one answer to a message with an id that was carried out; `of` names its type. */
export interface AckFrame {
  t: "ack";
  id: string;
  of: string;
  /** the game acted on; for accept_seek, quick and choose_sides the game started */
  game?: string | null;
  /** move, resign, abort, offer_draw, answer_draw: the event number, and whether a resend */
  n?: number;
  duplicate?: boolean;
  /** rematch */
  outcome?: "offered" | "agreed";
  next?: string | null;
  /** seek: the new seek's id */
  seek?: string;
  /** cancel_quick: whether the player was waiting */
  left?: boolean;
}
/** A notice to everyone following an ended game: a rematch offered, or agreed. */
export interface RematchFrame {
  t: "rematch";
  game: string;
  offer?: Side;
  next?: string;
}
export interface ErrorFrame {
  t: "error";
  code: string;
  message: string;
  id?: string;
}
export interface WatchersFrame {
  t: "watchers";
  game: string;
  count: number;
}
export interface PingFrame {
  t: "ping";
  n: number;
  /** the server's clock, ms since the epoch */
  now?: number;
}
export interface PongFrame {
  t: "pong";
  n: number;
}

export type ServerFrame =
  | HelloFrame
  | SnapshotFrame
  | EventFrame
  | AckFrame
  | RematchFrame
  | ErrorFrame
  | WatchersFrame
  | PingFrame
  | PongFrame;

export type ClientFrame =
  | { t: "watch"; game: string; since?: number }
  | { t: "unwatch"; game: string }
  | { t: "move"; game: string; ply: number; move: string; id: string }
  | { t: "resign"; game: string; id: string }
  | { t: "abort"; game: string; id: string }
  | { t: "offer_draw"; game: string; id: string }
  | { t: "answer_draw"; game: string; accept: boolean; id: string }
  | { t: "rematch"; game: string; id: string }
  | { t: "ping"; n?: number }
  | { t: "pong"; n?: number };

export function encodeFrame(frame: ClientFrame): Uint8Array {
  return encode(frame);
}

/** A server frame, or null for anything that is not a msgpack map with a string `t`. */
export function decodeFrame(data: ArrayBuffer | Uint8Array): ServerFrame | null {
  let value: unknown;
  try {
    value = decode(data instanceof Uint8Array ? data : new Uint8Array(data));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const t = (value as { t?: unknown }).t;
  if (typeof t !== "string") return null;
  return value as ServerFrame;
}
