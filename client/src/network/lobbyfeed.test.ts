import { describe, expect, it } from "vitest";
import type { Seek } from "../logic/lobby";
import { LobbyFeed, type LobbyChange, type LobbyReply, type LobbyTransport } from "./lobbyfeed";
import type { PlayerInfo } from "./protocol";
import { FakeFrames } from "../testing";

class FakeTransport extends FakeFrames implements LobbyTransport {
  player: PlayerInfo | null = { id: "me", name: "Me" };
  unhandled: { t: string }[] = [];
  // the server's side
  receive(frame: { t: string } & Record<string, unknown>): void {
    if (!this.deliver(frame)) this.unhandled.push(frame);
  }
  drop(): void {
    this.isOpen = false;
    for (const fn of this.subs) fn({ type: "connection" });
  }
  hello(): void {
    this.isOpen = true;
    for (const fn of this.subs) fn({ type: "hello" });
  }
  last(t: string): Record<string, unknown> {
    const f = this.sent.filter((x) => x.t === t).at(-1);
    if (!f) throw new Error(`nothing sent of type ${t}`);
    return f;
  }
}

function seek(id: string, player = "other"): Seek {
  return {
    id,
    player: { id: player, name: player },
    rating: 1500,
    provisional: true,
    ruleset: "nielsen",
    move_time: 180,
    rated: true,
    match: false,
    kind: "live",
  };
}

function setup() {
  const t = new FakeTransport();
  let now = 1_000_000;
  const feed = new LobbyFeed(t, { now: () => now, prefix: "L" });
  const changes: LobbyChange[] = [];
  feed.subscribe((c) => changes.push(c));
  return { t, feed, changes, tick: (ms: number) => (now += ms) };
}

describe("LobbyFeed", () => {
  it("follows the lobby once for any number of pages, and stops after the last", () => {
    const { t, feed } = setup();
    const a = feed.follow();
    const b = feed.follow();
    expect(t.sent).toEqual([{ t: "lobby", on: true }]);
    a();
    a(); // twice changes nothing
    expect(t.sent).toHaveLength(1);
    b();
    expect(t.sent.at(-1)).toEqual({ t: "lobby", on: false });
  });

  it("keeps the seeks and games in step and follows again after a reconnect", () => {
    const { t, feed } = setup();
    feed.follow();
    t.receive({ t: "seek_added", seek: seek("early") });
    t.receive({ t: "lobby", seeks: [seek("a")], games: [] });
    expect(feed.seeks.list().map((s) => s.id)).toEqual(["a", "early"]);
    t.receive({ t: "seek_removed", seek: "a" });
    t.receive({ t: "games", games: [{ id: "g1" }] });
    expect(feed.seeks.list().map((s) => s.id)).toEqual(["early"]);
    expect(feed.games.map((g) => g.id)).toEqual(["g1"]);
    t.drop();
    expect(feed.gamesSynced).toBe(false);
    t.hello();
    expect(t.sent.filter((f) => f.t === "lobby")).toHaveLength(2);
    expect(feed.seeks.synced).toBe(false);
    t.receive({ t: "lobby", seeks: [], games: [] });
    expect(feed.seeks.list()).toEqual([]);
  });

  it("answers a request by its id: ack or error", async () => {
    const { t, feed } = setup();
    const opened = feed.openSeek({ ruleset: "walker", move_time: 86_400, rated: false, match: true });
    const frame = t.last("seek");
    expect(frame).toMatchObject({ ruleset: "walker", move_time: 86_400, rated: false, match: true });
    t.receive({ t: "ack", id: frame.id as string, of: "seek", seek: "s1" });
    expect(await opened).toEqual({ ok: true, seek: "s1" });

    const taken = feed.acceptSeek("s9");
    const accept = t.last("accept_seek");
    expect(accept.seek).toBe("s9");
    t.receive({ t: "error", id: accept.id as string, code: "seek_gone", message: "gone" });
    expect(await taken).toEqual({ ok: false, code: "seek_gone", message: "gone" });
    // the error was the feed's: the rest of the page never sees it
    expect(t.unhandled).toEqual([]);
    // errors of other messages are not the feed's
    t.receive({ t: "error", id: "m.1", code: "stale_ply", message: "x" });
    t.receive({ t: "error", code: "rate_limited", message: "x" });
    expect(t.unhandled).toHaveLength(2);
  });

  it("refuses requests while offline, and settles the open ones when the connection drops", async () => {
    const { t, feed } = setup();
    const pending = feed.cancelSeek("s1");
    t.drop();
    expect(await pending).toMatchObject({ ok: false, code: "dropped" });
    expect(await feed.openSeek({ ruleset: "nielsen", move_time: 60, rated: true, match: false })).toMatchObject({
      ok: false,
      code: "offline",
    });
  });

  it("quick pairing: waits, counts, asks again after a reconnect, and ends on paired", async () => {
    const { t, feed, changes, tick } = setup();
    const reply = feed.startQuick("nielsen", 180);
    expect(feed.quick).toMatchObject({ ruleset: "nielsen", move_time: 180, confirmed: false });
    const q1 = t.last("quick");
    t.receive({ t: "ack", id: q1.id as string, of: "quick", game: null });
    expect(await reply).toEqual({ ok: true, game: null });
    expect(feed.quick?.confirmed).toBe(true);
    tick(12_500);
    expect(feed.quickSeconds()).toBeCloseTo(12.5);

    t.drop();
    t.hello();
    const q2 = t.last("quick");
    expect(q2.id).not.toBe(q1.id);
    expect(q2).toMatchObject({ ruleset: "nielsen", move_time: 180 });
    expect(feed.quickSeconds()).toBeCloseTo(12.5); // the wait goes on

    t.receive({ t: "paired", game: "game42", players: ["me", "other"] });
    expect(feed.quick).toBeNull();
    expect(changes).toContainEqual({ type: "paired", game: "game42", players: ["me", "other"] });
  });

  it("quick pairing: paired at once, refused, or cancelled", async () => {
    const { t, feed } = setup();
    const at0nce = feed.startQuick("nielsen", 60);
    t.receive({ t: "ack", id: t.last("quick").id as string, of: "quick", game: "g1" });
    expect(await at0nce).toEqual({ ok: true, game: "g1" });
    expect(feed.quick).toBeNull();

    const refused = feed.startQuick("walker", 60);
    t.receive({ t: "error", id: t.last("quick").id as string, code: "already_waiting", message: "x" });
    expect(((await refused) as LobbyReply & { ok: false }).code).toBe("already_waiting");
    expect(feed.quick).toBeNull();

    const waiting = feed.startQuick("nielsen", 600);
    const cancelled = feed.cancelQuick();
    expect(feed.quick).toBeNull();
    expect(await waiting).toMatchObject({ ok: false, code: "cancelled" });
    t.receive({ t: "ack", id: t.last("cancel_quick").id as string, of: "cancel_quick", left: true });
    expect(await cancelled).toEqual({ ok: true, left: true });
    // not waiting: nothing to send
    const count = t.sent.length;
    expect(await feed.cancelQuick()).toEqual({ ok: true, left: false });
    expect(t.sent).toHaveLength(count);
  });
});
