import { describe, expect, it } from "vitest";
import { PRESETS, mergeLines, type ChatLine } from "./chat";

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
