// A match of three games (docs/protocol.md, "Matches"), after one of its games: the score,
// the way to the next game, and choosing sides for the deciding one.

import type { Side } from "../board/notation";
import { clear, h } from "../dom";
import { errorText } from "../logic/status";
import type { State } from "../network/protocol";
import type { GameView } from "./gameview";

export class MatchBox {
  readonly root: HTMLElement;
  /** the side asked for, until the server answers ("" for none) */
  private choice = "";

  constructor(private readonly view: GameView) {
    this.root = h("div", { class: "match-box", id: "match-box", hidden: true });
  }

  /** The server's answer to the choice of sides: the deciding game, or why not. */
  onSides(ok: boolean, game: string | undefined | null, code: string | undefined, message: string | undefined, navigate: (path: string) => void): void {
    if (ok && game) navigate(`/g/${game}`);
    else if (!ok) this.view.showError(`The sides were not chosen. ${errorText(code ?? "", message ?? "")}`);
    this.choice = "";
  }

  update(state: State): void {
    const { tracker, live, game } = this.view;
    const box = this.root;
    const m = tracker.match;
    box.hidden = !(m && state.status === "ended");
    if (!m || state.status !== "ended") return;
    const meId = this.view.me();
    const key = JSON.stringify(m) + meId;
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    clear(box);
    const name = (id: string) => m.players.find((p) => p.id === id)?.name ?? id;
    const score = m.players.map((p) => `${p.name} ${m.score[p.id] ?? 0}`).join(" – ");
    box.append(h("p", { class: "match-score", id: "match-score", text: `Match: ${score}` }));
    const idx = m.games.indexOf(game);
    const next = idx >= 0 ? m.games[idx + 1] : undefined;
    if (next) {
      box.append(h("p", {}, h("a", { href: `/g/${next}`, class: "btn btn-primary", id: "match-next", text: `Game ${idx + 2} of the match` })));
    } else if (m.status === "choosing") {
      if (m.chooser === meId) {
        const pick = (side: Side) => {
          const b = h("button", { type: "button", class: "btn btn-primary", id: `choose-${side}`, text: side === "attackers" ? "Attack" : "Defend" });
          b.addEventListener("click", () => {
            if (this.choice) return;
            this.choice = side;
            if (!live.chooseSides(m.id, side)) {
              this.choice = "";
              this.view.showError("Not connected: choose again when the connection is back.");
            }
          });
          return b;
        };
        box.append(
          h("p", { text: "One game each: a third game decides the match, and you choose your side." }),
          h("p", { class: "control-buttons" }, pick("attackers"), pick("defenders")),
        );
      } else {
        box.append(h("p", { class: "muted", text: `${m.chooser ? name(m.chooser) : "The winner"} chooses sides for the deciding game.` }));
      }
    } else if (m.status === "finished") {
      box.append(h("p", { text: m.winner ? `${name(m.winner)} wins the match.` : "The match is drawn." }));
    }
  }
}
