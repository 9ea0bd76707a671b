// The accounts' part of the frame: who is logged in (header) and the Leaderboard link.
// Their pages are routed with every other page (routes.ts, main.ts).

import { type Me, accountApi, isNewcomer } from "../network/account";
import "../accounts.css";
import type { AppContext } from "../context";
import { clear, h } from "../dom";

/** The header's account box (log in / sign up, or the player and log out) and the
 *  Leaderboard link; a session that ended elsewhere reloads the page as a guest. */
export function installAccounts(ctx: AppContext, whoami: HTMLElement): void {
  // The header's folding part: the sections, then the account's area (main.ts).
  const more = document.getElementById("nav-more");
  more?.insertBefore(h("a", { href: "/leaderboard", "data-nav": "/leaderboard", text: "Leaderboard" }), document.getElementById("nav-user"));
  const box = h("span", { class: "account-box", id: "account-box" });
  whoami.after(box);
  let known: Me | null = null;

  const render = (me: Me | null) => {
    known = me;
    // Unseen until the session is known (header.css): filled, it appears where it ends up,
    // never moving there from the row's end (a layout shift for a returning player).
    if (whoami.parentElement) whoami.parentElement.dataset.known = "true";
    clear(box);
    if (!me) return;
    box.dataset.account = String(me.account);
    if (me.account) {
      whoami.hidden = true;
      const out = h("button", { type: "button", class: "btn btn-small btn-on-dark", id: "nav-logout", text: "Log out" });
      out.addEventListener("click", async () => {
        out.disabled = true;
        try {
          await accountApi.logout(false);
        } finally {
          window.location.assign("/");
        }
      });
      box.append(
        h("a", { href: `/u/${me.id}`, class: "nav-profile", id: "nav-profile", "data-player": me.id, title: "Your profile", text: me.name }),
        h("a", { href: "/account", class: "nav-account", id: "nav-account", text: "Account" }),
        out,
      );
    } else if (isNewcomer(me)) {
      // Signed up from an invitation, the address not confirmed yet: no second sign-up to
      // offer; what is left to do is the mailed link (the banner names the address).
      whoami.hidden = false;
      box.append(
        h("span", { class: "nav-pending", id: "nav-pending", title: `We sent a link to ${me.pending}`, text: "Confirm your email" }),
      );
    } else {
      whoami.hidden = false;
      const here = window.location.pathname;
      const next = here === "/" || here.startsWith("/login") || here.startsWith("/signup") ? "" : `?next=${encodeURIComponent(here)}`;
      box.append(
        h("a", { href: `/login${next}`, id: "nav-login", text: "Log in" }),
        h("a", { href: `/signup${next}`, id: "nav-signup", class: "btn btn-small", text: "Sign up" }),
      );
    }
  };
  void ctx.me.then((me) => render(me as Me | null));
  ctx.onSession((me) => render(me as Me | null)); // logged in without a reload

  // Logged out elsewhere (or the password changed there): the server closed the socket
  // (4004) and it came back without the session. Start afresh as a guest.
  ctx.live.subscribe((c) => {
    if (c.type !== "hello" || !known?.account) return;
    if (ctx.live.player?.id === known.id) return;
    void accountApi
      .me()
      .catch(() => null)
      .then(() => window.location.reload());
  });
}
