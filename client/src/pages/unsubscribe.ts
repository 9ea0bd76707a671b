// `/unsubscribe/<token>`: the link at the foot of a move reminder. One button stops them
// (a page, not the link itself, so that a mail scanner opening links changes nothing).

import { ApiError } from "../network/api";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { mailApi } from "../network/mail";

export function mountUnsubscribe(root: HTMLElement, ctx: AppContext, token: string): Unmount {
  ctx.setTitle("Move reminders");
  const status = h("p", { role: "status", id: "unsubscribe-status" });
  const button = h("button", { type: "button", class: "btn btn-primary", id: "unsubscribe-submit", text: "Stop move reminders" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const res = await mailApi.unsubscribe(token);
      button.remove();
      status.textContent = `No more move reminders to ${res.email}. You can turn them on again on your account page.`;
      status.dataset.state = "ok";
    } catch (err) {
      status.textContent = err instanceof ApiError ? err.message.charAt(0).toUpperCase() + err.message.slice(1) + "." : "Something went wrong; try again.";
      button.disabled = false;
    }
  });
  root.append(
    h(
      "div",
      { class: "page page-auth" },
      h("h1", { text: "Move reminders" }),
      h("p", { text: "Stop the mails that tell you it is your move?" }),
      button,
      status,
    ),
  );
  return () => undefined;
}
