import { describe, expect, it } from "vitest";
import { parsePosition } from "./notation";
import { droppedText, makePremove, premoveAllowed, premoveMoves, queuedText, resolvePremove } from "./premove";
import { makeState } from "../testing";

const START = parsePosition("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a");

function from(moves: string[], square: string): string[] {
  return moves.filter((m) => m.replace(/^K/, "").startsWith(`${square}-`)).map((m) => m.replace(/^K?..-/, ""));
}

describe("premoveAllowed", () => {
  const live = makeState(1, { move_time: 180 });
  it("only a player, in a live active game, during the opponent's turn", () => {
    expect(premoveAllowed(live, "attackers")).toBe(true); // ply 1: the defenders move
    expect(premoveAllowed(live, "defenders")).toBe(false); // their own turn
    expect(premoveAllowed(live, null)).toBe(false); // a spectator
  });
  it("never in correspondence games or after the end", () => {
    expect(premoveAllowed(makeState(1, { move_time: 3600 }), "attackers")).toBe(false);
    expect(premoveAllowed(makeState(1, { move_time: 3599 }), "attackers")).toBe(true);
    expect(premoveAllowed(makeState(1, { move_time: 180, status: "ended", turn: null }), "attackers")).toBe(false);
    expect(premoveAllowed(makeState(0, { move_time: 180, status: "waiting", turn: null }), "defenders")).toBe(false);
  });
});

describe("premoveMoves", () => {
  it("slides along ranks and files up to an own piece, through the opponent's", () => {
    const moves = premoveMoves(START, "attackers", "nielsen");
    // d1's file is closed by the attacker on d2; along rank 1 it reaches b1 and f1, not the corners.
    expect(from(moves, "d1").sort()).toEqual(["b1", "c1", "e1", "f1"]);
    // a4: up and down the a-file short of the corners; b4 is its own attacker.
    expect(from(moves, "a4").sort()).toEqual(["a2", "a3", "a5", "a6"]);
    // d2 passes the defender on d3 (it may move away) but stops at the throne rule: nobody stops on d4.
    expect(from(moves, "d2")).toContain("d3");
    expect(from(moves, "d2")).not.toContain("d4");
    expect(moves.every((m) => !m.startsWith("K"))).toBe(true);
  });

  it("the king's own squares follow the rule set", () => {
    const pos = parsePosition("7/7/7/3K3/7/7/7 d");
    expect(from(premoveMoves(pos, "defenders", "nielsen"), "d4")).toContain("d7");
    const open = parsePosition("K6/7/7/7/7/7/7 d");
    const kingMoves = premoveMoves(open, "defenders", "nielsen");
    expect(kingMoves).toContain("Ka7-g7"); // the king may stop on a corner
    const toThrone = parsePosition("7/7/7/K6/7/7/7 d");
    expect(from(premoveMoves(toThrone, "defenders", "nielsen"), "a4")).not.toContain("d4");
    expect(from(premoveMoves(toThrone, "defenders", "common"), "a4")).toContain("d4");
  });

  it("newsome: one step, diagonals from white squares, soldiers two diagonally", () => {
    const pos = parsePosition("7/7/7/7/7/7/A6 a"); // a baron on a1 (white)
    expect(from(premoveMoves(pos, "attackers", "newsome"), "a1").sort()).toEqual(["a2", "b1", "b2", "c3"]);
    const black = parsePosition("7/7/7/7/7/7/1A5 a"); // b1 is black: orthogonal steps only
    expect(from(premoveMoves(black, "attackers", "newsome"), "b1").sort()).toEqual(["a1", "b2", "c1"]);
    const nearThrone = parsePosition("7/7/7/7/2A4/7/7 a"); // c3 (white): d4 is the king's only
    expect(from(premoveMoves(nearThrone, "attackers", "newsome"), "c3")).not.toContain("d4");
    expect(from(premoveMoves(nearThrone, "attackers", "newsome"), "c3")).not.toContain("e5");
  });
});

describe("resolvePremove", () => {
  const p = makePremove("d1-c1", 1)!;
  it("waits during the opponent's turn", () => {
    expect(resolvePremove(p, makeState(1, { move_time: 180 }), "attackers")).toEqual({ kind: "wait" });
  });
  it("plays the legal move with the same squares, captures included, at the new ply", () => {
    const state = makeState(2, { move_time: 180, legal: ["d1-b1", "d1-c1xc2", "g4-g3"] });
    expect(resolvePremove(p, state, "attackers")).toEqual({ kind: "play", move: "d1-c1xc2", ply: 2 });
  });
  it("drops it when no legal move matches, or the game ended", () => {
    const state = makeState(2, { move_time: 180, legal: ["d1-b1", "g4-g3"] });
    expect(resolvePremove(p, state, "attackers")).toEqual({ kind: "drop", why: "illegal" });
    const ended = makeState(2, { move_time: 180, status: "ended", turn: null, legal: [] });
    expect(resolvePremove(p, ended, "attackers")).toEqual({ kind: "drop", why: "ended" });
  });
});

describe("texts", () => {
  it("names the move and how to cancel it", () => {
    const king = makePremove("kd4-d6", 3)!;
    expect(king).toEqual({ from: "d4", to: "d6", text: "Kd4-d6", ply: 3 });
    expect(queuedText(king)).toBe("Premove: Kd4-d6 — click anywhere or press Escape to cancel");
    expect(queuedText(king, true)).toBe("Premove: Kd4-d6 — tap anywhere to cancel");
    expect(droppedText(king, "d2-d6")).toBe("Your premove Kd4-d6 was dropped: it is not legal after d2-d6.");
    expect(makePremove("hello", 1)).toBeNull();
  });
});
