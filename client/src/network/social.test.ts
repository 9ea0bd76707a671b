import { describe, expect, it } from "vitest";
import { type Followed, gameLine, presenceText, shownOnHome } from "./social";

const game = { id: "g1", url: "/g/g1", ruleset: "nielsen", move_time: 180, rated: true, bot: false, opponent: { id: "p2", name: "Ann" } };

function followed(id: string, online: boolean, games = 0): Followed {
  return { id, name: id, bot: false, since: 1, online, games: Array.from({ length: games }, () => game) };
}

describe("social words", () => {
  it("says what a followed player's game is", () => {
    expect(gameLine(game)).toBe("against Ann · Nielsen · 3 minutes a move · rated");
    expect(gameLine({ ...game, bot: true, rated: false })).toBe("against the bot · Nielsen · 3 minutes a move · casual");
  });

  it("shows on the home page only those online or playing, online ones first", () => {
    const list = [followed("away", false), followed("busy", false, 1), followed("here", true)];
    expect(shownOnHome(list).map((f) => f.id)).toEqual(["here", "busy"]);
  });

  it("says where a player is", () => {
    expect(presenceText(followed("a", true, 1))).toBe("online, playing");
    expect(presenceText(followed("a", true))).toBe("online");
    expect(presenceText(followed("a", false, 2))).toBe("playing (away)");
    expect(presenceText(followed("a", false))).toBe("offline");
  });
});
