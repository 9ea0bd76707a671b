// The invite panel: the link to send to a friend, with a copy button, and the way to
// cancel the invitation while nobody has accepted it.

import { ApiError, api, joinErrorText } from "../network/api";
import { copyText, h } from "../dom";
import { inviteUrl } from "../context";

/**
 * "Cancel the invitation": withdraws it (POST /api/games/<id>/withdraw). The game's event
 * then tells every page following it; a refusal is said beside the button.
 */
export function cancelInviteRow(game: string): HTMLElement {
  const cancel = h("button", { type: "button", class: "btn", id: "cancel-invite", text: "Cancel the invitation" });
  const why = h("span", { class: "error", role: "alert", id: "cancel-invite-error" });
  cancel.addEventListener("click", () => {
    cancel.disabled = true;
    cancel.textContent = "Cancelling…";
    why.textContent = "";
    api.withdrawGame(game).catch((err: unknown) => {
      cancel.disabled = false;
      cancel.textContent = "Cancel the invitation";
      why.textContent =
        err instanceof ApiError ? `The invitation was not cancelled. ${joinErrorText(err)}` : "The invitation was not cancelled: try again.";
    });
  });
  return h("p", { class: "control-buttons" }, cancel, " ", why);
}

export function invitePanel(game: string, invite: string): HTMLElement {
  const url = inviteUrl(invite);
  const input = h("input", {
    id: "invite-link",
    class: "invite-link",
    type: "text",
    readonly: true,
    value: url,
    "aria-label": "Invite link",
  });
  input.value = url;
  input.addEventListener("focus", () => input.select());
  const done = h("span", { class: "copy-done", role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button", class: "btn", id: "copy-invite", text: "Copy link" });
  button.addEventListener("click", async () => {
    const ok = await copyText(url, input);
    done.textContent = ok ? "Copied — now send it to your friend." : "Select the link and copy it yourself.";
  });
  return h(
    "section",
    { class: "panel invite", "aria-labelledby": "invite-title", "data-game": game },
    h("h2", { id: "invite-title", text: "Invite your friend" }),
    h("p", {
      text: "Send this link to the friend you want to play. The game starts as soon as they open it; which side each of you plays is drawn fairly when it starts.",
    }),
    h("div", { class: "invite-row" }, input, button),
    done,
    h(
      "p",
      { class: "waiting", role: "status" },
      h("span", { class: "spinner", "aria-hidden": "true" }),
      "Waiting for your friend to join… this page opens the game as soon as they do.",
    ),
    cancelInviteRow(game),
  );
}
