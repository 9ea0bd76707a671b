import { describe, expect, it } from "vitest";
import type { Challenge } from "../logic/challenges";
import { ChallengeFeed, type ChallengeTransport } from "./challenges";

const ANN = { id: "p_ann", name: "Ann", bot: false };
const BEN = { id: "p_ben", name: "Ben", bot: false };

function challenge(id: string, extra: Partial<Challenge> = {}): Challenge {
  return { id, url: `/g/${id}`, status: "created", from: BEN, to: ANN, ruleset: "nielsen", move_time: 180, rated: true, side: "random", created: 1, ...extra };
}

class FakeTransport implements ChallengeTransport {
  hooks: ((frame: { t: string }) => boolean | void)[] = [];
  subs: ((change: { type: string }) => void)[] = [];
  onFrame(fn: (frame: { t: string }) => boolean | void) {
    this.hooks.push(fn);
    return () => undefined;
  }
  subscribe(fn: (change: { type: string }) => void) {
    this.subs.push(fn);
    return () => undefined;
  }
  frame(t: string, c: Challenge): boolean {
    return this.hooks.some((fn) => fn({ t, challenge: c } as unknown as { t: string }) === true);
  }
  hello(): void {
    for (const fn of this.subs) fn({ type: "hello" });
  }
}

/** A list request that answers when told. */
function deferred() {
  let answer: (v: { in: Challenge[]; out: Challenge[] }) => void = () => undefined;
  const calls: number[] = [];
  const fetch = () => {
    calls.push(calls.length);
    return new Promise<{ in: Challenge[]; out: Challenge[] }>((r) => (answer = r));
  };
  return { fetch, calls, answer: (v: { in: Challenge[]; out: Challenge[] }) => answer(v) };
}

describe("ChallengeFeed", () => {
  it("loads a player's list and keeps it live by frames, telling of a new arrival", async () => {
    const t = new FakeTransport();
    const d = deferred();
    const feed = new ChallengeFeed(t, d.fetch);
    const seen: string[] = [];
    feed.subscribe((c) => seen.push(c.type === "frame" ? `frame:${c.challenge.id}:${c.arrived}` : c.type));
    const loading = feed.setPlayer(ANN.id);
    d.answer({ in: [challenge("a")], out: [] });
    await loading;
    expect(feed.list.incoming.map((c) => c.id)).toEqual(["a"]);
    expect(t.frame("challenge", challenge("b", { created: 2 }))).toBe(true);
    expect(feed.list.incoming.map((c) => c.id)).toEqual(["b", "a"]);
    t.frame("challenge_gone", challenge("a", { status: "canceled" }));
    expect(feed.list.incoming.map((c) => c.id)).toEqual(["b"]);
    expect(seen).toContain("frame:b:true");
    expect(seen).toContain("frame:a:false");
    expect(t.frame("tournament", challenge("zz"))).toBe(false); // not its frame
  });

  it("applies frames that come while a list is loading over its answer", async () => {
    const t = new FakeTransport();
    const d = deferred();
    const feed = new ChallengeFeed(t, d.fetch);
    const loading = feed.setPlayer(ANN.id);
    t.frame("challenge", challenge("new", { created: 9 }));
    t.frame("challenge_gone", challenge("old", { status: "canceled" }));
    d.answer({ in: [challenge("old")], out: [] }); // asked before both frames
    await loading;
    expect(feed.list.incoming.map((c) => c.id)).toEqual(["new"]);
  });

  it("asks again after a reconnect, and holds nothing for a guest", async () => {
    const t = new FakeTransport();
    const d = deferred();
    const feed = new ChallengeFeed(t, d.fetch);
    t.hello();
    expect(d.calls.length).toBe(0); // nobody yet
    const loading = feed.setPlayer(ANN.id);
    d.answer({ in: [], out: [] });
    await loading;
    t.hello();
    expect(d.calls.length).toBe(2);
    d.answer({ in: [], out: [challenge("mine", { from: ANN, to: BEN })] });
    await new Promise((r) => setTimeout(r, 0)); // the answer's promise chain settles
    expect(feed.list.outgoing.map((c) => c.id)).toEqual(["mine"]);
    await feed.setPlayer(null);
    expect(feed.list.outgoing).toEqual([]);
    expect(t.frame("challenge", challenge("c"))).toBe(true); // taken, and dropped
    expect(feed.list.incoming).toEqual([]);
  });

  it("forgets a challenge answered from the page before its frame, and finds one by game", async () => {
    const t = new FakeTransport();
    const d = deferred();
    const feed = new ChallengeFeed(t, d.fetch);
    const loading = feed.setPlayer(ANN.id);
    d.answer({ in: [challenge("a")], out: [] });
    await loading;
    expect(feed.find("a")?.from.name).toBe("Ben");
    feed.forget(challenge("a"));
    expect(feed.list.incoming).toEqual([]);
    expect(feed.find("a")).toBeNull();
  });
});
