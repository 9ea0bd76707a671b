// About the game, under the board: its terms (who it is against, the rule set, the time a
// move, rated or not), who is watching, the sound switch, the notification offer, the link
// to the analysis board, and the legend with how to move.

import { boardUrl } from "../board/boardurl";
import { cornerSvg, pieceSvg, throneSvg } from "../board/pieces";
import { RULES } from "../board/rules";
import { clear, h } from "../dom";
import { askNotifications, notificationState } from "../frame/mygames";
import { type Side } from "../board/notation";
import { durationText, originLabel, watchersText } from "../logic/status";
import type { State } from "../network/protocol";
import type { GameView } from "./gameview";
import { isMuted, setMuted } from "./sound";

export class GameInfo {
  readonly root: HTMLElement;
  /** the line of the game's terms (the conditional moves' panel goes after it on a phone) */
  readonly info: HTMLElement;
  private readonly watchers: HTMLElement;
  private readonly soundToggle: HTMLButtonElement;
  private readonly notifyGame: HTMLButtonElement;
  // The analysis board at the position shown: for spectators and after the end, never for
  // a player of a game in progress (the server refuses them anyway).
  private readonly boardLink: HTMLAnchorElement;
  private boardOffered: boolean | null = null; // decided at the first state shown
  private readonly howTo: HTMLElement;

  constructor(private readonly view: GameView) {
    this.info = h("p", { class: "info", id: "game-info" });
    this.watchers = h("p", { class: "watchers", id: "watchers" });
    this.soundToggle = h("button", { type: "button", class: "btn btn-small sound-toggle", id: "sound-toggle" });
    this.boardLink = h("a", { class: "btn btn-small", id: "game-board-link", text: "Analysis board", hidden: true });
    this.notifyGame = h("button", { type: "button", class: "btn btn-small", id: "notify-ask-game", text: "Notify me of my moves", hidden: true });
    const legend = h(
      "ul",
      { class: "legend", "aria-label": "Legend" },
      h("li", {}, pieceSvg("A"), "Attacker (dark diamond)"),
      h("li", {}, pieceSvg("D"), "Defender (light disc)"),
      h("li", {}, pieceSvg("K"), "King (disc with a crown)"),
      h("li", {}, throneSvg(), "Throne, d4"),
      h("li", {}, cornerSvg(), "Corner"),
      h("li", {}, h("span", { class: "swatch swatch-selected", "aria-hidden": "true" }), "The piece you picked"),
      h("li", {}, h("span", { class: "swatch swatch-dest", "aria-hidden": "true" }), "Where it can go"),
      h("li", {}, h("span", { class: "swatch swatch-last", "aria-hidden": "true" }), "Last move"),
      h("li", {}, h("span", { class: "swatch swatch-captured", "aria-hidden": "true" }), "Captured by the last move"),
      h("li", {}, h("span", { class: "swatch swatch-premove", "aria-hidden": "true" }), "Your premove, queued"),
    );
    this.howTo = h("p", {
      class: "hint",
      text: "Pick one of your pieces to see where it can go, then pick a square — or drag the piece. With the keyboard: arrow keys, then Enter. In a game under an hour a move, doing so during the opponent's turn queues a premove, played the moment your turn comes if it is still legal; click anywhere or press Escape to cancel it.",
    });
    this.root = h(
      "section",
      { class: "g-info panel", "aria-label": "About this game" },
      this.info,
      h("div", { class: "g-tools" }, this.watchers, this.soundToggle, this.notifyGame, this.boardLink),
      h("details", { class: "legend-box" }, h("summary", { text: "Legend and how to move" }), legend, this.howTo),
    );

    this.soundToggle.addEventListener("click", () => {
      setMuted(!isMuted());
      this.renderSound();
    });
    this.renderSound();
    this.notifyGame.addEventListener("click", () => void askNotifications().then(() => view.render()));
  }

  private renderSound(): void {
    const muted = isMuted();
    const toggle = this.soundToggle;
    toggle.textContent = muted ? "Sound off" : "Sound on";
    toggle.setAttribute("aria-pressed", String(!muted));
    toggle.dataset.muted = String(muted);
  }

  /** For a state, the viewer's `side` (null: a spectator) and the ply the board shows (null: live). */
  update(state: State, side: Side | null, viewPly: number | null, waitingForFriend: boolean): void {
    this.howTo.hidden = side === null;
    const canNotify = side !== null && state.move_time >= 3600 && state.status !== "ended" && notificationState() === "default";
    this.notifyGame.hidden = !canNotify;
    // Spectators are offered the board, and a player who opens a game already over; a
    // player whose game ends on this page finds it on the replay (the game-over panel's
    // link), so nothing appears here at the end to move the panels (no layout shift).
    // (A state arrives over the socket after its hello, which named a player's id.)
    this.boardOffered ??= side === null || state.status === "ended";
    const offerBoard = this.boardOffered === true && (side === null || state.status === "ended");
    const link = this.boardLink;
    link.hidden = !offerBoard;
    if (offerBoard) {
      const moves = this.view.tracker.moves;
      link.href = boardUrl({ ruleset: state.ruleset, position: null, moves: [...moves], ply: viewPly ?? moves.length });
    } else {
      link.removeAttribute("href");
    }

    const tracker = this.view.tracker;
    this.watchers.textContent = watchersText(tracker.watchers, side === null && !waitingForFriend);
    this.watchers.dataset.count = String(tracker.watchers);
    this.renderInfo(state);
  }

  private renderInfo(state: State): void {
    const rs = RULES[state.ruleset];
    const kind = state.opponent === "bot" ? `against the bot, level ${state.bot_level ?? 1}` : state.rated ? "rated" : "casual";
    const origin = state.origin ?? (state.opponent === "bot" ? "bot" : "person");
    clear(this.info);
    this.info.append(
      state.opponent === "bot" ? "" : h("span", { id: "origin-label", "data-origin": origin, text: originLabel(origin, state.opponent) }),
      state.opponent === "bot" ? "" : " · ",
      h("a", { href: `/rules/${state.ruleset}`, text: rs ? rs.title : state.ruleset }),
      ` · ${durationText(state.move_time)} a move · `,
      h("span", { id: "rated-mark", "data-rated": String(state.rated), text: kind }),
      state.match ? ` · match game ${state.match.number}` : "",
    );
  }
}
