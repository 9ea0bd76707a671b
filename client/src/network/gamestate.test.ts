import { describe, expect, it } from "vitest";
import { GameTracker } from "./gamestate";
import type { EventFrame, SnapshotFrame, State } from "./protocol";
import { makeState } from "../testing";

function state(ply: number, extra: Partial<State> = {}): State {
  return makeState(ply, extra);
}

function snapshot(n: number, moves: string[], watchers = 0): SnapshotFrame {
  return { t: "snapshot", game: "game01", n, state: state(moves.length), moves, watchers };
}

function move(n: number, text: string, ply: number): EventFrame {
  return { t: "event", game: "game01", n, kind: "move", move: text, by: "attackers", state: state(ply) };
}

describe("GameTracker", () => {
  it("starts empty and asks for a snapshot first", () => {
    const t = new GameTracker("game01");
    expect(t.synced).toBe(false);
    expect(t.since).toBeUndefined();
    expect(t.applyEvent(move(1, "d1-c1", 1))).toBe("gap");
    expect(t.state).toBeNull();
  });

  it("applies a snapshot then events in order", () => {
    const t = new GameTracker("game01");
    expect(t.applySnapshot(snapshot(2, ["d1-c1"], 3))).toBe("applied");
    expect(t.n).toBe(2);
    expect(t.watchers).toBe(3);
    expect(t.since).toBe(2);
    expect(t.applyEvent(move(3, "d3-c3", 2))).toBe("applied");
    expect(t.moves).toEqual(["d1-c1", "d3-c3"]);
    expect(t.state?.ply).toBe(2);
    expect(t.n).toBe(3);
  });

  it("ignores duplicates", () => {
    const t = new GameTracker("game01");
    t.applySnapshot(snapshot(2, ["d1-c1"]));
    expect(t.applyEvent(move(2, "d1-c1", 1))).toBe("duplicate");
    expect(t.applyEvent(move(1, "x", 1))).toBe("duplicate");
    t.applyEvent(move(3, "d3-c3", 2));
    expect(t.applyEvent(move(3, "d3-c3", 2))).toBe("duplicate");
    expect(t.moves).toEqual(["d1-c1", "d3-c3"]);
  });

  it("detects gaps and changes nothing on them", () => {
    const t = new GameTracker("game01");
    t.applySnapshot(snapshot(2, ["d1-c1"]));
    expect(t.applyEvent(move(4, "c1-b1", 3))).toBe("gap");
    expect(t.n).toBe(2);
    expect(t.moves).toEqual(["d1-c1"]);
  });

  it("applies a start event without adding a move", () => {
    const t = new GameTracker("game01");
    t.applySnapshot({ ...snapshot(0, []), state: state(0, { status: "waiting", turn: null }) });
    expect(t.since).toBe(0);
    const start: EventFrame = { t: "event", game: "game01", n: 1, kind: "start", state: state(0) };
    expect(t.applyEvent(start)).toBe("applied");
    expect(t.moves).toEqual([]);
    expect(t.state?.status).toBe("active");
  });

  it("ignores older snapshots and other games' frames", () => {
    const t = new GameTracker("game01");
    t.applySnapshot(snapshot(5, ["a", "b", "c", "d"]));
    expect(t.applySnapshot(snapshot(3, ["a", "b"]))).toBe("stale");
    expect(t.n).toBe(5);
    expect(t.applySnapshot(snapshot(5, ["a", "b", "c", "d"], 7))).toBe("applied");
    expect(t.watchers).toBe(7);
    expect(t.applyEvent({ ...move(6, "e", 5), game: "other1" })).toBe("stale");
    expect(t.applySnapshot(snapshot(30, Array(29).fill("x")))).toBe("applied");
    expect(t.n).toBe(30);
  });

  it("keeps draw offers and answers, and the end, as notes", () => {
    const t = new GameTracker("game01");
    t.applySnapshot(snapshot(5, ["d1-c1", "c4-c5", "c1-d1", "c5-c4"]));
    const ev = (n: number, kind: EventFrame["kind"], extra: Partial<EventFrame> = {}, st = state(4)): EventFrame => ({
      t: "event", game: "game01", n, kind, state: st, ...extra,
    });
    t.applyEvent(ev(6, "draw_offer", { by: "attackers" }, state(4, { draw_offer: "attackers" })));
    t.applyEvent(ev(7, "draw_declined", { by: "defenders" }, state(4, { draw_block: { attackers: 14, defenders: 0 } })));
    t.applyEvent(ev(8, "move", { move: "d1-c1", by: "attackers" }, state(5)));
    t.applyEvent(ev(9, "draw_offer", { by: "defenders" }, state(5, { draw_offer: "defenders" })));
    t.applyEvent(ev(10, "move", { move: "c4-c5", by: "defenders", draw_declined: true }, state(6)));
    const end = state(6, { status: "ended", turn: null, result: { winner: "defenders", reason: "resignation" } });
    t.applyEvent(ev(11, "resign", { by: "attackers", result: end.result! }, end));
    expect(t.notes.map((n) => [n.n, n.ply, n.kind, n.text])).toEqual([
      [6, 4, "draw_offer", "The attackers offered a draw."],
      [7, 4, "draw_declined", "The defenders declined the draw."],
      [9, 5, "draw_offer", "The defenders offered a draw."],
      [10, 6, "move", "The defenders played on, declining the draw."],
      [11, 6, "resign", "The attackers resigned."],
    ]);
    expect(t.moves).toHaveLength(6);
    // An ended game is watched again from a snapshot: its rematch notices are not numbered.
    expect(t.since).toBeUndefined();
  });

  it("keeps where a rematch stands from snapshots and notices", () => {
    const t = new GameTracker("game01");
    const over = state(6, { status: "ended", turn: null, result: { winner: null, reason: "draw_agreed" } });
    t.applySnapshot({ ...snapshot(9, []), state: { ...over, rematch: { offer: "defenders", game: null } } });
    expect(t.rematch).toEqual({ offer: "defenders", next: null, declined: null });
    expect(t.applyRematch({ offer: "defenders" })).toBe(false);
    expect(t.applyRematch({ next: "game02" })).toBe(true);
    expect(t.rematch).toEqual({ offer: null, next: "game02", declined: null });
    // A later snapshot (after a reconnect) agrees; an older view cannot undo the agreement.
    t.applySnapshot({ ...snapshot(9, []), state: { ...over, rematch: { offer: null, game: "game02" } } });
    expect(t.rematch.next).toBe("game02");
    const u = new GameTracker("game01");
    u.applySnapshot({ ...snapshot(9, []), state: { ...over, rematch: { offer: null, game: "game07" } } });
    expect(u.rematch).toEqual({ offer: null, next: "game07", declined: null });
  });
});

describe("an abort on time", () => {
  it("remembers whose first move never came", () => {
    const t = new GameTracker("game01");
    t.applySnapshot({ t: "snapshot", game: "game01", n: 1, state: makeState(0), moves: [], watchers: 0 });
    const ended = makeState(0, { status: "ended", result: { winner: null, reason: "aborted" } });
    t.applyEvent({ t: "event", game: "game01", n: 2, kind: "abort", by: null, timeout: "attackers", state: ended });
    expect(t.abortTimeout).toBe("attackers");
  });
});
