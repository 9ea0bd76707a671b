import { describe, expect, it } from "vitest";
import { controlsFor, eventNote, takebacksAllowed } from "./lifecycle";
import { GameTracker } from "../network/gamestate";
import type { EventFrame, State } from "../network/protocol";
import { makeState } from "../testing";

const bot = (ply: number, extra: Partial<State> = {}): State => makeState(ply, { opponent: "bot", rated: false, ...extra });
const casual = (ply: number, extra: Partial<State> = {}): State => makeState(ply, { rated: false, ...extra });

function takeback(n: number, ply: number, plies: number): EventFrame {
  return { t: "event", game: "game01", n, kind: "takeback", by: "attackers", plies, state: makeState(ply) };
}

describe("takeback controls", () => {
  it("acts at once against the bot once the player has moved", () => {
    expect(controlsFor(bot(0), "attackers").takeback).toEqual({ kind: "takeback", enabled: false, label: "Take back", reason: null });
    expect(controlsFor(bot(1), "attackers").takeback?.enabled).toBe(true); // the bot's turn: one ply
    expect(controlsFor(bot(2), "attackers").takeback?.enabled).toBe(true); // after its reply: two
    expect(controlsFor(bot(1), "defenders").takeback?.enabled).toBe(false); // the bot opened
  });

  it("asks a person in a casual game, never in a rated or tournament game", () => {
    expect(controlsFor(casual(1), "attackers").takeback).toMatchObject({ kind: "takeback_offer", enabled: true, label: "Take back" });
    expect(controlsFor(makeState(3, { rated: true }), "attackers").takeback).toBeNull();
    expect(takebacksAllowed(casual(3, { tournament: "t1" }))).toBe(false);
    const mine = controlsFor(casual(1, { takeback_offer: "attackers" }), "attackers");
    expect(mine.takeback).toMatchObject({ enabled: false, label: "Takeback asked" });
    const theirs = controlsFor(casual(1, { takeback_offer: "attackers" }), "defenders");
    expect(theirs.takeback).toBeNull();
    expect(theirs.answerTakeback).toBe(true);
    expect(controlsFor(casual(1, { takeback_offer: "attackers" }), null).answerTakeback).toBe(false);
  });

  it("says each takeback event in words", () => {
    expect(eventNote(takeback(5, 2, 2))).toBe("The attackers took back their last move and the reply.");
    expect(eventNote({ ...takeback(5, 2, 1), plies: 1 })).toBe("The attackers took back their last move.");
    expect(eventNote({ ...takeback(5, 2, 1), kind: "takeback_offer" })).toBe("The attackers asked to take back their last move.");
    expect(eventNote({ ...takeback(5, 2, 1), kind: "takeback_declined", by: "defenders" })).toBe("The defenders declined the takeback.");
  });
});

describe("a takeback event", () => {
  it("cuts the move list to the state's ply", () => {
    const t = new GameTracker("game01");
    t.applySnapshot({ t: "snapshot", game: "game01", n: 5, state: makeState(4), moves: ["d1-c1", "d3-c3", "c1-d1", "c3-d3"], watchers: 0 });
    expect(t.applyEvent(takeback(6, 2, 2))).toBe("applied");
    expect(t.moves).toEqual(["d1-c1", "d3-c3"]);
    expect(t.state?.ply).toBe(2);
    expect(t.notes.at(-1)?.kind).toBe("takeback");
  });
});
