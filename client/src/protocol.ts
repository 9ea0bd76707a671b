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
}

export interface HelloFrame {
  t: "hello";
  player: PlayerInfo | null;
  ping_interval: number;
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
export interface EventFrame {
  t: "event";
  game: string;
  n: number;
  kind: "start" | "move";
  move?: string;
  by?: Side;
  state: State;
}
export interface AckFrame {
  t: "ack";
  id: string;
  game: string;
  n: number;
  duplicate: boolean;
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
  | ErrorFrame
  | WatchersFrame
  | PingFrame
  | PongFrame;

export type ClientFrame =
  | { t: "watch"; game: string; since?: number }
  | { t: "unwatch"; game: string }
  | { t: "move"; game: string; ply: number; move: string; id: string }
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
