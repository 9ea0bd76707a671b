import { describe, expect, it } from "vitest";
import { PendingMoves, backoffDelay, isSilentTooLong, jitteredDelay } from "./pending";

describe("PendingMoves", () => {
  it("gives every move a fresh, valid id", () => {
    const p = new PendingMoves("ab12");
    const a = p.add("game01", 0, "d1-c1", true);
    const b = p.add("game01", 2, "c1-b1", false);
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^[A-Za-z0-9_.:-]{1,64}$/);
  });

  it("settles a move on its ack, once", () => {
    const p = new PendingMoves("x");
    const m = p.add("game01", 0, "d1-c1", true);
    expect(p.forGame("game01")).toBe(m);
    expect(p.ack(m.id, false)).toEqual({ kind: "acked", move: m, duplicate: false });
    expect(p.ack(m.id, true)).toBeNull();
    expect(p.forGame("game01")).toBeUndefined();
  });

  it("settles a move on an error with its id", () => {
    const p = new PendingMoves("x");
    const m = p.add("game01", 0, "d1-d7", true);
    const s = p.error(m.id, "illegal_move", "blocked");
    expect(s).toEqual({ kind: "refused", move: m, code: "illegal_move", message: "blocked" });
    expect(p.all()).toHaveLength(0);
  });

  it("keeps unacknowledged moves for resending unchanged", () => {
    const p = new PendingMoves("x");
    const m = p.add("game01", 4, "d1-c1", true);
    const r = p.toResend();
    expect(r).toEqual([{ ...m }]);
    expect(r[0].id).toBe(m.id);
    expect(r[0].ply).toBe(4);
  });

  it("marks a move made offline as sent once it goes out", () => {
    const p = new PendingMoves("x");
    const m = p.add("game01", 4, "d1-c1", false);
    expect(m.sent).toBe(false);
    p.markSent(m.id);
    expect(p.forGame("game01")?.sent).toBe(true);
  });

  it("is overtaken when the game moves past the move's ply", () => {
    const p = new PendingMoves("x");
    const m = p.add("game01", 4, "d1-c1", true);
    const other = p.add("game02", 1, "d3-c3", true);
    expect(p.advance("game01", 4)).toEqual([]);
    expect(p.advance("game01", 5)).toEqual([{ kind: "overtaken", move: m }]);
    expect(p.all()).toEqual([other]);
    expect(p.dropGame("game02")).toEqual([other]);
    expect(p.all()).toEqual([]);
  });
});

describe("backoff", () => {
  it("doubles from half a second up to ten", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((a) => backoffDelay(a))).toEqual([
      500, 1000, 2000, 4000, 8000, 10000, 10000, 10000,
    ]);
  });
  it("adds at most 20 % jitter", () => {
    expect(jitteredDelay(0, () => 0)).toBe(400);
    expect(jitteredDelay(0, () => 1)).toBe(600);
    expect(jitteredDelay(10, () => 0.5)).toBe(10000);
  });
  it("calls three seconds of silence dead", () => {
    expect(isSilentTooLong(0, 3000)).toBe(false);
    expect(isSilentTooLong(0, 3001)).toBe(true);
  });
});
