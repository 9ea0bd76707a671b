// `/join/<id>/<token>`: an invitation. Who invites you, the rule set, the time per move,
// rated or casual; with an account you join at once and land in the game, seated; without
// one you log in right here and land there all the same, or sign up right here and are
// seated at once too: the invitation lets a newcomer play that one game before confirming
// the mailed link (docs/accounts.md, "Seated from an invitation").

import { accountApi, accountErrorText, isNewcomer } from "../network/account";
import { ApiError, api, joinErrorText } from "../network/api";
import { type AppContext, type Unmount, rememberReturn } from "../context";
import { clear, h } from "../dom";
import type { State } from "../network/protocol";
import { RULES } from "../board/rules";
import { durationText, withdrawnText } from "../logic/status";

/** The terms of an invitation, as the card lists them. */
export function inviteTerms(state: State): [string, string][] {
  return [
    ["Invited by", state.creator?.name ?? "a player"],
    ["Rule set", RULES[state.ruleset]?.title ?? state.ruleset],
    ["Time per move", durationText(state.move_time)],
    ["Game", `${state.rated ? "Rated" : "Casual"}${state.match ? ", a two-game match" : ""}`],
  ];
}

export function mountJoin(root: HTMLElement, ctx: AppContext, game: string, invite: string): Unmount {
  ctx.setTitle("An invitation to play");
  let gone = false;
  const message = h(
    "p",
    { class: "waiting", role: "status", id: "join-status" },
    h("span", { class: "spinner", "aria-hidden": "true" }),
    "Opening the invitation…",
  );
  const terms = h("dl", { class: "invite-terms", id: "invite-terms" });
  const title = h("h1", { id: "invite-title", text: "An invitation to play Brandubh" });
  const body = h("div", { class: "invite-body" }, message);
  const page = h("div", { class: "page page-join invite-card panel" }, title, terms, body);
  root.appendChild(page);

  function fail(err: unknown): void {
    if (gone) return;
    const text = err instanceof ApiError ? joinErrorText(err) : "The game could not be joined.";
    const canWatch = err instanceof ApiError && err.code === "game_not_waiting";
    clear(body);
    body.append(
      h("p", { class: "error", role: "alert", id: "join-error", text }),
      h(
        "p",
        {},
        canWatch ? h("a", { href: `/g/${game}`, class: "btn", text: "Watch the game" }) : null,
        " ",
        h("a", { href: "/", class: "btn btn-primary", text: "Start a game of your own" }),
      ),
    );
  }

  /** Join, then open the game; `reload` after a sign-up or login, so the socket speaks for
   *  the new session; `fresh` clears the card first. */
  function join(reload: boolean, fresh = true): void {
    if (fresh) clear(body);
    body.append(h("p", { class: "waiting", role: "status", id: "join-status" }, h("span", { class: "spinner", "aria-hidden": "true" }), "Joining the game…"));
    api
      .joinGame(game, invite)
      .then((res) => {
        if (gone) return;
        const url = res.url || `/g/${game}`;
        if (reload) window.location.assign(url);
        else ctx.navigate(url, true);
      })
      .catch(fail);
  }

  function accountForm(rated: boolean): void {
    clear(body);
    let mode: "signup" | "login" = "signup";
    const email = h("input", { type: "email", id: "invite-email", autocomplete: "email", required: true, "aria-label": "Email" });
    const password = h("input", { type: "password", id: "invite-password", autocomplete: "new-password", required: true, minlength: 10, "aria-label": "Password" });
    const name = h("input", { type: "text", id: "invite-name", autocomplete: "nickname", "aria-label": "Display name (optional)", placeholder: "optional" });
    const nameRow = h("label", { class: "field" }, "Display name ", name);
    const submit = h("button", { type: "submit", class: "btn btn-primary", id: "invite-submit", text: "Sign up and play" });
    const other = h("button", { type: "button", class: "btn", id: "invite-mode", text: "I have an account: log in" });
    const error = h("p", { class: "error", role: "alert", id: "invite-error" });
    const form = h(
      "form",
      { class: "invite-auth", id: "invite-auth" },
      h("p", { id: "invite-auth-why", text: `Playing a person needs an account: an email address and a password. Sign up here and you are at the board at once; confirm your address from the mail later to keep your account${rated ? " (the game is rated if you confirm before it ends)" : ""}.` }),
      h("label", { class: "field" }, "Email ", email),
      h("label", { class: "field" }, "Password ", password),
      nameRow,
      error,
      h("div", { class: "auth-switch" }, submit, other),
    );
    other.addEventListener("click", () => {
      mode = mode === "signup" ? "login" : "signup";
      submit.textContent = mode === "signup" ? "Sign up and play" : "Log in and play";
      other.textContent = mode === "signup" ? "I have an account: log in" : "I am new here: sign up";
      password.autocomplete = mode === "signup" ? "new-password" : "current-password";
      nameRow.hidden = mode === "login";
      error.textContent = "";
    });
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      error.textContent = "";
      submit.disabled = true;
      // Signing up here seats this browser at once (the invitation is the permission); the
      // mailed link, followed later, keeps the account. Logging in joins at once too. The
      // page loads anew, so that the socket and the header speak for the session.
      const done =
        mode === "signup"
          ? accountApi.signupToPlay(email.value.trim(), password.value, name.value.trim() || undefined, game, invite).then((sent) => {
              if (gone) return;
              rememberReturn(window.location.pathname); // the mailed link's page leads back here, then to the game
              clear(body);
              body.append(h("p", { class: "notice", role: "status", id: "invite-after-signup", text: `You can play now. We sent a link to ${sent.email}: confirm your address later to keep your account.` }));
              join(true, false);
            })
          : accountApi.login(email.value.trim(), password.value).then(() => {
              if (!gone) join(true);
            });
      done
        .catch((err: unknown) => {
          error.textContent = accountErrorText(err);
          submit.disabled = false;
        });
    });
    body.append(form);
    email.focus();
  }

  Promise.all([api.game(game), ctx.me])
    .then(([res, me]) => {
      if (gone) return;
      const state = res.state;
      clear(terms);
      for (const [k, v] of inviteTerms(state)) terms.append(h("dt", { text: k }), h("dd", { text: v }));
      title.textContent = `${state.creator?.name ?? "A player"} invites you to play`;
      if (state.withdrawn) {
        title.textContent = "This invitation was withdrawn";
        clear(body);
        body.append(
          h("p", { class: "notice", role: "status", id: "join-withdrawn", text: `${withdrawnText(state, me?.id)}. Nobody can join it now: ask them for a new invitation if you still want to play.` }),
          h("p", {}, h("a", { href: "/", class: "btn btn-primary", text: "Start a game of your own" })),
        );
        return;
      }
      const seated = Object.values(state.players ?? {}).some((p) => p && me && p.id === me.id);
      if (seated) {
        ctx.navigate(`/g/${game}`, true); // one's own game (a newcomer back from the mailed link)
        return;
      }
      if (state.status !== "waiting") {
        fail(new ApiError("game_not_waiting", "", 409));
        return;
      }
      if (me && (me as { account?: boolean }).account) join(false);
      else if (isNewcomer(me) && me.invited === game) join(false); // signed up from this card
      else accountForm(state.rated);
    })
    .catch(fail);

  return () => {
    gone = true;
  };
}
