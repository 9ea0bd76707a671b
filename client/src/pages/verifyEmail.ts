// `/verify-email/<token>`: the link of the confirmation mail. Following it confirms the
// address; a used, expired or unknown link says which and offers a new one.

import type { Me } from "../account";
import { ApiError } from "../api";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { isTokenError, mailApi, resendButton } from "../mail";

export function mountVerifyEmail(root: HTMLElement, ctx: AppContext, token: string): Unmount {
  ctx.setTitle("Confirm your address");
  const status = h("p", { id: "verify-email-status", role: "status", text: "Confirming your address…" });
  const page = h("div", { class: "page page-auth" }, h("h1", { text: "Confirm your address" }), status);
  root.append(page);
  void mailApi.confirm(token).then(
    (res) => {
      status.textContent = `${res.email} is confirmed. You can now play people, be rated and appear on the leaderboards.`;
      status.dataset.state = "ok";
      page.append(h("p", {}, h("a", { href: "/lobby", class: "btn btn-primary", id: "verify-email-lobby", text: "Find an opponent" })));
      document.getElementById("mail-banner")?.remove();
    },
    async (err) => {
      status.dataset.state = err instanceof ApiError ? err.code : "error";
      status.textContent = err instanceof ApiError ? sentence(err.message) : "The address could not be confirmed; try again.";
      if (!(err instanceof ApiError) || !isTokenError(err.code)) return;
      const me = (await ctx.me) as Me | null;
      page.append(
        me?.account
          ? h("p", { id: "verify-email-again" }, resendButton())
          : h("p", { id: "verify-email-again" }, h("a", { href: `/login?next=/account`, text: "Log in" }), " to ask for a new link."),
      );
    },
  );
  return () => undefined;
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + ".";
}
