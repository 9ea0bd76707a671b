// The two clocks, one in each player's bar beside the board: the side to move counts down
// to `state.deadline` by the server's clock; the other shows its time per move. Hidden
// (in space kept for them: nothing moves) unless the game is running.

import { type ClockView, type ServerClock, clockViews } from "../network/clock";
import { h } from "../dom";
import type { Side } from "../board/notation";
import { pieceSvg } from "../board/pieces";
import type { State } from "../network/protocol";

interface ClockEl {
  root: HTMLElement;
  time: HTMLElement;
  caption: HTMLElement;
  you: HTMLElement;
}

export class ClockBar {
  readonly root: HTMLElement;
  /** announces once per move when the viewer's own time drops under a minute */
  private readonly alert: HTMLElement;
  private readonly clocks: Record<Side, ClockEl>;
  private state: State | null = null;
  private mine: Side | null = null;
  private warnedAt = -1;
  /** called once per move when the viewer's own time drops under a minute (a sound) */
  onLow: (() => void) | null = null;

  constructor(private readonly clock: ServerClock) {
    const make = (side: Side): ClockEl => {
      const time = h("span", { class: "clock-time" });
      const caption = h("span", { class: "clock-caption" });
      const you = h("span", { class: "clock-you", text: " (you)", hidden: true });
      const root = h(
        "div",
        { class: "clock", role: "timer", "data-side": side, id: `clock-${side}` },
        h(
          "span",
          { class: "clock-who", "aria-hidden": "true" },
          pieceSvg(side === "attackers" ? "A" : "K"),
          h("span", { class: "clock-side", text: side === "attackers" ? "Attackers" : "Defenders" }),
          you,
        ),
        h("span", { class: "clock-figure", "aria-hidden": "true" }, time, caption),
      );
      return { root, time, caption, you };
    };
    this.clocks = { attackers: make("attackers"), defenders: make("defenders") };
    this.alert = h("p", { class: "visually-hidden", "aria-live": "assertive", id: "clock-alert" });
    this.root = this.alert;
    for (const c of Object.values(this.clocks)) c.root.hidden = true;
  }

  /** A side's clock, to place in its player's bar. */
  el(side: Side): HTMLElement {
    return this.clocks[side].root;
  }

  /** Whether the clocks are shown (the game is running). */
  get running(): boolean {
    return !this.clocks.attackers.root.hidden;
  }

  /** A new state (and the viewer's side, null for a spectator). */
  update(state: State, mine: Side | null): void {
    this.state = state;
    this.mine = mine;
    this.tick();
  }

  /** Redraw the figures; called every few hundred ms while the page is open. */
  tick(now = Date.now()): void {
    const state = this.state;
    if (!state) return;
    const remaining = state.deadline !== null ? this.clock.remaining(state.deadline, now) : null;
    const views = clockViews(state, remaining);
    for (const c of Object.values(this.clocks)) c.root.hidden = views === null;
    if (views === null) return;
    for (const view of views) this.draw(this.clocks[view.side], view);
    const own = views.find((v) => v.side === this.mine);
    if (own?.tone === "urgent" && this.warnedAt !== state.ply) {
      this.warnedAt = state.ply;
      this.onLow?.();
      this.alert.textContent = "Under a minute left for your move.";
    } else if (own?.tone !== "urgent" && this.alert.textContent) {
      this.alert.textContent = "";
    }
  }

  private draw(el: ClockEl, view: ClockView): void {
    if (el.root.dataset.tone !== view.tone) el.root.dataset.tone = view.tone;
    if (el.time.textContent !== view.time) {
      el.time.textContent = view.time;
      el.time.dataset.long = String(view.time.length > 5); // "23 h 59 min": a smaller figure
    }
    if (el.caption.textContent !== view.caption) el.caption.textContent = view.caption;
    const label = view.side === this.mine ? view.label.replace(/^(Attackers|Defenders)/, "$1 (you)") : view.label;
    if (el.root.getAttribute("aria-label") !== label) el.root.setAttribute("aria-label", label);
    el.you.hidden = view.side !== this.mine;
  }
}
