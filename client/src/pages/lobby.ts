// `/lobby`: find an opponent. Quick pairing (rule set and a live time: the server pairs you
// with a waiting player of close rating), the open seeks (accept one with one click, or
// cancel yours), a form to open a seek, and the games in progress. Both players are taken to
// the game the moment they are paired (pairing.ts).

import { confirmFirst, isNewcomer } from "../network/account";
import type { RulesetInfo } from "../network/api";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import {
  MAX_SEEKS,
  QUICK_TIMES,
  SEEK_TIMES,
  durationWords,
  isMine,
  kindText,
  lobbyErrorText,
  needsAccount,
  quickWindow,
  ratingText,
  rulesetName,
  seekKind,
  seekLabel,
  splitMine,
  timeControlText,
  waitingText,
  type Seek,
} from "../logic/lobby";
import { lobbyFeed, type LobbyReply } from "../network/lobbyfeed";
import { RULES, RULESET_ORDER } from "../board/rules";
import { gamesPanel } from "./watch";

const DEFAULT_SEEK_TIME = 600;
const DEFAULT_QUICK_TIME = 180;

function fallbackRulesets(): RulesetInfo[] {
  return RULESET_ORDER.map((id) => ({ id, title: RULES[id].title, summary: RULES[id].intro }));
}

function rulesetSelect(id: string, label: string): HTMLSelectElement {
  const select = h("select", { id, name: "ruleset", "aria-label": label });
  for (const rs of fallbackRulesets()) {
    const opt = h("option", { value: rs.id, text: rs.title });
    if (rs.id === "nielsen") opt.selected = true;
    select.appendChild(opt);
  }
  return select;
}

function fillRulesets(select: HTMLSelectElement, sets: RulesetInfo[]): void {
  const current = select.value;
  clear(select);
  for (const rs of sets) {
    const opt = h("option", { value: rs.id, text: rs.title });
    if (rs.id === current) opt.selected = true;
    select.appendChild(opt);
  }
}

function timeChips(name: string, times: number[], checked: number, idPrefix: string): HTMLElement {
  return h(
    "div",
    { class: "chips", role: "radiogroup", "aria-label": "Time for each move" },
    ...times.map((s) => {
      const input = h("input", { type: "radio", name, value: String(s), id: `${idPrefix}-${s}` });
      input.checked = s === checked;
      return h("label", { class: "chip" }, input, h("span", { text: durationWords(s) }));
    }),
  );
}

/** Links to sign up or log in, coming back to the lobby. */
function accountLinks(idPrefix: string): (Node | string)[] {
  return [
    h("a", { href: "/signup?next=/lobby", class: "account-link", id: `${idPrefix}-signup`, text: "Sign up" }),
    " (free, a moment) or ",
    h("a", { href: "/login?next=/lobby", class: "account-link", id: `${idPrefix}-login`, text: "log in" }),
  ];
}

/** A message for people, with a way to an account when that is what is missing. */
function problem(el: HTMLElement, code: string, message: string): void {
  clear(el);
  el.dataset.code = code;
  if (needsAccount(code)) {
    el.classList.add("needs-account");
    el.append(
      "Games against people need an account. ",
      ...accountLinks(el.id),
      " to play them. Without one you can still ",
      h("a", { href: "/", text: "play the bot" }),
      " and watch games.",
    );
    return;
  }
  el.classList.remove("needs-account");
  el.append(lobbyErrorText(code, message));
}

function clearProblem(el: HTMLElement): void {
  clear(el);
  el.classList.remove("needs-account");
  delete el.dataset.code;
}

export function mountLobby(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Lobby");
  const feed = lobbyFeed(ctx.live);
  const unfollow = feed.follow();
  const stops: (() => void)[] = [unfollow];
  let unmounted = false;

  // -- quick pairing ----------------------------------------------------------------------

  const quickRuleset = rulesetSelect("quick-ruleset", "Rule set for quick pairing");
  const quickTimes = timeChips("quick_time", QUICK_TIMES, DEFAULT_QUICK_TIME, "quick-time");
  const quickFind = h("button", { type: "submit", class: "btn btn-primary", id: "quick-find", text: "Find opponent" });
  const quickCancel = h("button", { type: "button", class: "btn", id: "quick-cancel", text: "Cancel" });
  const quickStatus = h("span", { class: "quick-status", id: "quick-status", role: "status" });
  const quickDetail = h("p", { class: "hint", id: "quick-detail" });
  const quickError = h("p", { class: "error", role: "alert", id: "quick-error" });
  const quickWaiting = h(
    "div",
    { class: "quick-waiting", id: "quick-waiting", hidden: true },
    h("div", { class: "quick-waiting-row" }, h("span", { class: "spinner", "aria-hidden": "true" }), quickStatus, quickCancel),
    quickDetail,
  );
  const quickForm = h(
    "form",
    { class: "quick-form", id: "quick-form" },
    h("div", { class: "field" }, h("label", { for: "quick-ruleset", class: "field-name", text: "Rule set" }), quickRuleset),
    h("div", { class: "field" }, h("span", { class: "field-name", text: "Time for each move" }), quickTimes),
    h("div", { class: "form-actions" }, quickFind),
  );
  const quickPanel = h(
    "section",
    { class: "panel lobby-quick", "aria-labelledby": "quick-h" },
    h("h2", { id: "quick-h", text: "Quick pairing" }),
    h("p", {
      class: "muted panel-lead",
      text: "Pick a rule set and a time, and the server pairs you with the next player waiting for the same, of a rating close to yours. Live games only.",
    }),
    quickForm,
    quickWaiting,
    quickError,
  );

  quickForm.addEventListener("submit", (e) => {
    e.preventDefault();
    clearProblem(quickError);
    const moveTime = Number(new FormData(quickForm).get("quick_time") ?? DEFAULT_QUICK_TIME);
    void feed.startQuick(quickRuleset.value, moveTime).then((reply) => {
      if (!reply.ok && reply.code !== "cancelled") problem(quickError, reply.code, reply.message);
    });
    renderQuick();
    quickCancel.focus();
  });
  quickCancel.addEventListener("click", () => {
    void feed.cancelQuick();
    renderQuick();
    quickFind.focus();
  });

  function renderQuick(): void {
    const q = feed.quick;
    quickWaiting.hidden = !q;
    quickForm.hidden = !!q;
    if (!q) return;
    const secs = feed.quickSeconds();
    quickStatus.textContent = waitingText(secs);
    quickDetail.textContent = `${rulesetName(q.ruleset)}, ${timeControlText(q.move_time)}. Looking for a player rated within ±${quickWindow(secs)} of you (the range widens while you wait). Keep this page open; leaving it stops the search.`;
  }
  const ticker = setInterval(() => {
    if (feed.quick) renderQuick();
  }, 250);
  // From the home page's "Quick pairing": start the search at once with its terms.
  const asked = new URLSearchParams(location.search);
  const askedRuleset = asked.get("quick");
  if (askedRuleset && !feed.quick) {
    quickRuleset.value = askedRuleset;
    const chip = quickForm.querySelector<HTMLInputElement>(`#quick-time-${Number(asked.get("time") ?? DEFAULT_QUICK_TIME)}`);
    if (chip) chip.checked = true;
    history.replaceState(null, "", "/lobby");
    const go = () => quickForm.requestSubmit();
    if (ctx.live.isOpen) queueMicrotask(go);
    else {
      const off = ctx.live.subscribe((c) => {
        if (c.type === "hello") {
          off();
          go();
        }
      });
      stops.push(off);
    }
  }
  stops.push(() => clearInterval(ticker));

  // -- open a seek ----------------------------------------------------------------------

  const seekRuleset = rulesetSelect("seek-ruleset", "Rule set of the seek");
  const seekTimes = timeChips("seek_time", SEEK_TIMES, DEFAULT_SEEK_TIME, "seek-time");
  const rated = h("input", { type: "radio", name: "rated", value: "rated", id: "seek-rated" });
  const casual = h("input", { type: "radio", name: "rated", value: "casual", id: "seek-casual" });
  rated.checked = true;
  const match = h("input", { type: "checkbox", name: "match", id: "seek-match" });
  const seekOpen = h("button", { type: "submit", class: "btn btn-primary", id: "seek-open", text: "Open seek" });
  const seekError = h("p", { class: "error", role: "alert", id: "seek-error" });
  const seekDone = h("p", { class: "done", role: "status", id: "seek-done" });
  const seekKindHint = h("p", { class: "hint", id: "seek-kind-hint" });
  const seekForm = h(
    "form",
    { class: "seek-form", id: "seek-form" },
    h("div", { class: "field" }, h("label", { for: "seek-ruleset", class: "field-name", text: "Rule set" }), seekRuleset),
    h("div", { class: "field" }, h("span", { class: "field-name", text: "Time for each move" }), seekTimes, seekKindHint),
    h(
      "div",
      { class: "field" },
      h("span", { class: "field-name", text: "Game" }),
      h(
        "div",
        { class: "chips", role: "radiogroup", "aria-label": "Rated or casual" },
        h("label", { class: "chip" }, rated, h("span", { text: "Rated" })),
        h("label", { class: "chip" }, casual, h("span", { text: "Casual" })),
      ),
      h("label", { class: "check", for: "seek-match" }, match, "Two-game match"),
      h("p", { class: "hint check-hint", text: "Two games against the same opponent, sides swapped in the second." }),
    ),
    h("div", { class: "form-actions" }, seekOpen),
  );
  const seekPanel = h(
    "section",
    { class: "panel lobby-seek", "aria-labelledby": "seek-h" },
    h("h2", { id: "seek-h", text: "Open a seek" }),
    h("p", { class: "muted panel-lead", text: "Say what game you want; it is listed for everyone until someone accepts it." }),
    seekForm,
    seekError,
    seekDone,
  );

  function renderKindHint(): void {
    const moveTime = Number(new FormData(seekForm).get("seek_time") ?? DEFAULT_SEEK_TIME);
    seekKindHint.textContent =
      seekKind({ move_time: moveTime }) === "live"
        ? "Live: stays open while this site is open in your browser."
        : "Correspondence: stays open until someone takes it or you cancel it, even when you leave.";
  }
  seekForm.addEventListener("change", renderKindHint);
  renderKindHint();

  seekForm.addEventListener("submit", (e) => {
    e.preventDefault();
    clearProblem(seekError);
    seekDone.textContent = "";
    const data = new FormData(seekForm);
    const moveTime = Number(data.get("seek_time") ?? DEFAULT_SEEK_TIME);
    seekOpen.disabled = true;
    void feed
      .openSeek({ ruleset: seekRuleset.value, move_time: moveTime, rated: rated.checked, match: match.checked })
      .then((reply) => {
        if (unmounted) return;
        seekOpen.disabled = false;
        if (!reply.ok) {
          problem(seekError, reply.code, reply.message);
          return;
        }
        seekDone.textContent =
          seekKind({ move_time: moveTime }) === "live"
            ? "Your seek is open (marked “yours” in the list). When someone accepts it, the game opens here at once."
            : "Your seek is open (marked “yours” in the list). When someone accepts it, the game starts; you can leave and come back.";
      });
  });

  // -- the open seeks -------------------------------------------------------------------

  const seekList = h("ul", { class: "seek-list", id: "seek-list", "aria-live": "polite" });
  const seekEmpty = h("p", { class: "muted empty", id: "seek-empty" });
  const listError = h("p", { class: "error", role: "alert", id: "list-error" });
  const listPanel = h(
    "section",
    { class: "panel lobby-seeks", "aria-labelledby": "seeks-h" },
    h("h2", { id: "seeks-h", text: "Open seeks" }),
    h("p", { class: "muted panel-lead", text: "Games people are waiting to play. Accept one and it starts at once, for both of you." }),
    listError,
    seekList,
    seekEmpty,
  );

  async function answer(reply: Promise<LobbyReply>, button: HTMLButtonElement): Promise<LobbyReply> {
    button.disabled = true;
    const r = await reply;
    if (!unmounted) button.disabled = false;
    return r;
  }

  function seekRow(seek: Seek, me: string | null): HTMLElement {
    const mine = isMine(seek, me);
    const kind = seekKind(seek);
    let action: HTMLButtonElement;
    if (mine) {
      action = h("button", { type: "button", class: "btn btn-small btn-danger-quiet cancel-seek", text: "Cancel", "aria-label": `Cancel your seek: ${seekLabel(seek, me)}` });
      action.addEventListener("click", async () => {
        clearProblem(listError);
        const r = await answer(feed.cancelSeek(seek.id), action);
        if (!r.ok && !unmounted) problem(listError, r.code, r.message);
      });
    } else {
      action = h("button", { type: "button", class: "btn btn-small btn-primary accept-seek", text: "Accept", "aria-label": `Accept and play: ${seekLabel(seek, me)}` });
      action.addEventListener("click", async () => {
        clearProblem(listError);
        const r = await answer(feed.acceptSeek(seek.id), action);
        if (unmounted) return;
        if (!r.ok) problem(listError, r.code, r.message);
        else if (r.game && location.pathname !== `/g/${r.game}`) ctx.navigate(`/g/${r.game}`);
      });
    }
    return h(
      "li",
      {
        class: `seek${mine ? " seek-mine" : ""}`,
        "data-seek": seek.id,
        "data-mine": mine ? "true" : "false",
        "data-kind": kind,
      },
      h(
        "span",
        { class: "seek-who" },
        h("span", { class: "seek-name", text: mine ? "You" : seek.player.name }),
        h("span", { class: "rating", title: seek.provisional ? "provisional rating: few games played yet" : "rating", text: ratingText(seek.rating, seek.provisional) }),
        mine ? h("span", { class: "tag tag-mine", text: "yours" }) : null,
      ),
      h(
        "span",
        { class: "seek-terms" },
        h("span", { class: "tag", text: rulesetName(seek.ruleset) }),
        h("span", { class: "seek-time", text: timeControlText(seek.move_time) }),
        h("span", { class: `tag ${seek.rated ? "tag-rated" : ""}`, text: seek.rated ? "Rated" : "Casual" }),
        h("span", { class: "tag", text: seek.match ? "Two-game match" : "One game" }),
        h("span", { class: `tag tag-${kind}`, text: kindText(kind) }),
      ),
      h("span", { class: "seek-action" }, action),
    );
  }

  function renderSeeks(): void {
    const me = feed.me;
    const seeks = feed.seeks.list();
    const { mine } = splitMine(seeks, me);
    clear(seekList);
    for (const s of seeks) seekList.appendChild(seekRow(s, me));
    seekList.dataset.count = String(seeks.length);
    seekEmpty.hidden = seeks.length > 0;
    seekEmpty.textContent = feed.seeks.synced || seeks.length
      ? "No open seeks right now. Open one, or use quick pairing to be paired as soon as someone else is looking."
      : "Loading the open seeks…";
    seekOpen.disabled = mine.length >= MAX_SEEKS;
    seekOpen.title = mine.length >= MAX_SEEKS ? `At most ${MAX_SEEKS} open seeks: cancel one first` : "";
  }

  // -- games in progress -------------------------------------------------------------------

  const games = gamesPanel(feed, { limit: 5, id: "lobby-games" });
  stops.push(games.stop);
  const gamesSection = h(
    "section",
    { class: "panel lobby-games", "aria-labelledby": "games-h" },
    h("h2", { id: "games-h", text: "Games in progress" }),
    games.el,
  );

  // -- how it works -------------------------------------------------------------------------

  const explain = h(
    "section",
    { class: "panel lobby-help", "aria-labelledby": "help-h" },
    h("h2", { id: "help-h", text: "How it works" }),
    h(
      "dl",
      { class: "defs" },
      h("dt", { text: "Seek" }),
      h("dd", { text: "An open invitation to a game on your terms: rule set, time per move, rated or casual, one game or a two-game match. Anyone may accept it; you cannot pick who." }),
      h("dt", { text: "Quick pairing" }),
      h("dd", { text: "No list to read: say what you want to play and wait a few seconds. You are paired with someone waiting for the same game, as close to your rating as possible." }),
      h("dt", { text: "Live or correspondence" }),
      h("dd", { text: "Live games give under an hour per move: play them in one sitting. Correspondence games give an hour to a week per move: come back to make each move. A live seek closes when you close the site." }),
      h("dt", { text: "Rated or casual" }),
      h("dd", { text: "A rated game changes both players' ratings; a casual one does not. A rating with “?” is provisional: its player has played few rated games yet." }),
    ),
  );

  // -- connection ----------------------------------------------------------------------------

  const guest = h("p", { class: "notice guest-note", id: "lobby-guest", hidden: true });
  void ctx.me.then((me) => {
    // `account` (GET /api/me) is false for a guest; a server without accounts leaves it out.
    if (unmounted || !me || (me as { account?: boolean }).account !== false) return;
    if (isNewcomer(me)) guest.append(confirmFirst(me.pending));
    else guest.append("You are playing as a guest. Games against people need an account: ", ...accountLinks("guest"), ". You can watch games and ", h("a", { href: "/", text: "play the bot" }), " without one.");
    guest.hidden = false;
  });

  const offline = h("p", { class: "notice notice-warn", id: "lobby-offline", role: "status", hidden: true, text: "You are offline. The lists will be brought up to date when the connection is back." });

  root.append(
    h(
      "div",
      { class: "page page-lobby" },
      h(
        "div",
        { class: "lobby-head" },
        h("h1", { text: "Lobby" }),
        h("p", { class: "lead muted", text: "Find a person to play: be paired at once, accept someone’s seek, or open your own. Prefer to practise first? " }, h("a", { href: "/", text: "Play the bot" }), "."),
      ),
      offline,
      guest,
      h("div", { class: "lobby-grid" }, h("div", { class: "lobby-col" }, quickPanel, listPanel, gamesSection), h("div", { class: "lobby-col" }, seekPanel, explain)),
    ),
  );

  function renderConnection(): void {
    offline.hidden = feed.isOpen || ctx.live.connection === "connecting";
  }

  stops.push(
    feed.subscribe((c) => {
      if (c.type === "seeks") renderSeeks();
      else if (c.type === "quick") renderQuick();
      else if (c.type === "connection") {
        renderConnection();
        renderSeeks();
      }
    }),
  );

  ctx
    .rulesets()
    .then((sets) => {
      if (unmounted || sets.length === 0) return;
      fillRulesets(quickRuleset, sets);
      fillRulesets(seekRuleset, sets);
    })
    .catch(() => undefined);

  renderSeeks();
  renderQuick();
  renderConnection();

  return () => {
    unmounted = true;
    // Quick pairing waits on this page only; seeks stay open (a live one until the site closes).
    if (feed.quick) void feed.cancelQuick();
    for (const stop of stops) stop();
  };
}
