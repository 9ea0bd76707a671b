// Follows and blocks in the site (docs/client.md): the profile's Follow and Block buttons
// (a block asked for once more, with what it does in words), the home page's "Following"
// list (online players first, each game one click from watching) and the account page's
// list of blocked players with Unblock.

import { accountErrorText, dateText } from "../network/account";
import { type Blocked, type Followed, gameLine, presenceText, shownOnHome, socialApi } from "../network/social";
import { botTag } from "./bottag";
import { clear, h } from "../dom";
import "./social.css";

/** What a block does, said before it is made. */
export const BLOCK_WORDS =
  "They will not be able to challenge you or follow you, you will not see their chat lines, quick pairing never pairs you together and neither of you can take the other's seek. They are not told. You can unblock them from your account page.";

/** The profile's buttons: Follow / Unfollow, and Block (confirmed in place) / Unblock. */
export function relationButtons(player: { id: string; name: string; following: boolean; blocking: boolean }): HTMLElement {
  let following = player.following;
  let blocking = player.blocking;
  const follow = h("button", { type: "button", class: "btn btn-primary", id: "follow-toggle" });
  const block = h("button", { type: "button", class: "btn btn-danger-quiet", id: "block-toggle" });
  const status = h("p", { class: "hint", id: "relation-status", role: "status" });
  const confirm = h("div", { class: "panel confirm-block", id: "block-confirm", hidden: true });
  const show = () => {
    follow.textContent = following ? "Unfollow" : "Follow";
    follow.className = following ? "btn" : "btn btn-primary";
    follow.setAttribute("aria-pressed", String(following));
    follow.hidden = blocking;
    block.textContent = blocking ? "Unblock" : "Block";
  };
  show();
  follow.addEventListener("click", async () => {
    follow.disabled = true;
    status.textContent = "";
    try {
      following = (following ? await socialApi.unfollow(player.id) : await socialApi.follow(player.id)).following;
      status.textContent = following ? `You follow ${player.name}: the home page shows when they are online and what they play.` : `You no longer follow ${player.name}.`;
    } catch (err) {
      status.textContent = accountErrorText(err);
    }
    follow.disabled = false;
    show();
  });
  const doBlock = h("button", { type: "button", class: "btn btn-danger", id: "block-yes", text: `Block ${player.name}` });
  const keep = h("button", { type: "button", class: "btn", id: "block-no", text: "Cancel" });
  confirm.append(h("p", { text: `Block ${player.name}? ${BLOCK_WORDS}` }), h("div", { class: "relation-actions" }, doBlock, keep));
  keep.addEventListener("click", () => {
    confirm.hidden = true;
    block.focus();
  });
  doBlock.addEventListener("click", async () => {
    doBlock.disabled = true;
    try {
      blocking = (await socialApi.block(player.id)).blocking;
      following = false; // a block ends any follow between the two
      status.textContent = `You block ${player.name}.`;
      confirm.hidden = true;
    } catch (err) {
      status.textContent = accountErrorText(err);
    }
    doBlock.disabled = false;
    show();
  });
  block.addEventListener("click", async () => {
    status.textContent = "";
    if (!blocking) {
      confirm.hidden = false;
      doBlock.focus();
      return;
    }
    block.disabled = true;
    try {
      blocking = (await socialApi.unblock(player.id)).blocking;
      status.textContent = `You no longer block ${player.name}.`;
    } catch (err) {
      status.textContent = accountErrorText(err);
    }
    block.disabled = false;
    show();
  });
  return h("div", { class: "relation", id: "relation" }, h("div", { class: "relation-actions" }, follow, block), confirm, status);
}

/** The home page's "Following" panel: those online or playing, each game with Watch;
 *  null when none of the players followed is online or playing. */
export function followingPanel(list: Followed[]): HTMLElement | null {
  const shown = shownOnHome(list);
  if (!shown.length) return null;
  const items = shown.map((f) =>
    h(
      "li",
      { class: "followed", "data-player": f.id, "data-online": String(f.online) },
      h(
        "div",
        { class: "followed-head" },
        h("span", { class: f.online ? "dot dot-on" : "dot", "aria-hidden": "true" }),
        h("a", { href: `/u/${encodeURIComponent(f.id)}`, class: "followed-name", text: f.name }),
        f.bot ? botTag() : "",
        h("span", { class: "muted", text: ` — ${presenceText(f)}` }),
      ),
      f.games.length
        ? h(
            "ul",
            { class: "followed-games" },
            ...f.games.map((g) =>
              h(
                "li",
                { "data-game": g.id },
                h("a", { href: g.url, class: "btn btn-small watch-link", text: "Watch" }),
                " ",
                h("span", { class: "muted", text: gameLine(g) }),
              ),
            ),
          )
        : null,
    ),
  );
  return h(
    "section",
    { class: "panel home-following", id: "home-following", "aria-labelledby": "home-following-title" },
    h("h2", { id: "home-following-title", text: "Following" }),
    h("ul", { class: "followed-list" }, ...items),
  );
}

/** The account page's "Blocked players" section: each with Unblock. */
export function blockedSection(): HTMLElement {
  const list = h("ul", { class: "blocked-list", id: "blocked-list" });
  const empty = h("p", { class: "muted", id: "blocked-none", text: "You block nobody.", hidden: true });
  const error = h("p", { class: "error", role: "alert", id: "blocked-error" });
  const row = (b: Blocked): HTMLElement => {
    const undo = h("button", { type: "button", class: "btn btn-small", text: "Unblock", "aria-label": `Unblock ${b.name}` });
    const li = h("li", { "data-player": b.id }, h("a", { href: `/u/${encodeURIComponent(b.id)}`, text: b.name }), b.bot ? botTag() : "", h("span", { class: "muted", text: ` since ${dateText(b.since)} ` }), undo);
    undo.addEventListener("click", async () => {
      undo.disabled = true;
      error.textContent = "";
      try {
        await socialApi.unblock(b.id);
        li.remove();
        empty.hidden = list.children.length > 0;
      } catch (err) {
        error.textContent = accountErrorText(err);
        undo.disabled = false;
      }
    });
    return li;
  };
  void socialApi
    .blocking()
    .then((res) => {
      clear(list);
      for (const b of res.blocking) list.append(row(b));
      empty.hidden = res.blocking.length > 0;
    })
    .catch((err: unknown) => {
      error.textContent = accountErrorText(err);
    });
  return h(
    "section",
    { class: "panel", id: "blocked", "aria-labelledby": "blocked-title" },
    h("h2", { id: "blocked-title", text: "Blocked players" }),
    h("p", { class: "hint", text: "A blocked player cannot challenge you, you do not see their chat lines, and you are never paired together. Block someone from their profile." }),
    empty,
    list,
    error,
  );
}
