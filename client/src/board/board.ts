// The 7×7 board: squares as buttons (keyboard: arrows move, Enter/Space select and move),
// pieces told apart by shape, legal destinations from state.legal, click or drag to move;
// during the opponent's turn the same picks make a premove (premove.ts) drawn in blue.

import { drawArrows } from "./arrows";
import { h } from "../dom";
import {
  FILES,
  SIZE,
  THRONE,
  capturesOf,
  destinationsFrom,
  isCorner,
  movableSquares,
  parseMove,
  squareCoords,
  squareName,
  step,
  type Position,
} from "./notation";
import { PIECE_NAMES, cornerSvg, pieceSvg, throneSvg } from "./pieces";
import "./premove.css";

export interface BoardView {
  position: Position;
  /** moves the viewer may make now; empty when it is not their move */
  legal: readonly string[];
  interactive: boolean;
  last: string | null;
  pending: string | null;
  ply: number;
  status: string;
  turn: string | null;
  /** `legal` holds premoves (src/premove.ts): picked as moves are, during the opponent's turn */
  premove?: boolean;
  /** the premove queued now, drawn on its two squares */
  queued?: { from: string; to: string; text: string } | null;
}

interface SquareEl {
  el: HTMLButtonElement;
  piece: HTMLSpanElement;
  shown: string; // piece letter drawn now
}

const DRAG_THRESHOLD = 6;

export class Board {
  readonly root: HTMLDivElement;
  private squares = new Map<string, SquareEl>();
  private view: BoardView | null = null;
  private viewKey = "";
  private selected: string | null = null;
  private focused = "d4";
  private drag: {
    from: string;
    pointerId: number;
    x: number;
    y: number;
    ghost: HTMLElement | null;
  } | null = null;
  private suppressClick = false;
  private arrows: SVGSVGElement | null = null;
  /** Turned half a turn: rank 1 at the top, file g on the left (`setFlipped`). */
  flipped = false;

  constructor(private readonly onMove: (move: string, how: "click" | "drag") => void) {
    this.root = h("div", {
      class: "board",
      role: "group",
      "aria-label": "Board: 7 by 7 squares, files a to g, ranks 1 to 7. Use the arrow keys to move between squares, Enter to select a piece and again to move it.",
    });
    for (let rank = SIZE; rank >= 1; rank--) {
      this.root.appendChild(h("div", { class: "coord coord-rank", "aria-hidden": "true", text: String(rank) }));
      for (let file = 0; file < SIZE; file++) {
        const name = squareName(file, rank);
        const light = (file + (rank - 1)) % 2 === 0;
        const el = h("button", {
          type: "button",
          class: `sq ${light ? "sq-light" : "sq-dark"}`,
          "data-square": name,
          tabindex: name === this.focused ? 0 : -1,
        });
        if (name === THRONE) {
          el.classList.add("throne");
          el.appendChild(throneSvg());
        } else if (isCorner(name)) {
          el.classList.add("corner");
          el.appendChild(cornerSvg());
        }
        const piece = h("span", { class: "piece-slot" });
        el.appendChild(piece);
        this.squares.set(name, { el, piece, shown: "" });
        this.root.appendChild(el);
      }
    }
    this.root.appendChild(h("div", { class: "coord coord-corner", "aria-hidden": "true" }));
    for (let file = 0; file < SIZE; file++) {
      this.root.appendChild(h("div", { class: "coord coord-file", "aria-hidden": "true", text: FILES[file] }));
    }
    this.root.addEventListener("click", (e) => this.onClick(e));
    this.root.addEventListener("keydown", (e) => this.onKey(e));
    this.root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    this.root.addEventListener("pointermove", (e) => this.onPointerMove(e));
    this.root.addEventListener("pointerup", (e) => this.onPointerUp(e));
    this.root.addEventListener("pointercancel", () => this.endDrag());
    this.root.addEventListener("focusin", (e) => {
      const sq = (e.target as HTMLElement).closest<HTMLElement>("[data-square]");
      if (sq?.dataset.square) this.setFocus(sq.dataset.square, false);
    });
  }

  /** Turn the board half a turn (or back): the squares and their labels are laid out again
   *  in the other order, so clicks, drags and the slide of a move read the squares' own
   *  places; the arrows' layer turns with them. */
  setFlipped(flipped: boolean): void {
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.root.classList.toggle("flipped", flipped);
    this.root.dataset.flipped = String(flipped);
    const ranks = Array.from({ length: SIZE }, (_, i) => (flipped ? i + 1 : SIZE - i));
    const files = Array.from({ length: SIZE }, (_, i) => (flipped ? SIZE - 1 - i : i));
    const rankLabels = [...this.root.querySelectorAll<HTMLElement>(".coord-rank")];
    const fileLabels = [...this.root.querySelectorAll<HTMLElement>(".coord-file")];
    const corner = this.root.querySelector<HTMLElement>(".coord-corner");
    const order: Element[] = [];
    ranks.forEach((rank, row) => {
      rankLabels[row].textContent = String(rank);
      order.push(rankLabels[row]);
      for (const file of files) order.push(this.squares.get(squareName(file, rank))!.el);
    });
    if (corner) order.push(corner);
    files.forEach((file, col) => {
      fileLabels[col].textContent = FILES[file];
      order.push(fileLabels[col]);
    });
    if (this.arrows) order.push(this.arrows);
    this.root.append(...order); // (append moves each node: the same nodes, in the new order)
  }

  /** Show a state; the selection survives only while the position is the same. */
  update(view: BoardView): void {
    const key = `${view.ply}|${view.position.toMove}|${view.interactive}|${view.premove ?? false}|${view.pending ?? ""}|${view.legal.length}`;
    if (key !== this.viewKey) {
      this.selected = null;
      this.viewKey = key;
    }
    this.view = view;
    this.render();
  }

  /** Slide the piece of a move just shown from its square to its destination (a transform:
   *  no layout moves) and fade out the pieces it captured; nothing with reduced motion.
   *  `slide` false: the piece was dragged there, only the captures fade. */
  animate(move: string, slide = true): void {
    const m = parseMove(move);
    const from = m ? this.squares.get(m.from) : undefined;
    const to = m ? this.squares.get(m.to) : undefined;
    if (!m || !from || !to) return;
    if (typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    this.fadeCaptured(m.captures, to.shown);
    if (!slide) return;
    const a = from.el.getBoundingClientRect();
    const b = to.el.getBoundingClientRect();
    const slot = to.piece;
    to.el.classList.add("arriving");
    slot.style.transition = "none";
    slot.style.transform = `translate(${a.left - b.left}px, ${a.top - b.top}px)`;
    void slot.getBoundingClientRect(); // start from there
    slot.style.transition = "transform 200ms ease-out";
    slot.style.transform = "";
    const done = () => {
      to.el.classList.remove("arriving");
      slot.style.transition = "";
      slot.removeEventListener("transitionend", done);
    };
    slot.addEventListener("transitionend", done);
    setTimeout(done, 400);
  }

  /** A copy of each captured piece, already gone from the position, fading out where it
   *  stood (the mover's own kind tells the captured one: attackers take defenders). */
  private fadeCaptured(squares: string[], mover: string): void {
    const kind = mover === "A" ? "D" : "A";
    for (const name of squares) {
      const sq = this.squares.get(name);
      if (!sq || sq.shown) continue;
      const ghost = h("span", { class: "piece-slot piece-fading", "aria-hidden": "true" }, pieceSvg(kind));
      sq.el.appendChild(ghost);
      const gone = () => ghost.remove();
      ghost.addEventListener("animationend", gone);
      setTimeout(gone, 600);
    }
  }

  /** Draw a line of moves as arrows over the squares (the analysis's better move and what
   *  follows); an empty line takes them away. The overlay lies over the 7×7 squares only. */
  setArrows(line: readonly string[], played: string | null = null): void {
    if (!this.arrows) {
      if (!line.length && !played) return;
      this.arrows = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      this.arrows.setAttribute("viewBox", "0 0 700 700");
      this.arrows.setAttribute("preserveAspectRatio", "none");
      this.arrows.setAttribute("class", "board-arrows");
      this.arrows.setAttribute("aria-hidden", "true");
      this.root.appendChild(this.arrows);
    }
    drawArrows(this.arrows, line, played);
    this.root.dataset.arrows = line.join(" ");
    this.root.dataset.played = played ?? "";
  }

  /** Forget the selection (after an error: the board shows the server's state). */
  reset(): void {
    this.selected = null;
    this.endDrag();
    this.render();
  }

  get selection(): string | null {
    return this.selected;
  }

  /** Whether a square picked now makes a move (or a premove). */
  private get acts(): boolean {
    return !!this.view && (this.view.interactive || !!this.view.premove);
  }

  private get movable(): Set<string> {
    return this.view && this.acts ? movableSquares(this.view.legal) : new Set();
  }

  private get dests(): Map<string, string> {
    if (!this.view || !this.selected) return new Map();
    return destinationsFrom(this.view.legal, this.selected);
  }

  private render(): void {
    const view = this.view;
    if (!view) return;
    const movable = this.movable;
    const dests = this.dests;
    const last = view.last ? parseMove(view.last) : null;
    const captured = new Set(capturesOf(view.last));
    const pending = view.pending ? parseMove(view.pending) : null;
    const queued = view.queued ?? null;
    const pre = view.premove ? "premove " : "";
    this.root.dataset.premove = String(!!view.premove);
    this.root.dataset.queued = queued?.text ?? "";
    this.root.classList.toggle("premoving", !!view.premove);
    this.root.dataset.ply = String(view.ply);
    this.root.dataset.status = view.status;
    this.root.dataset.turn = view.turn ?? "";
    this.root.dataset.interactive = String(view.interactive);
    this.root.dataset.legal = view.interactive ? view.legal.join(" ") : "";
    this.root.dataset.selected = this.selected ?? "";
    this.root.classList.toggle("interactive", view.interactive);
    this.root.classList.toggle("has-selection", this.selected !== null);

    for (const [name, sq] of this.squares) {
      const piece = view.position.pieces.get(name) ?? "";
      if (sq.shown !== piece) {
        sq.piece.replaceChildren(...(piece ? [pieceSvg(piece)] : []));
        sq.shown = piece;
      }
      const el = sq.el;
      el.dataset.piece = piece;
      const flags: [string, boolean][] = [
        ["movable", movable.has(name)],
        ["selected", this.selected === name],
        ["dest", dests.has(name)],
        ["last-from", !pending && last?.from === name],
        ["last-to", !pending && last?.to === name],
        ["captured", !pending && captured.has(name) && !piece],
        ["pending-from", pending?.from === name],
        ["pending-to", pending?.to === name],
        ["premove-from", queued?.from === name],
        ["premove-to", queued?.to === name],
      ];
      for (const [cls, on] of flags) el.classList.toggle(cls, on);
      if (dests.has(name)) el.dataset.move = dests.get(name);
      else delete el.dataset.move;

      const parts = [name];
      if (name === THRONE) parts.push("throne");
      if (isCorner(name)) parts.push("corner");
      parts.push(piece ? PIECE_NAMES[piece as "A" | "D" | "K"] : "empty");
      if (this.selected === name) parts.push("selected");
      else if (movable.has(name) && !this.selected) parts.push(`can ${pre || "move"}`.trim());
      if (dests.has(name)) parts.push(`${pre || "move "}${this.selected} here`);
      if (queued?.from === name) parts.push("premove leaving here");
      if (queued?.to === name) parts.push("premove going here");
      if (pending?.from === name) parts.push("your move is leaving here, waiting for the server");
      if (pending?.to === name) parts.push("your move is going here, waiting for the server");
      if (!pending && last?.from === name) parts.push("last move from here");
      if (!pending && last?.to === name) parts.push("last move to here");
      if (!pending && captured.has(name) && !piece) parts.push("captured on the last move");
      el.setAttribute("aria-label", parts.join(", "));
      el.setAttribute("aria-disabled", String(!this.acts));
    }
  }

  // -- clicks and keys ------------------------------------------------------------------

  private squareOf(target: EventTarget | null): string | null {
    const el = (target as HTMLElement | null)?.closest?.<HTMLElement>("[data-square]");
    return el?.dataset.square ?? null;
  }

  private onClick(e: MouseEvent): void {
    if (this.suppressClick) {
      this.suppressClick = false;
      return;
    }
    const sq = this.squareOf(e.target);
    if (sq) this.activate(sq);
  }

  /** A click, tap, Enter or Space on a square. */
  activate(square: string): void {
    const view = this.view;
    if (!view || !this.acts) return;
    const movable = this.movable;
    if (this.selected) {
      const move = this.dests.get(square);
      if (move) {
        this.selected = null;
        this.onMove(move, "click");
        return;
      }
      this.selected = square !== this.selected && movable.has(square) ? square : null;
    } else if (movable.has(square)) {
      this.selected = square;
    }
    this.render();
  }

  private setFocus(square: string, move: boolean): void {
    const old = this.squares.get(this.focused);
    if (old) old.el.tabIndex = -1;
    this.focused = square;
    const sq = this.squares.get(square);
    if (sq) {
      sq.el.tabIndex = 0;
      if (move) sq.el.focus();
    }
  }

  private onKey(e: KeyboardEvent): void {
    const dirs: Record<string, [number, number]> = {
      ArrowUp: [0, 1],
      ArrowDown: [0, -1],
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
    };
    const d = dirs[e.key];
    if (d) {
      e.preventDefault();
      const turn = this.flipped ? -1 : 1; // the arrow keys go where they point on screen
      const next = step(this.focused, d[0] * turn, d[1] * turn);
      if (next) this.setFocus(next, true);
    } else if (e.key === "Escape" && this.selected) {
      e.preventDefault();
      this.selected = null;
      this.render();
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      const { rank } = squareCoords(this.focused);
      this.setFocus(squareName(e.key === "Home" ? 0 : SIZE - 1, rank), true);
    }
  }

  // -- dragging -------------------------------------------------------------------------

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0 || !this.acts) return;
    const sq = this.squareOf(e.target);
    if (!sq || !this.movable.has(sq)) return;
    this.drag = { from: sq, pointerId: e.pointerId, x: e.clientX, y: e.clientY, ghost: null };
  }

  private onPointerMove(e: PointerEvent): void {
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.pointerId) return;
    if (!drag.ghost) {
      if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < DRAG_THRESHOLD) return;
      this.selected = drag.from;
      this.render();
      const from = this.squares.get(drag.from);
      const piece = from?.piece.firstElementChild;
      if (!from || !piece) return;
      const size = from.el.getBoundingClientRect().width;
      const ghost = h("div", { class: "drag-ghost", "aria-hidden": "true" });
      ghost.style.width = ghost.style.height = `${size}px`;
      ghost.appendChild(piece.cloneNode(true));
      document.body.appendChild(ghost);
      drag.ghost = ghost;
      from.el.classList.add("dragging");
      try {
        this.root.setPointerCapture(e.pointerId);
      } catch {
        /* not capturable: moves still arrive over the board */
      }
    }
    const g = drag.ghost;
    const half = g.offsetWidth / 2;
    g.style.transform = `translate(${e.clientX - half}px, ${e.clientY - half}px)`;
  }

  private onPointerUp(e: PointerEvent): void {
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.pointerId) return;
    const dragged = drag.ghost !== null;
    this.endDrag();
    if (!dragged) return; // a plain click: the click handler does the rest
    this.suppressClick = true;
    setTimeout(() => (this.suppressClick = false), 0);
    const target = document.elementFromPoint(e.clientX, e.clientY);
    const sq = this.squareOf(target);
    const move = sq ? this.dests.get(sq) : undefined;
    if (move) {
      this.selected = null;
      this.onMove(move, "drag");
    } else {
      this.render();
    }
  }

  private endDrag(): void {
    const drag = this.drag;
    this.drag = null;
    if (drag?.ghost) {
      drag.ghost.remove();
      this.squares.get(drag.from)?.el.classList.remove("dragging");
    }
  }
}
