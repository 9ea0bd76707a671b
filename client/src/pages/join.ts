// `/join/<id>/<token>`: join a friend's game, then open it; errors in words.

import { ApiError, api, joinErrorText } from "../api";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";

export function mountJoin(root: HTMLElement, ctx: AppContext, game: string, invite: string): Unmount {
  ctx.setTitle("Joining a game");
  let gone = false;
  const message = h(
    "p",
    { class: "waiting", role: "status", id: "join-status" },
    h("span", { class: "spinner", "aria-hidden": "true" }),
    "Joining the game…",
  );
  const page = h("div", { class: "page page-join" }, h("h1", { text: "Join a game" }), message);
  root.appendChild(page);

  api
    .joinGame(game, invite)
    .then((res) => {
      if (!gone) ctx.navigate(res.url || `/g/${game}`, true);
    })
    .catch((err: unknown) => {
      if (gone) return;
      const text = err instanceof ApiError ? joinErrorText(err) : "The game could not be joined.";
      const canWatch = err instanceof ApiError && err.code === "game_not_waiting";
      const needsAccount = err instanceof ApiError && err.code === "account_required";
      const back = encodeURIComponent(window.location.pathname);
      message.replaceWith(
        h(
          "div",
          { class: "panel" },
          h("p", { class: "error", role: "alert", id: "join-error", text }),
          h(
            "p",
            {},
            canWatch ? h("a", { href: `/g/${game}`, class: "btn", text: "Watch the game" }) : null,
            needsAccount ? h("a", { href: `/signup?next=${back}`, class: "btn btn-primary", id: "join-signup", text: "Sign up" }) : null,
            needsAccount ? " " : null,
            needsAccount ? h("a", { href: `/login?next=${back}`, class: "btn", id: "join-login", text: "Log in" }) : null,
            " ",
            h("a", { href: "/", class: "btn btn-primary", text: "Start a game of your own" }),
          ),
        ),
      );
    });
  return () => {
    gone = true;
  };
}
