// `/signup`, `/login`, `/account`: create an account, log in, and (logged in) change the
// password, log out here or everywhere, the mail settings and API tokens. Signing up logs
// nobody in: it mails a link, and the answer is the same whether or not the address has an
// account. After a change of session the page reloads, so that the header and the live
// connection speak for it.

import { type Me, accountApi, accountErrorText, nextPath } from "../network/account";
import "../accounts.css";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { mailSettings } from "../frame/mailnav";
import { challengeSettings } from "../panels/challengesetting";
import { apiTokensSection } from "../panels/apitokens";
import { blockedSection } from "../panels/social";

function field(id: string, label: string, attrs: Record<string, string>, hint?: string): { row: HTMLElement; input: HTMLInputElement } {
  const input = h("input", { id, name: id, ...attrs });
  const row = h(
    "div",
    { class: "field" },
    h("label", { for: id, text: label }),
    input,
    hint ? h("p", { class: "hint", id: `${id}-hint`, text: hint }) : null,
  );
  if (hint) input.setAttribute("aria-describedby", `${id}-hint`);
  return { row, input };
}

/** Go somewhere with a fresh page: the header and the websocket follow the new session. */
function reloadTo(path: string): void {
  window.location.assign(path);
}

const PASSWORD_HINT = "At least 10 characters, not one of the most common passwords. A few unrelated words make a good one.";

export function mountSignup(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Sign up");
  const email = field("signup-email", "Email address", { type: "email", autocomplete: "email", required: "" });
  const password = field("signup-password", "Password", { type: "password", autocomplete: "new-password", required: "", minlength: "10" }, PASSWORD_HINT);
  const name = field("signup-name", "Display name (optional)", { type: "text", autocomplete: "nickname", maxlength: "24" }, "Shown to other players. Without one you keep your current name.");
  const error = h("p", { class: "error", role: "alert", id: "signup-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "signup-submit", text: "Create the account" });
  const form = h("form", { class: "auth-form panel", id: "signup-form", novalidate: true }, email.row, password.row, name.row, error, submit);
  const panel = h("div", { id: "signup-panel" }, form);
  root.append(
    h(
      "div",
      { class: "page page-auth" },
      h("h1", { text: "Sign up" }),
      h("p", { text: "An account lets you play people, be rated, and keep your games. The bot needs none; the games you played against it in this browser stay yours." }),
      panel,
      h("p", {}, "Have an account? ", h("a", { href: "/login" + window.location.search, text: "Log in" }), "."),
    ),
  );
  void ctx.me.then((me) => {
    const m = me as Me | null;
    if (m && !m.account && m.name) name.input.placeholder = m.name;
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      const sent = await accountApi.signup(email.input.value, password.input.value, name.input.value.trim() || undefined);
      clear(panel);
      panel.append(signupSent(sent.email));
    } catch (err) {
      error.textContent = accountErrorText(err);
      submit.disabled = false;
    }
  });
  return () => undefined;
}

/** What every sign-up is told, whether or not the address has an account. */
export function signupSent(email: string): HTMLElement {
  return h(
    "div",
    { class: "panel", id: "signup-sent", role: "status" },
    h("p", {}, "We sent a link to ", h("strong", { id: "signup-sent-email", text: email }), ". Open it to finish signing up."),
    h("p", { class: "hint", text: "The link logs you in. No mail after a few minutes? Look in the spam folder, or sign up again with the same address: we send it again." }),
  );
}

export function mountLogin(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Log in");
  const email = field("login-email", "Email address", { type: "email", autocomplete: "username", required: "" });
  const password = field("login-password", "Password", { type: "password", autocomplete: "current-password", required: "" });
  const error = h("p", { class: "error", role: "alert", id: "login-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "login-submit", text: "Log in" });
  const form = h("form", { class: "auth-form panel", id: "login-form", novalidate: true }, email.row, password.row, error, submit);
  root.append(
    h(
      "div",
      { class: "page page-auth" },
      h("h1", { text: "Log in" }),
      form,
      h("p", {}, h("a", { href: "/forgot-password", id: "forgot-link", text: "Forgot your password?" })),
      h("p", {}, "No account yet? ", h("a", { href: "/signup" + window.location.search, text: "Sign up" }), "."),
    ),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      const me = await accountApi.login(email.input.value, password.input.value);
      reloadTo(nextPath(window.location.search, `/u/${me.id}`));
    } catch (err) {
      error.textContent = accountErrorText(err);
      submit.disabled = false;
    }
  });
  return () => undefined;
}

export function mountAccount(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Your account");
  const page = h("div", { class: "page page-auth" }, h("h1", { text: "Your account" }));
  root.append(page);
  void ctx.me.then((raw) => {
    const me = raw as Me | null;
    if (!me || !me.account) {
      page.append(
        h("p", { id: "account-guest" }, "You are not logged in. ", h("a", { href: "/login?next=/account", text: "Log in" }), " or ", h("a", { href: "/signup", text: "sign up" }), "."),
      );
      return;
    }
    const current = field("current-password", "Current password", { type: "password", autocomplete: "current-password", required: "" });
    const next = field("new-password", "New password", { type: "password", autocomplete: "new-password", required: "", minlength: "10" }, PASSWORD_HINT);
    const pwError = h("p", { class: "error", role: "alert", id: "password-error" });
    const pwDone = h("p", { class: "success", role: "status", id: "password-done" });
    const pwSubmit = h("button", { type: "submit", class: "btn btn-primary", id: "password-submit", text: "Change the password" });
    const pwForm = h(
      "form",
      { class: "auth-form panel", id: "password-form", novalidate: true },
      h("h2", { text: "Change the password" }),
      h("p", { class: "hint", text: "Every other place where you are logged in is logged out." }),
      current.row,
      next.row,
      pwError,
      pwDone,
      pwSubmit,
    );
    pwForm.addEventListener("submit", async (e) => {
      e.preventDefault();
      pwError.textContent = "";
      pwDone.textContent = "";
      pwSubmit.disabled = true;
      try {
        const res = await accountApi.changePassword(current.input.value, next.input.value);
        pwDone.textContent = `Your password is changed.${res.ended ? ` Logged out in ${res.ended} other place${res.ended === 1 ? "" : "s"}.` : ""}`;
        current.input.value = "";
        next.input.value = "";
      } catch (err) {
        pwError.textContent = accountErrorText(err);
      }
      pwSubmit.disabled = false;
    });
    const outError = h("p", { class: "error", role: "alert", id: "logout-error" });
    const here = h("button", { type: "button", class: "btn", id: "logout-here", text: "Log out" });
    const everywhere = h("button", { type: "button", class: "btn", id: "logout-everywhere", text: "Log out everywhere" });
    const logout = async (all: boolean) => {
      outError.textContent = "";
      try {
        await accountApi.logout(all);
        reloadTo("/");
      } catch (err) {
        outError.textContent = accountErrorText(err);
      }
    };
    here.addEventListener("click", () => void logout(false));
    everywhere.addEventListener("click", () => void logout(true));
    page.append(
      h(
        "section",
        { class: "panel" },
        h("p", {}, "Logged in as ", h("strong", { id: "account-name", text: me.name }), ` (${me.email ?? ""}). `, h("a", { href: `/u/${me.id}`, id: "account-profile", text: "Your profile" }), "."),
        h("div", { class: "actions" }, here, everywhere),
        h("p", { class: "hint", text: "“Log out everywhere” ends every session of this account, on every device." }),
        outError,
      ),
      pwForm,
      mailSettings(),
      challengeSettings(me.id),
      blockedSection(),
      apiTokensSection(),
    );
  });
  return () => undefined;
}
