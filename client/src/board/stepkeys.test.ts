import { describe, expect, it } from "vitest";
import { type StepKeyEvent, listenStepKeys, stepKey, stepKeyHandler } from "./stepkeys";

/** A keydown event as the handler reads it; `inside` is what its target's closest() finds. */
function key(k: string, extra: Partial<StepKeyEvent> & { inside?: string[] } = {}): StepKeyEvent & { prevented: boolean } {
  const inside = extra.inside ?? [];
  const ev = {
    key: k,
    altKey: false,
    ctrlKey: false,
    metaKey: false,
    defaultPrevented: false,
    target: { closest: (sel: string) => (sel.split(",").some((s) => inside.includes(s.trim())) ? {} : null) } as unknown as EventTarget,
    prevented: false,
    preventDefault() {
      ev.prevented = true;
    },
    ...extra,
  };
  return ev;
}

describe("stepKey", () => {
  it("steps a ply, jumps to the ends, and stays in range", () => {
    expect(stepKey("ArrowLeft", 2, 3)).toBe(1);
    expect(stepKey("ArrowLeft", 0, 3)).toBe(0);
    expect(stepKey("ArrowRight", 1, 3)).toBe(2);
    expect(stepKey("ArrowRight", 3, 3)).toBe(3);
    expect(stepKey("Home", 2, 3)).toBe(0);
    expect(stepKey("End", 0, 3)).toBe(3);
    expect(stepKey("End", 0, 0)).toBe(0);
  });
  it("ignores other keys", () => {
    expect(stepKey("a", 0, 3)).toBeNull();
    expect(stepKey("ArrowUp", 1, 3)).toBeNull();
    expect(stepKey("Enter", 1, 3)).toBeNull();
  });
});

describe("stepKeyHandler", () => {
  const at = { ply: 2, last: 4 };

  it("goes to the key's ply and prevents the page's scrolling", () => {
    const went: number[] = [];
    const onKey = stepKeyHandler(() => at, (p) => went.push(p));
    const left = key("ArrowLeft");
    onKey(left);
    onKey(key("End"));
    expect(went).toEqual([1, 4]);
    expect(left.prevented).toBe(true);
  });

  it("leaves other keys alone", () => {
    const went: number[] = [];
    const onKey = stepKeyHandler(() => at, (p) => went.push(p));
    const other = key("x");
    onKey(other);
    expect(went).toEqual([]);
    expect(other.prevented).toBe(false);
  });

  it("leaves keys typed in a field, and those of the targets it is told to ignore", () => {
    const went: number[] = [];
    const plain = stepKeyHandler(() => at, (p) => went.push(p));
    plain(key("ArrowLeft", { inside: ["input"] }));
    plain(key("ArrowLeft", { inside: ["textarea"] }));
    plain(key("ArrowLeft", { inside: [".board"] })); // not ignored by default
    const game = stepKeyHandler(() => at, (p) => went.push(p), { ignore: "input, .board" });
    game(key("ArrowRight", { inside: [".board"] }));
    expect(went).toEqual([1]);
  });

  it("a target with no closest() (the document itself) steps", () => {
    const went: number[] = [];
    stepKeyHandler(() => at, (p) => went.push(p))(key("Home", { target: null }));
    expect(went).toEqual([0]);
  });

  it("skips modified keys and keys already taken only when asked", () => {
    const went: number[] = [];
    const strict = stepKeyHandler(() => at, (p) => went.push(p), { skipModified: true, skipPrevented: true });
    strict(key("ArrowLeft", { altKey: true }));
    strict(key("ArrowLeft", { ctrlKey: true }));
    strict(key("ArrowLeft", { metaKey: true }));
    strict(key("ArrowLeft", { defaultPrevented: true }));
    expect(went).toEqual([]);
    const lax = stepKeyHandler(() => at, (p) => went.push(p));
    lax(key("ArrowLeft", { ctrlKey: true }));
    lax(key("ArrowLeft", { defaultPrevented: true }));
    expect(went).toEqual([1, 1]);
  });

  it("does nothing while there is no list to step", () => {
    const went: number[] = [];
    const none = key("ArrowLeft");
    stepKeyHandler(() => null, (p) => went.push(p))(none);
    expect(went).toEqual([]);
    expect(none.prevented).toBe(false);
  });

  it("reads where the list stands at each key", () => {
    const went: number[] = [];
    let ply = 3;
    const onKey = stepKeyHandler(() => ({ ply, last: 3 }), (p) => went.push((ply = p)));
    onKey(key("ArrowLeft"));
    onKey(key("ArrowLeft"));
    onKey(key("ArrowRight"));
    expect(went).toEqual([2, 1, 2]);
  });
});

describe("listenStepKeys", () => {
  it("listens to keydown until stopped", () => {
    const listeners = new Set<(e: StepKeyEvent) => void>();
    const doc = {
      addEventListener: (type: string, f: (e: StepKeyEvent) => void) => type === "keydown" && listeners.add(f),
      removeEventListener: (type: string, f: (e: StepKeyEvent) => void) => type === "keydown" && listeners.delete(f),
    } as unknown as Pick<Document, "addEventListener" | "removeEventListener">;
    const went: number[] = [];
    const stop = listenStepKeys(doc, () => ({ ply: 0, last: 2 }), (p) => went.push(p));
    for (const f of listeners) f(key("End"));
    stop();
    expect(listeners.size).toBe(0);
    expect(went).toEqual([2]);
  });
});
