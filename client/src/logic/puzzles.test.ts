import { describe, expect, it } from "vitest";
import { otherSide, ratingText, refutationText, solvedText } from "./puzzles";

describe("puzzle words", () => {
  it("says the rating change with its sign", () => {
    expect(ratingText({ rated: true, rating: { before: 1500, after: 1538 }, streak: null })).toBe("Your puzzle rating: 1500 → 1538 (+38)");
    expect(ratingText({ rated: true, rating: { before: 1500, after: 1470 }, streak: null })).toBe("Your puzzle rating: 1500 → 1470 (−30)");
  });
  it("says why an attempt was unrated", () => {
    expect(ratingText({ rated: false, rating: { before: 1500, after: 1500 }, streak: null })).toContain("tried this puzzle before");
    expect(ratingText({ rated: false, rating: { before: 1500, after: 1500 }, streak: 2 })).toContain("Streak puzzles are unrated");
    expect(ratingText({ rated: false, rating: null, streak: null })).toBe("");
  });
  it("names the refutation and the right move", () => {
    const text = refutationText({ move: "Kb7-b1", refutation: "g1-c1xb1", right: "Kb7-a7" }, "defenders");
    expect(text).toBe("Kb7-b1 is not it. The attackers answer g1-c1xb1 (the arrow on the board). The move was Kb7-a7.");
    expect(refutationText({ move: "x", refutation: null, right: "y" }, "attackers")).toBe("x is not it. The move was y.");
  });
  it("counts a streak and the moves found", () => {
    expect(solvedText(2, null)).toBe("Solved: all 2 moves found.");
    expect(solvedText(1, 3)).toBe("Solved! Streak: 3.");
    expect(otherSide("attackers")).toBe("defenders");
  });
});
