// Squares, positions and move text as in docs/rules.md §Move text and §Position strings:
// files a–g from the left, ranks 1–7 from the bottom; moves `d1-c1`, `Kd4-d7`, `c4-c7xb7xc6`. Pure functions only.

export const FILES = "abcdefg";
export const SIZE = 7;
export const THRONE = "d4";
export const CORNERS: readonly string[] = ["a1", "a7", "g1", "g7"];

export type Piece = "A" | "D" | "K";
export type Side = "attackers" | "defenders";

const SQUARE_RE = /^[a-g][1-7]$/;

export function isSquare(text: string): boolean {
  return SQUARE_RE.test(text);
}

/** The name of the square at file index 0..6 and rank 1..7. */
export function squareName(file: number, rank: number): string {
  return `${FILES[file]}${rank}`;
}

/** File index 0..6 and rank 1..7 of a square name. */
export function squareCoords(square: string): { file: number; rank: number } {
  return { file: FILES.indexOf(square[0]), rank: Number(square.slice(1)) };
}

/** Every square, ranks 7 down to 1 and files a to g: the reading order of the board. */
export function allSquares(): string[] {
  const out: string[] = [];
  for (let rank = SIZE; rank >= 1; rank--) {
    for (let file = 0; file < SIZE; file++) out.push(squareName(file, rank));
  }
  return out;
}

export function isCorner(square: string): boolean {
  return CORNERS.includes(square);
}

/** The neighbouring square in a direction, or null at the edge. */
export function step(square: string, dFile: number, dRank: number): string | null {
  const { file, rank } = squareCoords(square);
  const f = file + dFile;
  const r = rank + dRank;
  if (f < 0 || f >= SIZE || r < 1 || r > SIZE) return null;
  return squareName(f, r);
}

export interface Position {
  /** square name -> piece, only occupied squares */
  pieces: Map<string, Piece>;
  /** side to move */
  toMove: Side;
}

/** Read a position string such as `3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a`. */
export function parsePosition(text: string): Position {
  const [board, side] = text.trim().split(/\s+/);
  const rows = (board ?? "").split("/");
  if (rows.length !== SIZE) throw new Error(`bad position: ${text}`);
  const pieces = new Map<string, Piece>();
  rows.forEach((row, i) => {
    const rank = SIZE - i;
    let file = 0;
    for (const ch of row) {
      if (ch >= "1" && ch <= "7") {
        file += Number(ch);
      } else if (ch === "A" || ch === "D" || ch === "K") {
        if (file >= SIZE) throw new Error(`bad position: ${text}`);
        pieces.set(squareName(file, rank), ch);
        file += 1;
      } else {
        throw new Error(`bad position: ${text}`);
      }
    }
    if (file !== SIZE) throw new Error(`bad position: ${text}`);
  });
  return { pieces, toMove: side === "d" ? "defenders" : "attackers" };
}

export interface ParsedMove {
  king: boolean;
  from: string;
  to: string;
  captures: string[];
}

const MOVE_RE = /^(k?)([a-g][1-7])-([a-g][1-7])((?:x[a-g][1-7])*)$/;

/**
 * Parse move text leniently (case, the `K` and the capture suffix are optional, spaces
 * around are ignored). Null when it is not move text at all.
 */
export function parseMove(text: string): ParsedMove | null {
  const m = MOVE_RE.exec(text.trim().toLowerCase());
  if (!m) return null;
  const captures = m[4] ? m[4].split("x").filter(Boolean) : [];
  return { king: m[1] === "k", from: m[2], to: m[3], captures };
}

/** The squares a move captured (from its canonical text). */
export function capturesOf(text: string | null | undefined): string[] {
  if (!text) return [];
  return parseMove(text)?.captures ?? [];
}

/** A move as people read it: `Kd4-d7` stays, captures as written. */
export function describeMove(text: string): string {
  const m = parseMove(text);
  if (!m) return text;
  const what = m.king ? "King" : "";
  const caps = m.captures.length ? `, capturing ${m.captures.join(" and ")}` : "";
  return `${what ? what + " " : ""}${m.from} to ${m.to}${caps}`;
}

export interface MoveRow {
  number: number;
  attackers: string;
  defenders: string | null;
}

/** The move list in rows of two plies: attackers move first (docs/rules.md). */
export function moveRows(moves: readonly string[]): MoveRow[] {
  const rows: MoveRow[] = [];
  for (let i = 0; i < moves.length; i += 2) {
    rows.push({ number: i / 2 + 1, attackers: moves[i], defenders: moves[i + 1] ?? null });
  }
  return rows;
}

/** One row as text: `1. d1-c1 d3-c3`. */
export function formatMoveRow(row: MoveRow): string {
  return `${row.number}. ${row.attackers}${row.defenders ? " " + row.defenders : ""}`;
}

/** The whole move list, one numbered row per line. */
export function formatMoveList(moves: readonly string[]): string {
  return moveRows(moves).map(formatMoveRow).join("\n");
}

/** Squares holding a piece that has at least one legal move. */
export function movableSquares(legal: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const text of legal) {
    const m = parseMove(text);
    if (m) out.add(m.from);
  }
  return out;
}

/** Destination square -> canonical move text, for the piece on `from`. */
export function destinationsFrom(legal: readonly string[], from: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of legal) {
    const m = parseMove(text);
    if (m && m.from === from) out.set(m.to, text);
  }
  return out;
}

/** The legal move (canonical text) going from `from` to `to`, if any. */
export function findLegal(legal: readonly string[], from: string, to: string): string | null {
  return destinationsFrom(legal, from).get(to) ?? null;
}

/** The position after a move, for showing a pending move before the server confirms it. */
export function applyMoveLocally(pos: Position, text: string): Position {
  const m = parseMove(text);
  if (!m) return pos;
  const pieces = new Map(pos.pieces);
  const piece = pieces.get(m.from);
  if (!piece) return pos;
  pieces.delete(m.from);
  for (const sq of m.captures) if (sq !== m.to) pieces.delete(sq);
  pieces.set(m.to, piece);
  return { pieces, toMove: pos.toMove === "attackers" ? "defenders" : "attackers" };
}

/** Every rule set starts from this position (docs/rules.md). */
export const START_POSITION = "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a";
const START_COUNT = { A: 8, D: 4 };

/** The position after each move: `[start, after move 1, …]`, from canonical move texts. */
export function positionsOf(moves: readonly string[], start = START_POSITION): Position[] {
  const out = [parsePosition(start)];
  for (const m of moves) out.push(applyMoveLocally(out[out.length - 1], m));
  return out;
}

/** How many pieces each side has taken: the attackers count defenders, and the other way. */
export function capturedCounts(pos: Position): { attackers: number; defenders: number } {
  let a = 0;
  let d = 0;
  for (const p of pos.pieces.values()) {
    if (p === "A") a++;
    else if (p === "D") d++;
  }
  return { attackers: Math.max(0, START_COUNT.D - d), defenders: Math.max(0, START_COUNT.A - a) };
}

/** "1 move", "11 moves": full moves, as people count them (a ply is half of one). */
export function movesText(plies: number): string {
  const n = Math.ceil(plies / 2);
  return n === 1 ? "1 move" : `${n} moves`;
}
