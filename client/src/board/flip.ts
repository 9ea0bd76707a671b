// Turning the board half a turn: a button and the `f` key, on the game page, the replay
// and the analysis board; kept per game in this browser (`localStorage`, "bd-flip:<id>").

import { h } from "../dom";
import type { Board } from "./board";
import { TYPING } from "./stepkeys";

export const FLIP_PREFIX = "bd-flip:";

/** Whether the board of `id` was left turned in this browser (bad storage: not). */
export function loadFlip(storage: Pick<Storage, "getItem"> | null, id: string): boolean {
  try {
    return storage?.getItem(FLIP_PREFIX + id) === "1";
  } catch {
    return false;
  }
}

/** Remember it (only a turned board is kept: the default takes no room). */
export function saveFlip(storage: Pick<Storage, "setItem" | "removeItem"> | null, id: string, flipped: boolean): void {
  try {
    if (flipped) storage?.setItem(FLIP_PREFIX + id, "1");
    else storage?.removeItem(FLIP_PREFIX + id);
  } catch {
    // (private browsing, storage full: turned for this page only)
  }
}

/** Whether a keydown is the flip key: `f` alone, not while typing. */
export function isFlipKey(e: Pick<KeyboardEvent, "key" | "altKey" | "ctrlKey" | "metaKey" | "target">): boolean {
  if (e.key !== "f" && e.key !== "F") return false;
  if (e.altKey || e.ctrlKey || e.metaKey) return false;
  const target = e.target as { closest?: (selector: string) => unknown } | null;
  return !target?.closest?.(TYPING);
}

export interface FlipControl {
  readonly button: HTMLButtonElement;
  stop(): void;
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The flip button (`#flip-board`) and key for `board`, restored for `id`; `changed` hears
 *  each turn (the page swaps what goes with it, such as the players' bars). */
export function flipControl(board: Board, id: string, changed: (flipped: boolean) => void = () => undefined): FlipControl {
  const button = h("button", { type: "button", class: "btn btn-small flip-board", id: "flip-board", title: "Flip the board (f)", "aria-label": "Flip the board (key f)", text: "⇅" });
  const apply = (flipped: boolean): void => {
    board.setFlipped(flipped);
    button.setAttribute("aria-pressed", String(flipped));
    changed(flipped);
  };
  const toggle = (): void => {
    const flipped = !board.flipped;
    saveFlip(storage(), id, flipped);
    apply(flipped);
  };
  button.addEventListener("click", toggle);
  const onKey = (e: KeyboardEvent): void => {
    if (!isFlipKey(e)) return;
    e.preventDefault();
    toggle();
  };
  document.addEventListener("keydown", onKey);
  apply(loadFlip(storage(), id));
  return { button, stop: () => document.removeEventListener("keydown", onKey) };
}
