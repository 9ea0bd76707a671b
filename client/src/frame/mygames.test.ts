import { describe, expect, it } from "vitest";
import { type MyGame, orderGames, titleWith, turnFromState, turnNoticeText } from "./mygames";

function game(id: string, your_move: boolean, deadline: number | null): MyGame {
  return {
    id,
    ruleset: "nielsen",
    side: "attackers",
    opponent: { id: "p2", name: "Ann" },
    bot: false,
    your_move,
    deadline,
    ply: 3,
    move_time: 86400,
    rated: true,
    last: null,
  };
}

describe("my games", () => {
  it("puts games waiting for my move first, each group by soonest deadline", () => {
    const order = orderGames([game("a", false, 5), game("b", true, 9), game("c", true, 2), game("d", false, null)]);
    expect(order.map((g) => g.id)).toEqual(["c", "b", "a", "d"]);
  });
  it("counts my moves in the title", () => {
    expect(titleWith(0, "Play · Brandubh Live")).toBe("Play · Brandubh Live");
    expect(titleWith(2, "Play · Brandubh Live")).toBe("(2) Play · Brandubh Live");
  });
  it("says who moved", () => {
    expect(turnNoticeText({ opponent: "Ann", last: "d1-c1" })).toBe("Ann played d1-c1: your move.");
    expect(turnNoticeText({ opponent: null, last: null })).toBe("Your move against Your opponent.");
  });
  it("tells my turn from a followed game's new state, not from a first sight", () => {
    const players = { attackers: { id: "me", name: "Me" }, defenders: { id: "p2", name: "Ann" } };
    const mine = { status: "active" as const, ply: 4, turn: "attackers" as const, players, last: "d1-c1" };
    expect(turnFromState(mine, 3, "me")).toEqual({ opponent: "Ann", last: "d1-c1" });
    expect(turnFromState(mine, null, "me")).toBeNull(); // a snapshot: nothing new
    expect(turnFromState(mine, 4, "me")).toBeNull(); // the same ply again
    expect(turnFromState({ ...mine, turn: "defenders" }, 3, "me")).toBeNull(); // Ann's move
    expect(turnFromState({ ...mine, status: "ended", turn: null }, 3, "me")).toBeNull();
    expect(turnFromState(mine, 3, "someone else")).toBeNull();
  });
});
