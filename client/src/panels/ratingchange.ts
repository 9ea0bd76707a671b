// After a rated game: the rating change, once the server has rated it (asked a few times
// from the player's archive), for the game-over panel.

import type { Side } from "../board/notation";
import { sideOf } from "../logic/status";
import { accountApi, deltaText } from "../network/account";
import type { State } from "../network/protocol";
import type { GameView } from "./gameview";

export class RatingChange {
  private asked = false;

  /** `show` puts the words in the panel; nothing is asked once `alive` says the page is gone. */
  constructor(
    private readonly view: GameView,
    private readonly show: (text: string) => void,
    private readonly alive: () => boolean,
  ) {}

  /** Ask once, when a rated game is seen over. */
  check(state: State): void {
    if (this.asked || !state.rated || state.status !== "ended" || state.result?.reason === "aborted") return;
    this.asked = true;
    const who = sideOf(state, this.view.me()) ?? "attackers";
    const pid = state.players[who]?.id;
    if (!pid) return;
    const game = this.view.game;
    let tries = 0;
    const look = () => {
      if (!this.alive()) return;
      accountApi
        .games(pid)
        .then((res) => {
          const g = res.games.find((x) => x.id === game);
          if (!g?.ratings) {
            if (++tries < 8) setTimeout(look, 1500);
            return;
          }
          const parts: string[] = [];
          const order: Side[] = who === "attackers" ? ["attackers", "defenders"] : ["defenders", "attackers"];
          for (const s of order) {
            const p = state.players[s];
            const r = p ? g.ratings[p.id] : undefined;
            if (!p || !r) continue;
            const label = p.id === this.view.me() ? "Your rating" : p.name;
            parts.push(`${label}: ${Math.round(r.before)} → ${Math.round(r.after)} (${deltaText(r.before, r.after)})`);
          }
          this.show(parts.join(" · "));
        })
        .catch(() => undefined);
    };
    look();
  }
}
