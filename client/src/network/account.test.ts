import { describe, expect, it } from "vitest";
import { type GameSummary, accountErrorText, deltaText, nextPath, opponentOf, outcomeFor, outcomeLine, ratingText } from "./account";
import { ApiError } from "./api";
import { chartGeometry } from "../panels/chart";
import { plyCaption, startPly } from "../pages/replay";

function summary(extra: Partial<GameSummary> = {}): GameSummary {
  return {
    id: "game01",
    ruleset: "nielsen",
    rated: true,
    opponent: "friend",
    bot_level: null,
    players: { attackers: { id: "a", name: "Ann" }, defenders: { id: "b", name: "Ben" } },
    result: { winner: "defenders", reason: "king_escaped" },
    plies: 8,
    move_time: 600,
    created: 0,
    ended: 1,
    ratings: { a: { before: 1500, after: 1337.7, provisional: true }, b: { before: 1500, after: 1662.3, provisional: true } },
    ...extra,
  };
}

describe("ratings in words", () => {
  it("marks provisional ratings with a question mark", () => {
    expect(ratingText(1662.31, true)).toBe("1662?");
    expect(ratingText(1587.6, false)).toBe("1588");
  });
  it("signs rating changes", () => {
    expect(deltaText(1500, 1662.3)).toBe("+162");
    expect(deltaText(1500, 1337.7)).toBe("−162");
    expect(deltaText(1500.2, 1499.9)).toBe("±0");
  });
});

describe("a finished game from one player's side", () => {
  it("says who won, as which side, and why", () => {
    expect(outcomeFor(summary(), "b")).toEqual({ outcome: "won", side: "defenders" });
    expect(outcomeFor(summary(), "a")).toEqual({ outcome: "lost", side: "attackers" });
    expect(outcomeLine(summary(), "b")).toBe("Won as the defenders: the king reached a corner");
    expect(outcomeLine(summary({ result: { winner: "attackers", reason: "resignation" } }), "b")).toBe(
      "Lost as the defenders: the defenders resigned",
    );
    expect(outcomeFor(summary({ result: { winner: null, reason: "draw_agreed" } }), "a").outcome).toBe("drawn");
    expect(outcomeFor(summary({ result: { winner: null, reason: "aborted" } }), "a").outcome).toBe("aborted");
  });
  it("names the opponent", () => {
    expect(opponentOf(summary(), "a")?.name).toBe("Ben");
    expect(opponentOf(summary(), "b")?.name).toBe("Ann");
    expect(opponentOf(summary(), "c")).toBeNull();
  });
});

describe("account errors and redirects", () => {
  it("puts the stable codes into words", () => {
    expect(accountErrorText(new ApiError("bad_credentials", "x", 401))).toBe(
      "The email address or the password is not right. A new account can log in once the link we mailed to it is opened.",
    );
    expect(accountErrorText(new ApiError("rate_limited", "too many login attempts for this account: try again in 10 minutes", 429))).toBe(
      "Too many attempts: try again in 10 minutes.",
    );
    expect(accountErrorText(new ApiError("weak_password", "the password is too short", 400))).toBe("The password is too short.");
    expect(accountErrorText(new Error("boom"))).toBe("Something went wrong. Please try again.");
  });
  it("only follows same-site next paths", () => {
    expect(nextPath("?next=%2Fg%2Fabc123", "/u/x")).toBe("/g/abc123");
    expect(nextPath("?next=https://evil.example", "/u/x")).toBe("/u/x");
    expect(nextPath("?next=//evil.example", "/u/x")).toBe("/u/x");
    expect(nextPath("", "/u/x")).toBe("/u/x");
  });
  it("refuses every form the URL parser turns into another host", () => {
    const site = "https://brandubh.test";
    for (const evil of [
      "/\\evil.test/owned",
      "/\t/evil.test/owned",
      "/\n/evil.test/owned",
      "/\\/evil.test",
      "\\\\evil.test",
      "//evil.test",
      "///evil.test",
      "https://evil.test",
      "/.//evil.test",
      "javascript:alert(1)",
      " //evil.test",
    ]) {
      const got = nextPath(`?next=${encodeURIComponent(evil)}`, "/u/x", site);
      expect(new URL(got, site).origin, evil).toBe(site);
      expect(got.startsWith("/") && !got.startsWith("//"), evil).toBe(true);
    }
    expect(nextPath(`?next=${encodeURIComponent("/%5Cevil.test")}`, "/u/x", site)).toBe("/%5Cevil.test");
    expect(nextPath("?next=%2Fg%2Fabc%3Fx%3D1%23y", "/u/x", site)).toBe("/g/abc?x=1#y");
  });
});

describe("the rating chart", () => {
  const history = [
    { t: 1, rating: 1662.3, rd: 290.3, game: "g1" },
    { t: 2, rating: 1540, rd: 250, game: "g2" },
    { t: 3, rating: 1601, rd: 220, game: "g3" },
  ];
  it("spans the ratings and draws oldest to newest, left to right", () => {
    const g = chartGeometry(history, 600, 220);
    expect(g.points.map((p) => p.game)).toEqual(["g1", "g2", "g3"]);
    expect(g.points[0].x).toBeLessThan(g.points[2].x);
    // Higher ratings are drawn higher (smaller y).
    expect(g.points[0].y).toBeLessThan(g.points[1].y);
    expect(g.min).toBeLessThanOrEqual(1540);
    expect(g.max).toBeGreaterThanOrEqual(1662.3);
    expect(g.line.startsWith("M")).toBe(true);
    expect(g.line.split("L")).toHaveLength(3);
    expect(g.band.endsWith("Z")).toBe(true);
    for (const p of g.points) {
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(220);
    }
    expect(g.ticks.length).toBeGreaterThanOrEqual(2);
  });
  it("draws one point in the middle, and nothing for no games", () => {
    const one = chartGeometry([history[0]], 600, 220);
    expect(one.points[0].x).toBeCloseTo((44 + 588) / 2);
    const none = chartGeometry([], 600, 220);
    expect(none.line).toBe("");
    expect(none.band).toBe("");
  });
});

describe("the replay", () => {
  const moves = ["g4-g3", "d5-g5", "g3-g2"];
  it("captions each position", () => {
    expect(plyCaption(moves, 0)).toBe("Start position (2 moves in all)");
    expect(plyCaption(moves, 1)).toBe("After 1. g4-g3 (move 1 of 2)");
    expect(plyCaption(moves, 2)).toBe("After 1… d5-g5 (move 1 of 2)");
    expect(plyCaption(moves, 3)).toBe("After 2. g3-g2 (move 2 of 2)");
    expect(startPly("?ply=2", 3)).toBe(2);
    expect(startPly("", 3)).toBe(3);
    expect(startPly("?ply=9", 3)).toBe(3);
  });
});
