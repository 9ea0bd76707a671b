import { describe, expect, it } from "vitest";
import { ApiError } from "./api";
import { type Analysis, analysisErrorText, chanceText, chances, evalText, judgmentMark, judgmentText, progressText } from "./analysis";
import { mayRequest } from "../panels/analysispanel";
import { arrowGeometry, squareCentre } from "../board/arrows";
import { boardUrl, parseBoardUrl, playAt } from "../board/boardurl";
import { graphGeometry, plyAtX } from "../panels/evalgraph";
import { illegalIndex } from "../pages/analysisboard";

const ev = (chance: number) => ({ score: 0, chance, forced: null, pv: [] });
const ANALYSIS: Analysis = {
  version: 1,
  ruleset: "nielsen",
  nodes: 100,
  start: ev(0.5),
  plies: [
    { ply: 1, move: "d1-c1", side: "attackers", ...ev(0.55), judgment: null, best: null, line: [] },
    { ply: 2, move: "d3-c3", side: "defenders", ...ev(0.2), judgment: "blunder", best: "d3-f3", line: ["d3-f3", "g4-g3"] },
  ],
  sides: {
    attackers: { inaccuracy: 0, mistake: 0, blunder: 0, accuracy: 98 },
    defenders: { inaccuracy: 0, mistake: 0, blunder: 1, accuracy: 60 },
  },
};

describe("judgment marks", () => {
  it("gives each judgment its symbol and words", () => {
    expect(judgmentMark("inaccuracy")).toEqual({ symbol: "?!", title: "Inaccuracy" });
    expect(judgmentMark("mistake")?.symbol).toBe("?");
    expect(judgmentMark("blunder")?.symbol).toBe("??");
    expect(judgmentMark(null)).toBeNull();
  });
  it("names the better move", () => {
    expect(judgmentText(ANALYSIS.plies[1])).toBe("Blunder: d3-f3 was better");
    expect(judgmentText(ANALYSIS.plies[0])).toBe("");
  });
});

describe("words", () => {
  it("says chances and forced wins", () => {
    expect(chanceText(0.634)).toBe("63 %");
    expect(chanceText(1.2)).toBe("100 %");
    expect(evalText(ev(0.25))).toBe("Defenders 25 % · attackers 75 %");
    expect(evalText({ ...ev(1), forced: { winner: "defenders", in: 5, text: "the king escapes in 5" } })).toBe(
      "The king escapes in 5 (defenders win)",
    );
  });
  it("says where an analysis stands", () => {
    expect(progressText({ status: "running", ply: 23, of: 60 })).toBe("Analysing: ply 23 of 60");
    expect(progressText({ status: "queued", position: 3 })).toBe("Queued: you are number 3.");
    expect(progressText({ status: "queued", position: 1 })).toBe("Queued: yours is next.");
    expect(progressText({ status: "done" })).toBe("");
  });
  it("says refusals in words", () => {
    expect(analysisErrorText(new ApiError("analysis_busy", "the queue is full, so yours would be number 7", 503))).toBe(
      "The queue is full, so yours would be number 7.",
    );
    expect(analysisErrorText(new ApiError("analysis_limit", "you have requested as many analyses as a day allows (1)", 429))).toBe(
      "You have requested as many analyses as a day allows (1).",
    );
    expect(analysisErrorText(new ApiError("not_allowed", "x", 403))).toMatch(/confirmed account/);
    expect(analysisErrorText(new ApiError("own_game", "x", 403))).toMatch(/your own game/);
    expect(analysisErrorText(new ApiError("position_in_play", "x", 403))).toMatch(/game in progress/);
    expect(analysisErrorText(new ApiError("otn_invalid", "line 4, turn 2, the attackers' move d1-d7 does not replay: blocked", 400))).toBe(
      "That cannot be loaded: line 4, turn 2, the attackers' move d1-d7 does not replay: blocked",
    );
    expect(analysisErrorText(new ApiError("otn_unsupported", "dim:9: we play only on a 7x7 board", 400))).toMatch(/^That cannot be loaded: dim:9/);
    expect(analysisErrorText(new Error("boom"))).toBe("Something went wrong. Try again.");
  });
  it("lists the chances from the start", () => {
    expect(chances(ANALYSIS)).toEqual([0.5, 0.55, 0.2]);
  });
});

describe("graphGeometry", () => {
  const g = graphGeometry([0.5, 1, 0], [null, null, "blunder"], 216, 112);
  it("spreads the plies over the width, defenders high", () => {
    expect(g.xs).toEqual([8, 108, 208]);
    expect(g.ys).toEqual([56, 6, 106]);
    expect(g.mid).toBe(56);
    expect(g.line).toBe("M8.0 56.0 L108.0 6.0 L208.0 106.0");
    expect(g.area).toBe("M8.0 56.0 L8.0 56.0 L108.0 6.0 L208.0 106.0 L208.0 56.0 Z");
  });
  it("puts a dot on each judged ply", () => {
    expect(g.dots).toEqual([{ ply: 2, x: 208, y: 106, judgment: "blunder" }]);
  });
  it("clamps chances out of range and copes with a game of no moves", () => {
    expect(graphGeometry([1.5], [], 100, 50).ys).toEqual([6]);
    expect(graphGeometry([0.5], [], 100, 50).xs).toEqual([50]);
  });
  it("finds the ply under a click", () => {
    expect(plyAtX(8, 216, 2)).toBe(0);
    expect(plyAtX(150, 216, 2)).toBe(1);
    expect(plyAtX(170, 216, 2)).toBe(2);
    expect(plyAtX(-40, 216, 2)).toBe(0);
    expect(plyAtX(900, 216, 2)).toBe(2);
    expect(plyAtX(50, 216, 0)).toBe(0);
  });
});

describe("arrowGeometry", () => {
  it("puts square centres where the board draws them", () => {
    expect(squareCentre("a1")).toEqual({ x: 50, y: 650 });
    expect(squareCentre("g7")).toEqual({ x: 650, y: 50 });
    expect(squareCentre("d4")).toEqual({ x: 350, y: 350 });
  });
  it("draws one arrow a move, from centre to centre, the first strongest", () => {
    const [a, b] = arrowGeometry(["d1-d3", "Kd4-a4xb4"]);
    expect(a).toMatchObject({ move: "d1-d3", index: 0, x1: 350, y1: 650, x2: 350, y2: 450 });
    // straight up: the tip 12 short of d3's centre, the shaft 9 either side
    expect(a.path).toBe("M359.0 650.0 L359.0 492.0 L374.0 492.0 L350.0 462.0 L326.0 492.0 L341.0 492.0 L341.0 650.0 Z");
    expect(b).toMatchObject({ index: 1, x1: 350, y1: 350, x2: 50, y2: 350 });
  });
  it("leaves out what is not a move and stops after four", () => {
    expect(arrowGeometry(["nonsense", "a4-a5"]).map((a) => a.move)).toEqual(["a4-a5"]);
    expect(arrowGeometry(["a4-a5", "a5-a6", "a6-a7", "b1-b2", "b2-b3"])).toHaveLength(4);
  });
});

describe("board URL", () => {
  it("writes and reads a line", () => {
    const s = { ruleset: "walker", position: "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 d", moves: ["d3-c3", "d1-c1"], ply: 1 };
    const url = boardUrl(s);
    expect(url).toBe("/analysis?ruleset=walker&position=3A3%2F3A3%2F3D3%2FAADKDAA%2F3D3%2F3A3%2F3A3+d&moves=d3-c3%2Cd1-c1&ply=1");
    expect(parseBoardUrl(url.split("?")[1])).toEqual(s);
  });
  it("leaves out what says nothing", () => {
    expect(boardUrl({ ruleset: "nielsen", position: null, moves: ["d1-c1"], ply: 1 })).toBe("/analysis?ruleset=nielsen&moves=d1-c1");
    expect(parseBoardUrl("")).toEqual({ ruleset: "nielsen", position: null, moves: [], ply: 0 });
  });
  it("stops the line at a move that does not read and keeps the ply inside it", () => {
    expect(parseBoardUrl("?moves=d1-c1,zz,d3-c3&ply=9")).toEqual({ ruleset: "nielsen", position: null, moves: ["d1-c1"], ply: 1 });
    expect(parseBoardUrl("?ruleset=<b>&ply=-2&moves=d1-c1").ruleset).toBe("nielsen");
    expect(parseBoardUrl("?ply=-2&moves=d1-c1").ply).toBe(0);
  });
  it("plays a move: on along the line, or a new branch", () => {
    const s = { ruleset: "nielsen", position: null, moves: ["d1-c1", "d3-c3"], ply: 1 };
    expect(playAt(s, "d3-c3")).toEqual({ ...s, ply: 2 });
    expect(playAt(s, "d5-e5")).toEqual({ ...s, moves: ["d1-c1", "d5-e5"], ply: 2 });
  });
});

describe("who is offered what", () => {
  it("offers the request to a player of the game or an account", () => {
    expect(mayRequest({ id: "p_1", account: false }, ["p_1", "p_2"])).toBe(true);
    expect(mayRequest({ id: "p_9", account: true }, ["p_1", "p_2"])).toBe(true);
    expect(mayRequest({ id: "g_9", account: false }, ["p_1", "p_2"])).toBe(false);
    expect(mayRequest({ id: null, account: false }, [undefined, undefined])).toBe(false);
    expect(mayRequest(null, ["p_1"])).toBe(false);
  });
  it("reads which move of a line the server refused", () => {
    expect(illegalIndex("move 3 ('d1-d9') cannot be played: not a square")).toBe(2);
    expect(illegalIndex("something else")).toBe(0);
  });
});
