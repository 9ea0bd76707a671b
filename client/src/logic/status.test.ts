import { describe, expect, it } from "vitest";
import type { State } from "../network/protocol";
import {
  durationText,
  errorText,
  isCreator,
  isMyTurn,
  playerLine,
  reasonText,
  repetitionWarning,
  resultText,
  sideOf,
  originLabel,
  statusLine,
  watchersText,
  withdrawnText,
} from "./status";
import { makeState } from "../testing";

function state(extra: Partial<State> = {}): State {
  const att = { id: "att", name: "Red Fox 1" };
  return makeState(0, {
    players: { attackers: att, defenders: { id: "def", name: "Blue Owl 2" } },
    creator: att,
    legal: ["d1-c1"],
    move_time: 600,
    ...extra,
  });
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
    // While waiting nobody has a side yet: the creator is known by `state.creator`.
    const waiting = state({ status: "waiting", turn: null, players: { attackers: null, defenders: null } });
    expect(isCreator(waiting, "att")).toBe(true);
    expect(isCreator(waiting, "x")).toBe(false);
    expect(isCreator(waiting, null)).toBe(false);
    expect(statusLine(waiting, "att")).toMatch(/^Waiting for your friend to join/);
    expect(statusLine(waiting, "x")).toBe("You are watching — waiting for the second player to join");
    const ended = state({ status: "ended", turn: null, result: { winner: "defenders", reason: "king_escaped" } });
    expect(statusLine(ended, "def")).toBe("You are the defenders — game over: you won, the king reached a corner");
    expect(statusLine(ended, "att")).toBe("You are the attackers — game over: you lost, the king reached a corner");
    expect(statusLine(ended, "x")).toBe("You are watching — game over: the defenders won, the king reached a corner");
    const draw = state({ status: "ended", turn: null, result: { winner: null, reason: "repetition" } });
    expect(statusLine(draw, "att")).toBe(
      "You are the attackers — game over: a draw, the same position came round a third time",
    );
    const aborted = state({ status: "ended", turn: null, result: { winner: null, reason: "aborted" } });
    expect(statusLine(aborted, "def")).toBe("You are the defenders — game over: aborted, no result");
    const timeout = state({ status: "ended", turn: null, result: { winner: "attackers", reason: "timeout" } });
    expect(statusLine(timeout, "def")).toBe("You are the defenders — game over: you lost, the defenders ran out of time");
  });
});

describe("words", () => {
  it("names results and reasons", () => {
    expect(resultText({ winner: "attackers", reason: "king_captured" })).toBe("The attackers won: the king was captured.");
    expect(reasonText("timeout")).toBe("a player's time for a move ran out");
    expect(reasonText("something_new")).toBe("something new");
    const said = (winner: "attackers" | "defenders" | null, reason: string) => resultText({ winner, reason });
    expect(said("defenders", "timeout")).toBe("The defenders won: the attackers ran out of time.");
    expect(said("attackers", "resignation")).toBe("The attackers won: the defenders resigned.");
    expect(said(null, "draw_agreed")).toBe("Draw: the players agreed a draw.");
    expect(said(null, "aborted")).toBe("No result: the game was aborted before both sides had moved.");
    expect(said(null, "repetition")).toBe("Draw: the same position came round a third time.");
    expect(said("attackers", "repetition")).toBe("The attackers won: the same position came round a third time.");
    expect(said(null, "move_limit")).toBe("Draw: 400 plies were played without a result.");
    expect(said("defenders", "king_escaped")).toBe("The defenders won: the king reached a corner.");
    expect(said("attackers", "no_legal_moves")).toBe("The attackers won: the defenders had no legal move.");
    expect(said("defenders", "attackers_eliminated")).toBe("The defenders won: every attacker was captured.");
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
  it("warns after a second repetition, by rule set", () => {
    expect(repetitionWarning(state())).toBeNull();
    const twice = (ruleset: string) => repetitionWarning(state({ repetitions: 2, ruleset }));
    for (const rs of ["nielsen", "walker", "newsome"]) {
      expect(twice(rs)).toBe("This position has now occurred twice. If it comes round a third time, the game is a draw.");
    }
    expect(twice("federation")).toMatch(/third time, the defenders lose, whoever repeats it\.$/);
    expect(twice("common")).toMatch(/third time, the player whose move brings it round loses\.$/);
    expect(repetitionWarning(state({ repetitions: 2, status: "ended", turn: null }))).toBeNull();
  });
  it("puts server errors in words", () => {
    expect(errorText("illegal_move", "the path from a4 to a7 is blocked at a6")).toBe(
      "That move is not allowed: the path from a4 to a7 is blocked at a6.",
    );
    expect(errorText("weird", "something odd")).toBe("Something odd.");
  });
});

describe("where a game came from", () => {
  it("labels each origin, and older games by what they hold", () => {
    expect(originLabel("seek", "friend")).toBe("Lobby game");
    expect(originLabel("quick", "friend")).toBe("Quick pairing");
    expect(originLabel("invite", "friend")).toBe("Friend game");
    expect(originLabel("challenge", "friend")).toBe("Challenge");
    expect(originLabel("rematch", "friend")).toBe("Rematch");
    expect(originLabel("match", "friend")).toBe("Match game");
    expect(originLabel("tournament", "friend")).toBe("Tournament game");
    expect(originLabel("bot", "bot")).toBe("vs bot");
    expect(originLabel(undefined, "bot")).toBe("vs bot");
    expect(originLabel(null, "friend")).toBe("Game vs a person");
    expect(originLabel("something new", "friend")).toBe("Game vs a person");
  });
});

describe("a withdrawn invitation", () => {
  it("names who withdrew it, to anyone but its creator", () => {
    const gone = state({ status: "ended", players: { attackers: null, defenders: null }, withdrawn: true, result: { winner: null, reason: "aborted" } });
    expect(withdrawnText(gone, "att")).toBe("You withdrew this invitation");
    expect(withdrawnText(gone, "someone")).toBe("This invitation was withdrawn by Red Fox 1");
    expect(statusLine(gone, null)).toBe("This invitation was withdrawn by Red Fox 1");
  });
});
