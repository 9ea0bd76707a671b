// `/leaderboard` and `/leaderboard/<ruleset>`: the opted-in players with an established
// rating, best first, one tab per rule set; refreshed every few seconds while open.

import { type LeaderRow, accountApi, accountErrorText, ratingText } from "../network/account";
import "../accounts.css";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { RULES, RULESET_ORDER } from "../board/rules";

export const REFRESH_MS = 5000;

export function mountLeaderboard(root: HTMLElement, ctx: AppContext, ruleset: string | null): Unmount {
  const known = ruleset === null || !!RULES[ruleset];
  const current = ruleset && RULES[ruleset] ? ruleset : RULESET_ORDER[0];
  const tabs = h(
    "nav",
    { class: "tabs", "aria-label": "Rule sets" },
    ...RULESET_ORDER.map((id) =>
      h("a", { href: `/leaderboard/${id}`, class: "tab", "data-ruleset": id, "aria-current": known && id === current ? "page" : null, text: RULES[id].title }),
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
  ctx.setTitle(`Leaderboard · ${RULES[current].title}`);
  let gone = false;
  const body = h("div", { class: "leaderboard", id: "leaderboard", "data-ruleset": current });
  const status = h("p", { class: "hint", id: "leaderboard-updated", "aria-live": "polite" });
  root.append(
    h(
      "div",
      { class: "page page-leaderboard" },
      h("h1", { text: "Leaderboard" }),
      h("p", { class: "muted", text: "Players who chose to be listed (on their profile page), with an established rating in the rule set. Only rated games between accounts count." }),
      tabs,
      h("section", { class: "panel" }, h("h2", { text: RULES[current].title }), body, status),
    ),
  );

  const render = (rows: LeaderRow[]) => {
    clear(body);
    if (!rows.length) {
      body.append(h("p", { class: "muted", id: "leaderboard-empty", text: "Nobody is listed in this rule set yet." }));
      return;
    }
    const tbody = h("tbody");
    for (const r of rows) {
      tbody.append(
        h(
          "tr",
          { "data-player": r.id },
          h("td", { class: "rank", text: String(r.rank) }),
          h("td", {}, h("a", { href: `/u/${r.id}`, text: r.name })),
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
        h("thead", {}, h("tr", {}, h("th", { text: "#" }), h("th", { text: "Player" }), h("th", { text: "Rating" }), h("th", { text: "RD" }), h("th", { text: "Games" }))),
        tbody,
      ),
    );
  };

  const refresh = async () => {
    try {
      const res = await accountApi.leaderboard(current);
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
