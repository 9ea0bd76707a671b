import { describe, expect, it } from "vitest";
import { applyDelta, foldFrame, type Delta, type Held, type View } from "./tournamentdelta";
import { TournamentFeed, type TournamentChange } from "../network/tournamentfeed";
import { FakeFrames } from "../testing";
// Written by tests/hub/tournament_views.py (the hub's tests check it is what the hub's
// views and deltas give now): tournaments run through the hub's own state, each view and
// the delta between it and the next.
import casesText from "./tournamentdelta.cases.json?raw";

interface Run {
  name: string;
  views: View[];
  steps: { from: number; to: number; delta: Delta }[];
}

const runs = (JSON.parse(casesText) as { runs: Run[] }).runs;

describe("applyDelta", () => {
  it("gives what the hub's apply gives on the shared cases, and again changes nothing", () => {
    expect(runs.map((r) => r.name)).toEqual(["arena", "round_robin", "swiss", "edges"]);
    for (const run of runs) {
      for (const { from, to, delta } of run.steps) {
        const before = structuredClone(run.views[from]);
        const after = applyDelta(run.views[from], delta);
        expect(after, `${run.name} ${from} -> ${to}`).toEqual(run.views[to]);
        expect(run.views[from]).toEqual(before); // a new view; the old one untouched
        expect(applyDelta(after, delta)).toEqual(run.views[to]);
        expect(applyDelta(run.views[to], delta)).toEqual(run.views[to]);
      }
    }
  });
  it("keeps rows in place, adds new ones last, and takes a new order when given one", () => {
    const row = (id: string, points: number) => ({ player: { id, name: id }, points });
    const view = { standings: [row("a", 1), row("b", 2)], game_counts: { a: 1, b: 2 }, note: "x" };
    const delta: Delta = {
      set: { status: "running" },
      unset: ["note"],
      standings: { changed: [row("b", 5), row("c", 0)], gone: ["a"] },
      game_counts: { set: { c: 1 }, gone: ["a"] },
    };
    expect(applyDelta(view, delta)).toEqual({
      status: "running",
      standings: [row("b", 5), row("c", 0)],
      game_counts: { b: 2, c: 1 },
    });
    const reordered = applyDelta(view, { standings: { changed: [], gone: [], order: ["b", "a"] } });
    expect(reordered.standings).toEqual([row("b", 2), row("a", 1)]);
    // The ranks apart: every row's in the new order, the rows not otherwise changed.
    const ranked = { standings: [{ ...row("a", 1), rank: 2 }, { ...row("b", 2), rank: 1 }] };
    const ranks = applyDelta(ranked, { standings: { changed: [], gone: [], order: ["b", "a"], ranks: [1, 2] } });
    expect(ranks.standings).toEqual([{ ...row("b", 2), rank: 1 }, { ...row("a", 1), rank: 2 }]);
  });
});

describe("foldFrame", () => {
  const snapshot = { t: "tournament", tournament: "t1", version: 4, id: "t1", status: "running" };
  const delta = (version: number, base: number, status: string) => ({
    t: "tournament_delta",
    tournament: "t1",
    version,
    base,
    set: { status },
  });
  it("takes a snapshot, applies the delta from its version, skips one held, asks again on a gap", () => {
    let held: Held | null = foldFrame(null, delta(3, 2, "x")).held; // nothing held: waits
    expect(held).toBeNull();
    const first = foldFrame(held, snapshot);
    expect(first).toMatchObject({ changed: true, held: { version: 4, view: { id: "t1", status: "running" } } });
    expect(first.held?.view).not.toHaveProperty("t");
    held = first.held;
    const next = foldFrame(held, delta(5, 4, "finished"));
    expect(next).toMatchObject({ changed: true, refollow: false, held: { version: 5, view: { status: "finished" } } });
    held = next.held;
    expect(foldFrame(held, delta(5, 4, "finished")).changed).toBe(false); // held already
    expect(foldFrame(held, { ...snapshot, version: 3 }).changed).toBe(false); // a late whole frame
    const gap = foldFrame(held, delta(7, 6, "x"));
    expect(gap).toMatchObject({ changed: false, refollow: true, held: { awaiting: true, version: 5 } });
    // Deltas wait for the snapshot asked for, which is taken whatever its version.
    expect(foldFrame(gap.held, delta(6, 5, "x"))).toMatchObject({ changed: false, refollow: false });
    expect(foldFrame(gap.held, { ...snapshot, version: 8 }).held).toMatchObject({ version: 8, awaiting: false });
  });
});

class FakeTransport extends FakeFrames {
  receive(frame: { t: string } & Record<string, unknown>): boolean {
    return this.deliver(frame);
  }
}

describe("TournamentFeed with deltas", () => {
  it("shows each delta folded in, follows again on a gap, and starts over after a reconnect", () => {
    const net = new FakeTransport();
    const feed = new TournamentFeed(net);
    const seen: TournamentChange[] = [];
    feed.subscribe((c) => seen.push(c));
    feed.follow("t1");
    const row = (id: string, points: number) => ({ rank: 1, player: { id, name: id }, points });
    net.receive({ t: "tournament", tournament: "t1", version: 2, id: "t1", format: "arena", standings: [row("a", 0)] });
    net.receive({ t: "tournament_delta", tournament: "t1", version: 3, base: 2, standings: { changed: [row("a", 2)], gone: [] } });
    const shown = seen.filter((c) => c.type === "tournament").map((c) => (c.type === "tournament" ? c.tournament.standings : null));
    expect(shown).toEqual([[row("a", 0)], [row("a", 2)]]);
    expect(net.sent).toHaveLength(1);
    net.receive({ t: "tournament_delta", tournament: "t1", version: 5, base: 4, set: { status: "finished" } });
    expect(net.sent.at(-1)).toEqual({ t: "follow_tournament", tournament: "t1", on: true });
    expect(seen).toHaveLength(2);
    net.change("hello"); // a new socket: what was held is forgotten, the follow sent again
    net.receive({ t: "tournament", tournament: "t1", version: 1, id: "t1", format: "arena", standings: [] });
    expect(seen.filter((c) => c.type === "tournament")).toHaveLength(3);
  });
});
