import { describe, expect, it } from "vitest";
import { ApiError } from "../network/api";
import {
  actionsFor,
  checkCreate,
  countdown,
  fieldOf,
  formatLine,
  gamesOf,
  latestGames,
  myPart,
  normalise,
  pointsText,
  roundRobinRounds,
  standingRows,
  tournamentErrorText,
  type CreateInput,
  type Standing,
  type Tournament,
} from "./tournament";
import { TournamentFeed, type TournamentChange, type TournamentTransport } from "../network/tournamentfeed";
import { nextGameText } from "../frame/tournamentnav";
import { FakeFrames } from "../testing";

const MIN = 60_000;
const NOW = 1_800_000_000_000;

function standing(id: string, rank: number, points: number, extra: Partial<Standing> = {}): Standing {
  return { rank, player: { id, name: id.toUpperCase() }, points, games: 0, wins: 0, draws: 0, losses: 0, withdrawn: false, paused: false, ...extra };
}

function arena(extra: Partial<Tournament> = {}): Tournament {
  return {
    id: "t1",
    name: "Friday arena",
    format: "arena",
    ruleset: "nielsen",
    move_time: 60,
    starts_at: NOW,
    ends_at: NOW + 60 * MIN,
    rounds: null,
    players: 3,
    status: "running",
    creator: { id: "ann", name: "Ann" },
    seed_commitment: "ab",
    seed: null,
    standings: [
      standing("bob", 2, 2, { games: 1, wins: 1 }),
      standing("ann", 1, 4, { games: 2, wins: 2, streak: 2 }),
      standing("cy", 3, 0, { games: 1, losses: 1, paused: true }),
    ],
    games: [
      { id: "g1", attackers: { id: "ann", name: "Ann" }, defenders: { id: "cy", name: "Cy" }, result: "attackers" },
      { id: "g2", attackers: "bob", defenders: "ann", result: "defenders" },
      { id: "g3", attackers: "bob", defenders: "cy", result: null },
    ],
    ...extra,
  };
}

describe("the countdown", () => {
  it("counts down to the start, then to an arena's end", () => {
    const t = arena({ status: "upcoming" });
    expect(countdown(t, NOW - 4 * MIN - 12_000)).toMatchObject({ label: "Starts in", time: "4:12" });
    expect(countdown(t, NOW - 2 * 3600_000).time).toBe("2 h");
    expect(countdown(t, NOW + 1000)).toMatchObject({ label: "Starting…", time: "" });
    const running = arena();
    expect(countdown(running, NOW + 30 * MIN)).toMatchObject({ label: "Ends in", time: "30:00" });
    expect(countdown(running, NOW + 60 * MIN)).toMatchObject({ label: "Last games finishing", time: "" });
    expect(countdown(running, NOW - 2000).label).toBe("Ends in"); // a lagging clock: running says it
    expect(countdown(arena({ status: "finished" }), NOW).label).toBe("Finished");
  });
  it("says round N of M for round robins and Swiss events", () => {
    const round = { round: 1, pairings: [] };
    const swiss = arena({ format: "swiss", rounds: 5, ends_at: null, round_list: [round, { ...round, round: 2 }] });
    expect(countdown(swiss, NOW + MIN).label).toBe("Round 2 of 5");
    const rr = arena({ format: "round_robin", rounds: null, players: 6, ends_at: null, round_list: [round] });
    expect(countdown(rr, NOW + MIN).label).toBe("Round 1 of 5");
    expect(countdown({ ...rr, round_list: [] }, NOW + MIN).label).toBe("Pairing round 1");
    expect(roundRobinRounds(5)).toBe(5); // a bye each round
    expect(roundRobinRounds(1)).toBe(0);
  });
});

describe("standings", () => {
  it("are rows in rank order with points, record, streak and state", () => {
    const rows = standingRows(arena(), "bob");
    expect(rows.map((r) => r.id)).toEqual(["ann", "bob", "cy"]);
    expect(rows[0]).toMatchObject({ points: "4", record: "2 / 0 / 0", onFire: true, me: false, state: "" });
    expect(rows[1]).toMatchObject({ me: true, state: "playing", onFire: false });
    expect(rows[2].state).toBe("paused"); // paused wins over an unfinished game
  });
  it("show tie-breaks outside arenas only, and halves as ½", () => {
    const t = arena({ format: "swiss", standings: [standing("ann", 1, 2.5, { tiebreaks: { buchholz: 4.5, sonneborn_berger: 3 } })] });
    expect(standingRows(t, null)[0]).toMatchObject({ points: "2½", tiebreaks: "4½ · 3", onFire: false });
    expect(standingRows(arena(), null)[0].tiebreaks).toBe("");
    expect(pointsText(0.5)).toBe("½");
    expect(pointsText(0)).toBe("0");
  });
  it("list each player's games from their side, names from anywhere in the event", () => {
    expect(gamesOf(arena(), "ann")).toEqual([
      { id: "g1", side: "attackers", opponent: "Cy", outcome: "won", round: null },
      { id: "g2", side: "defenders", opponent: "BOB", outcome: "won", round: null },
    ]);
    expect(gamesOf(arena(), "cy").map((g) => g.outcome)).toEqual(["lost", "playing"]);
    const aborted = arena({ games: [{ id: "g9", attackers: "ann", defenders: "bob", result: "aborted" }] });
    expect(gamesOf(aborted, "ann").map((g) => g.outcome)).toEqual(["aborted"]); // neither won
  });
  it("show an arena player's latest games, counting the earlier ones a frame leaves out", () => {
    const many = Array.from({ length: 14 }, (_, i) => ({ id: `g${i + 1}`, attackers: "ann", defenders: "bob", result: "attackers" as const }));
    const whole = latestGames(arena({ games: many }), "ann"); // the HTTP view: every game
    expect(whole.games.map((g) => g.id)).toEqual(many.slice(4).map((g) => g.id));
    expect(whole.earlier).toBe(4);
    // A frame: the latest 10 only, and the count of all (30 for Ann, who played Cy too).
    const frame = latestGames(arena({ games: many.slice(4), game_counts: { ann: 30, bob: 14 }, recent_games: 10 }), "ann");
    expect(frame.games).toHaveLength(10);
    expect(frame.earlier).toBe(20);
    expect(latestGames(arena(), "cy")).toEqual({ games: gamesOf(arena(), "cy"), earlier: 0 });
    // Round robins and Swiss events show every game.
    const rr = normalise({ ...arena({ format: "round_robin", games: undefined }), rounds: [{ round: 1, pairings: [{ a: { id: "ann", name: "Ann" }, b: { id: "bob", name: "Bob" }, games: many.slice(0, 12) }] }] });
    expect(latestGames(rr, "ann")).toMatchObject({ earlier: 0 });
    expect(latestGames(rr, "ann").games).toHaveLength(12);
  });
  it("read rounds' games for round robins, and a `rounds` list from the hub", () => {
    const t = normalise({ ...arena({ format: "round_robin", games: undefined }), total_rounds: 3, rounds: [{ round: 1, pairings: [{ a: { id: "ann", name: "Ann" }, b: { id: "bob", name: "Bob" }, games: [{ id: "m1", attackers: "ann", defenders: "bob", result: "draw" }, { id: "m2", attackers: "bob", defenders: "ann", result: null }] }] }] });
    expect(t.rounds).toBe(3);
    expect(t.round_list).toHaveLength(1);
    expect(gamesOf(t, "bob").map((g) => [g.side, g.outcome, g.opponent, g.round])).toEqual([
      ["defenders", "draw", "Ann", 1],
      ["attackers", "playing", "Ann", 1],
    ]);
  });
  it("take a round's games by their ids alone: the match says who and whether it is over", () => {
    const ann = { id: "ann", name: "Ann" };
    const bob = { id: "bob", name: "Bob" };
    const t = normalise({
      ...arena({ format: "swiss", games: undefined, round: 2 }),
      rounds: [
        { round: 1, pairings: [{ a: ann, b: bob, points: [1.5, 0.5], games: [{ id: "m1-1" }, { id: "m1-2" }] }] },
        { round: 2, pairings: [{ a: bob, b: ann, points: null, games: [{ id: "m2-1" }] }, { a: { id: "cy", name: "Cy" }, b: null, games: [] }] },
      ],
    });
    expect(gamesOf(t, "ann").map((g) => [g.id, g.side, g.outcome, g.opponent])).toEqual([
      ["m1-1", null, "over", "Bob"],
      ["m1-2", null, "over", "Bob"],
      ["m2-1", null, "playing", "Bob"],
    ]);
    expect(myPart(t, "ann").game).toBe("m2-1");
    expect(standingRows(t, null).find((r) => r.id === "cy")?.state).toBe("paused");
    expect(countdown({ ...t, rounds: 4 }, NOW + MIN).label).toBe("Round 2 of 4");
  });
  it("take an arena streak as a flag too", () => {
    const t = arena({ standings: [standing("ann", 1, 4, { streak: true }), standing("bob", 2, 2, { streak: false })] });
    expect(standingRows(t, null).map((r) => r.onFire)).toEqual([true, false]);
  });
});

describe("the viewer's part and buttons", () => {
  it("come from the standings, as frames are the same for everyone", () => {
    expect(myPart(arena(), "cy")).toEqual({ joined: true, paused: true, game: "g3" });
    expect(myPart(arena(), "zed")).toEqual({ joined: false, paused: false, game: null });
    expect(actionsFor(arena(), "cy", true)).toEqual(["resume", "withdraw"]);
    expect(actionsFor(arena(), "bob", true)).toEqual(["pause", "withdraw"]);
    expect(actionsFor(arena(), "zed", true)).toEqual(["join"]);
    expect(actionsFor(arena(), "zed", false)).toEqual([]); // a guest: the page says why
    expect(actionsFor(arena({ status: "finished" }), "bob", true)).toEqual([]);
  });
  it("close registration once a round robin has started", () => {
    const rr = arena({ format: "round_robin" });
    expect(actionsFor(rr, "zed", true)).toEqual([]);
    expect(actionsFor(rr, "bob", true)).toEqual(["withdraw"]);
    expect(actionsFor({ ...rr, status: "upcoming" }, "zed", true)).toEqual(["join"]);
  });
});

describe("the create form", () => {
  const good: CreateInput = { name: "  Friday   arena ", format: "arena", ruleset: "nielsen", move_time: 60, starts_at: NOW + 5 * MIN, duration_min: 60, rounds: 5 };
  it("sends only the fields of the format, the name tidied", () => {
    expect(checkCreate(good, NOW)).toEqual({ ok: true, body: { name: "Friday arena", format: "arena", ruleset: "nielsen", move_time: 60, starts_at: NOW + 5 * MIN, duration_min: 60 } });
    const swiss = checkCreate({ ...good, format: "swiss", move_time: 86_400 }, NOW);
    expect(swiss.ok && swiss.body).toMatchObject({ rounds: 5 });
    expect(swiss.ok && "duration_min" in swiss.body).toBe(false);
  });
  it("names the field and says what is wrong", () => {
    const field = (input: Partial<CreateInput>) => {
      const r = checkCreate({ ...good, ...input }, NOW);
      return r.ok ? null : r.field;
    };
    expect(field({ name: "  " })).toBe("name");
    expect(field({ name: "x".repeat(61) })).toBe("name");
    expect(field({ move_time: 3600 })).toBe("move_time"); // an arena is live
    expect(field({ format: "round_robin", move_time: 600 })).toBe("move_time");
    expect(field({ starts_at: NOW - 5 * MIN })).toBe("starts_at");
    expect(field({ starts_at: Number.NaN })).toBe("starts_at");
    expect(field({ duration_min: 0 })).toBe("duration_min");
    expect(field({ duration_min: 721 })).toBe("duration_min");
    expect(field({ format: "swiss", move_time: 86_400, rounds: 0 })).toBe("rounds");
    expect(field({ format: "swiss", move_time: 86_400, rounds: 21 })).toBe("rounds");
    expect(field({ format: "swiss", move_time: 86_400, rounds: 5 })).toBeNull();
  });
  it("says the hub's refusals in words", () => {
    const refusal = new ApiError("invalid_tournament", "move_time: an arena is for live games: under 3600 seconds a move", 400);
    expect(tournamentErrorText(refusal)).toBe("The time per move: an arena is for live games: under 3600 seconds a move.");
    const rounds = new ApiError("invalid_tournament", "rounds: 5 rounds need more than 4 players (max_players)", 400);
    expect(tournamentErrorText(rounds)).toBe("The number of rounds: 5 rounds need more than 4 players (max_players).");
    expect(fieldOf(rounds.message)).toBe("rounds");
    expect(fieldOf("no field here")).toBeNull();
    expect(tournamentErrorText(new ApiError("not_allowed", "", 403))).toMatch(/confirmed email/);
    expect(tournamentErrorText(new ApiError("too_many_tournaments", "", 429))).toMatch(/Wait until one has finished/);
    expect(tournamentErrorText(new ApiError("tournament_closed", "", 409))).toMatch(/started or finished/);
    expect(formatLine(arena())).toBe("Arena, 60 minutes");
  });
});

class FakeTransport extends FakeFrames implements TournamentTransport {
  receive(frame: { t: string } & Record<string, unknown>): boolean {
    return this.deliver(frame);
  }
}

describe("TournamentFeed", () => {
  it("follows while a page shows the event, again after each reconnect, and stops after the last", () => {
    const net = new FakeTransport();
    const feed = new TournamentFeed(net);
    const stopA = feed.follow("t1");
    const stopB = feed.follow("t1");
    expect(net.sent).toEqual([{ t: "follow_tournament", tournament: "t1", on: true }]);
    net.change("hello");
    expect(net.sent).toHaveLength(2);
    stopA();
    stopA(); // twice changes nothing
    expect(net.sent).toHaveLength(2);
    stopB();
    expect(net.sent.at(-1)).toEqual({ t: "follow_tournament", tournament: "t1", on: false });
    expect(feed.following("t1")).toBe(false);
  });
  it("passes on a followed event's frames and every next game", () => {
    const net = new FakeTransport();
    const feed = new TournamentFeed(net);
    const seen: TournamentChange[] = [];
    feed.subscribe((c) => seen.push(c));
    feed.follow("t1");
    const { rounds: _, ...body } = arena();
    expect(net.receive({ t: "tournament", tournament: "t1", ...body })).toBe(true);
    expect(net.receive({ t: "tournament", tournament: "t9", ...body, id: "t9" })).toBe(true); // unfollowed: dropped
    expect(net.receive({ t: "tournament_game", tournament: "t1", game: "g7", side: "defenders", opponent: { id: "bob", name: "Bob" } })).toBe(true);
    expect(net.receive({ t: "lobby", seeks: [] })).toBe(false);
    expect(seen.map((c) => c.type)).toEqual(["tournament", "game"]);
    const first = seen[0];
    expect(first.type === "tournament" && first.tournament.standings).toHaveLength(3);
    const game = seen[1];
    expect(game.type === "game" && nextGameText(game.frame)).toBe("Your next tournament game: you play the defenders against Bob.");
    expect(feed.lastGame?.game).toBe("g7");
  });
});
