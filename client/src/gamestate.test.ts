import { describe, expect, it } from "vitest";
import { GameTracker } from "./gamestate";
import type { EventFrame, SnapshotFrame, State } from "./protocol";

function state(ply: number, extra: Partial<State> = {}): State {
  return {
    id: "game01",
    ruleset: "nielsen",
    status: "active",
    players: { attackers: { id: "p1", name: "One" }, defenders: { id: "p2", name: "Two" } },
    ply,
    position: "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a",
    turn: ply % 2 === 0 ? "attackers" : "defenders",
    legal: [],
    repetitions: 1,
    last: null,
    result: null,
    commitment: "00",
    seed: null,
    move_time: 3600,
    opponent: "friend",
    bot_level: null,
    created: 0,
    ...extra,
  };
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
});
