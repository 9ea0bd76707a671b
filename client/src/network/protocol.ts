// The messages of docs/protocol.md and their msgpack encoding. Nothing else is spoken.

import { decode, encode } from "@msgpack/msgpack";
import type { Side } from "../board/notation";
import type { Challenge } from "../logic/challenges";

export interface PlayerInfo {
  id: string;
  name: string;
  /** present (true) only for a bot account (docs/protocol.md §2.8) */
  bot?: boolean;
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
  /** the side whose takeback offer is open (casual games between people; absent from older hubs) */
  takeback_offer?: Side | null;
  /** after the end: a rematch offered (by a side), agreed (the new game's id), or declined (by a side) */
  rematch: { offer: Side | null; game: string | null; declined?: Side | null };
  /** a private challenge: the only player who may join */
  invitee: string | null;
  /** a game of a two-game match: the match id and this game's number (3: a tie-breaker) */
  match: { id: string; number: number } | null;
  /** where the game came from (absent from older hubs: see `originOf`) */
  origin?: string;
  /** the tournament this game is of (absent for any other game) */
  tournament?: string;
  /** an invitation its creator withdrew before anyone joined */
  withdrawn?: boolean;
  /** a challenge its invitee declined: the reason (docs/protocol.md, "Challenges") */
  declined?: string;
}

export interface HelloFrame {
  t: "hello";
  player: PlayerInfo | null;
  ping_interval: number;
  /** the server's clock, ms since the epoch */
  now?: number;
  limits: { max_frame_bytes: number; credits: number; credit_window: number; claim_grace?: number };
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
  | "claim"
  | "resign"
  | "abort"
  | "timeout"
  | "withdraw"
  | "deadline_extended"
  | "takeback"
  | "takeback_offer"
  | "takeback_declined";

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
  /** move: this move closed an open takeback offer */
  takeback_closed?: boolean;
  /** takeback: how many plies went back (the move list keeps the first `state.ply`) */
  plies?: number;
  /** claim: the claimant called it a draw rather than claiming victory */
  draw?: boolean;
  /** abort: the side that did not make its first move in time */
  timeout?: Side;
  /** timeout: the side whose deadline passed */
  side?: Side;
  /** withdraw: a challenge declined by the player challenged, the reason they gave */
  declined?: string;
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
  /** move, resign, abort, offer_draw, answer_draw, takeback…: the event number, and whether a resend */
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
/** A notice to everyone following an ended game: a rematch offered, declined, or agreed. */
export interface RematchFrame {
  t: "rematch";
  game: string;
  offer?: Side;
  declined?: Side;
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

/** Which of a game's players have a socket following it now (sent after each catch-up and on change). */
export interface PresenceFrame {
  t: "presence";
  game: string;
  online: string[];
  /** each player who left: when their last socket went (server clock, ms) */
  gone?: Record<string, number>;
}
/** To every socket of the player whose move it now is, in any game. */
export interface TurnFrame {
  t: "turn";
  game: string;
  ply: number;
  last: string | null;
  deadline: number | null;
  opponent: string | null;
}

// -- the lobby (docs/protocol.md §3.6) ----------------------------------------------------

export type SeekKind = "live" | "correspondence";

export interface Seek {
  id: string;
  player: PlayerInfo;
  rating: number;
  provisional: boolean;
  ruleset: string;
  move_time: number;
  rated: boolean;
  match: boolean;
  kind: SeekKind;
}

export interface RatedPlayer {
  id: string;
  name: string;
  rating: number;
  provisional: boolean;
}

/** A game in progress to watch (the lobby's `games`). */
export interface GameSummary {
  id: string;
  ruleset: string;
  ply: number;
  /** the move number (ply // 2 + 1) */
  move: number;
  players: { attackers: RatedPlayer; defenders: RatedPlayer };
  watchers: number;
  opponent: "friend" | "bot";
  /** where the game came from (State's `origin`) */
  origin?: string;
}

export interface LobbySnapshotFrame {
  t: "lobby";
  seeks: Seek[];
  games: GameSummary[];
}
export interface SeekAddedFrame {
  t: "seek_added";
  seek: Seek;
}
export interface SeekRemovedFrame {
  t: "seek_removed";
  seek: string;
}
export interface GamesFrame {
  t: "games";
  games: GameSummary[];
}
export interface PairedFrame {
  t: "paired";
  game: string;
  players: string[];
  /** the match id when the game is the first of a two-game match (may be absent) */
  match?: string | null;
}
export type LobbyRequestKind = "seek" | "cancel_seek" | "accept_seek" | "quick" | "cancel_quick" | "choose_sides";
/** The `ack` of a lobby request (one ack shape for every message: `AckFrame`). */
export type LobbyAckFrame = AckFrame & { of: LobbyRequestKind };

export type MatchStatus = "playing" | "choosing" | "finished";
export interface MatchSummary {
  id: string;
  ruleset: string;
  players: PlayerInfo[];
  /** player id -> points (a win 1, a draw or an aborted game ½ each) */
  score: Record<string, number>;
  /** the games' ids in order; after game 1 the second is the next to open */
  games: string[];
  status: MatchStatus;
  /** while choosing: the player who picks sides for the tie-breaker */
  chooser: string | null;
  winner: string | null;
}
/** A game of a match ended: where the match stands. */
export interface MatchFrame {
  t: "match";
  game: string;
  match: MatchSummary;
}

export type LobbyServerFrame =
  | LobbySnapshotFrame
  | SeekAddedFrame
  | SeekRemovedFrame
  | GamesFrame
  | PairedFrame
  | LobbyAckFrame;

export type LobbyClientFrame =
  | { t: "lobby"; on: boolean }
  | { t: "seek"; ruleset: string; move_time: number; rated: boolean; match: boolean; id: string }
  | { t: "cancel_seek"; seek: string; id: string }
  | { t: "accept_seek"; seek: string; id: string }
  | { t: "quick"; ruleset: string; move_time: number; id: string }
  | { t: "cancel_quick"; id: string }
  | { t: "choose_sides"; match: string; side: Side; id: string };

/** A line of a game's chat, as a `chat` frame and in `chat_lines` (docs/protocol.md §3.7). */
export interface ChatLine {
  n: number;
  from: { id: string; name: string };
  text: string;
  at: number;
}

/** A new line in the chat room this socket sees; `n` counts that room's lines. */
export interface ChatFrame {
  t: "chat";
  game: string;
  room: string;
  n: number;
  from: { id: string; name: string };
  text: string;
  at: number;
}

/** The latest lines of the room this socket sees (`room` null: none), after each snapshot
 * and catch-up. */
export interface ChatLinesFrame {
  t: "chat_lines";
  game: string;
  room: string | null;
  lines: ChatLine[];
}

/** A game's analysis by the bot, under way: the ply done of how many (to sockets that
 * follow it with `follow_analysis`). */
export interface AnalysisProgressFrame {
  t: "analysis_progress";
  game: string;
  ply: number;
  of: number;
}

/** A game's analysis is done: the client fetches it (GET /api/games/<id>/analysis). */
export interface AnalysisDoneFrame {
  t: "analysis_done";
  game: string;
}

// -- tournaments (docs/protocol.md; the JSON's shapes are in tournament.ts) -------------------

/** A followed tournament's whole JSON (`GET /api/tournaments/{id}`) beside `t`: the answer
 * to `follow_tournament`, and now and then a change. */
export interface TournamentFrame {
  t: "tournament";
  /** the tournament's id */
  tournament: string;
  /** the count of its frames this view is (or later than): deltas go on from it */
  version: number;
  [field: string]: unknown;
}

/** What changed in a followed tournament from version `base` (logic/tournamentdelta.ts). */
export interface TournamentDeltaFrame {
  t: "tournament_delta";
  tournament: string;
  version: number;
  base: number;
  [part: string]: unknown;
}

/** To a player of a running tournament just paired: their next game. */
export interface TournamentGameFrame {
  t: "tournament_game";
  tournament: string;
  game: string;
  side: Side;
  /** the player it is for (it routes the frame between hubs) */
  player?: string;
  opponent?: PlayerInfo | null;
}

/** A challenge to or from this account was made (docs/protocol.md §2.10). */
export interface ChallengeFrame {
  t: "challenge";
  challenge: Challenge;
}

/** A challenge to or from this account was accepted, declined or cancelled (its `status`). */
export interface ChallengeGoneFrame {
  t: "challenge_gone";
  challenge: Challenge;
}

/** Follow a tournament's changes (`tournament` frames) while its page is open. */
export type TournamentClientFrame = { t: "follow_tournament"; tournament: string; on: boolean };

/** Every frame the server sends (docs/protocol.md §3.4, §3.6 and §3.7). */
export type ServerFrame =
  | HelloFrame
  | AnalysisProgressFrame
  | AnalysisDoneFrame
  | ChatFrame
  | ChatLinesFrame
  | SnapshotFrame
  | EventFrame
  | AckFrame
  | RematchFrame
  | ErrorFrame
  | WatchersFrame
  | PresenceFrame
  | TurnFrame
  | MatchFrame
  | PingFrame
  | PongFrame
  | TournamentFrame
  | TournamentDeltaFrame
  | TournamentGameFrame
  | ChallengeFrame
  | ChallengeGoneFrame
  | LobbyServerFrame;

export type GameClientFrame =
  | { t: "watch"; game: string; since?: number }
  | { t: "unwatch"; game: string }
  | { t: "move"; game: string; ply: number; move: string; id: string }
  | { t: "resign"; game: string; id: string }
  | { t: "abort"; game: string; id: string }
  | { t: "offer_draw"; game: string; id: string }
  | { t: "answer_draw"; game: string; accept: boolean; id: string }
  | { t: "claim"; game: string; draw: boolean; id: string }
  | { t: "takeback"; game: string; ply: number; id: string }
  | { t: "takeback_offer"; game: string; id: string }
  | { t: "takeback_answer"; game: string; accept: boolean; id: string }
  | { t: "rematch"; game: string; id: string }
  | { t: "decline_rematch"; game: string; id: string }
  | { t: "conditional"; game: string; ply: number; lines: string[][]; id: string }
  | { t: "get_conditional"; game: string; id: string }
  | { t: "chat"; game: string; room: string; text: string; id: string }
  | { t: "report"; game: string; room: string; line: number; id: string }
  | { t: "follow_analysis"; game: string; on: boolean }
  | { t: "ping"; n?: number }
  | { t: "pong"; n?: number };

/** Every message a client may send (docs/protocol.md §3.3 and §3.6). */
export type ClientFrame = GameClientFrame | LobbyClientFrame | TournamentClientFrame;

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
