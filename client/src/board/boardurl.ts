// The analysis board's state in its URL, so that a line can be shared:
// `/analysis?ruleset=nielsen&position=<position text>&moves=d1-c1,d3-c3&ply=1`.
// Pure (tested): the page reads it at load and writes it (replaceState) as the line changes.

export interface BoardState {
  ruleset: string;
  /** the start of the line; null: the rule set's start position */
  position: string | null;
  moves: string[];
  /** the step shown, 0..moves.length */
  ply: number;
}

export const DEFAULT_RULESET = "nielsen";
const RULESET_RE = /^[a-z]{1,20}$/;
const MOVE_RE = /^K?[a-g][1-7]-[a-g][1-7](?:x[a-g][1-7])*$/;

/** The path of a board state (parameters left out when they say nothing). */
export function boardUrl(s: BoardState): string {
  const q = new URLSearchParams();
  q.set("ruleset", s.ruleset);
  if (s.position) q.set("position", s.position);
  if (s.moves.length) q.set("moves", s.moves.join(","));
  if (s.ply !== s.moves.length) q.set("ply", String(s.ply));
  return `/analysis?${q.toString()}`;
}

/** The board state of a query string; what does not read is left out (the start, no moves). */
export function parseBoardUrl(search: string): BoardState {
  const q = new URLSearchParams(search);
  const rs = q.get("ruleset") ?? "";
  const ruleset = RULESET_RE.test(rs) ? rs : DEFAULT_RULESET;
  const position = (q.get("position") ?? "").trim() || null;
  const moves: string[] = [];
  for (const m of (q.get("moves") ?? "").split(",")) {
    const t = m.trim();
    if (!t) continue;
    if (!MOVE_RE.test(t)) break; // the line stops at the first move that does not read
    moves.push(t);
  }
  const asked = q.has("ply") ? Number(q.get("ply")) : moves.length;
  const ply = Number.isInteger(asked) ? Math.min(moves.length, Math.max(0, asked)) : moves.length;
  return { ruleset, position, moves, ply };
}

/** The line after playing `move` at step `ply`: the same line if it is the next move there,
 *  else the moves up to `ply` and the new one (what followed is dropped). */
export function playAt(s: BoardState, move: string): BoardState {
  if (s.moves[s.ply] === move) return { ...s, ply: s.ply + 1 };
  const moves = [...s.moves.slice(0, s.ply), move];
  return { ...s, moves, ply: moves.length };
}
