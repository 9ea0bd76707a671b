import { describe, expect, it } from "vitest";
import type { State } from "./protocol";
import {
  durationText,
  errorText,
  isMyTurn,
  playerLine,
  reasonText,
  repetitionWarning,
  resultText,
  sideOf,
  statusLine,
  watchersText,
} from "./status";

function state(extra: Partial<State> = {}): State {
  return {
    id: "game01",
    ruleset: "nielsen",
    status: "active",
    players: { attackers: { id: "att", name: "Red Fox 1" }, defenders: { id: "def", name: "Blue Owl 2" } },
    ply: 0,
    position: "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a",
    turn: "attackers",
    legal: ["d1-c1"],
    repetitions: 1,
    last: null,
    result: null,
    commitment: "00",
    seed: null,
    move_time: 600,
    opponent: "friend",
    bot_level: null,
    created: 0,
    ...extra,
  };
}

describe("who am I", () => {
  it("finds the side of a player, and spectators", () => {
    expect(sideOf(state(), "att")).toBe("attackers");
    expect(sideOf(state(), "def")).toBe("defenders");
    expect(sideOf(state(), "someone")).toBeNull();
    expect(sideOf(state(), null)).toBeNull();
    expect(isMyTurn(state(), "att")).toBe(true);
    expect(isMyTurn(state(), "def")).toBe(false);
    expect(isMyTurn(state({ status: "ended", turn: null }), "att")).toBe(false);
  });
});

describe("status line", () => {
  it("says the side and whose move it is", () => {
    expect(statusLine(state({ turn: "defenders" }), "def")).toBe("You are the defenders — your move");
    expect(statusLine(state(), "def")).toBe("You are the defenders — waiting for the attackers");
    expect(statusLine(state({ turn: "defenders" }), "att")).toBe("You are the attackers — waiting for the defenders");
    expect(statusLine(state(), "visitor")).toBe("You are watching — attackers to move");
    expect(statusLine(state(), null)).toBe("You are watching — attackers to move");
  });
  it("covers waiting, loading and the end", () => {
    expect(statusLine(null, "att")).toBe("Loading the game…");
    const waiting = state({ status: "waiting", turn: null, players: { attackers: null, defenders: null } });
    expect(statusLine(waiting, "att", true)).toMatch(/^Waiting for your friend to join/);
    expect(statusLine(waiting, "x")).toBe("You are watching — waiting for the second player to join");
    const ended = state({ status: "ended", turn: null, result: { winner: "defenders", reason: "king_escaped" } });
    expect(statusLine(ended, "def")).toBe("You are the defenders — game over: you won, the king reached a corner");
    expect(statusLine(ended, "att")).toBe("You are the attackers — game over: you lost, the king reached a corner");
    expect(statusLine(ended, "x")).toBe("You are watching — game over: the defenders won, the king reached a corner");
    const draw = state({ status: "ended", turn: null, result: { winner: null, reason: "repetition" } });
    expect(statusLine(draw, "att")).toBe(
      "You are the attackers — game over: a draw, the same position came round a third time",
    );
  });
});

describe("words", () => {
  it("names results and reasons", () => {
    expect(resultText({ winner: "attackers", reason: "king_captured" })).toBe("The attackers won: the king was captured.");
    expect(reasonText("timeout")).toBe("a player's time for a move ran out");
    expect(reasonText("something_new")).toBe("something new");
  });
  it("names durations, watchers, players", () => {
    expect([60, 180, 600, 3600, 86400, 259200, 604800].map(durationText)).toEqual([
      "1 minute", "3 minutes", "10 minutes", "1 hour", "1 day", "3 days", "7 days",
    ]);
    expect(watchersText(0)).toBe("Nobody is watching");
    expect(watchersText(1)).toBe("1 person watching");
    expect(watchersText(4)).toBe("4 people watching");
    expect(watchersText(1, true)).toBe("Only you are watching");
    expect(watchersText(2, true)).toBe("You and 1 other person are watching");
    expect(watchersText(5, true)).toBe("You and 4 others are watching");
    expect(playerLine(state(), "attackers", "att")).toBe("Attackers: Red Fox 1 (you)");
    expect(playerLine(state(), "defenders", "att")).toBe("Defenders: Blue Owl 2");
    expect(playerLine(state({ players: { attackers: null, defenders: null } }), "defenders", "att")).toBe(
      "Defenders: waiting for a player",
    );
  });
  it("warns after a second repetition", () => {
    expect(repetitionWarning(state())).toBeNull();
    expect(repetitionWarning(state({ repetitions: 2 }))).toMatch(/third time is a draw/);
    expect(repetitionWarning(state({ repetitions: 2, ruleset: "federation" }))).toMatch(/defenders/);
  });
  it("puts server errors in words", () => {
    expect(errorText("illegal_move", "the path from a4 to a7 is blocked at a6")).toBe(
      "That move is not allowed: the path from a4 to a7 is blocked at a6.",
    );
    expect(errorText("weird", "something odd")).toBe("Something odd.");
  });
});
