// For the unit tests only (never imported by the page): a complete State to vary.

import type { State } from "./network/protocol";

/** The start of a friend game at `ply`, attackers "p1" and defenders "p2", 1 hour a move. */
export function makeState(ply: number, extra: Partial<State> = {}): State {
  return {
    id: "game01",
    ruleset: "nielsen",
    status: "active",
    players: { attackers: { id: "p1", name: "One" }, defenders: { id: "p2", name: "Two" } },
    ply,
    position: "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a",
    turn: ply % 2 === 0 ? "attackers" : "defenders",
    legal: [],
    repetitions: 1,
    last: null,
    result: null,
    commitment: "00",
    seed: null,
    move_time: 3600,
    opponent: "friend",
    bot_level: null,
    created: 0,
    rated: true,
    creator: { id: "p1", name: "One" },
    deadline: null,
    draw_offer: null,
    draw_block: { attackers: 0, defenders: 0 },
    rematch: { offer: null, game: null },
    invitee: null,
    match: null,
    ...extra,
  };
}

/** A socket's frame traffic for a feed's tests: what the feed sends, frames the server
 *  "sends" (``deliver``: whether a hook took it) and connection changes (``change``). */
export class FakeFrames {
  isOpen = true;
  sent: Record<string, unknown>[] = [];
  protected hooks = new Set<(frame: { t: string }) => boolean | void>();
  protected subs = new Set<(change: { type: string }) => void>();
  sendExtra(frame: { t: string }): boolean {
    if (!this.isOpen) return false;
    this.sent.push(frame as Record<string, unknown>);
    return true;
  }
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void {
    this.hooks.add(fn);
    return () => this.hooks.delete(fn);
  }
  subscribe(fn: (change: { type: string }) => void): () => void {
    this.subs.add(fn);
    return () => this.subs.delete(fn);
  }
  deliver(frame: { t: string } & Record<string, unknown>): boolean {
    let taken = false;
    for (const fn of this.hooks) taken = fn(frame) === true || taken;
    return taken;
  }
  change(type: string): void {
    for (const fn of this.subs) fn({ type });
  }
}
