// `/`: start a game — rule set, time per move, and the bot or a friend.

import { ApiError, api, type RulesetInfo } from "../api";
import { type AppContext, type Unmount, rememberInvite } from "../context";
import { clear, h } from "../dom";
import { invitePanel } from "../invite";
import { RULES, RULESET_ORDER } from "../rules";
import { durationText } from "../status";

const BOT_LEVEL_NAMES = ["beginner", "casual player", "improver", "club player", "strong club player"];

export const MOVE_TIMES = [60, 180, 600, 3600, 86_400, 259_200, 604_800];
const DEFAULT_MOVE_TIME = 3600;

function fallbackRulesets(): RulesetInfo[] {
  return RULESET_ORDER.map((id) => ({ id, title: RULES[id].title, summary: RULES[id].intro }));
}

function radio(name: string, value: string, checked: boolean, id: string): HTMLInputElement {
  const input = h("input", { type: "radio", name, value, id });
  input.checked = checked;
  return input;
}

export function mountHome(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Start a game");
  let unsubscribe: (() => void) | null = null;
  let waitingGame: string | null = null;

  const rulesetList = h("div", { class: "options rulesets" }, h("p", { class: "muted", text: "Loading the rule sets…" }));
  const timeList = h(
    "div",
    { class: "chips" },
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
  const botRadio = radio("opponent", "bot", true, "opponent-bot");
  const friendRadio = radio("opponent", "friend", false, "opponent-friend");
  // Games against people need an account and are rated unless unticked (docs/accounts.md).
  const ratedBox = h("input", { type: "checkbox", id: "rated", name: "rated" });
  ratedBox.checked = true;
  ratedBox.addEventListener("change", () => (friendRadio.checked = true));
  const accountHint = h(
    "p",
    { class: "hint", id: "friend-needs-account", hidden: true },
    "Needs an account: ",
    h("a", { href: "/signup", text: "sign up" }),
    " or ",
    h("a", { href: "/login", text: "log in" }),
    " first. The bot needs none.",
  );
  void ctx.me.then((me) => {
    if (me && !(me as { account?: boolean }).account) accountHint.hidden = false;
  });
  const error = h("p", { class: "error", role: "alert", id: "home-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "start-game", text: "Start the game" });

  const form = h(
    "form",
    { class: "new-game", id: "new-game" },
    h("fieldset", {}, h("legend", { text: "1. Rule set" }), rulesetList),
    h(
      "fieldset",
      {},
      h("legend", { text: "2. Time for each move" }),
      timeList,
      h("p", { class: "hint", text: "A player whose time for a move runs out loses the game." }),
    ),
    h(
      "fieldset",
      {},
      h("legend", { text: "3. Opponent" }),
      h(
        "div",
        { class: "options" },
        h(
          "div",
          { class: "option" },
          botRadio,
          h(
            "div",
            { class: "option-body" },
            h("label", { for: "opponent-bot", class: "option-title", text: "The bot" }),
            h("p", { class: "muted", text: "Starts at once. No account needed." }),
            h("label", { class: "inline" }, "Strength ", level),
          ),
        ),
        h(
          "div",
          { class: "option" },
          friendRadio,
          h(
            "div",
            { class: "option-body" },
            h("label", { for: "opponent-friend", class: "option-title", text: "A friend" }),
            h("p", { class: "muted", text: "You get a link to send them; the game starts when they open it." }),
            h("label", { class: "inline", for: "rated" }, ratedBox, " Rated game"),
            accountHint,
          ),
        ),
      ),
    ),
    error,
    h("div", { class: "actions" }, submit),
  );
  level.addEventListener("change", () => (botRadio.checked = true));
  // A click anywhere on an option card picks it (links and the level menu keep their own).
  form.addEventListener("click", (e) => {
    const target = e.target as HTMLElement;
    if (target.closest("a, select, input, label")) return;
    const radio = target.closest(".option")?.querySelector<HTMLInputElement>('input[type="radio"]');
    if (radio) radio.checked = true;
  });

  const intro = h(
    "section",
    { class: "intro" },
    h("h1", { text: "Play Brandubh" }),
    h("p", {
      text: "Brandubh is the Irish game of the king's escape, played on 7 × 7 squares. Eight attackers try to capture the king; his four defenders try to bring him to a corner of the board.",
    }),
    h(
      "p",
      { class: "hint" },
      "Sides are drawn fairly from a secret seed, revealed when the game ends: ",
      h("a", { href: "/verify", text: "verify a finished game" }),
      ".",
    ),
  );
  const slot = h("div", { class: "home-slot" }, form);
  root.append(h("div", { class: "page page-home" }, intro, slot));

  ctx
    .rulesets()
    .catch(() => fallbackRulesets())
    .then((sets) => {
      clear(rulesetList);
      sets.forEach((rs, i) => {
        const id = `ruleset-${rs.id}`;
        rulesetList.appendChild(
          h(
            "div",
            { class: "option" },
            radio("ruleset", rs.id, i === 0 || rs.id === "nielsen", id),
            h(
              "div",
              { class: "option-body" },
              h("label", { for: id, class: "option-title", text: rs.title }),
              h("p", { class: "muted summary", text: rs.summary }),
              h("a", { href: `/rules/${rs.id}`, class: "rules-link", text: `Full rules of ${rs.title}` }),
            ),
          ),
        );
      });
    });

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const data = new FormData(form);
    const ruleset = String(data.get("ruleset") ?? "nielsen");
    const moveTime = Number(data.get("move_time") ?? DEFAULT_MOVE_TIME);
    const opponent = data.get("opponent") === "friend" ? "friend" : "bot";
    submit.disabled = true;
    submit.textContent = "Starting…";
    try {
      const game = await api.createGame({
        ruleset,
        move_time: moveTime,
        opponent,
        ...(opponent === "bot" ? { bot_level: Number(level.value) } : { rated: ratedBox.checked }),
      });
      if (opponent === "bot" || !game.invite) {
        ctx.navigate(game.url);
        return;
      }
      rememberInvite(game.id, game.invite);
      showInvite(game.id, game.invite);
    } catch (err) {
      error.textContent =
        err instanceof ApiError ? `The game could not be started: ${err.message}` : "The game could not be started.";
      submit.disabled = false;
      submit.textContent = "Start the game";
    }
  });

  function showInvite(game: string, invite: string): void {
    waitingGame = game;
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
    unsubscribe?.();
    // The game page follows the same game next: keep it followed (no unwatch/watch churn).
    void waitingGame;
  };
}
