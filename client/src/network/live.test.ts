import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { decode, encode } from "@msgpack/msgpack";
import { LiveClient, type Change, type SocketLike } from "./live";
import type { State } from "./protocol";
import { makeState } from "../testing";

class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code?: number }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  sent: Record<string, unknown>[] = [];
  closed = false;
  constructor(readonly url: string) {}
  send(data: Uint8Array): void {
    this.sent.push(decode(data) as Record<string, unknown>);
  }
  close(): void {
    this.closed = true;
    this.readyState = 3;
  }
  // server side
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(frame: Record<string, unknown>): void {
    const bytes = encode(frame);
    this.onmessage?.({ data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({ code: 1006 });
  }
  of(t: string): Record<string, unknown>[] {
    return this.sent.filter((f) => f.t === t);
  }
}

function state(ply: number, extra: Partial<State> = {}): State {
  const me = { id: "me", name: "Me" };
  return makeState(ply, {
    players: { attackers: me, defenders: { id: "you", name: "You" } },
    creator: me,
    legal: ["d1-c1"],
    ...extra,
  });
}

const HELLO = {
  t: "hello",
  player: { id: "me", name: "Me" },
  ping_interval: 2.5,
  limits: { max_frame_bytes: 4096, credits: 100, credit_window: 20 },
};

describe("LiveClient", () => {
  let sockets: FakeSocket[];
  let client: LiveClient;
  let changes: Change[];

  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    client = new LiveClient({
      url: "ws://hub/ws",
      createSocket: (url) => {
        const s = new FakeSocket(url);
        sockets.push(s);
        return s;
      },
      random: () => 0.5,
      idPrefix: "t",
    });
    changes = [];
    client.subscribe((c) => changes.push(c));
  });
  afterEach(() => {
    client.stop();
    vi.useRealTimers();
  });

  function connect(): FakeSocket {
    const s = sockets[sockets.length - 1];
    s.open();
    s.receive(HELLO);
    return s;
  }

  it("watches after hello and answers pings", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    expect(client.connection).toBe("open");
    expect(client.player?.id).toBe("me");
    expect(s.of("watch")).toEqual([{ t: "watch", game: "game01" }]);
    s.receive({ t: "ping", n: 7 });
    expect(s.of("pong")).toEqual([{ t: "pong", n: 7 }]);
  });

  it("resumes with since after a drop and resends an unacknowledged move unchanged", () => {
    client.watch("game01");
    client.start();
    let s = connect();
    s.receive({ t: "snapshot", game: "game01", n: 1, state: state(0), moves: [], watchers: 0 });
    const p = client.move("game01", 0, "d1-c1");
    expect(s.of("move")).toEqual([{ t: "move", game: "game01", ply: 0, move: "d1-c1", id: p.id }]);
    s.drop();
    expect(client.connection).toBe("down");
    expect(client.pending.forGame("game01")?.id).toBe(p.id);
    vi.advanceTimersByTime(499);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1); // first retry after 0.5 s (no jitter with random() = 0.5)
    expect(sockets).toHaveLength(2);
    s = connect();
    expect(s.of("watch")).toEqual([{ t: "watch", game: "game01", since: 1 }]);
    expect(s.of("move")).toEqual([{ t: "move", game: "game01", ply: 0, move: "d1-c1", id: p.id }]);
    s.receive({ t: "ack", of: "move", id: p.id, game: "game01", n: 2, duplicate: true });
    expect(client.pending.all()).toHaveLength(0);
    expect(changes).toContainEqual({
      type: "settled",
      game: "game01",
      settlement: { kind: "acked", move: expect.objectContaining({ id: p.id }), duplicate: true },
    });
  });

  it("queues a move made while down and sends it after reconnecting", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    s.receive({ t: "snapshot", game: "game01", n: 1, state: state(0), moves: [], watchers: 0 });
    client.dropConnection(2000);
    const p = client.move("game01", 0, "d1-c1");
    expect(p.sent).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(1); // held for 2 s
    vi.advanceTimersByTime(1100);
    const s2 = connect();
    expect(s2.of("move")).toEqual([{ t: "move", game: "game01", ply: 0, move: "d1-c1", id: p.id }]);
    expect(client.pending.forGame("game01")?.sent).toBe(true);
    // the event settles it even before the ack
    s2.receive({ t: "event", game: "game01", n: 2, kind: "move", move: "d1-c1", by: "attackers", state: state(1) });
    expect(client.pending.all()).toHaveLength(0);
    expect(client.games.get("game01")?.moves).toEqual(["d1-c1"]);
  });

  it("reconnects at once as the new session after a login without a reload", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    client.reconnect();
    expect(s.closed).toBe(true);
    expect(sockets).toHaveLength(2); // no backoff: a new socket straight away
    const s2 = connect();
    expect(s2.of("watch")).toHaveLength(1); // the game is watched again on the new socket
  });

  it("settles a refused move and reports errors without an id", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    s.receive({ t: "snapshot", game: "game01", n: 1, state: state(0), moves: [], watchers: 0 });
    const p = client.move("game01", 0, "d1-d7");
    s.receive({ t: "error", code: "illegal_move", message: "blocked", id: p.id });
    expect(client.pending.all()).toHaveLength(0);
    expect(changes).toContainEqual({
      type: "settled",
      game: "game01",
      settlement: { kind: "refused", move: expect.objectContaining({ id: p.id }), code: "illegal_move", message: "blocked" },
    });
    s.receive({ t: "error", code: "rate_limited", message: "slow down" });
    expect(changes).toContainEqual({ type: "error", game: null, code: "rate_limited", message: "slow down" });
  });

  it("asks again from its last event on a gap and ignores duplicates", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    s.receive({ t: "snapshot", game: "game01", n: 3, state: state(2), moves: ["a1-a2", "b1-b2"], watchers: 2 });
    s.receive({ t: "event", game: "game01", n: 3, kind: "move", move: "b1-b2", by: "defenders", state: state(2) });
    expect(client.games.get("game01")?.moves).toHaveLength(2);
    s.receive({ t: "event", game: "game01", n: 5, kind: "move", move: "x", by: "attackers", state: state(4) });
    expect(s.of("watch").at(-1)).toEqual({ t: "watch", game: "game01", since: 3 });
    s.receive({ t: "watchers", game: "game01", count: 4 });
    expect(client.games.get("game01")?.watchers).toBe(4);
  });

  it("pings every second and treats three seconds of silence as a dead connection", () => {
    client.start();
    const s = connect();
    vi.advanceTimersByTime(2500);
    expect(s.of("ping").length).toBeGreaterThanOrEqual(2);
    s.receive({ t: "pong", n: 1 });
    vi.advanceTimersByTime(2500);
    expect(client.connection).toBe("open");
    vi.advanceTimersByTime(1000);
    expect(client.connection).toBe("down");
    expect(s.closed).toBe(true);
  });

  it("drops the socket when the browser goes offline and reconnects at once when it is back", () => {
    client.start();
    const s = connect();
    client.setBrowserOnline(false);
    expect(client.connection).toBe("down");
    expect(s.closed).toBe(true);
    vi.advanceTimersByTime(30_000);
    expect(sockets).toHaveLength(1); // no attempt while the browser is offline
    client.setBrowserOnline(true);
    expect(sockets).toHaveLength(2);
    expect(client.connection).toBe("connecting");
  });

  it("keeps who is connected from presence frames, and passes turn and match frames on", () => {
    client.start();
    const s = connect();
    const tracker = client.watch("game01");
    const seen: string[] = [];
    client.subscribe((c) => seen.push(c.type));
    expect(tracker.isOnline("p2")).toBeNull();
    s.receive({ t: "presence", game: "game01", online: ["p1"] });
    expect(tracker.isOnline("p1")).toBe(true);
    expect(tracker.isOnline("p2")).toBe(false);
    expect(tracker.isOnline("bot")).toBe(true);
    s.receive({ t: "turn", game: "other1", ply: 3, last: "d1-c1", deadline: 5, opponent: "Ann" });
    const match = { id: "m1", ruleset: "nielsen", players: [], score: {}, games: ["game01", "game02"], status: "playing", chooser: null, winner: null };
    s.receive({ t: "match", game: "game01", match });
    expect(tracker.match?.games[1]).toBe("game02");
    expect(seen).toEqual(["presence", "turn", "match"]);
  });

  it("sends choose_sides and settles it by its ack", () => {
    client.start();
    const s = connect();
    const seen: unknown[] = [];
    client.subscribe((c) => c.type === "sides" && seen.push(c));
    expect(client.chooseSides("m1", "attackers")).toBe(true);
    const sent = s.of("choose_sides")[0] as { id: string; match: string; side: string };
    expect(sent).toMatchObject({ match: "m1", side: "attackers" });
    s.receive({ t: "ack", id: sent.id, of: "choose_sides", game: "game03" });
    expect(seen).toEqual([{ type: "sides", game: "game03", ok: true }]);
  });

  it("backs off 0.5 s, 1 s, 2 s … and resets after a good hello", () => {
    client.start();
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = Date.now();
      sockets[sockets.length - 1].drop();
      delays.push((client.retryAt ?? 0) - before);
      vi.advanceTimersByTime(delays[i]);
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000]);
    connect();
    expect(client.attempt).toBe(0);
  });

  it("refuses a pending move clearly when the game ends before it is played", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    s.receive({ t: "snapshot", game: "game01", n: 1, state: state(0), moves: [], watchers: 0 });
    client.dropConnection(5000);
    client.move("game01", 0, "d1-c1");
    vi.advanceTimersByTime(5000);
    const s2 = connect();
    s2.receive({
      t: "event", game: "game01", n: 2, kind: "move", move: "d1-b1", by: "attackers",
      state: state(1, { status: "ended", turn: null, result: { winner: "defenders", reason: "timeout" } }),
    });
    const settled = changes.filter((c) => c.type === "settled");
    expect(settled).toHaveLength(1);
    expect(client.pending.all()).toHaveLength(0);
  });

  it("learns the server's clock from hello and pings", () => {
    vi.setSystemTime(1_000_000);
    client.start();
    const s = sockets[0];
    s.open();
    s.receive({ ...HELLO, now: 1_004_000 }); // the server's clock is 4 s ahead
    expect(client.clock.offset).toBe(4_000);
    vi.setSystemTime(1_002_500);
    s.receive({ t: "ping", n: 1, now: 1_006_510 });
    expect(client.clock.offset).toBe(4_010);
    expect(s.of("pong")).toEqual([{ t: "pong", n: 1 }]);
  });

  it("sends actions, settles them by their ack or error, and resends them after a drop", () => {
    client.watch("game01");
    client.start();
    let s = connect();
    s.receive({ t: "snapshot", game: "game01", n: 3, state: state(2), moves: ["a", "b"], watchers: 0 });
    const offer = client.act("game01", "offer_draw");
    const answer = client.act("game01", "answer_draw", false);
    expect(s.of("offer_draw")).toEqual([{ t: "offer_draw", game: "game01", id: offer.id }]);
    expect(s.of("answer_draw")).toEqual([{ t: "answer_draw", game: "game01", accept: false, id: answer.id }]);
    expect(client.actionsFor("game01").map((a) => a.kind)).toEqual(["offer_draw", "answer_draw"]);
    s.receive({ t: "ack", of: "offer_draw", id: offer.id, game: "game01", n: 4, duplicate: false });
    expect(changes).toContainEqual({ type: "action", game: "game01", action: offer, ok: true });
    s.receive({ t: "error", id: answer.id, code: "no_draw_offer", message: "there is no draw offer to answer" });
    expect(changes).toContainEqual({
      type: "action", game: "game01", action: answer, ok: false, code: "no_draw_offer", message: "there is no draw offer to answer",
    });
    expect(client.actionsFor("game01")).toEqual([]);

    // A resignation whose ack is lost with the connection goes out again, unchanged.
    const resign = client.act("game01", "resign");
    s.drop();
    vi.advanceTimersByTime(500);
    s = connect();
    expect(s.of("resign")).toEqual([{ t: "resign", game: "game01", id: resign.id }]);
    s.receive({ t: "ack", of: "resign", id: resign.id, game: "game01", n: 5, duplicate: true });
    expect(client.actionsFor("game01")).toEqual([]);
  });

  it("keeps where a rematch stands from notices and its ack", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    const over = state(6, { status: "ended", turn: null, result: { winner: "attackers", reason: "timeout" } });
    s.receive({ t: "snapshot", game: "game01", n: 9, state: over, moves: [], watchers: 0 });
    // Our offer: the ack says "offered" (we are the attackers); the notice repeats it.
    const ask = client.act("game01", "rematch");
    expect(s.of("rematch")).toEqual([{ t: "rematch", game: "game01", id: ask.id }]);
    s.receive({ t: "ack", of: "rematch", id: ask.id, game: "game01", outcome: "offered", next: null });
    expect(client.games.get("game01")?.rematch).toEqual({ offer: "attackers", next: null, declined: null });
    expect(changes).toContainEqual({ type: "rematch", game: "game01" });
    expect(changes).toContainEqual({ type: "action", game: "game01", action: ask, ok: true });
    const before = changes.length;
    s.receive({ t: "rematch", game: "game01", offer: "attackers" });
    expect(changes).toHaveLength(before); // nothing new
    // The opponent accepts: everyone following the game hears of the new one.
    s.receive({ t: "rematch", game: "game01", next: "game02" });
    expect(client.games.get("game01")?.rematch).toEqual({ offer: null, next: "game02", declined: null });
    expect(changes.at(-1)).toEqual({ type: "rematch", game: "game01" });
  });

  it("declines the opponent's rematch offer: sent, and the offer closes on its ack or notice", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    const over = state(6, { status: "ended", turn: null, result: { winner: "attackers", reason: "timeout" } });
    s.receive({ t: "snapshot", game: "game01", n: 9, state: { ...over, rematch: { offer: "defenders", game: null } }, moves: [], watchers: 0 });
    expect(client.games.get("game01")?.rematch.offer).toBe("defenders");
    const no = client.act("game01", "decline_rematch");
    expect(s.of("decline_rematch")).toEqual([{ t: "decline_rematch", game: "game01", id: no.id }]);
    s.receive({ t: "ack", of: "decline_rematch", id: no.id, game: "game01", next: null });
    expect(client.games.get("game01")?.rematch).toEqual({ offer: null, next: null, declined: "attackers" });
    expect(changes).toContainEqual({ type: "action", game: "game01", action: no, ok: true });
    const before = changes.length;
    s.receive({ t: "rematch", game: "game01", declined: "attackers" });
    expect(changes).toHaveLength(before); // the notice repeats what the ack said
  });

  it("hears at once that the opponent declined its offer", () => {
    client.watch("game01");
    client.start();
    const s = connect();
    const over = state(6, { status: "ended", turn: null, result: { winner: "attackers", reason: "timeout" } });
    s.receive({ t: "snapshot", game: "game01", n: 9, state: { ...over, rematch: { offer: "attackers", game: null } }, moves: [], watchers: 0 });
    s.receive({ t: "rematch", game: "game01", declined: "defenders" });
    expect(client.games.get("game01")?.rematch).toEqual({ offer: null, next: null, declined: "defenders" });
    expect(changes.at(-1)).toEqual({ type: "rematch", game: "game01" });
  });

  it("watches an ended game again from a snapshot after a reconnect", () => {
    client.watch("game01");
    client.start();
    let s = connect();
    const over = state(6, { status: "ended", turn: null, result: { winner: null, reason: "draw_agreed" } });
    s.receive({ t: "snapshot", game: "game01", n: 9, state: over, moves: [], watchers: 0 });
    s.drop();
    vi.advanceTimersByTime(500);
    s = connect();
    expect(s.of("watch")).toEqual([{ t: "watch", game: "game01" }]);
    s.receive({
      t: "snapshot", game: "game01", n: 9, moves: [], watchers: 0,
      state: { ...over, rematch: { offer: null, game: "game02" } },
    });
    expect(client.games.get("game01")?.rematch.next).toBe("game02");
  });
});
