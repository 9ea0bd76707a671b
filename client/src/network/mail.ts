// The mail flows' HTTP calls (docs/protocol.md §2.2): confirming the address, resetting
// a forgotten password, move reminders and unsubscribing.

import { ApiError, request as call } from "./api";
import { h } from "../dom";

/** `GET /api/mail`: the account's address, whether it is confirmed, reminders on. */
export interface MailStatus {
  email: string;
  verified: boolean;
  reminders: boolean;
}

/** `GET /api/verify-email/<token>`: what the link confirms, before anyone decides. */
export interface VerifyLink {
  email: string;
  /** the account's display name (null if it is gone) */
  name: string | null;
  /** whether confirming logs this browser in (it holds no other player's session) */
  logs_in: boolean;
  /** whether confirming here needs a password, which becomes the account's: everywhere
   * but in the browser that signed up (docs/accounts.md) */
  asks_password: boolean;
}

/** `POST /api/verify-email/<token>`: the address is confirmed; `logged_in` says whether
 * this browser now speaks for the account (a new session) or kept its own. */
export interface Confirmed {
  verified: true;
  email: string;
  id: string;
  name: string;
  account: true;
  logged_in: boolean;
}

export const mailApi = {
  status: () => call<MailStatus>("GET", "/api/mail"),
  resend: () => call<{ sent: true }>("POST", "/api/verify-email/resend", {}),
  checkVerify: (token: string) => call<VerifyLink>("GET", `/api/verify-email/${encodeURIComponent(token)}`),
  /** Confirms the address (setting the password, if given); logs its account in unless this
   * browser speaks for another player. */
  confirm: (token: string, password?: string) =>
    call<Confirmed>("POST", `/api/verify-email/${encodeURIComponent(token)}`, password === undefined ? {} : { password }),
  forgot: (email: string) => call<{ sent: true; message: string }>("POST", "/api/password/forgot", { email }),
  checkReset: (token: string) => call<{ email: string }>("GET", `/api/password/reset/${encodeURIComponent(token)}`),
  reset: (token: string, password: string) => call<{ ended: number }>("POST", "/api/password/reset", { token, password }),
  setReminders: (on: boolean) => call<{ reminders: boolean }>("POST", "/api/reminders", { on }),
  unsubscribe: (token: string) => call<{ reminders: false; email: string }>("POST", `/api/unsubscribe/${encodeURIComponent(token)}`),
};

/** Whether an error code is one of a mailed link's ("used", "expired", "unknown"). */
export function isTokenError(code: string): boolean {
  return code === "token_used" || code === "token_expired" || code === "token_unknown";
}

/** A "send the link again" button with its answer beside it. */
export function resendButton(): HTMLElement {
  const answer = h("span", { class: "hint", role: "status", id: "resend-answer" });
  const button = h("button", { type: "button", class: "btn btn-small", id: "resend-verification", text: "Send the link again" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    answer.textContent = "";
    try {
      await mailApi.resend();
      answer.textContent = "Sent: check your inbox.";
    } catch (err) {
      answer.textContent = err instanceof ApiError ? err.message : "Something went wrong; try again.";
    }
    button.disabled = false;
  });
  return h("span", {}, button, " ", answer);
}

