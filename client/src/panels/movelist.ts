// The game page's move list: the moves by number, stepped through by a click on one, the
// step buttons or the arrow keys (stepkeys.ts), what the board shows while stepping, and
// the notes of the game's events (draw offers, answers, resignations) seen on this page.

import { describeMove, movesText, moveRows } from "../board/notation";
import { TYPING, listenStepKeys } from "../board/stepkeys";
import { clear, h, scrollIntoList } from "../dom";
import { notePlace } from "../logic/lifecycle";
import type { State } from "../network/protocol";
import type { GameView } from "./gameview";

export class MoveList {
  readonly root: HTMLElement;
  /** the ply the board shows while stepping through the moves; null: the live position */
  viewPly: number | null = null;
  private readonly moves: HTMLElement;
  private readonly title: HTMLElement;
  private readonly viewing: HTMLElement;
  private readonly notes: HTMLElement;
  private readonly buttons: Record<"first" | "prev" | "next" | "live", HTMLButtonElement>;
  private readonly stopKeys: () => void;

  constructor(private readonly view: GameView) {
    this.moves = h("ol", { class: "moves", id: "moves", "aria-label": "Moves: click one, or use the arrow keys, to see the board after it" });
    this.title = h("h2", { id: "moves-title", text: "Moves" });
    this.viewing = h("p", { class: "viewing", id: "viewing", "aria-live": "polite" });
    this.buttons = {
      first: h("button", { type: "button", class: "btn btn-small", id: "step-first", "aria-label": "Start position", text: "|◀" }),
      prev: h("button", { type: "button", class: "btn btn-small", id: "step-prev", "aria-label": "Previous move", text: "◀" }),
      next: h("button", { type: "button", class: "btn btn-small", id: "step-next", "aria-label": "Next move", text: "▶" }),
      live: h("button", { type: "button", class: "btn btn-small", id: "step-live", "aria-label": "The live position", text: "▶|" }),
    };
    this.notes = h("ul", { class: "notes", id: "game-notes", "aria-label": "Draw offers and other events" });
    const b = this.buttons;
    this.root = h(
      "section",
      { class: "g-moves panel", "aria-label": "Moves" },
      h("div", { class: "moves-head" }, this.title, h("div", { class: "step-buttons" }, b.first, b.prev, b.next, b.live)),
      this.viewing,
      this.moves,
      this.notes,
    );

    const count = () => view.tracker.moves.length;
    b.first.addEventListener("click", () => this.stepTo(0));
    b.prev.addEventListener("click", () => this.stepTo((this.viewPly ?? count()) - 1));
    b.next.addEventListener("click", () => this.stepTo((this.viewPly ?? count()) + 1));
    b.live.addEventListener("click", () => this.stepTo(null));
    this.moves.addEventListener("click", (e) => {
      const ply = (e.target as HTMLElement).closest<HTMLElement>("[data-ply]");
      if (ply) this.stepTo(Number(ply.dataset.ply));
    });
    // The board keeps its arrow keys (moving the keyboard's cursor).
    this.stopKeys = listenStepKeys(
      document,
      () => ({ ply: this.viewPly ?? count(), last: count() }),
      (ply) => this.stepTo(ply),
      { ignore: `${TYPING}, .board, [contenteditable]`, skipModified: true },
    );
  }

  /** Show the board after `ply` (null, or past the last move: the live position). */
  stepTo(ply: number | null): void {
    const last = this.view.tracker.moves.length;
    this.viewPly = ply === null || ply >= last ? null : Math.max(0, ply);
    this.view.render();
    const current = this.moves.querySelector<HTMLElement>(".ply.current");
    if (current) scrollIntoList(this.moves, current); // the list, never the page

  }

  update(state: State): void {
    const list = this.view.tracker.moves;
    const viewPly = this.viewPly;
    const shown = viewPly ?? list.length;
    const moves = this.moves;
    clear(moves);
    for (const row of moveRows(list)) {
      const li = h("li", { "data-number": row.number }, h("span", { class: "mv-n", text: `${row.number}.` }));
      [row.attackers, row.defenders].forEach((m, i) => {
        if (m === null) return;
        const ply = (row.number - 1) * 2 + i + 1;
        li.append(" ", h("button", { type: "button", class: `ply${ply === shown ? " current" : ""}`, "data-ply": String(ply), title: describeMove(m), text: m }));
      });
      moves.appendChild(li);
    }
    if (list.length === 0) moves.appendChild(h("li", { class: "muted empty", text: "No moves yet." }));
    if (viewPly === null) moves.scrollTop = moves.scrollHeight;
    this.viewing.textContent =
      viewPly === null ? "" : viewPly === 0 ? "Showing the start position — ▶| for the live game" : `Showing the board after move ${Math.ceil(viewPly / 2)}${viewPly % 2 ? "" : "…"} ${list[viewPly - 1]} — ▶| for the live game`;
    this.viewing.dataset.ply = viewPly === null ? "" : String(viewPly);
    const b = this.buttons;
    b.first.disabled = b.prev.disabled = shown === 0;
    b.next.disabled = b.live.disabled = viewPly === null;

    // Draw offers, answers, resignations…: seen while this page was open.
    const notes = this.notes;
    const tracked = this.view.tracker.notes;
    clear(notes);
    for (const note of tracked) {
      notes.appendChild(
        h(
          "li",
          { "data-kind": note.kind, "data-n": note.n },
          h("span", { class: "note-place", text: `${notePlace(note.ply, list)}: ` }),
          note.text,
        ),
      );
    }
    // Its space is kept (style.css): a first note moves nothing.
    notes.hidden = false;
    notes.dataset.count = String(tracked.length);
    notes.scrollTop = notes.scrollHeight;

    this.title.textContent = state.ply === 0 ? "Moves" : `Moves · ${movesText(state.ply)}`;
  }

  destroy(): void {
    this.stopKeys();
  }
}
