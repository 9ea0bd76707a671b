import { describe, expect, it } from "vitest";
import type { Analysis, TriedMove } from "../network/analysis";
import { mistakesOf, progressLine, promptText, summaryText, verdictText } from "./mistakes";

const ev = (chance: number) => ({ score: 0, chance, forced: null, pv: [] });
const ANALYSIS: Analysis = {
  version: 1,
  ruleset: "nielsen",
  nodes: 100,
  start: ev(0.5),
  plies: [
    { ply: 1, move: "d1-c1", side: "attackers", ...ev(0.6), judgment: "inaccuracy", best: "g4-g3", line: ["g4-g3"] },
    { ply: 2, move: "d3-c3", side: "defenders", ...ev(0.2), judgment: "blunder", best: "d3-f3", line: ["d3-f3", "g4-g3"] },
    { ply: 3, move: "a4-a5", side: "attackers", ...ev(0.2), judgment: null, best: null, line: [] },
    { ply: 5, move: "b4-b5", side: "attackers", ...ev(0.9), judgment: "blunder", best: "b4-b6", line: ["b4-b6"] },
  ],
  sides: {
    attackers: { inaccuracy: 1, mistake: 0, blunder: 1, accuracy: 70 },
    defenders: { inaccuracy: 0, mistake: 0, blunder: 1, accuracy: 60 },
  },
};

const tried = (over: Partial<TriedMove>): TriedMove => ({
  ply: 1, move: "f4-f6", good: true, why: "chance", judgment: null, before: 0.3, after: 0.3, eval: ev(0.7), nodes: 10, cached: false, ...over,
});

describe("learn from your mistakes", () => {
  it("lists one side's judged moves in order", () => {
    expect(mistakesOf(ANALYSIS, "attackers").map((p) => p.ply)).toEqual([1, 5]);
    expect(mistakesOf(ANALYSIS, "defenders").map((p) => p.ply)).toEqual([2]);
  });
  it("says which mistake, the prompt and the summary", () => {
    expect(progressLine(1, 2, ANALYSIS.plies[3])).toBe("Mistake 2 of 2 · move 3: you played b4-b5 (blunder, ??)");
    expect(promptText("attackers")).toBe("Find a better move for the attackers.");
    expect(summaryText(3, 5)).toMatch(/^3 of 5 found\./);
  });
  it("words each verdict", () => {
    expect(verdictText(tried({ why: "best", move: "g4-g3" }), "g4-g3")).toMatch(/^Good move! g4-g3 is the engine's own choice/);
    expect(verdictText(tried({}), "g4-g3")).toBe("Good move! f4-f6 is as good as the engine's g4-g3.");
    expect(verdictText(tried({ good: false, judgment: "inaccuracy" }), "g4-g3")).toBe("Not quite — f4-f6 would also be an inaccuracy. Try again.");
    expect(verdictText(tried({ good: false, why: "lost", judgment: "blunder" }), "g4-g3")).toMatch(/proves a loss/);
    expect(verdictText(tried({ good: false, why: "played", judgment: "mistake" }), "g4-g3")).toMatch(/the move you played/);
  });
});
