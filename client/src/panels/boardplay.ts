// Playing on the game page: the board (a pick and a square, a drag, the keyboard), the typed
// move, premoves queued during the opponent's turn (premove.ts), the answer to a move sent
// (refused, overtaken, a duplicate), and the sounds and slides of the moves as they come.

import { Board } from "../board/board";
import {
  type Position,
  type Side,
  applyMoveLocally,
  capturesOf,
  describeMove,
  findLegal,
  parseMove,
  parsePosition,
  positionsOf,
} from "../board/notation";
import { type Premove, droppedText, makePremove, premoveAllowed, premoveMoves, resolvePremove } from "../board/premove";
import { h } from "../dom";
import { errorText, isMyTurn, otherSide, sideOf } from "../logic/status";
import type { PendingMove, Settlement } from "../network/pending";
import type { State } from "../network/protocol";
import type { GameMessages } from "./gamemessages";
import type { GameView } from "./gameview";
import type { MoveList } from "./movelist";
import { play as playSound } from "./sound";

export class BoardPlay {
  readonly board: Board;
  /** the typed move's form, under the board */
  readonly form: HTMLFormElement;
  /** queued during the opponent's turn (premove.ts) */
  premove: Premove | null = null;
  private readonly input: HTMLInputElement;
  private justPlayed: string | null = null; // my own move, already drawn where it goes
  private shownMoves = -1; // how many moves the board showed last (for sounds and motion)
  private shownStatus = "";
  private readonly cancelPremove: (e: Event) => void;

  constructor(
    private readonly view: GameView,
    private readonly moves: MoveList,
    private readonly messages: GameMessages,
  ) {
    this.board = new Board((move, how) => this.play(move, how === "drag" ? "dragged" : "board"));
    this.input = h("input", {
      id: "move-input",
      type: "text",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      placeholder: "e.g. d1-c1",
      "aria-describedby": "move-help",
    });
    this.form = h(
      "form",
      { class: "move-form", id: "move-form" },
      h("label", { for: "move-input", text: "Type a move" }),
      h("div", { class: "move-row" }, this.input, h("button", { type: "submit", class: "btn", id: "move-submit", text: "Play" })),
      h("p", { class: "hint visually-hidden", id: "move-help", text: "Two squares joined by a dash: d1-c1. Captures are added for you." }),
    );
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      const parsed = parseMove(text);
      if (!parsed) {
        view.showError(`“${text}” is not a move: write two squares joined by a dash, like d1-c1.`);
        return;
      }
      // Typed without captures: send the canonical text when it is legal; otherwise as typed,
      // and the server says why it is refused.
      const state = view.tracker.state;
      const canonical = state ? findLegal(state.legal, parsed.from, parsed.to) : null;
      this.play(canonical && parsed.captures.length === 0 ? canonical : text, "typed");
    });
    // Any click or tap cancels a queued premove (one on a piece may start the next), as Escape does.
    this.cancelPremove = (e: Event) => {
      if (!this.premove || (e instanceof KeyboardEvent && e.key !== "Escape")) return;
      this.premove = null;
      view.render();
    };
    document.addEventListener("pointerdown", this.cancelPremove, true);
    document.addEventListener("keydown", this.cancelPremove);
  }

  play(text: string, from: "board" | "dragged" | "typed"): void {
    const { live, game, tracker } = this.view;
    const state = tracker.state;
    this.messages.info = "";
    if (!state) return;
    const side = sideOf(state, this.view.me());
    if (!side) return this.view.showError("You are watching this game: only its players can move.");
    if (state.status !== "active") return this.view.showError(state.status === "waiting" ? "The game has not started yet." : "The game is over: no more moves.");
    if (live.pending.forGame(game)) return this.view.showError("Wait until your last move has been confirmed.");
    if (from !== "typed" && premoveAllowed(state, side)) {
      this.premove = makePremove(text, state.ply);
      this.messages.clearError();
      return this.view.render();
    }
    if (state.turn !== side) return this.view.showError(`It is not your move: wait for the ${otherSide(side)}.`);
    this.messages.clearError();
    this.moves.viewPly = null;
    live.move(game, state.ply, text);
    if (from === "typed") this.input.value = "";
    this.justPlayed = text;
    playSound(capturesOf(findLegal(state.legal, parseMove(text)?.from ?? "", parseMove(text)?.to ?? "") ?? text).length ? "capture" : "move");
    this.view.render();
    this.board.animate(text, from !== "dragged"); // a dragged piece is there already
  }

  /** The server's word on a move of ours: refused, overtaken by the game, or a duplicate. */
  onSettled(s: Settlement): void {
    if (s.kind === "refused") {
      this.justPlayed = null;
      this.view.showError(`Your move ${s.move.move} was not played. ${errorText(s.code, s.message)}`);
    } else if (s.kind === "overtaken") {
      const played = this.view.tracker.moves[s.move.ply];
      const mine = parseMove(s.move.move);
      const got = played ? parseMove(played) : null;
      if (!mine || !got || mine.from !== got.from || mine.to !== got.to) {
        this.view.showError(`Your move ${s.move.move} was not played: the game had moved on while it was on its way.`);
      }
    } else if (s.duplicate) {
      this.messages.info = `Your move ${s.move.move} had already arrived before the connection dropped; it was played once.`;
    }
  }

  /** A queued premove once the turn is ours: played at once if still legal, else dropped. */
  firePremove(): void {
    const { live, game, tracker } = this.view;
    const state = tracker.state;
    if (!this.premove || !state || live.pending.forGame(game)) return;
    const side = sideOf(state, this.view.me());
    const r = side ? resolvePremove(this.premove, state, side) : ({ kind: "drop", why: "ended" } as const);
    if (r.kind === "wait") return;
    const queued = this.premove;
    this.premove = null;
    if (r.kind === "play") {
      this.view.render(); // the opponent's move first: its sound and slide, then ours
      this.play(r.move, "board");
    } else if (r.why === "illegal") {
      this.messages.info = droppedText(queued, state.last);
    }
  }

  /**
   * The board for a state: the live position (with my move on its way), or a step of the
   * move list; the move form. Returns the position shown.
   */
  update(state: State, side: Side | null, pending: PendingMove | null | undefined): Position {
    const { tracker } = this.view;
    const viewPly = this.moves.viewPly;
    let position: Position;
    let last = state.last;
    let showPending: string | null = null;
    if (viewPly !== null) {
      const all = positionsOf(tracker.moves);
      position = all[viewPly] ?? parsePosition(state.position);
      last = viewPly > 0 ? tracker.moves[viewPly - 1] : null;
    } else {
      position = parsePosition(state.position);
      showPending = pending && pending.ply === state.ply ? pending.move : null;
      if (showPending) position = applyMoveLocally(position, showPending);
    }
    const interactive = viewPly === null && isMyTurn(state, this.view.me()) && !pending;
    const premoving = viewPly === null && !pending && side !== null && premoveAllowed(state, side);
    const board = this.board;
    board.update({
      position,
      legal: interactive ? state.legal : premoving && side ? premoveMoves(position, side, state.ruleset) : [],
      interactive,
      premove: premoving,
      queued: this.premove,
      last,
      pending: showPending,
      ply: viewPly ?? state.ply,
      status: state.status,
      turn: state.turn,
    });
    board.root.dataset.lastMove = state.last ?? "";
    board.root.dataset.viewing = viewPly === null ? "live" : String(viewPly);
    board.root.setAttribute("aria-description", last ? `Last move: ${describeMove(last)}` : "No move played yet");

    this.form.classList.toggle("slot-invisible", side === null || state.status === "ended");
    this.input.disabled = state.status !== "active";
    return position;
  }

  /** The sound and the slide of a move that came (not my own, drawn already), and the end's sound. */
  sounds(state: State, side: Side | null): void {
    const moves = this.view.tracker.moves;
    const n = moves.length;
    if (this.shownMoves >= 0 && n === this.shownMoves + 1 && this.moves.viewPly === null) {
      const last = moves[n - 1];
      const justPlayed = this.justPlayed;
      const mineJust = justPlayed !== null && parseMove(justPlayed)?.to === parseMove(last)?.to && parseMove(justPlayed)?.from === parseMove(last)?.from;
      if (!mineJust) {
        this.board.animate(last);
        if (state.status === "active" && side !== null && state.turn === side) playSound("turn");
        else playSound(capturesOf(last).length ? "capture" : "move");
      }
      this.justPlayed = null;
    }
    if (this.shownStatus === "active" && state.status === "ended") playSound("end");
    this.shownMoves = n;
    this.shownStatus = state.status;
  }

  destroy(): void {
    document.removeEventListener("pointerdown", this.cancelPremove, true);
    document.removeEventListener("keydown", this.cancelPremove);
  }
}
