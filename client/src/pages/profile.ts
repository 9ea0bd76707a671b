// `/u/<id>`: a player's ratings per rule set (provisional ones with "?"), the rating
// history as an SVG chart, the leaderboard opt-in (own profile only), a challenge (another
// player's, for a visitor with an account) and their finished games, each with a replay,
// its record and a link to verify it.

import { ApiError } from "../network/api";
import {
  type GameSummary,
  type Me,
  type Profile,
  accountApi,
  accountErrorText,
  dateText,
  deltaText,
  opponentOf,
  outcomeFor,
  outcomeLine,
  ratingText,
} from "../network/account";
import "../accounts.css";
import { botTag } from "../panels/bottag";
import { relationButtons } from "../panels/social";
import { ratingChart } from "../panels/chart";
import { movesText } from "../board/notation";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { RULES, RULESET_ORDER } from "../board/rules";
import { durationText } from "../logic/status";
import { challengeBox, challengeLogin } from "../panels/challengeform";

function rulesetTitle(id: string): string {
  return RULES[id]?.title ?? id;
}

export function mountProfile(root: HTMLElement, ctx: AppContext, playerId: string): Unmount {
  ctx.setTitle("Player");
  let gone = false;
  const page = h("div", { class: "page page-profile", "data-player": playerId }, h("p", { class: "muted", text: "Loading…" }));
  root.append(page);

  // The visitor decides whether the profile offers a challenge: both are known first.
  let viewer: Me | null = null;
  Promise.all([accountApi.profile(playerId), ctx.me.catch(() => null)])
    .then(([profile, me]) => {
      viewer = me as Me | null;
      if (!gone) render(profile);
    })
    .catch((err: unknown) => {
      if (gone) return;
      clear(page);
      const missing = err instanceof ApiError && err.code === "not_found";
      page.append(
        h("h1", { text: missing ? "No such player" : "The profile could not be loaded" }),
        h("p", { id: "profile-error", text: missing ? `There is no player ${playerId}.` : accountErrorText(err) }),
      );
    });

  function render(profile: Profile): void {
    ctx.setTitle(profile.name);
    clear(page);
    page.append(
      h("h1", { id: "profile-name" }, profile.name, profile.bot ? botTag() : ""),
      h("p", { class: "muted", text: `Playing since ${dateText(profile.since)}.` }),
    );
    if (profile.bot) {
      page.append(h("p", { class: "muted", id: "profile-bot", text: "A bot account: a program that plays through the Bot API. It is listed on the bots' leaderboard, apart from people." }));
    }
    if (profile.me) page.append(optIn(profile));
    else {
      page.append(relationSlot(profile));
      page.append(viewer?.account ? challengeBox(ctx, profile) : challengeLogin(profile));
    }
    page.append(ratingsSection(profile), gamesSection(profile));
  }

  /** Follow and Block for an account's viewer; a line to log in for anyone else. Its room
   *  is held from the first paint (the buttons' height), so the answer moves nothing. */
  function relationSlot(profile: Profile): HTMLElement {
    const slot = h("div", { class: "relation-slot", id: "relation-slot" });
    void ctx.me.then((me) => {
      if (gone) return;
      if (me && (me as { account?: boolean }).account) slot.append(relationButtons(profile));
      else slot.append(h("p", { class: "hint", id: "relation-login" }, h("a", { href: `/login?next=/u/${encodeURIComponent(profile.id)}`, text: "Log in" }), ` to follow ${profile.name}.`));
    });
    return slot;
  }

  function optIn(profile: Profile): HTMLElement {
    const box = h("input", { type: "checkbox", id: "leaderboard-optin" });
    box.checked = profile.leaderboard;
    const status = h("span", { class: "hint", id: "leaderboard-status", role: "status" });
    box.addEventListener("change", async () => {
      box.disabled = true;
      status.textContent = "";
      try {
        const res = await accountApi.setLeaderboard(box.checked);
        box.checked = res.leaderboard;
        status.textContent = res.leaderboard ? "You are on the leaderboards (once a rating is established)." : "You are off the leaderboards.";
      } catch (err) {
        box.checked = !box.checked;
        status.textContent = accountErrorText(err);
      }
      box.disabled = false;
    });
    return h(
      "div",
      { class: "panel optin" },
      h("label", { class: "inline", for: "leaderboard-optin" }, box, " Show me on the leaderboards"),
      " ",
      status,
      h("p", { class: "hint" }, "Only established ratings are listed (not those marked “?”). ", h("a", { href: "/account", text: "Account settings" }), "."),
    );
  }

  function ratingsSection(profile: Profile): HTMLElement {
    const ids = RULESET_ORDER.filter((r) => profile.ratings[r]).concat(Object.keys(profile.ratings).filter((r) => !RULESET_ORDER.includes(r)));
    const section = h("section", { class: "panel ratings", id: "ratings", "aria-labelledby": "ratings-title" }, h("h2", { id: "ratings-title", text: "Ratings" }));
    if (!ids.length) {
      section.append(h("p", { class: "muted", id: "no-ratings", text: "No rated games yet. Ratings come from rated games against other players." }));
      return section;
    }
    const table = h(
      "table",
      { class: "table" },
      h("thead", {}, h("tr", {}, h("th", { text: "Rule set" }), h("th", { text: "Rating" }), h("th", { text: "RD" }), h("th", { text: "Rated games" }))),
    );
    const body = h("tbody");
    for (const id of ids) {
      const r = profile.ratings[id];
      body.append(
        h(
          "tr",
          { "data-ruleset": id },
          h("td", { text: rulesetTitle(id) }),
          h("td", {
            class: "rating-value",
            id: `rating-${id}`,
            "data-rating": String(r.rating),
            "data-provisional": String(r.provisional),
            title: r.provisional ? "Provisional: too few games to be sure yet" : "",
            text: ratingText(r.rating, r.provisional),
          }),
          h("td", { text: String(Math.round(r.rd)) }),
          h("td", { class: "rating-games", text: String(r.games) }),
        ),
      );
    }
    table.append(body);
    section.append(table, h("p", { class: "hint", text: "A “?” marks a provisional rating (RD of 110 or more): it moves fast until there are more games." }));

    // One chart at a time, chosen by rule set (the one with the most games first).
    const chartSlot = h("div", { class: "chart-slot", id: "rating-chart" });
    const picker = h("div", { class: "tabs", role: "group", "aria-label": "Rating history of" });
    // Drawn at the width the slot has on the screen (labels at their CSS size, never scaled
    // down on a phone): once the slot is laid out, and again when its width changes.
    let current = "";
    let drawnWidth = 0;
    const draw = () => {
      const slotWidth = chartSlot.clientWidth;
      if (!current || slotWidth === 0) return;
      const width = Math.round(Math.min(600, Math.max(280, slotWidth)));
      if (width === drawnWidth && chartSlot.dataset.ruleset === current) return;
      drawnWidth = width;
      clear(chartSlot);
      chartSlot.dataset.ruleset = current;
      chartSlot.append(ratingChart(profile.ratings[current].history, `${profile.name}'s rating history in ${rulesetTitle(current)}`, width));
    };
    const show = (id: string) => {
      current = id;
      draw();
      for (const b of picker.querySelectorAll<HTMLButtonElement>("button")) b.setAttribute("aria-pressed", String(b.dataset.ruleset === id));
    };
    if (typeof ResizeObserver === "function") new ResizeObserver(draw).observe(chartSlot);
    for (const id of ids) {
      const b = h("button", { type: "button", class: "tab", "data-ruleset": id, text: rulesetTitle(id) });
      b.addEventListener("click", () => show(id));
      picker.append(b);
    }
    section.append(h("h3", { text: "Rating history" }), picker, chartSlot);
    show(ids.reduce((a, b) => (profile.ratings[b].games > profile.ratings[a].games ? b : a)));
    return section;
  }

  function gamesSection(profile: Profile): HTMLElement {
    const list = h("ol", { class: "game-list", id: "games" });
    const more = h("button", { type: "button", class: "btn", id: "more-games", text: "Older games", hidden: true });
    const empty = h("p", { class: "muted", id: "no-games", text: "No finished games yet.", hidden: true });
    let next: number | null = 0;
    const load = async () => {
      if (next === null) return;
      more.disabled = true;
      try {
        const res = await accountApi.games(profile.id, next);
        if (gone) return;
        for (const g of res.games) list.append(gameItem(g, profile.id));
        next = res.next;
        empty.hidden = list.children.length > 0;
      } catch (err) {
        list.append(h("li", { class: "error", text: accountErrorText(err) }));
      }
      more.hidden = next === null;
      more.disabled = false;
    };
    more.addEventListener("click", () => void load());
    void load();
    return h("section", { class: "panel", "aria-labelledby": "games-title" }, h("h2", { id: "games-title", text: "Games" }), empty, list, more);
  }

  return () => {
    gone = true;
  };
}

function gameItem(g: GameSummary, playerId: string): HTMLElement {
  const opp = opponentOf(g, playerId);
  const { outcome } = outcomeFor(g, playerId);
  const change = g.ratings?.[playerId];
  const oppEl = !opp ? h("span", { text: "—" }) : opp.id === "bot" ? h("span", { text: `the bot (level ${g.bot_level ?? 1})` }) : h("a", { href: `/u/${opp.id}`, text: opp.name });
  return h(
    "li",
    { class: `game-item outcome-${outcome}`, "data-game": g.id, "data-outcome": outcome },
    h(
      "div",
      { class: "game-head" },
      h("strong", { class: "game-outcome", text: outcomeLine(g, playerId) }),
      change ? h("span", { class: "rating-change", "data-change": deltaText(change.before, change.after), text: ` ${deltaText(change.before, change.after)} → ${ratingText(change.after, change.provisional)}` }) : null,
    ),
    h(
      "p",
      { class: "muted game-meta" },
      "against ",
      oppEl,
      ` · ${RULES[g.ruleset]?.title ?? g.ruleset} · ${durationText(g.move_time)} a move · ${movesText(g.plies)} · ${g.rated ? "rated" : "casual"} · ${dateText(g.ended || g.created)}`,
    ),
    h(
      "p",
      { class: "game-links" },
      h("a", { href: `/replay/${g.id}`, class: "btn btn-small replay-link", text: "Replay" }),
      " ",
      h("a", { href: `/api/games/${g.id}/record`, class: "btn btn-small", download: `brandubh-${g.id}.txt`, text: "Record" }),
      " ",
      h("a", { href: `/verify?game=${g.id}`, class: "btn btn-small", text: "Verify" }),
    ),
  );
}
