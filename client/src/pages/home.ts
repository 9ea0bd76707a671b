// `/`: three ways to play at the top — the bot, a friend, quick pairing — with good
// defaults (Nielsen rules, three minutes a move); the rule set and the time below them,
// the rule sets folded away with one plain sentence each; a board beside them. Below: your
// games, the tournaments and games to watch (panels/homesections.ts), then the puzzle of the
// day (panels/dailypuzzle.ts) and three short panels.

import { confirmFirst, isNewcomer } from "../network/account";
import { ApiError, api, request, type RulesetInfo } from "../network/api";
import { Board } from "../board/board";
import { type AppContext, type Unmount, rememberInvite } from "../context";
import { clear, h } from "../dom";
import { invitePanel } from "../panels/invite";
import { LIVE_UNDER_S } from "../logic/lobby";
import { START_POSITION, parsePosition } from "../board/notation";
import { RULES, RULESET_ORDER } from "../board/rules";
import { homeSections } from "../panels/homesections";
import { dailyPuzzleCard } from "../panels/dailypuzzle";
import { durationText } from "../logic/status";

const BOT_LEVEL_NAMES = ["beginner", "casual player", "improver", "club player", "strong club player"];

export const MOVE_TIMES = [60, 180, 600, 3600, 86_400, 259_200, 604_800];
/** Short enough for a game against the bot, which answers at once. */
export const DEFAULT_MOVE_TIME = 180;
export const DEFAULT_RULESET = "nielsen";

/** One plain sentence per rule set: what makes it different. */
export const PLAIN: Record<string, string> = {
  nielsen: "The usual rules: the king escapes to a corner; beside the throne three attackers take him, on it four.",
  federation: "Tournament rules: captures as in Nielsen, but a side with no move loses, and a third repetition loses for the defenders.",
  common: "Online rules: the king may go back to the throne, and two attackers take him anywhere but on it.",
  walker: "Only the corners are hostile: two attackers in a line take the king anywhere, even on the throne.",
  newsome: "A different game on the same board: every piece steps one square and captures by moving onto an enemy.",
};

function fallbackRulesets(): RulesetInfo[] {
  return RULESET_ORDER.map((id) => ({ id, title: RULES[id].title, summary: RULES[id].intro }));
}

function radio(name: string, value: string, checked: boolean, id: string): HTMLInputElement {
  const input = h("input", { type: "radio", name, value, id });
  input.checked = checked;
  return input;
}

/** The words of a rule set's choice: its plain sentence, else the server's summary. */
export function plainSentence(rs: RulesetInfo): string {
  return PLAIN[rs.id] ?? rs.summary;
}

/** A live time for quick pairing: the chosen one if live, else ten minutes. */
export function quickTime(moveTime: number): number {
  return moveTime < LIVE_UNDER_S ? moveTime : 600;
}

export function mountHome(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Play Brandubh");
  let unsubscribe: (() => void) | null = null;
  let titles: Record<string, string> = {};

  const rulesetList = h("div", { class: "options rulesets" }, h("p", { class: "muted", text: "Loading the rule sets…" }));
  const rulesetSummary = h("summary", { id: "ruleset-toggle" }, "Rule set: ", h("span", { id: "ruleset-chosen", text: "Nielsen" }), h("span", { class: "muted", text: " — change" }));
  const rulesetFold = h("details", { class: "ruleset-fold", id: "ruleset-fold" }, rulesetSummary, rulesetList);
  const timeList = h(
    "div",
    { class: "chips", role: "radiogroup", "aria-label": "Time for each move" },
    ...MOVE_TIMES.map((s) =>
      h("label", { class: "chip" }, radio("move_time", String(s), s === DEFAULT_MOVE_TIME, `time-${s}`), h("span", { text: durationText(s) })),
    ),
  );
  const level = h(
    "select",
    { id: "bot-level", name: "bot_level", "aria-label": "Bot level" },
    // The names of brandubh.bot.levels.LEVEL_NAMES: what a player can expect of each level.
    ...BOT_LEVEL_NAMES.map((name, i) => h("option", { value: String(i + 1), text: `Level ${i + 1}: ${name}` })),
  );
  // Games against people need an account and are rated unless unticked (docs/accounts.md).
  const ratedBox = h("input", { type: "checkbox", id: "rated", name: "rated" });
  ratedBox.checked = true;
  const accountHint = h(
    "p",
    { class: "hint", id: "friend-needs-account" },
    "A friend or quick pairing needs an account: ",
    h("a", { href: "/signup", text: "sign up" }),
    " or ",
    h("a", { href: "/login", text: "log in" }),
    " (the bot needs none).",
  );
  // The line under the three buttons has its room from the first paint (the guest's words,
  // unseen until the session is known), so its answer moves nothing (no layout shift).
  const accountNote = h("p", { class: "hint", id: "account-note", hidden: true });
  const accountLine = h("div", { class: "account-line", id: "account-line", "data-known": "false" }, accountHint, accountNote);
  let isAccount = false;
  let newcomer = ""; // the unconfirmed address of a newcomer seated from an invitation
  let hasSession = false; // a first visit has none: starting a game makes it
  // A click before the session is known waits for it (an account holder is never told
  // they need one because /api/me was slow to answer).
  const known = ctx.me
    .then((me) => {
      hasSession = !!me?.id;
      isAccount = !!(me && (me as { account?: boolean }).account);
      newcomer = isNewcomer(me) ? me.pending : "";
      if (isAccount && me) {
        accountLine.style.minHeight = `${accountLine.offsetHeight}px`;
        accountNote.textContent = `You play as ${me.name}: games against people are rated unless you untick “Rated”.`;
        accountHint.hidden = true;
        accountNote.hidden = false;
      }
    })
    .catch(() => undefined)
    .finally(() => {
      accountLine.dataset.known = "true";
    });
  const error = h("p", { class: "error", role: "alert", id: "home-error" });
  // Newcomers (guests, and accounts with no game yet) are offered the lessons beside the
  // bot; the line has its room from the first paint, so hiding it moves nothing.
  const learnLine = h("p", { class: "hint home-learn", id: "home-learn" }, "New to Brandubh? ", h("a", { href: "/learn", id: "home-learn-link", text: "Learn to play in short lessons" }), ", then beat the bot.");
  void known.then(async () => {
    if (!isAccount) return;
    try {
      const mine = await request<{ playing: unknown[]; finished: unknown[] }>("GET", "/api/me/games");
      if (mine.playing.length || mine.finished.length) learnLine.style.visibility = "hidden";
    } catch {
      /* the offer stays: it harms nobody */
    }
  });

  const playBot = h("button", { type: "button", class: "play-btn primary", id: "play-bot" }, h("strong", { text: "Play the bot" }), h("span", { text: "Starts at once · no account needed" }));
  const playFriend = h("button", { type: "button", class: "play-btn", id: "play-friend" }, h("strong", { text: "Play a friend" }), h("span", { text: "Get a link to send them" }));
  const playQuick = h("button", { type: "button", class: "play-btn", id: "play-quick" }, h("strong", { text: "Quick pairing" }), h("span", { text: "Meet a player of your strength now" }));

  const settings = h(
    "form",
    { class: "home-settings", id: "new-game" },
    rulesetFold,
    h("div", { class: "setting-row" }, h("span", { class: "setting-name", text: "Time per move" }), timeList),
    h(
      "div",
      { class: "setting-row" },
      h("label", { class: "setting-name", for: "bot-level", text: "Bot strength" }),
      level,
      h("label", { class: "inline", for: "rated" }, ratedBox, " Rated (games against people)"),
    ),
  );

  const heroBoard = new Board(() => undefined);
  heroBoard.update({
    position: parsePosition(START_POSITION),
    legal: [],
    interactive: false,
    last: null,
    pending: null,
    ply: 0,
    status: "waiting",
    turn: null,
  });
  heroBoard.root.setAttribute("aria-label", "The board at the start: the king on the throne, his four defenders around him, eight attackers at the edges");

  const slot = h(
    "div",
    { class: "home-slot" },
    h("div", { class: "play-buttons" }, playBot, playFriend, playQuick),
    learnLine,
    accountLine,
    error,
    settings,
  );
  const hero = h(
    "section",
    { class: "hero" },
    h(
      "div",
      {},
      h("h1", { text: "Play Brandubh" }),
      h("p", { class: "hero-lead", text: "The Irish game of the king's escape on 7 × 7 squares: the king's four defenders bring him to a corner; eight attackers try to trap him." }),
      slot,
    ),
    h("div", { class: "hero-board", "aria-hidden": "false" }, heroBoard.root),
  );
  const below = h(
    "div",
    { class: "home-below", id: "home-below" },
    dailyPuzzleCard(),
    h(
      "section",
      { class: "panel" },
      h("h2", { text: "Games over an evening or a fortnight" }),
      h("p", {}, "Give each move anything from a minute to a week. ", h("a", { href: "/games", text: "Your games" }), " lists every game you are in, yours to move first; the page's title and a notification tell you when it is your move."),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", { text: "Fair by construction" }),
      h("p", {}, "Sides are drawn from a secret seed whose fingerprint you see from the first move and which is revealed at the end. ", h("a", { href: "/verify", text: "Verify a finished game" }), "."),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", { text: "The rules" }),
      h("p", {}, ...RULESET_ORDER.flatMap((id, i) => [i ? " · " : "", h("a", { href: `/rules/${id}`, text: RULES[id].title })])),
    ),
  );
  // Below the ways to play: your games, the tournaments and games to watch (panels/
  // homesections.ts), drawn at once in room kept from the first paint; the panels follow.
  const live = homeSections(ctx, () => void start("bot"));
  root.append(h("div", { class: "page page-home page-home2" }, hero, live.el, below));
  live.reserve();

  function chosenRuleset(): string {
    return String(new FormData(settings).get("ruleset") ?? DEFAULT_RULESET);
  }
  function chosenTime(): number {
    return Number(new FormData(settings).get("move_time") ?? DEFAULT_MOVE_TIME);
  }
  function showChosen(): void {
    const id = chosenRuleset();
    (rulesetSummary.querySelector("#ruleset-chosen") as HTMLElement).textContent = titles[id] ?? RULES[id]?.title ?? id;
  }
  settings.addEventListener("change", showChosen);
  settings.addEventListener("submit", (e) => e.preventDefault());

  ctx
    .rulesets()
    .catch(() => fallbackRulesets())
    .then((sets) => {
      clear(rulesetList);
      titles = Object.fromEntries(sets.map((rs) => [rs.id, rs.title]));
      for (const rs of sets) {
        const id = `ruleset-${rs.id}`;
        rulesetList.appendChild(
          h(
            "label",
            { class: "option", for: id },
            radio("ruleset", rs.id, rs.id === DEFAULT_RULESET, id),
            h(
              "span",
              { class: "option-body" },
              h("span", { class: "option-title", text: rs.title }),
              h("span", { class: "muted summary", text: ` — ${plainSentence(rs)} ` }),
              h("a", { href: `/rules/${rs.id}`, class: "rules-link", text: "Rules" }),
            ),
          ),
        );
      }
      showChosen();
    });

  function busy(on: boolean, which: HTMLButtonElement, label: string): void {
    for (const b of [playBot, playFriend, playQuick]) b.disabled = on;
    const strong = which.querySelector("strong");
    if (strong) strong.textContent = label;
  }

  async function start(opponent: "bot" | "friend"): Promise<void> {
    error.textContent = "";
    await known; // who the visitor is decides what follows (a click may come first)
    if (opponent === "friend" && newcomer) {
      error.textContent = confirmFirst(newcomer);
      return;
    }
    if (opponent === "friend" && !isAccount) {
      error.textContent = "Playing a friend needs an account — sign up or log in first (it takes a moment), then come back here.";
      accountHint.hidden = false;
      return;
    }
    const which = opponent === "bot" ? playBot : playFriend;
    const label = opponent === "bot" ? "Play the bot" : "Play a friend";
    busy(true, which, "Starting…");
    try {
      const game = await api.createGame({
        ruleset: chosenRuleset(),
        move_time: chosenTime(),
        opponent,
        ...(opponent === "bot" ? { bot_level: Number(level.value) } : { rated: ratedBox.checked }),
      });
      if (opponent === "bot" || !game.invite) {
        // A new session (this was the visitor's first act): a full load, so that the
        // websocket and the header speak for it.
        if (!hasSession) window.location.assign(game.url);
        else ctx.navigate(game.url);
        return;
      }
      rememberInvite(game.id, game.invite);
      showInvite(game.id, game.invite);
    } catch (err) {
      error.textContent =
        err instanceof ApiError ? `The game could not be started: ${err.message}` : "The game could not be started.";
      busy(false, which, label);
    }
  }
  playBot.addEventListener("click", () => void start("bot"));
  playFriend.addEventListener("click", () => void start("friend"));
  playQuick.addEventListener("click", async () => {
    await known;
    if (newcomer) {
      error.textContent = confirmFirst(newcomer);
      return;
    }
    if (!isAccount) {
      error.textContent = "Quick pairing is a game against a person: it needs an account — sign up or log in first.";
      accountHint.hidden = false;
      return;
    }
    ctx.navigate(`/lobby?quick=${encodeURIComponent(chosenRuleset())}&time=${quickTime(chosenTime())}`);
  });

  function showInvite(game: string, invite: string): void {
    clear(slot);
    slot.appendChild(invitePanel(game, invite));
    slot.appendChild(
      h("p", { class: "muted" }, "You can also ", h("a", { href: `/g/${game}`, text: "open the game page" }), " now and wait there."),
    );
    const tracker = ctx.live.watch(game);
    const check = () => {
      const st = tracker.state;
      if (st && st.status !== "waiting") ctx.navigate(`/g/${game}`);
    };
    unsubscribe = ctx.live.subscribe((c) => {
      if (c.type === "game" && c.game === game) check();
    });
    check();
  }

  return () => {
    // The game page follows the same game next: keep it followed (no unwatch/watch churn).
    unsubscribe?.();
    live.stop();
  };
}
