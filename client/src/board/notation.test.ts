import { describe, expect, it } from "vitest";
import {
  allSquares,
  applyMoveLocally,
  capturesOf,
  describeMove,
  destinationsFrom,
  findLegal,
  formatMoveList,
  formatMoveRow,
  isCorner,
  moveRows,
  movableSquares,
  parseMove,
  parsePosition,
  step,
} from "./notation";
import { START_POSITION, capturedCounts, movesText, positionsOf } from "./notation";

const START = "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a";

describe("parseMove", () => {
  it("reads plain, king and capturing moves", () => {
    expect(parseMove("d1-c1")).toEqual({ king: false, from: "d1", to: "c1", captures: [] });
    expect(parseMove("Kd4-d7")).toEqual({ king: true, from: "d4", to: "d7", captures: [] });
    expect(parseMove("c4-c7xb7xc6")).toEqual({ king: false, from: "c4", to: "c7", captures: ["b7", "c6"] });
  });
  it("is lenient about case and spaces, as the server is", () => {
    expect(parseMove("  D1-C1 ")).toEqual({ king: false, from: "d1", to: "c1", captures: [] });
    expect(parseMove("kd4-d5")?.king).toBe(true);
  });
  it("refuses what is not move text", () => {
    for (const bad of ["", "d1", "d1c1", "h1-h2", "d0-d1", "d1-c1x", "d1-c1xz9", "resign"]) {
      expect(parseMove(bad)).toBeNull();
    }
  });
  it("extracts captures, including Newsome's capture by replacement", () => {
    expect(capturesOf("c4-c7xb7xc6")).toEqual(["b7", "c6"]);
    expect(capturesOf("c3-c4xc4")).toEqual(["c4"]);
    expect(capturesOf("d1-c1")).toEqual([]);
    expect(capturesOf(null)).toEqual([]);
  });
  it("describes a move in words", () => {
    expect(describeMove("Kd4-d7")).toBe("King d4 to d7");
    expect(describeMove("c4-c7xb7xc6")).toBe("c4 to c7, capturing b7 and c6");
  });
});

describe("move list", () => {
  it("numbers attackers' moves with the defenders' replies", () => {
    expect(moveRows(["d1-c1", "d3-c3", "c1-b1"])).toEqual([
      { number: 1, attackers: "d1-c1", defenders: "d3-c3" },
      { number: 2, attackers: "c1-b1", defenders: null },
    ]);
    expect(formatMoveRow({ number: 1, attackers: "d1-c1", defenders: "d3-c3" })).toBe("1. d1-c1 d3-c3");
    expect(formatMoveList(["d1-c1", "d3-c3", "c1-b1"])).toBe("1. d1-c1 d3-c3\n2. c1-b1");
    expect(moveRows([])).toEqual([]);
  });
});

describe("positions and squares", () => {
  it("reads the start position", () => {
    const pos = parsePosition(START);
    expect(pos.toMove).toBe("attackers");
    expect(pos.pieces.get("d4")).toBe("K");
    expect([...pos.pieces.values()].filter((p) => p === "A")).toHaveLength(8);
    expect([...pos.pieces.values()].filter((p) => p === "D")).toHaveLength(4);
    for (const sq of ["a4", "b4", "f4", "g4", "d1", "d2", "d6", "d7"]) expect(pos.pieces.get(sq)).toBe("A");
    for (const sq of ["c4", "e4", "d3", "d5"]) expect(pos.pieces.get(sq)).toBe("D");
  });
  it("reads the side to move and refuses bad strings", () => {
    expect(parsePosition("K2A3/3A3/6D/AAD1DA1/3D3/3A2A/3A3 d").toMove).toBe("defenders");
    expect(() => parsePosition("3A3/3A3 a")).toThrow();
    expect(() => parsePosition("3A4/3A3/3D3/AADKDAA/3D3/3A3/3A3 a")).toThrow();
  });
  it("lists squares in reading order and steps between them", () => {
    const all = allSquares();
    expect(all).toHaveLength(49);
    expect(all[0]).toBe("a7");
    expect(all[48]).toBe("g1");
    expect(step("a1", -1, 0)).toBeNull();
    expect(step("d4", 0, 1)).toBe("d5");
    expect(step("g7", 0, 1)).toBeNull();
    expect(isCorner("g1")).toBe(true);
    expect(isCorner("d4")).toBe(false);
  });
  it("applies a move locally, removing captured pieces", () => {
    const pos = parsePosition("7/2A4/2D4/2D4/7/7/7 a");
    const after = applyMoveLocally(pos, "c6-b6");
    expect(after.pieces.get("b6")).toBe("A");
    expect(after.pieces.has("c6")).toBe(false);
    expect(after.toMove).toBe("defenders");
    const cap = applyMoveLocally(parsePosition("7/7/1AD1A2/7/7/7/7 a"), "e5-d5xc5");
    expect(cap.pieces.get("d5")).toBe("A");
    expect(cap.pieces.has("c5")).toBe(false);
    expect(cap.pieces.size).toBe(2);
    const newsome = applyMoveLocally(parsePosition("7/7/7/2D4/2A4/7/7 a"), "c3-c4xc4");
    expect(newsome.pieces.get("c4")).toBe("A");
    expect(newsome.pieces.size).toBe(1);
  });
});

describe("legal moves on the board", () => {
  const legal = ["d1-c1", "d1-b1", "d2-c2", "Kd4-d5", "c4-c7xb7xc6"];
  it("finds the movable pieces and their destinations", () => {
    expect([...movableSquares(legal)].sort()).toEqual(["c4", "d1", "d2", "d4"]);
    expect(destinationsFrom(legal, "d1")).toEqual(new Map([["c1", "d1-c1"], ["b1", "d1-b1"]]));
    expect(findLegal(legal, "c4", "c7")).toBe("c4-c7xb7xc6");
    expect(findLegal(legal, "d4", "d5")).toBe("Kd4-d5");
    expect(findLegal(legal, "d1", "d7")).toBeNull();
  });
});

describe("positions, captures and counts", () => {
  it("replays moves from the start, taking captured pieces off", () => {
    const list = positionsOf(["d1-c1", "d3-c3"]);
    expect(list).toHaveLength(3);
    expect(list[1].pieces.get("c1")).toBe("A");
    expect(list[1].pieces.has("d1")).toBe(false);
    expect(list[2].toMove).toBe("attackers");
  });
  it("counts what each side has captured", () => {
    expect(capturedCounts(parsePosition(START_POSITION))).toEqual({ attackers: 0, defenders: 0 });
    expect(capturedCounts(parsePosition("3A3/7/3D3/A1DKD1A/7/3A3/7 d"))).toEqual({ attackers: 1, defenders: 4 });
  });
  it("says moves, not plies", () => {
    expect(movesText(1)).toBe("1 move");
    expect(movesText(22)).toBe("11 moves");
    expect(movesText(21)).toBe("11 moves");
  });
});
