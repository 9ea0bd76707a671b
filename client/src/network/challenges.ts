// Challenges over HTTP (docs/protocol.md, "Challenges") and the player's list kept live:
// loaded by `GET /api/challenge` (and again after each reconnect, as frames may have been
// missed), then changed by the websocket's `challenge` and `challenge_gone` frames. No DOM.

import { request } from "./api";
import {
  type Challenge,
  type ChallengeList,
  type ChallengeSide,
  NO_CHALLENGES,
  created,
  dismissed,
  gone,
  loaded,
} from "../logic/challenges";

export interface ChallengeTerms {
  ruleset: string;
  move_time: number;
  rated: boolean;
  side: ChallengeSide;
}

const enc = encodeURIComponent;

export const challengeApi = {
  create: (player: string, terms: ChallengeTerms) =>
    request<{ challenge: Challenge }>("POST", `/api/challenge/${enc(player)}`, terms),
  list: () => request<{ in: Challenge[]; out: Challenge[] }>("GET", "/api/challenge"),
  accept: (id: string) => request<{ id: string; url: string }>("POST", `/api/challenge/${enc(id)}/accept`, {}),
  decline: (id: string, reason: string) => request<{ ok: true }>("POST", `/api/challenge/${enc(id)}/decline`, { reason }),
  cancel: (id: string) => request<{ ok: true }>("POST", `/api/challenge/${enc(id)}/cancel`, {}),
};

/** What the feed needs of the live connection (LiveClient; tests pass a fake). */
export interface ChallengeTransport {
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void;
  subscribe(fn: (change: { type: string }) => void): () => void;
}

export type ChallengeChange =
  | { type: "list" }
  /** a frame changed one challenge (not a load): `arrived` for a new one to me */
  | { type: "frame"; challenge: Challenge; arrived: boolean };

export class ChallengeFeed {
  list: ChallengeList = NO_CHALLENGES;
  /** whether the list of the current player has been loaded once */
  ready = false;
  /** the player whose challenges these are (null: a guest, nothing to load) */
  private me: string | null = null;
  private readonly listeners = new Set<(change: ChallengeChange) => void>();
  private loading = 0;
  private fetching = 0;
  /** frames that came while a list was being fetched: applied again over its answer */
  private during: { t: string; c: Challenge }[] = [];

  constructor(
    transport: ChallengeTransport,
    private readonly fetchList: () => Promise<{ in: Challenge[]; out: Challenge[] }> = challengeApi.list,
  ) {
    transport.onFrame((frame) => this.handle(frame));
    transport.subscribe((change) => {
      if (change.type === "hello") void this.reload();
    });
  }

  /** The account whose challenges to hold (null for none); loads its list. */
  setPlayer(me: string | null): Promise<void> {
    if (me === this.me) return Promise.resolve();
    this.me = me;
    this.ready = false;
    this.list = NO_CHALLENGES;
    this.emit({ type: "list" });
    return this.reload();
  }

  get player(): string | null {
    return this.me;
  }

  subscribe(fn: (change: ChallengeChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Ask for the list again (the last answer asked for wins). */
  async reload(): Promise<void> {
    if (!this.me) return;
    const n = ++this.loading;
    const me = this.me;
    if (this.fetching === 0) this.during = [];
    this.fetching++;
    try {
      const answer = await this.fetchList().finally(() => this.fetching--);
      if (n !== this.loading || me !== this.me) return;
      let list = loaded(this.list, answer);
      for (const f of this.during) list = this.fold(list, f.t, f.c, me);
      this.during = [];
      this.list = list;
      this.ready = true;
      this.emit({ type: "list" });
    } catch {
      /* offline or logged out: the next hello asks again */
    }
  }

  /** A challenge no longer shown (accepted, declined or cancelled from this page, before
   *  its frame comes). */
  forget(c: Challenge): void {
    if (!this.me) return;
    this.list = gone(this.list, { ...c, status: "canceled" }, this.me);
    this.emit({ type: "list" });
  }

  dismiss(id: string): void {
    this.list = dismissed(this.list, id);
    this.emit({ type: "list" });
  }

  /** The open or declined challenge of this game, if this page knows it. */
  find(id: string): Challenge | null {
    const { incoming, outgoing, declined } = this.list;
    return [...incoming, ...outgoing, ...declined].find((c) => c.id === id) ?? null;
  }

  private emit(change: ChallengeChange): void {
    for (const fn of [...this.listeners]) fn(change);
  }

  private fold(list: ChallengeList, t: string, c: Challenge, me: string): ChallengeList {
    return t === "challenge" ? created(list, c, me) : gone(list, c, me);
  }

  private handle(frame: { t: string }): boolean {
    if (frame.t !== "challenge" && frame.t !== "challenge_gone") return false;
    const c = (frame as unknown as { challenge?: Challenge }).challenge;
    if (!c || typeof c !== "object" || !this.me) return true;
    if (this.fetching > 0) this.during.push({ t: frame.t, c }); // the list in flight may predate it
    const before = this.list;
    this.list = this.fold(before, frame.t, c, this.me);
    const arrived = frame.t === "challenge" && c.to.id === this.me && !before.incoming.some((x) => x.id === c.id);
    this.emit({ type: "frame", challenge: c, arrived });
    this.emit({ type: "list" });
    return true;
  }
}

let shared: ChallengeFeed | null = null;

/** The one feed of this page load. */
export function challengeFeed(transport: ChallengeTransport): ChallengeFeed {
  shared ??= new ChallengeFeed(transport);
  return shared;
}
