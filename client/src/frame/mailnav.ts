// The mail flows' part of the frame: the pages their links open, the banner of an
// unconfirmed account, and the mail settings on the account page.

import { type Me, isNewcomer } from "../network/account";
import { ApiError } from "../network/api";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { mailApi, resendButton } from "../network/mail";
import { mountForgotPassword, mountResetPassword } from "../pages/resetPassword";
import { mountUnsubscribe } from "../pages/unsubscribe";
import { mountVerifyEmail } from "../pages/verifyEmail";

const VERIFY_RE = /^\/verify-email\/([A-Za-z0-9_-]+)\/?$/;
const RESET_RE = /^\/reset-password\/([A-Za-z0-9_-]+)\/?$/;
const UNSUB_RE = /^\/unsubscribe\/([A-Za-z0-9_-]+)\/?$/;

export function isMailPath(path: string): boolean {
  return /^\/forgot-password\/?$/.test(path) || VERIFY_RE.test(path) || RESET_RE.test(path) || UNSUB_RE.test(path);
}

export function routeMail(path: string, root: HTMLElement, ctx: AppContext): Unmount | null {
  let m: RegExpExecArray | null;
  if (/^\/forgot-password\/?$/.test(path)) return mountForgotPassword(root, ctx);
  if ((m = VERIFY_RE.exec(path))) return mountVerifyEmail(root, ctx, m[1]);
  if ((m = RESET_RE.exec(path))) return mountResetPassword(root, ctx, m[1]);
  if ((m = UNSUB_RE.exec(path))) return mountUnsubscribe(root, ctx, m[1]);
  return null;
}

function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : "Something went wrong; try again.";
}

/** Above every page of an account whose address is not confirmed: what to do. */
export function installMailBanner(ctx: AppContext, before: HTMLElement): void {
  void ctx.me.then(async (raw) => {
    const me = raw as Me | null;
    if (isNewcomer(me)) {
      before.before(newcomerBanner(me.pending));
      return;
    }
    if (!me?.account) return;
    const status = await mailApi.status().catch(() => null);
    if (!status || status.verified) return;
    before.before(
      h(
        "div",
        { class: "panel mail-banner", id: "mail-banner", role: "status" },
        "Confirm your email address to play people and be rated: we mailed a link to ",
        h("strong", { text: status.email }),
        ". ",
        resendButton(),
      ),
    );
  });
}

/** Above every page of a newcomer seated from an invitation: the game is theirs now, the
 *  account theirs once the address is confirmed (docs/accounts.md). */
function newcomerBanner(email: string): HTMLElement {
  return h(
    "div",
    { class: "panel mail-banner", id: "mail-banner", role: "status" },
    "Confirm your address to keep your account and to play others: we mailed a link to ",
    h("strong", { text: email }),
    ".",
  );
}

/** The account page's mail section: confirmation and move reminders. */
export function mailSettings(): HTMLElement {
  const section = h("section", { class: "panel", id: "mail-settings" }, h("h2", { text: "Mail" }));
  void mailApi.status().then(
    (status) => {
      const box = h("input", { type: "checkbox", id: "reminders-on" });
      box.checked = status.reminders;
      const saved = h("span", { class: "hint", role: "status", id: "reminders-saved" });
      box.addEventListener("change", async () => {
        saved.textContent = "";
        try {
          await mailApi.setReminders(box.checked);
          saved.textContent = box.checked ? "Reminders on." : "Reminders off.";
        } catch (err) {
          box.checked = !box.checked;
          saved.textContent = errorText(err);
        }
      });
      section.append(
        status.verified
          ? h("p", { id: "mail-verified" }, h("strong", { text: status.email }), " is confirmed.")
          : h("p", { id: "mail-unverified" }, h("strong", { text: status.email }), " is not confirmed yet. ", resendButton()),
        h(
          "p",
          {},
          h("label", { for: "reminders-on" }, box, " Mail me when it is my move in a game with an hour or more per move and I am not on the site"),
          " ",
          saved,
        ),
      );
    },
    (err) => section.append(h("p", { class: "error", text: errorText(err) })),
  );
  return section;
}
