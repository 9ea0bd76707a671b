// A conditional line played on a board (conditional.ts): a dialog over the game page with a
// board at the game's position now; the player moves both sides in turn (their opponent's
// expected move, then their reply, as lichess does), each step walked by the server
// (POST /api/board/walk: the client has no rules engine), and saves the line. The game
// page under the dialog does not move.

import { Board } from "../board/board";
import { parsePosition } from "../board/notation";
import { h } from "../dom";
import { analysisApi, analysisErrorText, type WalkStep } from "../network/analysis";

/** What a line may hold now: whether one more move may be played, and whether it can be
 *  saved (a line ends with the player's own move). */
export function lineStatus(moves: number, max: number, mineFirst: boolean): { more: boolean; complete: boolean } {
  // Mine first: mine, theirs, mine… (odd lengths end with mine); else theirs, mine… (even).
  const complete = moves > 0 && (mineFirst ? moves % 2 === 1 : moves % 2 === 0);
  return { more: moves < max, complete };
}

export interface LineEditorOptions {
  ruleset: string;
  position: string;
  /** the player is to move now: the line starts with their own move */
  mineFirst: boolean;
  max: number;
  /** the line in words (conditional.ts's lineText) */
  describe: (line: readonly string[]) => string;
  save: (line: string[]) => void;
}

export class LineEditor {
  readonly dialog: HTMLDialogElement;
  private readonly board: Board;
  private readonly text: HTMLElement;
  private readonly error: HTMLElement;
  private readonly undo: HTMLButtonElement;
  private readonly saveButton: HTMLButtonElement;
  private opts: LineEditorOptions | null = null;
  private steps: WalkStep[] = [];
  private moves: string[] = [];
  private busy = false;

  constructor() {
    this.board = new Board((move) => void this.play(move));
    this.text = h("p", { class: "cond-edit-line", id: "conditional-edit-line", "aria-live": "polite" });
    this.error = h("p", { class: "error", id: "conditional-edit-error", role: "alert", hidden: true });
    this.undo = h("button", { type: "button", class: "btn btn-small", id: "conditional-edit-undo", text: "Take back" });
    this.saveButton = h("button", { type: "button", class: "btn btn-primary btn-small", id: "conditional-edit-save", text: "Save the line" });
    const cancel = h("button", { type: "button", class: "btn btn-small", id: "conditional-edit-cancel", text: "Cancel" });
    this.dialog = h(
      "dialog",
      { class: "cond-editor", id: "conditional-editor", "aria-labelledby": "conditional-edit-title" },
      h("h2", { id: "conditional-edit-title", text: "A conditional line" }),
      h("p", { class: "hint", id: "conditional-edit-help" }),
      this.board.root,
      this.text,
      this.error,
      h("div", { class: "cond-edit-actions" }, this.undo, this.saveButton, cancel),
    );
    this.undo.addEventListener("click", () => this.takeBack());
    this.saveButton.addEventListener("click", () => {
      if (!this.opts) return;
      this.opts.save([...this.moves]);
      this.close();
    });
    cancel.addEventListener("click", () => this.close());
  }

  /** Open at the game's position now. */
  open(opts: LineEditorOptions): void {
    this.opts = opts;
    this.moves = [];
    this.steps = [];
    const help = this.dialog.querySelector("#conditional-edit-help");
    if (help) {
      help.textContent = opts.mineFirst
        ? "Play your move, then the reply you expect from your opponent, then yours, and so on. A line ends with your own move."
        : "Play the move you expect from your opponent, then your reply; go on for longer lines. A line ends with your own move.";
    }
    if (!this.dialog.isConnected) document.body.append(this.dialog);
    if (!this.dialog.open) this.dialog.showModal();
    void this.walk();
  }

  close(): void {
    if (this.dialog.open) this.dialog.close();
    this.opts = null;
  }

  private async walk(): Promise<void> {
    const opts = this.opts;
    if (!opts) return;
    this.busy = true;
    try {
      const r = await analysisApi.walk(opts.ruleset, opts.position, this.moves);
      if (this.opts !== opts) return;
      this.steps = r.steps;
      this.error.hidden = true;
    } catch (err) {
      this.moves = this.moves.slice(0, Math.max(0, this.steps.length - 1));
      this.error.textContent = analysisErrorText(err);
      this.error.hidden = false;
    } finally {
      this.busy = false;
    }
    this.show();
  }

  private async play(move: string): Promise<void> {
    const opts = this.opts;
    if (!opts || this.busy || !lineStatus(this.moves.length, opts.max, opts.mineFirst).more) return;
    this.moves = [...this.moves, move];
    this.board.animate(move, false);
    await this.walk();
  }

  private takeBack(): void {
    if (!this.moves.length || this.busy) return;
    this.moves = this.moves.slice(0, -1);
    this.steps = this.steps.slice(0, this.moves.length + 1);
    this.show();
  }

  private show(): void {
    const opts = this.opts;
    const step = this.steps[this.moves.length];
    if (!opts || !step) return;
    const { more, complete } = lineStatus(this.moves.length, opts.max, opts.mineFirst);
    const open = more && !step.result;
    this.board.update({
      position: parsePosition(step.position),
      legal: open ? step.legal : [],
      interactive: open,
      last: this.moves.at(-1) ?? null,
      pending: null,
      ply: this.moves.length,
      status: step.result ? "ended" : "analysis",
      turn: step.turn,
    });
    this.dialog.dataset.moves = this.moves.join(" ");
    this.text.textContent = this.moves.length
      ? opts.describe(this.moves) + (step.result ? " (the game ends there)" : "")
      : "No move yet.";
    this.undo.disabled = this.moves.length === 0;
    this.saveButton.disabled = !complete || !!step.result;
    if (!more && !complete) this.text.textContent += ` At most ${opts.max} moves.`;
  }
}
