// Conditional moves in a correspondence game (docs/protocol.md §3.3, "Conditional moves"):
// the player's own "if they play X, I reply Y" lines, listed, added by playing them on a
// board (lineeditor.ts) or typing the moves, and deleted, in a dialog over the page (the
// page itself shows one button: the game's controls stay in view). Only this player's socket ever carries them (the answers to `get_conditional`
// and `conditional`), so the panel asks again after each move: a reply played for the
// player, or a move off the lines, changes them on the server.

import { clear, h } from "../dom";
import type { Side } from "../board/notation";
import type { State } from "../network/protocol";
import { LineEditor } from "./lineeditor";

/** Games of at least this many seconds a move are correspondence: only they take lines. */
export const CONDITIONAL_MIN_MOVE_TIME = 3600;
export const MAX_LINES = 32;
export const MAX_LINE_MOVES = 6;
/** style.css's breakpoint for the two-column game page. */
const WIDE = "(min-width: 900px)";

/** What the panel needs of the socket (live.ts's LiveClient; tests pass a fake). */
export interface ConditionalTransport {
  readonly isOpen: boolean;
  sendExtra(frame: { t: string }): boolean;
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void;
}

interface Answer {
  t: string;
  id?: string;
  of?: string;
  ply?: number | null;
  lines?: string[][];
  code?: string;
  message?: string;
}

/** Whether a viewer may keep conditional moves in this game: a player of a running correspondence game. */
export function conditionalAllowed(state: State, side: Side | null): boolean {
  return side !== null && state.status === "active" && state.move_time >= CONDITIONAL_MIN_MOVE_TIME;
}

/** The moves typed for one line: split at spaces or commas, move numbers ("1." or "1...") left out. */
export function parseLine(text: string): string[] {
  return text.split(/[\s,]+/).filter((w) => w !== "" && !/^\d+\.*$/.test(w));
}

/** A line in words: each of the opponent's moves with the reply it gets ("if d1-c1 → d3-c3"). */
export function lineText(line: readonly string[], mineFirst: boolean): string {
  const parts: string[] = [];
  let i = 0;
  if (mineFirst && line.length > 0) {
    parts.push(`I play ${line[0]}`);
    i = 1;
  }
  for (; i < line.length; i += 2) {
    parts.push(line[i + 1] ? `if ${line[i]} → ${line[i + 1]}` : `if ${line[i]}`);
  }
  return parts.join(", then ");
}

/** A refusal's words about the lines being added: the server numbers every line sent (the
 *  kept ones first), the player thinks of the new ones only ("line 5" -> "the new line"). */
export function addedLineError(message: string, kept: number, added: number): string {
  return message.replace(/\bline (\d+)/g, (whole, n: string) => {
    const i = Number(n);
    if (i <= kept) return whole;
    return added === 1 ? "the new line" : `new line ${i - kept}`;
  });
}

let counter = 0;
function nextId(): string {
  counter += 1;
  return `cond.${counter}.${Date.now().toString(36)}`;
}

export class ConditionalPanel {
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly message: HTMLElement;
  private readonly clearAll: HTMLButtonElement;
  private readonly summary: HTMLButtonElement;
  private lines: string[][] = [];
  private askedPly: number | null = null; // the ply the lines were last asked for
  private state: State | null = null;
  private side: Side | null = null;
  private readonly waiting = new Set<string>();
  // The lines being added by each request (by its id): their errors are told in their terms.
  private readonly adding = new Map<string, { kept: number; added: number }>();
  private readonly editor = new LineEditor();
  private readonly onBoard: HTMLButtonElement;
  private readonly manage: HTMLDialogElement;
  private readonly off: () => void;
  private unplace: () => void = () => {};

  constructor(
    private readonly live: ConditionalTransport,
    private readonly game: string,
  ) {
    this.list = h("ol", { class: "cond-lines", id: "conditional-lines" });
    this.input = h("input", {
      id: "conditional-input",
      type: "text",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      placeholder: "their move, your reply… e.g. d1-c1 d3-c3",
      "aria-describedby": "conditional-help",
    });
    this.message = h("p", { class: "cond-message", id: "conditional-message", role: "alert" });
    this.clearAll = h("button", { type: "button", class: "btn btn-small", id: "conditional-clear", text: "Delete all" });
    this.onBoard = h("button", { type: "button", class: "btn btn-small btn-primary", id: "conditional-board", text: "Add a line on the board" });
    this.onBoard.addEventListener("click", () => this.openEditor());
    // Typing a line stays, folded: for the keyboard, or a line copied from elsewhere.
    const form = h(
      "details",
      { class: "cond-typed" },
      h("summary", { text: "or type a line" }),
      h(
        "form",
        { class: "cond-form", id: "conditional-form" },
        h("label", { for: "conditional-input", text: "Add a line" }),
        h("div", { class: "move-row" }, this.input, h("button", { type: "submit", class: "btn btn-small", id: "conditional-add", text: "Add" })),
      ),
    );
    this.summary = h("button", { type: "button", class: "btn btn-small", id: "conditional-summary", "aria-haspopup": "dialog", text: "Conditional moves" });
    const close = h("button", { type: "button", class: "btn btn-small", id: "conditional-close", text: "Close" });
    // On the page only a button saying how many lines are kept: the lines are managed in a
    // dialog over the page, so the game's own controls and the move list keep their room.
    this.root = h("div", { class: "cond-panel", id: "conditional-panel", hidden: true }, this.summary);
    this.manage = h(
      "dialog",
      { class: "cond-editor cond-manage", id: "conditional-dialog", "aria-labelledby": "conditional-title" },
      h("h2", { id: "conditional-title", text: "Conditional moves" }),
      h(
        "div",
        { class: "cond-body" },
        h("p", {
        class: "hint",
        id: "conditional-help",
        text: `If your opponent plays the first move of a line, your reply is played for you at once and the rest of the line stays; any other move discards your lines. Up to ${MAX_LINES} lines of ${MAX_LINE_MOVES} moves, from the position now. Your opponent never sees them.`,
      }),
        this.list,
        this.onBoard,
        form,
        this.message,
      ),
      h("div", { class: "cond-edit-actions" }, this.clearAll, close),
    );
    this.summary.addEventListener("click", () => {
      if (!this.manage.isConnected) document.body.append(this.manage);
      if (!this.manage.open) this.manage.showModal();
    });
    close.addEventListener("click", () => this.manage.close());
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const line = parseLine(this.input.value);
      if (line.length === 0) return;
      this.add([line]);
    });
    this.clearAll.addEventListener("click", () => this.store([]));
    this.off = live.onFrame((frame) => this.handle(frame as Answer));
  }

  /** Follow the game's state: shown to a player of a running correspondence game; asked again after each move. */
  update(state: State, side: Side | null): void {
    this.state = state;
    this.side = side;
    const shown = conditionalAllowed(state, side);
    this.root.hidden = !shown;
    if (!shown && this.manage.open) this.manage.close(); // the game ended meanwhile
    if (shown && this.askedPly !== state.ply && this.live.isOpen) {
      const id = nextId();
      if (this.live.sendExtra({ t: "get_conditional", game: this.game, id } as { t: string })) {
        this.waiting.add(id);
        this.askedPly = state.ply;
      }
    }
  }

  /**
   * Beside the board (a wide screen) the panel goes under the game's buttons, whose slot
   * scrolls, so the move list keeps its room; on a narrow one, where the page scrolls, with
   * the game's details.
   */
  place(wideParent: HTMLElement, narrowParent: HTMLElement, before: Node | null): void {
    const wide = globalThis.matchMedia?.(WIDE);
    const put = () => {
      if (wide?.matches) wideParent.appendChild(this.root);
      else narrowParent.insertBefore(this.root, before);
    };
    put();
    wide?.addEventListener("change", put);
    this.unplace = () => wide?.removeEventListener("change", put);
  }

  destroy(): void {
    this.off();
    this.unplace();
    this.editor.close();
    this.editor.dialog.remove();
    if (this.manage.open) this.manage.close();
    this.manage.remove();
  }

  private openEditor(): void {
    const state = this.state;
    if (!state || !this.side) return;
    const mineFirst = state.turn === this.side;
    this.editor.open({
      ruleset: state.ruleset,
      position: state.position,
      mineFirst,
      max: MAX_LINE_MOVES,
      describe: (line) => lineText(line, mineFirst),
      save: (line) => this.add([line]),
    });
  }

  /** Add lines to the kept ones: an error names the new lines as new. */
  private add(lines: string[][]): void {
    const id = this.store([...this.lines, ...lines]);
    if (id) this.adding.set(id, { kept: this.lines.length, added: lines.length });
  }

  private store(lines: string[][]): string | null {
    if (!this.state) return null;
    const id = nextId();
    const frame = { t: "conditional", game: this.game, ply: this.state.ply, lines, id };
    if (!this.live.sendExtra(frame)) {
      this.say("Not connected: try again when the connection is back.");
      return null;
    }
    this.waiting.add(id);
    this.say("Saving…", false);
    return id;
  }

  private handle(frame: Answer): boolean {
    if (!frame.id || !this.waiting.has(frame.id)) return false;
    this.waiting.delete(frame.id);
    const adding = this.adding.get(frame.id);
    this.adding.delete(frame.id);
    if (frame.t === "error") {
      const said = frame.message ?? frame.code ?? "refused";
      this.say(adding ? addedLineError(said, adding.kept, adding.added) : said);
      return true;
    }
    const stored = frame.of === "conditional";
    this.lines = frame.lines ?? [];
    if (stored) this.input.value = "";
    this.say(stored ? (this.lines.length ? "Saved." : "Deleted.") : "", false);
    this.render();
    return true;
  }

  private say(text: string, problem = true): void {
    this.message.textContent = text;
    this.message.dataset.problem = problem && text ? "1" : "";
  }

  private render(): void {
    clear(this.list);
    const mineFirst = this.state !== null && this.side !== null && this.state.turn === this.side;
    this.lines.forEach((line, i) => {
      const del = h("button", { type: "button", class: "btn btn-small cond-delete", "aria-label": `Delete line ${i + 1}`, title: "Delete this line", text: "×" });
      del.addEventListener("click", () => this.store(this.lines.filter((_, j) => j !== i)));
      this.list.appendChild(h("li", { "data-line": line.join(" ") }, h("span", { class: "cond-line", text: lineText(line, mineFirst) }), del));
    });
    const n = this.lines.length;
    this.summary.textContent = n ? `Conditional moves: ${n} line${n === 1 ? "" : "s"}` : "Conditional moves";
    this.list.hidden = n === 0;
    this.clearAll.hidden = n === 0;
  }
}
