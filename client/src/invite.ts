// The invite panel: the link to send to a friend, with a copy button.

import { copyText, h } from "./dom";
import { inviteUrl } from "./context";

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
  );
}
