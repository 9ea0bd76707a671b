import { describe, expect, it } from "vitest";
import { MUTED_KEY, PRESETS, countsAsUnread, loadMuted, mergeLines, presetsFor, type ChatLine } from "./chat";

const line = (n: number, text = `line ${n}`): ChatLine => ({ n, from: { id: "p", name: "P" }, text, at: n });

describe("mergeLines", () => {
  it("orders by number and keeps each line once, whichever came first", () => {
    const live = [line(3), line(1)];
    const recent = [line(1), line(2), line(3)];
    expect(mergeLines(live, recent).map((l) => l.n)).toEqual([1, 2, 3]);
    expect(mergeLines(recent, [line(2)]).map((l) => l.n)).toEqual([1, 2, 3]);
  });
  it("has the five preset lines", () => {
    expect(PRESETS).toEqual(["Hello", "Good luck", "Good game", "Thank you", "Rematch?"]);
  });
});

describe("presetsFor", () => {
  it("offers a rematch only once the game is over", () => {
    expect(presetsFor(false)).toEqual(["Hello", "Good luck", "Good game", "Thank you"]);
    expect(presetsFor(true)).toEqual([...PRESETS]);
  });
});

describe("countsAsUnread", () => {
  const from = (id: string): ChatLine => ({ n: 1, from: { id, name: id }, text: "hi", at: 1 });
  it("counts another person's lines, never one's own nor a muted person's", () => {
    expect(countsAsUnread(from("b"), "a", new Set())).toBe(true);
    expect(countsAsUnread(from("a"), "a", new Set())).toBe(false);
    expect(countsAsUnread(from("b"), "a", new Set(["b"]))).toBe(false);
  });
});

describe("loadMuted", () => {
  const store = (value: string | null) => ({ getItem: (key: string) => (key === MUTED_KEY ? value : null) });
  it("reads the people muted in this browser, and nobody from bad or missing storage", () => {
    expect(loadMuted(store('[{"id":"p1","name":"Ann"}]'))).toEqual([{ id: "p1", name: "Ann" }]);
    expect(loadMuted(store('[{"id":3},"x",{"id":"p2","name":"Bo"}]'))).toEqual([{ id: "p2", name: "Bo" }]);
    expect(loadMuted(store("{not json"))).toEqual([]);
    expect(loadMuted(store('{"id":"p1"}'))).toEqual([]);
    expect(loadMuted(store(null))).toEqual([]);
    expect(loadMuted(null)).toEqual([]);
  });
});
