// `/leaderboard` and `/leaderboard/<ruleset>`: the opted-in players with an established
// rating, best first, one tab per rule set; refreshed every few seconds while open. People
// and bot accounts are listed apart: `?bots=1` shows the bots' own list.

import { type LeaderRow, accountApi, accountErrorText, ratingText } from "../network/account";
import "../accounts.css";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { RULES, RULESET_ORDER } from "../board/rules";
import { botTag } from "../panels/bottag";

export const REFRESH_MS = 5000;

export function mountLeaderboard(root: HTMLElement, ctx: AppContext, ruleset: string | null, bots = false): Unmount {
  const known = ruleset === null || !!RULES[ruleset];
  const current = ruleset && RULES[ruleset] ? ruleset : RULESET_ORDER[0];
  const tabs = h(
    "nav",
    { class: "tabs", "aria-label": "Rule sets" },
    ...RULESET_ORDER.map((id) =>
      h("a", { href: `/leaderboard/${id}${bots ? "?bots=1" : ""}`, class: "tab", "data-ruleset": id, "aria-current": known && id === current ? "page" : null, text: RULES[id].title }),
    ),
  );
  if (!known) {
    // Said plainly, never another rule set's board in its place (the hub answers 404).
    ctx.setTitle("Leaderboard not found");
    root.append(
      h(
        "div",
        { class: "page page-leaderboard page-missing", id: "leaderboard-missing" },
        h("h1", { text: "Leaderboard not found" }),
        h("p", { class: "error", role: "alert", text: `There is no rule set called “${ruleset}”. The leaderboards are:` }),
        tabs,
      ),
    );
    return () => undefined;
  }
  ctx.setTitle(`${bots ? "Bot leaderboard" : "Leaderboard"} · ${RULES[current].title}`);
  const kinds = h(
    "nav",
    { class: "tabs leaderboard-kinds", "aria-label": "People or bots" },
    h("a", { href: `/leaderboard/${current}`, class: "tab", id: "leaderboard-people", "aria-current": bots ? null : "page", text: "People" }),
    h("a", { href: `/leaderboard/${current}?bots=1`, class: "tab", id: "leaderboard-bots", "aria-current": bots ? "page" : null, text: "Bots" }),
  );
  let gone = false;
  const body = h("div", { class: "leaderboard", id: "leaderboard", "data-ruleset": current });
  const status = h("p", { class: "hint", id: "leaderboard-updated", "aria-live": "polite" });
  root.append(
    h(
      "div",
      { class: "page page-leaderboard" },
      h("h1", { text: bots ? "Bot leaderboard" : "Leaderboard" }),
      h("p", {
        class: "muted",
        text: bots
          ? "Bot accounts (programs playing through the Bot API) that chose to be listed, with an established rating in the rule set. People have their own list."
          : "Players who chose to be listed (on their profile page), with an established rating in the rule set. Only rated games between accounts count. Bot accounts have their own list.",
      }),
      kinds,
      tabs,
      h("section", { class: "panel" }, h("h2", { text: RULES[current].title }), body, status),
    ),
  );

  const render = (rows: LeaderRow[]) => {
    clear(body);
    if (!rows.length) {
      body.append(h("p", { class: "muted", id: "leaderboard-empty", text: bots ? "No bot is listed in this rule set yet." : "Nobody is listed in this rule set yet." }));
      return;
    }
    const tbody = h("tbody");
    for (const r of rows) {
      tbody.append(
        h(
          "tr",
          { "data-player": r.id },
          h("td", { class: "rank", text: String(r.rank) }),
          h("td", {}, h("a", { href: `/u/${r.id}`, text: r.name }), r.bot ? botTag() : ""),
          h("td", { class: "rating-value", "data-rating": String(r.rating), text: ratingText(r.rating, r.provisional) }),
          h("td", { text: String(Math.round(r.rd)) }),
          h("td", { text: String(r.games) }),
        ),
      );
    }
    body.append(
      h(
        "table",
        { class: "table" },
        h("thead", {}, h("tr", {}, h("th", { text: "#" }), h("th", { text: bots ? "Bot" : "Player" }), h("th", { text: "Rating" }), h("th", { text: "RD" }), h("th", { text: "Games" }))),
        tbody,
      ),
    );
  };

  const refresh = async () => {
    try {
      const res = await accountApi.leaderboard(current, bots);
      if (gone) return;
      render(res.players);
      status.textContent = `Updated ${new Date().toLocaleTimeString("en-GB")}; refreshed every ${REFRESH_MS / 1000} s.`;
    } catch (err) {
      if (!gone) status.textContent = accountErrorText(err);
    }
  };
  void refresh();
  const timer = window.setInterval(() => void refresh(), REFRESH_MS);
  return () => {
    gone = true;
    window.clearInterval(timer);
  };
}
