// `/verify-email/<token>`: the link of the confirmation mail. Following it confirms the
// address and logs its account in (the page's next link reloads, so that the header and
// the live connection speak for the new session); a used, expired or unknown link says
// which and what to do.

import type { Me } from "../account";
import { ApiError } from "../api";
import { type AppContext, type Unmount, takeReturn } from "../context";
import { h } from "../dom";
import { isTokenError, mailApi, resendButton } from "../mail";

export function mountVerifyEmail(root: HTMLElement, ctx: AppContext, token: string): Unmount {
  ctx.setTitle("Confirm your address");
  const status = h("p", { id: "verify-email-status", role: "status", text: "Confirming your address…" });
  const page = h("div", { class: "page page-auth" }, h("h1", { text: "Confirm your address" }), status);
  root.append(page);
  void mailApi.confirm(token).then(
    (res) => {
      status.textContent = `${res.email} is confirmed, and you are logged in as ${res.name}. You can now play people, be rated and appear on the leaderboards.`;
      status.dataset.state = "ok";
      const back = takeReturn();
      const next = back
        ? h("a", { href: back, class: "btn btn-primary", id: "verify-email-invite", text: "Back to the invitation" })
        : h("a", { href: "/lobby", class: "btn btn-primary", id: "verify-email-lobby", text: "Find an opponent" });
      // A full load: the header and the websocket were opened for the session before.
      next.addEventListener("click", (e) => {
        e.preventDefault();
        window.location.assign(next.getAttribute("href") ?? "/");
      });
      page.append(h("p", {}, next));
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
          : h("p", { id: "verify-email-again" }, "If you confirmed already, ", h("a", { href: `/login`, text: "log in" }), ". Otherwise ", h("a", { href: "/signup", text: "sign up again" }), " with the same address: we mail a new link."),
      );
    },
  );
  return () => undefined;
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + ".";
}
