// `/verify-email/<token>`: the link of the confirmation mail. Opening it changes nothing:
// the page says which address and which account the link confirms, and whether
// confirming logs this browser in, and asks. Only the button confirms (so a link opened by
// a mail scanner, or by another site navigating here, confirms nobody and logs nobody in).
// A browser that speaks for another player keeps doing so: the address is confirmed and
// the page offers to log in. A login here reaches the header, the pages and the live
// connection at once (ctx.refreshSession); a used, expired or unknown link says which and
// what to do. Outside the browser that signed up the page asks for the password, which
// becomes the account's: whoever signed up with someone else's address keeps no way in.

import type { Me } from "../network/account";
import { ApiError, type Viewer } from "../network/api";
import { type AppContext, type Unmount, takeReturn } from "../context";
import { h } from "../dom";
import { type VerifyLink, isTokenError, mailApi, resendButton } from "../network/mail";

export function mountVerifyEmail(root: HTMLElement, ctx: AppContext, token: string): Unmount {
  ctx.setTitle("Confirm your address");
  const status = h("p", { id: "verify-email-status", role: "status", text: "Reading the link…" });
  const page = h("div", { class: "page page-auth" }, h("h1", { text: "Confirm your address" }), status);
  root.append(page);
  const failed = async (err: unknown): Promise<void> => {
    status.dataset.state = err instanceof ApiError ? err.code : "error";
    status.textContent = err instanceof ApiError ? sentence(err.message) : "The address could not be confirmed; try again.";
    if (!(err instanceof ApiError) || !isTokenError(err.code)) return;
    const me = (await ctx.me) as Me | null;
    page.append(
      me?.account
        ? h("p", { id: "verify-email-again" }, resendButton())
        : h("p", { id: "verify-email-again" }, "If you confirmed already, ", h("a", { href: `/login`, text: "log in" }), ". Otherwise ", h("a", { href: "/signup", text: "sign up again" }), " with the same address: we mail a new link."),
    );
  };
  void Promise.all([mailApi.checkVerify(token), ctx.me]).then(([link, me]) => ask(ctx, page, status, token, link, me, failed), failed);
  return () => undefined;
}

function ask(ctx: AppContext, page: HTMLElement, status: HTMLElement, token: string, link: VerifyLink, me: Viewer | null, failed: (err: unknown) => Promise<void>): void {
  const name = link.name ?? "your account";
  status.dataset.state = "ask";
  status.replaceChildren("This link confirms the address ", h("strong", { text: link.email }), " for the account ", h("strong", { id: "verify-email-account", text: name }), ".");
  const who = me?.name ?? "a guest";
  const effect = link.logs_in
    ? h("p", { id: "verify-email-effect" }, "Confirming logs you in as ", h("strong", { text: name }), " in this browser.")
    : h("p", { id: "verify-email-effect" }, "You are playing as ", h("strong", { text: who }), " in this browser, and you stay so: confirming does not log you in as ", h("strong", { text: name }), ". Log in to it afterwards if it is yours.");
  const button = h("button", {
    type: "button",
    class: "btn btn-primary",
    id: "verify-email-confirm",
    text: link.logs_in ? `Confirm and log in as ${name}` : `Confirm ${link.email}`,
  });
  const notMine = h("p", { class: "hint", id: "verify-email-not-mine" }, `Did not sign up as ${name}? Then do not confirm: close this page. Nothing changes, and the sign-up is deleted in 7 days.`);
  const password = h("input", { id: "verify-email-password", name: "verify-email-password", type: "password", autocomplete: "new-password", minlength: "10" });
  const error = h("p", { class: "error", role: "alert", id: "verify-email-error" });
  const choose = link.asks_password
    ? [
        h("div", { class: "field" }, h("label", { for: "verify-email-password", text: "Password" }), password),
        h("p", { class: "hint", id: "verify-email-password-hint", text: "Type the password you chose when signing up, or a new one: confirming sets it as the account's password." }),
        error,
      ]
    : [];
  const asking = h("div", { id: "verify-email-ask" }, effect, ...choose, h("p", {}, button), notMine);
  page.append(asking);
  button.addEventListener("click", () => {
    button.disabled = true;
    error.textContent = "";
    void mailApi.confirm(token, link.asks_password ? password.value : undefined).then(
      (res) => {
        asking.remove();
        status.dataset.state = "ok";
        if (!res.logged_in) {
          status.textContent = `${res.email} is confirmed: the account ${res.name} can now play people, be rated and appear on the leaderboards. You are still playing as ${who} here.`;
          page.append(h("p", {}, h("a", { href: "/login", class: "btn", id: "verify-email-login", text: `Log in as ${res.name}` })));
          return;
        }
        status.textContent = `${res.email} is confirmed, and you are logged in as ${res.name}. You can now play people, be rated and appear on the leaderboards.`;
        // The header, the pages and the socket pick up the new session (no reload).
        void ctx.refreshSession();
        const back = takeReturn();
        const next = back
          ? h("a", { href: back, class: "btn btn-primary", id: "verify-email-invite", text: "Back to your game" })
          : h("a", { href: "/lobby", class: "btn btn-primary", id: "verify-email-lobby", text: "Find an opponent" });
        page.append(h("p", {}, next));
        document.getElementById("mail-banner")?.remove();
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.code === "weak_password") {
          error.textContent = sentence(err.message); // the link stays good: try another
          button.disabled = false;
          return;
        }
        asking.remove();
        void failed(err);
      },
    );
  });
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + ".";
}
