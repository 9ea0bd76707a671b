import { describe, expect, it } from "vitest";
import type { MyGame } from "../frame/mygames";
import type { GameSummary } from "../network/protocol";
import { homeGames, homeTournaments, homeWatch, joinable, leftText, tournamentWhen, turnText } from "./home";
import type { TournamentSummary } from "./tournament";

const MIN = 60_000;
const NOW = 1_800_000_000_000;

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

function event(id: string, status: TournamentSummary["status"], format: TournamentSummary["format"], starts_at: number, extra: Partial<TournamentSummary> = {}): TournamentSummary {
  return {
    id,
    name: id,
    format,
    ruleset: "nielsen",
    move_time: 60,
    starts_at,
    ends_at: format === "arena" ? starts_at + 60 * MIN : null,
    rounds: null,
    players: 0,
    status,
    creator: { id: "c", name: "C" },
    ...extra,
  };
}

function live(id: string, opponent: "friend" | "bot"): GameSummary {
  const p = { id, name: id, rating: 1500, provisional: true };
  return { id, ruleset: "nielsen", ply: 2, move: 2, players: { attackers: p, defenders: p }, watchers: 0, opponent };
}

describe("the home page's choices", () => {
  it("puts the games yours to move first, then the others, at most five", () => {
    const games = [game("a", false, 5), game("b", true, 9), game("c", true, 2), game("d", false, null), game("e", false, 7), game("f", false, 8)];
    const { shown, more } = homeGames(games);
    expect(shown.map((g) => g.id)).toEqual(["c", "b", "a", "e", "f"]);
    expect(more).toBe(1);
    expect(homeGames([]).shown).toEqual([]);
  });

  it("shows running arenas first, then the rest by start; the upcoming soonest first; four each", () => {
    const running = [
      event("swiss", "running", "swiss", NOW - 50 * MIN),
      event("arena-late", "running", "arena", NOW - 5 * MIN),
      event("rr", "running", "round_robin", NOW - 90 * MIN),
      event("arena-early", "running", "arena", NOW - 30 * MIN),
      event("swiss2", "running", "swiss", NOW - 10 * MIN),
    ];
    const upcoming = [event("later", "upcoming", "swiss", NOW + 90 * MIN), event("soon", "upcoming", "arena", NOW + 5 * MIN)];
    const chosen = homeTournaments({ running, upcoming });
    expect(chosen.running.shown.map((t) => t.id)).toEqual(["arena-early", "arena-late", "rr", "swiss"]);
    expect(chosen.running.more).toBe(1);
    expect(chosen.upcoming.shown.map((t) => t.id)).toEqual(["soon", "later"]);
    expect(chosen.upcoming.more).toBe(0);
    expect(running[0].id).toBe("swiss"); // the lists given are left as they were
  });

  it("says who may join and when", () => {
    expect(joinable(event("a", "running", "arena", NOW))).toBe(true);
    expect(joinable(event("s", "running", "swiss", NOW))).toBe(false);
    expect(joinable(event("u", "upcoming", "round_robin", NOW))).toBe(true);
    expect(tournamentWhen(event("a", "running", "arena", NOW - 18 * MIN), NOW)).toBe("on now · ends in 42:00");
    expect(tournamentWhen(event("s", "running", "swiss", NOW, { rounds: 5 }), NOW)).toBe("pairing round 1");
    const up = tournamentWhen(event("u", "upcoming", "swiss", NOW + 65 * MIN), NOW, "en-GB");
    expect(up).toMatch(/^starts \w{3},? \d+ \w{3},? \d\d:\d\d$/);
    expect(tournamentWhen(event("u", "upcoming", "swiss", NOW + 42 * MIN), NOW)).toBe("starts in 42:00");
    expect(tournamentWhen(event("u", "upcoming", "swiss", NOW - MIN), NOW)).toBe("starting now");
  });

  it("lists games between people before games against the bot, at most six", () => {
    const games = [live("b1", "bot"), live("p1", "friend"), live("b2", "bot"), live("p2", "friend"), live("p3", "friend"), live("p4", "friend"), live("p5", "friend")];
    const { shown, more } = homeWatch(games);
    expect(shown.map((g) => g.id)).toEqual(["p1", "p2", "p3", "p4", "p5", "b1"]);
    expect(more).toBe(1);
  });

  it("says whose move it is and the time left", () => {
    expect(turnText({ your_move: true })).toBe("Your move");
    expect(turnText({ your_move: false })).toBe("Their move");
    expect(leftText("4:12")).toBe("4:12 left");
    expect(leftText(null)).toBe("");
  });
});
