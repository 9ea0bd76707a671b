// Premoves (issue 30): during the opponent's turn in a live game a player queues one move,
// sent the moment the turn arrives if the new state's `legal` still holds it. Pure: the
// game page owns the socket, this module only says what may be queued and what to do.
//
// What may be queued: the client has no rules engine (the server sends the legal moves of
// the side to move only), so a premove is any move of one of your pieces along its rule
// set's movement pattern — a slide along its rank or file up to the first piece of your own
// (through the opponent's pieces: one of them may move away), or in `newsome` one step, a
// diagonal step from a white square, or a soldier's two-square diagonal — never onto a
// square the rule set keeps for the king. Whether it is legal is decided when the turn
// arrives, by the server's `legal` list.

import { FILES, SIZE, THRONE, findLegal, isCorner, parseMove, squareCoords, squareName, type Piece, type Position, type Side } from "./notation";
import type { State } from "../network/protocol";

/** Games under this many seconds a move are live (docs/protocol.md): only they premove. */
export const LIVE_LIMIT = 3600;

export interface Premove {
  from: string;
  to: string;
  /** as shown: `c4-c6`, `Kd4-d6` */
  text: string;
  /** the ply of the state it was queued in (the opponent's turn) */
  ply: number;
}

export type Resolution =
  | { kind: "wait" }
  | { kind: "play"; move: string; ply: number }
  | { kind: "drop"; why: "illegal" | "ended" };

/** Whether this viewer may queue a premove now: a player, a live active game, not their turn. */
export function premoveAllowed(state: State, side: Side | null): boolean {
  return side !== null && state.status === "active" && state.move_time < LIVE_LIMIT && state.turn !== null && state.turn !== side;
}

function ownPieces(side: Side): readonly Piece[] {
  return side === "attackers" ? ["A"] : ["D", "K"];
}

/** Whether a piece may end its move on a square under a rule set (docs/rules.md, Rule table). */
function mayStop(ruleset: string, piece: Piece, square: string): boolean {
  if (square === THRONE) {
    if (ruleset === "nielsen" || ruleset === "federation") return false;
    return piece === "K";
  }
  if (isCorner(square)) return ruleset === "newsome" || piece === "K";
  return true;
}

function isWhite(square: string): boolean {
  const { file, rank } = squareCoords(square);
  return (file + rank - 1) % 2 === 0;
}

function at(file: number, rank: number): string | null {
  return file >= 0 && file < SIZE && rank >= 1 && rank <= SIZE ? squareName(file, rank) : null;
}

const ORTHOGONAL: readonly [number, number][] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];
const DIAGONAL: readonly [number, number][] = [
  [1, 1],
  [1, -1],
  [-1, 1],
  [-1, -1],
];

/** The squares the piece on `from` could be premoved to (see the head of this file). */
function targetsFrom(pos: Position, ruleset: string, from: string, piece: Piece, own: readonly Piece[]): string[] {
  const { file, rank } = squareCoords(from);
  const out: string[] = [];
  const free = (sq: string) => !own.includes(pos.pieces.get(sq) as Piece);
  const add = (sq: string | null) => {
    if (sq && free(sq) && mayStop(ruleset, piece, sq)) out.push(sq);
  };
  if (ruleset === "newsome") {
    for (const [df, dr] of ORTHOGONAL) add(at(file + df, rank + dr));
    if (isWhite(from)) {
      for (const [df, dr] of DIAGONAL) {
        add(at(file + df, rank + dr));
        const over = at(file + df, rank + dr);
        if (piece !== "K" && over !== null && over !== THRONE) add(at(file + 2 * df, rank + 2 * dr));
      }
    }
    return out;
  }
  for (const [df, dr] of ORTHOGONAL) {
    for (let k = 1; ; k++) {
      const sq = at(file + k * df, rank + k * dr);
      if (sq === null || !free(sq)) break;
      add(sq);
    }
  }
  return out;
}

/**
 * Every premove of `side` on `pos` as move text (`c4-c6`, `Kd4-d6`): the board offers these
 * as it offers the legal moves on the player's own turn.
 */
export function premoveMoves(pos: Position, side: Side, ruleset: string): string[] {
  const own = ownPieces(side);
  const out: string[] = [];
  for (const [from, piece] of pos.pieces) {
    if (!own.includes(piece)) continue;
    const king = piece === "K" ? "K" : "";
    for (const to of targetsFrom(pos, ruleset, from, piece, own)) out.push(`${king}${from}-${to}`);
  }
  return out.sort(bySquares);
}

function bySquares(a: string, b: string): number {
  const key = (t: string) => {
    const m = parseMove(t);
    return m ? `${FILES.indexOf(m.from[0])}${m.from[1]}${FILES.indexOf(m.to[0])}${m.to[1]}` : t;
  };
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

/** A premove from board move text, or null when it is not move text. */
export function makePremove(text: string, ply: number): Premove | null {
  const m = parseMove(text);
  if (!m) return null;
  return { from: m.from, to: m.to, text: `${m.king ? "K" : ""}${m.from}-${m.to}`, ply };
}

/**
 * What to do with a queued premove in a new state: wait while it is still the opponent's
 * turn; play the legal move with the same origin and destination (canonical text, captures
 * included) at the state's ply once the turn is the player's; drop it when that move is
 * not legal there, or the game is over.
 */
export function resolvePremove(p: Premove, state: State, side: Side): Resolution {
  if (state.status !== "active") return { kind: "drop", why: "ended" };
  if (state.turn !== side) return { kind: "wait" };
  const move = findLegal(state.legal, p.from, p.to);
  return move ? { kind: "play", move, ply: state.ply } : { kind: "drop", why: "illegal" };
}

/** The note shown while a premove is queued (also read out: the slot is aria-live); a touch
 * screen has no Escape key, so it is told to tap. */
export function queuedText(p: Premove, touch = false): string {
  return touch ? `Premove: ${p.text} — tap anywhere to cancel` : `Premove: ${p.text} — click anywhere or press Escape to cancel`;
}

/** Whether the page is used by touch (a coarse pointer and no fine one): the words of its hints. */
export function touchScreen(): boolean {
  return typeof window !== "undefined" && window.matchMedia?.("(pointer: coarse)").matches === true && !window.matchMedia("(any-pointer: fine)").matches;
}

/** Why a premove was not played, after the opponent's move `last`. */
export function droppedText(p: Premove, last: string | null): string {
  return `Your premove ${p.text} was dropped: it is not legal${last ? ` after ${last}` : " now"}.`;
}
