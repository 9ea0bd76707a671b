// The keys that step through a list of moves — ← and → a ply, Home the start, End the
// last — on the game page, the replay and the analysis board alike.

/** Which ply a key takes a move list to from `ply` (of `last`), or null for other keys. */
export function stepKey(key: string, ply: number, last: number): number | null {
  switch (key) {
    case "ArrowLeft":
      return Math.max(0, ply - 1);
    case "ArrowRight":
      return Math.min(last, ply + 1);
    case "Home":
      return 0;
    case "End":
      return last;
    default:
      return null;
  }
}

/** Where the list stands: the ply shown and the last one. */
export interface StepAt {
  ply: number;
  last: number;
}

export interface StepKeysOptions {
  /** Targets that keep their keys (typing, or the board's own arrow keys). */
  ignore?: string;
  /** Leave keys pressed with Alt, Ctrl or Meta to the browser. */
  skipModified?: boolean;
  /** Leave keys another handler has taken already (`defaultPrevented`). */
  skipPrevented?: boolean;
}

export const TYPING = "input, textarea, select";

/** The part of a keydown event stepping reads (a KeyboardEvent in the browser). */
export type StepKeyEvent = Pick<KeyboardEvent, "key" | "altKey" | "ctrlKey" | "metaKey" | "defaultPrevented" | "target" | "preventDefault">;

/**
 * A keydown handler: a stepping key takes the list to its ply (`go`, the event's default
 * prevented). `at` says where the list stands, or null while there is none to step.
 */
export function stepKeyHandler(
  at: () => StepAt | null,
  go: (ply: number) => void,
  opts: StepKeysOptions = {},
): (e: StepKeyEvent) => void {
  const ignore = opts.ignore ?? TYPING;
  return (e) => {
    if (opts.skipPrevented && e.defaultPrevented) return;
    const target = e.target as { closest?: (selector: string) => unknown } | null;
    if (target?.closest?.(ignore)) return;
    if (opts.skipModified && (e.altKey || e.ctrlKey || e.metaKey)) return;
    const where = at();
    if (!where) return;
    const to = stepKey(e.key, where.ply, where.last);
    if (to === null) return;
    e.preventDefault();
    go(to);
  };
}

/** Step on the keys pressed anywhere in `doc` (the document); returns what stops it. */
export function listenStepKeys(
  doc: Pick<Document, "addEventListener" | "removeEventListener">,
  at: () => StepAt | null,
  go: (ply: number) => void,
  opts: StepKeysOptions = {},
): () => void {
  const onKey = stepKeyHandler(at, go, opts);
  doc.addEventListener("keydown", onKey);
  return () => doc.removeEventListener("keydown", onKey);
}
