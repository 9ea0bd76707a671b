// Under the board while a friend game waits: its creator sees the invite link (when this
// browser kept it) and may cancel the invitation. A challenge (a game waiting for one
// player): its challenger waits for the answer and may cancel it; the player challenged
// accepts or declines it here. Once withdrawn, cancelled or declined: what became of it,
// for anyone who opens it.

import { recallInvite } from "../context";
import { clear, h } from "../dom";
import { challengeErrorText, termsText } from "../logic/challenges";
import { challengeEndText, isChallenge, isCreator, withdrawnText } from "../logic/status";
import { challengeApi } from "../network/challenges";
import { challengeAnswer } from "./challengeanswer";
import type { State } from "../network/protocol";
import { cancelInviteRow, invitePanel } from "./invite";

export type InviteMode = "waiting" | "challenged" | "withdrawn" | "";

export class InviteSlot {
  readonly root: HTMLElement = h("div", { class: "invite-slot" });

  constructor(
    private readonly game: string,
    /** open a page of the site (the accepted challenge's game) */
    private readonly navigate: (path: string) => void = (path) => window.location.assign(path),
  ) {}

  /** `invitee`: a challenge's challenged player's name, once known; `side` the
   *  challenger's side, when this page knows the challenge. */
  update(mode: InviteMode, state: State, meId: string | null, invitee: string | null = null, side: string | null = null): void {
    const slot = this.root;
    const key = `${mode}|${invitee ?? ""}|${side ?? ""}`;
    if (slot.dataset.key === key) return;
    slot.dataset.key = key;
    slot.dataset.mode = mode;
    clear(slot);
    if (mode === "withdrawn") {
      slot.appendChild(isChallenge(state) ? this.challengeEnded(state, meId, invitee) : this.withdrawn(state, meId));
      return;
    }
    if (mode === "challenged") {
      slot.appendChild(this.challenged(state, side));
      return;
    }
    if (mode !== "waiting") return;
    const link = recallInvite(this.game);
    if (!link && isChallenge(state)) {
      slot.appendChild(this.challenging(state, invitee));
      return;
    }
    const panel = link
      ? invitePanel(this.game, link)
      : h(
          "section",
          { class: "panel invite", id: "invite-missing" },
          h("h2", { text: "Waiting for your friend" }),
          h("p", {
            text: "Your friend has not joined yet. The invite link was shown when you created the game; this browser has not kept it, so send the copy you made. The game starts as soon as they open it.",
          }),
        );
    if (!link) panel.append(cancelInviteRow(this.game));
    slot.appendChild(panel);
  }

  private withdrawn(state: State, meId: string | null): HTMLElement {
    return h(
      "section",
      { class: "panel invite", id: "invite-withdrawn", role: "status" },
      h("h2", { text: `${withdrawnText(state, meId)}.` }),
      h("p", { text: isCreator(state, meId) ? "Nobody can join it now." : "Nobody can join it now: ask them for a new invitation if you still want to play." }),
      h("p", {}, h("a", { href: "/", class: "btn btn-primary", text: "Start a new game" })),
    );
  }

  /** The challenger's wait: for whom, the terms, and the way to take it back. */
  private challenging(state: State, invitee: string | null): HTMLElement {
    const cancel = h("button", { type: "button", class: "btn", id: "cancel-challenge", text: "Cancel the challenge" });
    const why = h("span", { class: "error", role: "alert", id: "cancel-challenge-error" });
    cancel.addEventListener("click", () => {
      cancel.disabled = true;
      why.textContent = "";
      challengeApi.cancel(this.game).catch((err: unknown) => {
        cancel.disabled = false;
        why.textContent = `The challenge was not cancelled. ${challengeErrorText(err)}`;
      });
    });
    const whom = invitee ?? "your opponent";
    return h(
      "section",
      { class: "panel invite", id: "challenge-waiting", "data-game": this.game },
      h("h2", { id: "challenge-waiting-title", text: `Waiting for ${whom} to accept your challenge` }),
      h("p", { class: "muted", text: termsText(state) }),
      h(
        "p",
        { class: "waiting", role: "status" },
        h("span", { class: "spinner", "aria-hidden": "true" }),
        `The game opens here once ${invitee ?? "they"} accept${invitee ? "s" : ""}.`,
      ),
      h("p", { class: "control-buttons" }, cancel, " ", why),
    );
  }

  /** The player challenged: accept, or decline with a reason. */
  private challenged(state: State, side: string | null): HTMLElement {
    const from = state.creator?.name ?? "A player";
    const { accept, decline, reason, error } = challengeAnswer(this.game, {
      attrs: {
        accept: { class: "btn btn-primary", id: "challenge-accept" },
        decline: { class: "btn", id: "challenge-decline" },
        reason: { id: "challenge-decline-reason" },
        error: { class: "error", id: "challenge-answer-error" },
      },
      accepted: (url) => {
        if (url !== `/g/${this.game}`) this.navigate(url);
      },
    });
    const sides = side === "attackers" ? " · you play the defenders" : side === "defenders" ? " · you play the attackers" : side === "random" ? " · sides drawn at random" : "";
    return h(
      "section",
      { class: "panel invite", id: "challenge-incoming", "data-game": this.game },
      h("h2", { text: `${from} challenges you` }),
      h("p", { class: "muted", text: `${termsText(state)}${sides}` }),
      h("p", { class: "control-buttons" }, accept, " ", decline),
      h("p", { class: "challenge-reason" }, h("label", { for: "challenge-decline-reason", class: "muted", text: "If you decline: " }), reason),
      error,
    );
  }

  private challengeEnded(state: State, meId: string | null, invitee: string | null): HTMLElement {
    const again =
      isCreator(state, meId) && state.invitee
        ? h("a", { href: `/u/${state.invitee}`, class: "btn btn-primary", id: "challenge-again", text: state.declined !== undefined ? "Challenge again with other terms" : "Challenge again" })
        : h("a", { href: "/", class: "btn btn-primary", text: "Start a new game" });
    return h(
      "section",
      { class: "panel invite", id: "invite-withdrawn", role: "status", "data-declined": state.declined ?? "" },
      h("h2", { id: "challenge-ended", text: `${challengeEndText(state, meId, invitee)}.` }),
      h("p", { text: "This challenge never started: nobody can join it now." }),
      h("p", {}, again),
    );
  }
}
