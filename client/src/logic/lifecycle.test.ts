import { describe, expect, it } from "vitest";
import {
  NO_REMATCH,
  controlsFor,
  eventNote,
  notePlace,
  rematchDestination,
  rematchNote,
  resultDetail,
  resultHeadline,
  updateRematch,
} from "./lifecycle";
import type { EventFrame, State } from "../network/protocol";
import { makeState } from "../testing";

const ended = (extra: Partial<State> = {}): State =>
  makeState(6, { status: "ended", turn: null, result: { winner: "defenders", reason: "king_escaped" }, ...extra });

describe("controls", () => {
  it("gives spectators nothing", () => {
    for (const st of [makeState(0), makeState(5, { draw_offer: "attackers" }), ended()]) {
      const c = controlsFor(st, null);
      expect(c).toMatchObject({ player: false, offerDraw: null, answerDraw: false, resign: false, abort: false, rematch: null });
    }
  });

  it("offers abort before both sides have moved, resign after", () => {
    expect(controlsFor(makeState(0), "attackers")).toMatchObject({ abort: true, resign: false });
    expect(controlsFor(makeState(1), "attackers")).toMatchObject({ abort: true, resign: false });
    expect(controlsFor(makeState(2), "defenders")).toMatchObject({ abort: false, resign: true });
  });

  it("lets a player offer a draw on either side's turn", () => {
    expect(controlsFor(makeState(4), "attackers").offerDraw).toEqual({ enabled: true, reason: null });
    expect(controlsFor(makeState(4), "defenders").offerDraw).toEqual({ enabled: true, reason: null });
  });

  it("disables the offer, saying why, while one is open or after a declined one", () => {
    const open = makeState(4, { draw_offer: "attackers" });
    expect(controlsFor(open, "attackers").offerDraw).toEqual({
      enabled: false,
      reason: "Your draw offer is open: waiting for your opponent's answer.",
    });
    expect(controlsFor(open, "attackers").answerDraw).toBe(false);
    const blocked = makeState(5, { draw_block: { attackers: 0, defenders: 14 } });
    expect(controlsFor(blocked, "defenders").offerDraw).toEqual({
      enabled: false,
      reason: "Your last draw offer was declined: you can offer again from move 8 (after 5 more moves).",
    });
    expect(controlsFor(makeState(13, { draw_block: { attackers: 0, defenders: 14 } }), "defenders").offerDraw?.reason).toMatch(
      /\(after 1 more move\)/,
    );
    expect(controlsFor(makeState(14, { draw_block: { attackers: 0, defenders: 14 } }), "defenders").offerDraw?.enabled).toBe(true);
    expect(controlsFor(blocked, "attackers").offerDraw?.enabled).toBe(true); // the block is per side
  });

  it("shows the opponent's offer as a question instead of the offer button", () => {
    const c = controlsFor(makeState(4, { draw_offer: "attackers" }), "defenders");
    expect(c.answerDraw).toBe(true);
    expect(c.offerDraw).toBeNull();
  });

  it("has no draw offers against the bot, and says why", () => {
    const c = controlsFor(makeState(4, { opponent: "bot", bot_level: 2 }), "attackers");
    expect(c.offerDraw).toBeNull();
    expect(c.answerDraw).toBe(false);
    expect(c.resign).toBe(true);
    expect(c.note).toMatch(/bot plays every game out/);
  });

  it("has nothing to do while waiting for the second player", () => {
    const c = controlsFor(makeState(0, { status: "waiting", turn: null }), "attackers");
    expect(c).toMatchObject({ player: true, offerDraw: null, resign: false, abort: false, rematch: null });
  });

  it("offers a rematch after the end, by where the rematch stands", () => {
    expect(controlsFor(ended(), "attackers").rematch).toEqual({ kind: "offer", label: "Offer a rematch" });
    expect(controlsFor(ended({ opponent: "bot" }), "attackers").rematch).toEqual({ kind: "offer", label: "Play the bot again" });
    expect(controlsFor(ended(), "attackers", { offer: "attackers", next: null }).rematch).toEqual({ kind: "waiting" });
    expect(controlsFor(ended(), "defenders", { offer: "attackers", next: null }).rematch).toEqual({ kind: "accept" });
    expect(controlsFor(ended(), "defenders", { offer: null, next: "game02" }).rematch).toEqual({ kind: "open", game: "game02" });
    const c = controlsFor(ended(), "attackers");
    expect(c).toMatchObject({ offerDraw: null, resign: false, abort: false, answerDraw: false });
  });
});

describe("rematch bookkeeping", () => {
  it("records an offer, then the agreed game, which nothing changes afterwards", () => {
    let book = updateRematch(NO_REMATCH, {});
    expect(book).toBe(NO_REMATCH);
    book = updateRematch(book, { offer: "defenders" });
    expect(book).toEqual({ offer: "defenders", next: null, declined: null });
    book = updateRematch(book, { next: "game02" });
    expect(book).toEqual({ offer: null, next: "game02", declined: null });
    expect(updateRematch(book, { offer: "attackers" })).toBe(book);
    expect(updateRematch(book, { next: "game03" })).toBe(book);
  });

  it("closes an offer when it is declined; only the side that declined may offer after", () => {
    let book = updateRematch(NO_REMATCH, { offer: "attackers" });
    book = updateRematch(book, { declined: "defenders" });
    expect(book).toEqual({ offer: null, next: null, declined: "defenders" });
    expect(updateRematch(book, { declined: "defenders" })).toBe(book); // the ack and the notice
    expect(controlsFor(ended(), "attackers", book).rematch).toEqual({ kind: "declined" });
    expect(controlsFor(ended(), "defenders", book).rematch).toEqual({ kind: "offer", label: "Offer a rematch" });
    expect(rematchNote(book)).toBe("The defenders declined the rematch.");
    // The one who declined changes their mind: the other may accept.
    book = updateRematch(book, { offer: "defenders" });
    expect(book).toEqual({ offer: "defenders", next: null, declined: "defenders" });
    expect(controlsFor(ended(), "attackers", book).rematch).toEqual({ kind: "accept" });
  });

  it("takes players to the new game only when their page saw it agreed", () => {
    const agreed = { offer: null, next: "game02" };
    expect(rematchDestination(agreed, "attackers", true)).toBe("game02");
    expect(rematchDestination(agreed, "attackers", false)).toBeNull(); // an old game opened later
    expect(rematchDestination(agreed, null, true)).toBeNull(); // spectators get a link
    expect(rematchDestination({ offer: "attackers", next: null }, "attackers", true)).toBeNull();
  });

  it("tells spectators", () => {
    expect(rematchNote(NO_REMATCH)).toBeNull();
    expect(rematchNote({ offer: "attackers", next: null })).toBe("The attackers offered a rematch.");
    expect(rematchNote({ offer: null, next: "g" })).toBe("The players agreed a rematch.");
  });
});

describe("events in words", () => {
  const ev = (kind: EventFrame["kind"], extra: Partial<EventFrame> = {}): EventFrame => ({
    t: "event",
    game: "game01",
    n: 9,
    kind,
    state: makeState(6),
    ...extra,
  });

  it("says what happened with draw offers", () => {
    expect(eventNote(ev("draw_offer", { by: "attackers" }))).toBe("The attackers offered a draw.");
    expect(eventNote(ev("draw_declined", { by: "defenders" }))).toBe("The defenders declined the draw.");
    expect(eventNote(ev("draw_agreed", { by: "defenders" }))).toBe("The defenders accepted the draw: the game is drawn.");
    expect(eventNote(ev("move", { by: "defenders", move: "d3-c3", draw_declined: true }))).toBe(
      "The defenders played on, declining the draw.",
    );
  });

  it("says how a game ended", () => {
    expect(eventNote(ev("resign", { by: "attackers" }))).toBe("The attackers resigned.");
    expect(eventNote(ev("abort", { by: "defenders" }))).toBe("The defenders aborted the game: no result.");
    expect(eventNote(ev("withdraw", { by: null }))).toBe("The invitation was withdrawn before anyone joined.");
    expect(eventNote(ev("abort", { by: null, timeout: "attackers" }))).toBe(
      "Aborted: the attackers did not make their first move in time.",
    );
    expect(eventNote(ev("timeout", { side: "defenders" }))).toBe("The defenders ran out of time.");
    expect(eventNote(ev("deadline_extended", { deadline: 5 }))).toBe(
      "The service was down for a while: the attackers' time for this move was extended.",
    );
  });

  it("has nothing to add to plain moves and the start", () => {
    expect(eventNote(ev("move", { by: "attackers", move: "d1-c1" }))).toBeNull();
    expect(eventNote(ev("start"))).toBeNull();
  });

  it("places a note after the move it followed", () => {
    const moves = ["d1-c1", "c4-c5", "c1-d1"];
    expect(notePlace(0, moves)).toBe("Before the first move");
    expect(notePlace(1, moves)).toBe("After 1. d1-c1");
    expect(notePlace(2, moves)).toBe("After 1... c4-c5");
    expect(notePlace(3, moves)).toBe("After 2. c1-d1");
    expect(notePlace(7, moves)).toBe("At move 4");
  });
});

describe("the end in words", () => {
  it("speaks to the players and to spectators", () => {
    const won = { winner: "defenders" as const, reason: "timeout" };
    expect(resultHeadline(won, "defenders")).toBe("You won!");
    expect(resultHeadline(won, "attackers")).toBe("You lost");
    expect(resultHeadline(won, null)).toBe("The defenders won");
    expect(resultHeadline({ winner: null, reason: "draw_agreed" }, "attackers")).toBe("Draw");
    expect(resultHeadline({ winner: null, reason: "repetition" }, null)).toBe("Draw");
    expect(resultHeadline({ winner: null, reason: "aborted" }, "attackers")).toBe("Aborted — no result");
  });

  it("says how it came about without repeating the headline", () => {
    const timeout = { winner: "defenders" as const, reason: "timeout" };
    expect(resultDetail(timeout, "attackers")).toBe("The defenders won: the attackers ran out of time.");
    expect(resultDetail(timeout, null)).toBe("The attackers ran out of time.");
    expect(resultDetail({ winner: "attackers", reason: "resignation" }, null)).toBe("The defenders resigned.");
    expect(resultDetail({ winner: null, reason: "draw_agreed" }, "attackers")).toBe("The players agreed a draw.");
    expect(resultDetail({ winner: null, reason: "repetition" }, null)).toBe("The same position came round a third time.");
    expect(resultDetail({ winner: null, reason: "move_limit" }, null)).toBe("400 plies were played without a result.");
    expect(resultDetail({ winner: null, reason: "aborted" }, "defenders")).toBe(
      "The game was aborted before both sides had moved.",
    );
  });
});
