import { describe, expect, it } from "vitest";
import { conditionalAllowed, lineText, parseLine } from "./conditional";
import type { State } from "../network/protocol";

const state = (over: Partial<State>): State => ({ status: "active", move_time: 3600, ...over }) as State;

describe("conditional moves", () => {
  it("reads a typed line: spaces or commas, move numbers left out", () => {
    expect(parseLine(" 1. d1-c1 d3-c3, 2... Kd4-d3 ")).toEqual(["d1-c1", "d3-c3", "Kd4-d3"]);
    expect(parseLine("   ")).toEqual([]);
  });

  it("says each of the opponent's moves with its reply", () => {
    expect(lineText(["d1-c1", "d3-c3", "a4-a3", "c4-c2"], false)).toBe("if d1-c1 → d3-c3, then if a4-a3 → c4-c2");
    expect(lineText(["d3-c3", "d1-c1", "c3-c2"], true)).toBe("I play d3-c3, then if d1-c1 → c3-c2");
  });

  it("is for the players of a running game of an hour or more a move only", () => {
    expect(conditionalAllowed(state({}), "attackers")).toBe(true);
    expect(conditionalAllowed(state({}), null)).toBe(false);
    expect(conditionalAllowed(state({ move_time: 3540 }), "defenders")).toBe(false);
    expect(conditionalAllowed(state({ status: "ended" }), "defenders")).toBe(false);
  });
});
