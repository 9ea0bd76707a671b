// For the unit tests only (never imported by the page): a complete State to vary.

import type { State } from "./protocol";

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
