// `/forgot-password` asks for a reset link; `/reset-password/<token>` (the mail's link)
// sets a new password. The first answers the same whatever the address; a used, expired
// or unknown link says which and offers a new one.

import { ApiError } from "../network/api";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { isTokenError, mailApi } from "../network/mail";

function errorText(err: unknown): string {
  if (!(err instanceof ApiError)) return "Something went wrong; try again.";
  return err.message.charAt(0).toUpperCase() + err.message.slice(1) + ".";
}

function input(id: string, label: string, attrs: Record<string, string>): { row: HTMLElement; input: HTMLInputElement } {
  const el = h("input", { id, name: id, ...attrs });
  return { row: h("div", { class: "field" }, h("label", { for: id, text: label }), el), input: el };
}

export function mountForgotPassword(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Forgot your password");
  const email = input("forgot-email", "Email address", { type: "email", autocomplete: "email", required: "" });
  const answer = h("p", { role: "status", id: "forgot-answer" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "forgot-submit", text: "Mail me a link" });
  const form = h("form", { class: "auth-form panel", id: "forgot-form", novalidate: true }, email.row, answer, submit);
  root.append(
    h(
      "div",
      { class: "page page-auth" },
      h("h1", { text: "Forgot your password" }),
      h("p", { text: "We mail a link to set a new one. It works once, for 30 minutes." }),
      form,
    ),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    answer.className = "";
    try {
      const res = await mailApi.forgot(email.input.value);
      answer.textContent = res.message.charAt(0).toUpperCase() + res.message.slice(1) + ".";
      answer.className = "success";
    } catch (err) {
      answer.textContent = errorText(err);
      answer.className = "error";
    }
    submit.disabled = false;
  });
  return () => undefined;
}

export function mountResetPassword(root: HTMLElement, ctx: AppContext, token: string): Unmount {
  ctx.setTitle("Set a new password");
  const status = h("p", { role: "status", id: "reset-status", text: "Checking the link…" });
  const page = h("div", { class: "page page-auth" }, h("h1", { text: "Set a new password" }), status);
  root.append(page);
  const again = () => page.append(h("p", { id: "reset-again" }, h("a", { href: "/forgot-password", text: "Ask for a new link" }), "."));
  void mailApi.checkReset(token).then(
    (holder) => {
      status.textContent = `For ${holder.email}. Every place where this account is logged in is logged out.`;
      const password = input("reset-password", "New password", { type: "password", autocomplete: "new-password", required: "", minlength: "10" });
      const error = h("p", { class: "error", role: "alert", id: "reset-error" });
      const submit = h("button", { type: "submit", class: "btn btn-primary", id: "reset-submit", text: "Set the password" });
      const form = h(
        "form",
        { class: "auth-form panel", id: "reset-form", novalidate: true },
        password.row,
        h("p", { class: "hint", text: "At least 10 characters, not one of the most common passwords." }),
        error,
        submit,
      );
      page.append(form);
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        error.textContent = "";
        submit.disabled = true;
        try {
          await mailApi.reset(token, password.input.value);
          form.remove();
          status.textContent = "Your new password is set.";
          status.dataset.state = "ok";
          page.append(h("p", {}, h("a", { href: "/login", class: "btn btn-primary", id: "reset-login", text: "Log in" })));
        } catch (err) {
          error.textContent = errorText(err);
          submit.disabled = false;
          if (err instanceof ApiError && isTokenError(err.code)) {
            form.remove();
            status.textContent = errorText(err);
            again();
          }
        }
      });
    },
    (err) => {
      status.textContent = errorText(err);
      status.dataset.state = err instanceof ApiError ? err.code : "error";
      again();
    },
  );
  return () => undefined;
}
