// Conditional moves in a correspondence game (docs/protocol.md §3.3, "Conditional moves"):
// the player's own "if they play X, I reply Y" lines, listed, added by typing the moves, and
// deleted. Only this player's socket ever carries them (the answers to `get_conditional`
// and `conditional`), so the panel asks again after each move: a reply played for the
// player, or a move off the lines, changes them on the server.

import { clear, h } from "../dom";
import type { Side } from "../board/notation";
import type { State } from "../network/protocol";

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
  private readonly summary: HTMLElement;
  private lines: string[][] = [];
  private askedPly: number | null = null; // the ply the lines were last asked for
  private state: State | null = null;
  private side: Side | null = null;
  private readonly waiting = new Set<string>();
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
    const form = h(
      "form",
      { class: "cond-form", id: "conditional-form" },
      h("label", { for: "conditional-input", text: "Add a line" }),
      h("div", { class: "move-row" }, this.input, h("button", { type: "submit", class: "btn btn-small", id: "conditional-add", text: "Add" })),
    );
    this.summary = h("summary", { id: "conditional-summary", text: "Conditional moves" });
    // Folded until opened, as the legend is: the move list beside it keeps its room.
    this.root = h(
      "details",
      { class: "cond-panel", id: "conditional-panel", hidden: true },
      this.summary,
      h(
        "div",
        { class: "cond-body" },
        h("p", {
        class: "hint",
        id: "conditional-help",
        text: `If your opponent plays the first move of a line, your reply is played for you at once and the rest of the line stays; any other move discards your lines. Up to ${MAX_LINES} lines of ${MAX_LINE_MOVES} moves, from the position now. Your opponent never sees them.`,
      }),
        this.list,
        form,
        this.clearAll,
        this.message,
      ),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const line = parseLine(this.input.value);
      if (line.length === 0) return;
      this.store([...this.lines, line]);
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
  }

  private store(lines: string[][]): void {
    if (!this.state) return;
    const id = nextId();
    const frame = { t: "conditional", game: this.game, ply: this.state.ply, lines, id };
    if (!this.live.sendExtra(frame)) {
      this.say("Not connected: try again when the connection is back.");
      return;
    }
    this.waiting.add(id);
    this.say("Saving…", false);
  }

  private handle(frame: Answer): boolean {
    if (!frame.id || !this.waiting.has(frame.id)) return false;
    this.waiting.delete(frame.id);
    if (frame.t === "error") {
      this.say(frame.message ?? frame.code ?? "refused");
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
      const del = h("button", { type: "button", class: "btn btn-small", "aria-label": `Delete line ${i + 1}`, text: "Delete" });
      del.addEventListener("click", () => this.store(this.lines.filter((_, j) => j !== i)));
      this.list.appendChild(h("li", { "data-line": line.join(" ") }, h("span", { class: "cond-line", text: lineText(line, mineFirst) }), del));
    });
    const n = this.lines.length;
    this.summary.textContent = n ? `Conditional moves: ${n} line${n === 1 ? "" : "s"}` : "Conditional moves";
    this.list.hidden = n === 0;
    this.clearAll.hidden = n === 0;
  }
}
