// LiveClient's hooks for the lobby: onFrame (frames seen first, and taken) and sendExtra.

import { afterEach, describe, expect, it, vi } from "vitest";
import { decode, encode } from "@msgpack/msgpack";
import { LiveClient, type Change, type SocketLike } from "./live";
import { LobbyFeed } from "./lobbyfeed";

class Socket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code?: number }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  sent: Record<string, unknown>[] = [];
  send(data: Uint8Array): void {
    this.sent.push(decode(data) as Record<string, unknown>);
  }
  close(): void {
    this.readyState = 3;
  }
  receive(frame: Record<string, unknown>): void {
    const bytes = encode(frame);
    this.onmessage?.({ data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  }
}

const HELLO = {
  t: "hello",
  player: { id: "me", name: "Me" },
  ping_interval: 2.5,
  limits: { max_frame_bytes: 4096, credits: 100, credit_window: 20 },
};

describe("LiveClient hooks for the lobby", () => {
  afterEach(() => vi.useRealTimers());

  function connect() {
    vi.useFakeTimers();
    const sockets: Socket[] = [];
    const live = new LiveClient({ url: "ws://x/ws", createSocket: () => (sockets.push(new Socket()), sockets.at(-1)!), random: () => 0.5 });
    const changes: Change[] = [];
    live.subscribe((c) => changes.push(c));
    live.start();
    const ws = sockets[0];
    ws.readyState = 1;
    ws.onopen?.({});
    return { live, ws, changes };
  }

  it("sends extra frames only while connected", () => {
    const { live, ws } = connect();
    expect(live.sendExtra({ t: "lobby" })).toBe(false); // no hello yet
    ws.receive(HELLO);
    expect(live.sendExtra({ t: "lobby" })).toBe(true);
    expect(ws.sent.at(-1)).toEqual({ t: "lobby" });
    live.stop();
  });

  it("shows every frame to the hooks first; a frame a hook takes goes no further", () => {
    const { live, ws, changes } = connect();
    const seen: string[] = [];
    live.onFrame((f) => {
      seen.push(f.t);
      return f.t === "error" && (f as { id?: string }).id === "L.1";
    });
    ws.receive(HELLO);
    ws.receive({ t: "error", id: "L.1", code: "seek_gone", message: "gone" });
    ws.receive({ t: "error", code: "rate_limited", message: "slow down" });
    expect(seen).toEqual(["hello", "error", "error"]);
    const errors = changes.filter((c) => c.type === "error");
    expect(errors).toEqual([{ type: "error", game: null, code: "rate_limited", message: "slow down" }]);
    live.stop();
  });

  it("with the lobby feed: follows the lobby after hello, and again after a reconnect", () => {
    const { live, ws } = connect();
    const feed = new LobbyFeed(live, { prefix: "L" });
    const stop = feed.follow(); // before hello: sent once connected
    expect(ws.sent.filter((f) => f.t === "lobby")).toEqual([]);
    ws.receive(HELLO);
    expect(ws.sent.filter((f) => f.t === "lobby")).toEqual([{ t: "lobby", on: true }]);
    ws.receive({ t: "lobby", seeks: [], games: [] });
    expect(feed.seeks.synced).toBe(true);
    stop();
    expect(ws.sent.at(-1)).toEqual({ t: "lobby", on: false });
    live.stop();
  });
});
