// An opponent who left a live game: "X left the game — 0:12", and once they have been gone
// for the server's grace (`hello.limits.claim_grace`, 30 s), "Claim victory" and "Call it a
// draw". The time runs by the server's clock (`presence.gone` is in it); a `presence` frame
// that lists the opponent again hides it all. The server judges the claim (docs/fair-play.md).

import { h } from "../dom";
import type { ActionKind } from "../network/live";
import type { Side } from "../board/notation";
import type { State } from "../network/protocol";
import { otherSide } from "../logic/status";

export const CLAIM_GRACE_MS = 30_000; // the server's default, until its hello says otherwise
const LIVE_UNDER_S = 3600; // a game with less time per move is live (docs/protocol.md)

export interface ClaimOffer {
  name: string;
  /** ms the opponent has been gone, by the server's clock */
  gone: number;
  /** whether a claim may be made now (the grace is over, both sides have moved) */
  due: boolean;
  /** ms until it may be */
  wait: number;
}

/** What to show a player whose opponent left, or null (correspondence, the bot, back, …). */
export function claimOffer(
  state: State,
  side: Side | null,
  online: readonly string[] | null,
  gone: Readonly<Record<string, number>>,
  serverNow: number,
  graceMs: number = CLAIM_GRACE_MS,
): ClaimOffer | null {
  if (side === null || state.status !== "active" || state.opponent === "bot") return null;
  if (state.move_time >= LIVE_UNDER_S) return null;
  const other = state.players[otherSide(side)];
  if (!other || online === null || online.includes(other.id)) return null;
  const since = gone[other.id];
  if (since === undefined) return null;
  const away = Math.max(0, serverNow - since);
  const wait = Math.max(0, graceMs - away);
  return { name: other.name, gone: away, due: wait === 0 && state.ply >= 2, wait };
}

/** "0:07", "1:30", "12:04": minutes and seconds. */
export function goneText(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The banner in the message slot beside the board (a slot of fixed size: style.css). */
export class ClaimBanner {
  readonly root: HTMLElement;
  private readonly text: HTMLElement;
  private readonly hint: HTMLElement;
  private readonly victory: HTMLButtonElement;
  private readonly draw: HTMLButtonElement;
  private readonly buttons: HTMLElement;

  constructor(act: (kind: ActionKind) => void) {
    this.text = h("p", { class: "draw-offer-text", id: "claim-text" });
    this.hint = h("p", { class: "hint", id: "claim-hint" });
    this.victory = h("button", { type: "button", class: "btn btn-primary", id: "claim-victory", text: "Claim victory" });
    this.draw = h("button", { type: "button", class: "btn", id: "claim-draw", text: "Call it a draw" });
    this.victory.addEventListener("click", () => act("claim_victory"));
    this.draw.addEventListener("click", () => act("claim_draw"));
    this.buttons = h("div", { class: "control-buttons" }, this.victory, this.draw);
    this.root = h("div", { class: "draw-offer claim-offer slot-msg", id: "claim-offer", role: "status" }, this.text, this.buttons, this.hint);
  }

  /** Show the offer (or nothing); `busy`: a claim is on its way. */
  update(offer: ClaimOffer | null, busy: boolean): void {
    this.root.dataset.wants = offer ? "1" : "";
    this.root.dataset.due = offer?.due ? "1" : "";
    if (!offer) return;
    const wait = offer.due
      ? ""
      : offer.wait > 0
        ? ` · you may claim the game in ${Math.ceil(offer.wait / 1000)} s`
        : " · fewer than two moves were played: you may abort instead";
    this.text.textContent = `${offer.name} left the game — ${goneText(offer.gone)}${wait}`;
    // The banner has its own fixed slot: the buttons come in without moving anything else.
    this.buttons.hidden = !offer.due;
    this.victory.disabled = this.draw.disabled = !offer.due || busy;
    this.hint.textContent = "They may still come back: a return before you claim cancels this.";
  }
}
