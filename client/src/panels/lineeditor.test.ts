import { describe, expect, it } from "vitest";
import { lineStatus } from "./lineeditor";
import { addedLineError } from "./conditional";

describe("lineStatus", () => {
  it("saves a line that ends with the player's own move", () => {
    // Their move first: theirs, mine (complete), theirs (not), mine (complete).
    expect([0, 1, 2, 3, 4].map((n) => lineStatus(n, 6, false).complete)).toEqual([false, false, true, false, true]);
    // The player to move: mine (complete), theirs, mine (complete).
    expect([0, 1, 2, 3].map((n) => lineStatus(n, 6, true).complete)).toEqual([false, true, false, true]);
  });
  it("stops at the most moves a line may have", () => {
    expect(lineStatus(5, 6, false).more).toBe(true);
    expect(lineStatus(6, 6, false).more).toBe(false);
  });
});

describe("addedLineError", () => {
  it("names the new lines as new, and leaves the kept ones' numbers alone", () => {
    expect(addedLineError("line 3, move 2: d4-d1 is not legal", 2, 1)).toBe("the new line, move 2: d4-d1 is not legal");
    expect(addedLineError("line 4: 1 to 6 moves", 2, 2)).toBe("new line 2: 1 to 6 moves");
    expect(addedLineError("line 1, move 1: g4-g3 where another line plays g4-g2", 2, 1)).toBe("line 1, move 1: g4-g3 where another line plays g4-g2");
    expect(addedLineError("at most 32 lines; sent 33", 32, 1)).toBe("at most 32 lines; sent 33");
  });
});
