// Under the board while a friend game waits: its creator sees the invite link (when this
// browser kept it) and may cancel the invitation. Once withdrawn: who withdrew it, for
// anyone who opens it.

import { recallInvite } from "../context";
import { clear, h } from "../dom";
import { isCreator, withdrawnText } from "../logic/status";
import type { State } from "../network/protocol";
import { cancelInviteRow, invitePanel } from "./invite";

export class InviteSlot {
  readonly root: HTMLElement = h("div", { class: "invite-slot" });

  constructor(private readonly game: string) {}

  update(mode: "waiting" | "withdrawn" | "", state: State, meId: string | null): void {
    const slot = this.root;
    if (slot.dataset.mode === mode) return;
    slot.dataset.mode = mode;
    clear(slot);
    if (mode === "withdrawn") {
      slot.appendChild(
        h(
          "section",
          { class: "panel invite", id: "invite-withdrawn", role: "status" },
          h("h2", { text: `${withdrawnText(state, meId)}.` }),
          h("p", { text: isCreator(state, meId) ? "Nobody can join it now." : "Nobody can join it now: ask them for a new invitation if you still want to play." }),
          h("p", {}, h("a", { href: "/", class: "btn btn-primary", text: "Start a new game" })),
        ),
      );
      return;
    }
    if (mode !== "waiting") return;
    const link = recallInvite(this.game);
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
}
