// The players' controls of a running game: offer a draw, resign (with a confirm step) or
// abort under the board, and the draw offer above it — prominent for the player who must
// answer it, a plain line for the one who made it and for spectators.

import { clear, h } from "../dom";
import type { Controls } from "../logic/lifecycle";
import type { ActionKind } from "../network/live";
import type { Side } from "../board/notation";
import type { State } from "../network/protocol";
import { errorText, otherSide } from "../logic/status";

export type Act = (kind: ActionKind, accept?: boolean) => void;

/** An action the server refused, in words: what did not happen, and why. */
export function refusedText(kind: ActionKind, code: string, message: string): string {
  const what: Record<ActionKind, string> = {
    resign: "You have not resigned",
    abort: "The game was not aborted",
    offer_draw: "No draw was offered",
    answer_draw: "The draw offer was not answered",
    claim_victory: "The game was not claimed",
    claim_draw: "The game was not drawn",
    rematch: "No rematch was arranged",
    decline_rematch: "The rematch was not declined",
    takeback: "Nothing was taken back",
    takeback_offer: "No takeback was asked for",
    takeback_answer: "The takeback offer was not answered",
  };
  return `${what[kind]}. ${errorText(code, message)}`;
}

export class GameActions {
  /** under the board: the buttons (players only) */
  readonly bar: HTMLElement;
  /** above the board: an open draw offer, for everyone */
  readonly drawBanner: HTMLElement;
  /** in the message slot too: an open takeback offer */
  readonly takebackBanner: HTMLElement;

  private readonly offerDraw: HTMLButtonElement;
  private readonly takeback: HTMLButtonElement;
  private takebackKey = "";
  private readonly resign: HTMLButtonElement;
  private readonly abort: HTMLButtonElement;
  private readonly drawReason: HTMLElement;
  private readonly note: HTMLElement;
  private readonly buttons: HTMLElement;
  private readonly confirm: HTMLElement;
  private readonly confirmYes: HTMLButtonElement;
  private readonly confirmNo: HTMLButtonElement;
  private confirming = false;
  private bannerKey = "";
  private accept: HTMLButtonElement | null = null;
  private decline: HTMLButtonElement | null = null;

  constructor(private readonly act: Act) {
    this.offerDraw = h("button", { type: "button", class: "btn", id: "offer-draw", "aria-describedby": "draw-reason" });
    this.resign = h("button", { type: "button", class: "btn btn-danger-quiet", id: "resign", text: "Resign" });
    this.abort = h("button", { type: "button", class: "btn", id: "abort", text: "Abort the game" });
    this.drawReason = h("p", { class: "hint", id: "draw-reason" });
    this.note = h("p", { class: "hint", id: "controls-note" });
    this.takeback = h("button", { type: "button", class: "btn", id: "takeback", text: "Take back", hidden: true });
    this.buttons = h("div", { class: "control-buttons" }, this.takeback, this.offerDraw, this.abort, this.resign);

    this.confirmYes = h("button", { type: "button", class: "btn btn-danger", id: "resign-confirm", text: "Yes, resign" });
    this.confirmNo = h("button", { type: "button", class: "btn", id: "resign-cancel", text: "Keep playing" });
    this.confirm = h(
      "div",
      { class: "confirm", id: "resign-confirm-box", role: "group", "aria-labelledby": "resign-question", hidden: true },
      h("p", { id: "resign-question", class: "confirm-question", text: "Resign this game? You lose it at once." }),
      h("div", { class: "control-buttons" }, this.confirmYes, this.confirmNo),
    );
    this.bar = h(
      "section",
      { class: "controls", id: "controls", "aria-label": "Game actions", hidden: true },
      this.buttons,
      this.confirm,
      this.drawReason,
      this.note,
    );
    this.drawBanner = h("div", { class: "draw-offer", id: "draw-offer", hidden: true });
    this.takebackBanner = h("div", { class: "draw-offer takeback-offer", id: "takeback-offer", hidden: true });
    this.takeback.addEventListener("click", () => {
      const kind = this.takeback.dataset.kind;
      if (kind === "takeback" || kind === "takeback_offer") this.act(kind);
    });

    this.offerDraw.addEventListener("click", () => this.act("offer_draw"));
    this.abort.addEventListener("click", () => this.act("abort"));
    this.resign.addEventListener("click", () => this.setConfirming(true));
    this.confirmNo.addEventListener("click", () => this.setConfirming(false));
    this.confirmYes.addEventListener("click", () => {
      this.setConfirming(false, false);
      this.act("resign");
    });
    this.confirm.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.setConfirming(false);
    });
  }

  private setConfirming(on: boolean, moveFocus = true): void {
    this.confirming = on;
    this.bar.classList.toggle("confirming", on);
    this.confirm.hidden = !on;
    this.buttons.hidden = on;
    if (!moveFocus) return;
    // Focus the harmless choice first (WAI-ARIA: destructive actions are never the default).
    if (on) this.confirmNo.focus();
    else this.resign.focus();
  }

  update(state: State, side: Side | null, controls: Controls, busy: ReadonlySet<ActionKind>): void {
    this.renderBanner(state, side, controls, busy);
    this.renderTakebackBanner(state, side, controls, busy);
    const running = controls.player && state.status === "active";
    this.bar.hidden = !running;
    if (!running) {
      if (this.confirming) this.setConfirming(false, false);
      return;
    }

    const offer = controls.offerDraw;
    // Absent for good against the bot; otherwise it keeps its place while absent (an open
    // offer to answer), so that the buttons beside it do not move.
    this.offerDraw.hidden = offer === null && state.opponent === "bot";
    this.offerDraw.style.visibility = offer === null ? "hidden" : "";
    const sendingOffer = busy.has("offer_draw");
    this.offerDraw.disabled = offer === null || !offer.enabled || sendingOffer;
    this.offerDraw.textContent = sendingOffer ? "Offering…" : offer && !offer.enabled && state.draw_offer === side ? "Draw offered" : "Offer a draw";
    this.drawReason.textContent = offer?.reason ?? "";
    // Keeps its line when empty, so that nothing under it moves when a reason comes.
    this.drawReason.hidden = false;

    const takeback = controls.takeback;
    const sendingTakeback = busy.has("takeback") || busy.has("takeback_offer");
    this.takeback.hidden = takeback === null;
    // Three buttons in a row (a casual game: take back, a draw, abort or resign) share it.
    this.buttons.classList.toggle("three", takeback !== null && !this.offerDraw.hidden);
    this.takeback.dataset.kind = takeback?.kind ?? "";
    this.takeback.disabled = takeback === null || !takeback.enabled || sendingTakeback;
    this.takeback.textContent = sendingTakeback ? "Taking back…" : (takeback?.label ?? "Take back");
    this.takeback.title =
      takeback?.kind === "takeback_offer" ? "Ask your opponent to let you take your last move back" : "Take your last move back";

    this.abort.hidden = !controls.abort;
    this.abort.disabled = busy.has("abort");
    // Shorter when three share the row (a phone has room for no more).
    const abortLabel = this.buttons.classList.contains("three") ? "Abort" : "Abort the game";
    this.abort.textContent = busy.has("abort") ? "Aborting…" : abortLabel;
    this.resign.hidden = !controls.resign;
    this.resign.disabled = busy.has("resign");
    this.resign.textContent = busy.has("resign") ? "Resigning…" : "Resign";
    if (!controls.resign && this.confirming) this.setConfirming(false, false);

    this.note.textContent = controls.note ?? "";
    this.note.hidden = !controls.note;
  }

  /** The opponent's takeback offer to answer, or one's own waiting: like a draw offer's. */
  private renderTakebackBanner(state: State, side: Side | null, controls: Controls, busy: ReadonlySet<ActionKind>): void {
    const offer = state.status === "active" ? (state.takeback_offer ?? null) : null;
    const answering = busy.has("takeback_answer");
    const key = `${offer}|${side}|${controls.answerTakeback}|${answering}`;
    if (key === this.takebackKey) return;
    this.takebackKey = key;
    const banner = this.takebackBanner;
    const hadFocus = banner.contains(document.activeElement);
    banner.dataset.by = offer ?? "";
    banner.classList.toggle("prominent", controls.answerTakeback);
    banner.removeAttribute("role");
    clear(banner);
    if (offer === null) return;
    if (controls.answerTakeback) {
      banner.setAttribute("role", "alert");
      const yes = h("button", { type: "button", class: "btn btn-primary", id: "accept-takeback", text: "Accept" });
      const no = h("button", { type: "button", class: "btn", id: "decline-takeback", text: "Decline" });
      yes.disabled = no.disabled = answering;
      yes.addEventListener("click", () => this.act("takeback_answer", true));
      no.addEventListener("click", () => this.act("takeback_answer", false));
      banner.append(
        h("p", { class: "draw-offer-text", text: "Opponent asks for a takeback." }),
        h("div", { class: "control-buttons" }, yes, no),
      );
      if (hadFocus) yes.focus();
    } else if (offer === side) {
      banner.append(h("p", { class: "draw-offer-text", text: "You asked for a takeback — waiting for your opponent's answer." }));
    } else {
      banner.setAttribute("role", "status");
      banner.append(h("p", { class: "draw-offer-text", text: `The ${offer} ask for a takeback.` }));
    }
  }

  private renderBanner(state: State, side: Side | null, controls: Controls, busy: ReadonlySet<ActionKind>): void {
    const offer = state.status === "active" ? state.draw_offer : null;
    const answering = busy.has("answer_draw");
    const key = `${offer}|${side}|${controls.answerDraw}|${answering}`;
    if (key === this.bannerKey) return;
    const hadFocus = this.drawBanner.contains(document.activeElement);
    this.bannerKey = key;
    this.drawBanner.hidden = offer === null;
    this.drawBanner.dataset.by = offer ?? "";
    this.drawBanner.classList.toggle("prominent", controls.answerDraw);
    this.drawBanner.removeAttribute("role");
    clear(this.drawBanner);
    this.accept = this.decline = null;
    if (offer === null) return;

    if (controls.answerDraw) {
      this.drawBanner.setAttribute("role", "alert");
      this.accept = h("button", { type: "button", class: "btn btn-primary", id: "accept-draw", text: "Accept the draw" });
      this.decline = h("button", { type: "button", class: "btn", id: "decline-draw", text: "Decline" });
      this.accept.disabled = this.decline.disabled = answering;
      this.accept.addEventListener("click", () => this.act("answer_draw", true));
      this.decline.addEventListener("click", () => this.act("answer_draw", false));
      this.drawBanner.append(
        h("p", { class: "draw-offer-text", text: "Your opponent offers a draw." }),
        h("div", { class: "control-buttons" }, this.accept, this.decline),
        h("p", { class: "hint", text: "Playing a move declines it." }),
      );
      if (hadFocus) this.accept.focus();
    } else if (offer === side) {
      this.drawBanner.append(
        h("p", { class: "draw-offer-text", text: "You offered a draw — waiting for your opponent's answer." }),
      );
    } else {
      this.drawBanner.setAttribute("role", "status");
      this.drawBanner.append(
        h("p", {
          class: "draw-offer-text",
          text: `The ${offer} offer a draw — waiting for the ${otherSide(offer)} to answer.`,
        }),
      );
    }
  }
}
