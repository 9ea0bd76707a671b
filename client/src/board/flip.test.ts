import { describe, expect, it } from "vitest";
import { FLIP_PREFIX, isFlipKey, loadFlip, saveFlip } from "./flip";

class Memory {
  items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

describe("the board's turn, kept per game", () => {
  it("is kept for its game only, and forgotten when turned back", () => {
    const store = new Memory();
    expect(loadFlip(store, "g1")).toBe(false);
    saveFlip(store, "g1", true);
    expect(loadFlip(store, "g1")).toBe(true);
    expect(loadFlip(store, "g2")).toBe(false);
    expect([...store.items.keys()]).toEqual([`${FLIP_PREFIX}g1`]);
    saveFlip(store, "g1", false);
    expect(store.items.size).toBe(0);
  });
  it("reads no storage as not turned, and storage that throws as nothing kept", () => {
    expect(loadFlip(null, "g1")).toBe(false);
    const broken = { getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("full"); }, removeItem: () => undefined };
    expect(loadFlip(broken, "g1")).toBe(false);
    expect(() => saveFlip(broken, "g1", true)).not.toThrow();
  });
});

describe("the flip key", () => {
  const key = (k: string, extra: Partial<KeyboardEvent> = {}, typing = false) => ({
    key: k, altKey: false, ctrlKey: false, metaKey: false,
    target: { closest: (sel: string) => (typing && sel.includes("input") ? {} : null) } as unknown as EventTarget,
    ...extra,
  });
  it("is f alone, never while typing or with a modifier", () => {
    expect(isFlipKey(key("f"))).toBe(true);
    expect(isFlipKey(key("F"))).toBe(true);
    expect(isFlipKey(key("g"))).toBe(false);
    expect(isFlipKey(key("f", { ctrlKey: true }))).toBe(false);
    expect(isFlipKey(key("f", {}, true))).toBe(false);
  });
});
