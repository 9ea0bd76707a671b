// A tournament's view kept up to date from its frames (docs/protocol.md, `tournament` and
// `tournament_delta`): the snapshot a `tournament` frame gives and its `version`, each delta
// whose `base` is the version held applied to it, and a gap answered by following again
// (which gets a snapshot). `applyDelta` is the hub's apply (src/brandubh/hub/tournaments/
// delta.py): tournamentdelta.test.ts checks both on the same cases. No DOM.

export type View = Record<string, unknown>;
type Row = Record<string, unknown>;

interface RowsChange {
  changed: Row[];
  gone: unknown[];
  order?: unknown[];
  /** the standings' every rank, in the new order, when any changed */
  ranks?: unknown[];
}

interface CountsChange {
  set: Record<string, unknown>;
  gone: string[];
}

/** A delta's body: each part present only when something changed. */
export interface Delta {
  set?: Record<string, unknown>;
  unset?: string[];
  standings?: RowsChange;
  games?: RowsChange;
  rounds?: RowsChange;
  game_counts?: CountsChange;
}

/** The fields of a frame that are not of the view. */
const WIRE = new Set(["t", "tournament", "version", "base"]);

/** How each list of the view keys its rows. */
const ROWS: Record<"standings" | "games" | "rounds", (row: Row) => unknown> = {
  standings: (row) => (row.player as Row).id,
  games: (row) => row.id,
  rounds: (row) => row.round,
};

/** The field of each row of these lists that goes apart, as one list (`ranks`). */
const RANKED: Partial<Record<keyof typeof ROWS, string>> = { standings: "rank" };

function applyRows(rows: Row[], change: RowsChange, key: (row: Row) => unknown, column?: string): Row[] {
  const gone = new Set(change.gone);
  const out = rows.filter((r) => !gone.has(key(r)));
  const at = new Map(out.map((r, i) => [key(r), i] as const));
  for (const r of change.changed) {
    const i = at.get(key(r));
    if (i === undefined) {
      at.set(key(r), out.length);
      out.push(r);
    } else out[i] = r;
  }
  let ordered = out;
  if (change.order) {
    const byKey = new Map(out.map((r) => [key(r), r] as const));
    ordered = change.order.filter((k) => byKey.has(k)).map((k) => byKey.get(k) as Row);
  }
  const ranks = change.ranks;
  if (column === undefined || !ranks || ranks.length !== ordered.length) return ordered;
  // A rank of null stands for a row without one (the hub's None).
  return ordered.map((r, i) => ((r[column] ?? null) === ranks[i] ? r : { ...r, [column]: ranks[i] }));
}

/** `view` with `delta` applied (a new object; `view` is untouched). Idempotent: a delta
 * applied to the view it gave changes nothing. */
export function applyDelta(view: View, delta: Delta): View {
  const out: View = { ...view };
  for (const name of delta.unset ?? []) delete out[name];
  Object.assign(out, delta.set ?? {});
  for (const name of ["standings", "games", "rounds"] as const) {
    const change = delta[name];
    if (!change) continue;
    const current = out[name];
    out[name] = applyRows(Array.isArray(current) ? (current as Row[]) : [], change, ROWS[name], RANKED[name]);
  }
  const counts = delta.game_counts;
  if (counts) {
    const current = out.game_counts;
    const merged: Record<string, unknown> = current && typeof current === "object" && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
    for (const k of counts.gone) delete merged[k];
    Object.assign(merged, counts.set);
    out.game_counts = merged;
  }
  return out;
}

/** What a page holds of a followed tournament. `version` null: the server gave none (an
 * older hub): every whole frame is taken, no delta. */
export interface Held {
  view: View;
  version: number | null;
  /** a snapshot asked for after a gap (deltas wait for it) */
  awaiting: boolean;
}

export interface Folded {
  held: Held | null;
  /** the view changed: show it */
  changed: boolean;
  /** a version was missed: send `follow_tournament` again for a snapshot */
  refollow: boolean;
}

function bodyOf(frame: Record<string, unknown>): View {
  const out: View = {};
  for (const [k, v] of Object.entries(frame)) if (!WIRE.has(k)) out[k] = v;
  return out;
}

/** A `tournament` or `tournament_delta` frame folded into what is held (null: nothing yet).
 * A whole frame is taken unless older than the version held (another hub's, late), or
 * always while a snapshot is awaited. A delta is applied when its `base` is the version
 * held; one no newer than that is held already; one whose `base` is not the version held
 * is a gap (a delta over an older or newer view than its base would not give its version:
 * what changed and changed back in between is not in it), answered by following again,
 * deltas left out until the snapshot comes. */
export function foldFrame(held: Held | null, frame: Record<string, unknown>): Folded {
  const version = typeof frame.version === "number" ? frame.version : null;
  if (frame.t === "tournament") {
    if (held && !held.awaiting && held.version !== null && version !== null && version < held.version) {
      return { held, changed: false, refollow: false };
    }
    return { held: { view: bodyOf(frame), version, awaiting: false }, changed: true, refollow: false };
  }
  const base = typeof frame.base === "number" ? frame.base : null;
  if (!held || held.awaiting || held.version === null || version === null || version <= held.version) {
    return { held, changed: false, refollow: false };
  }
  if (base !== held.version) return { held: { ...held, awaiting: true }, changed: false, refollow: true };
  const view = applyDelta(held.view, bodyOf(frame) as Delta);
  return { held: { view, version, awaiting: false }, changed: true, refollow: false };
}
