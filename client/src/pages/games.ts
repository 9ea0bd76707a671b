// `/games`: your games in progress (yours to move first, by deadline) and your recent
// finished ones; the switch for "your move" notifications.

import { deltaText, opponentOf, outcomeLine } from "../network/account";
import { formatRemaining } from "../network/clock";
import type { AppContext, Unmount } from "../context";
import { clear, h } from "../dom";
import { askNotifications, notificationState, type MyGame } from "../frame/mygames";
import { RULES } from "../board/rules";
import { durationText, originLabel } from "../logic/status";

function rulesetName(id: string): string {
  return RULES[id]?.title ?? id;
}

export function mountGames(root: HTMLElement, ctx: AppContext): Unmount {
  ctx.setTitle("Your games");
  const playing = h("ul", { class: "my-games", id: "my-playing", "data-count": "0" });
  const finished = h("ul", { class: "my-games", id: "my-finished" });
  const notifyBox = h("div", { class: "notify-box", id: "notify-box" });
  const page = h(
    "div",
    { class: "page page-games" },
    h("h1", { text: "Your games" }),
    notifyBox,
    h("section", { class: "panel", "aria-labelledby": "playing-h" }, h("h2", { id: "playing-h", text: "In progress" }), playing),
    h("section", { class: "panel", "aria-labelledby": "finished-h" }, h("h2", { id: "finished-h", text: "Recently finished" }), finished),
  );
  root.appendChild(page);

  function renderNotify(): void {
    clear(notifyBox);
    const state = notificationState();
    if (state === "unsupported") return;
    if (state === "granted") {
      notifyBox.append(h("p", { class: "hint", id: "notify-on", text: "This browser tells you when it is your move in a game you are not looking at." }));
      return;
    }
    if (state === "denied") {
      notifyBox.append(h("p", { class: "hint", text: "Notifications are blocked for this site in your browser's settings; the tab's title still shows how many games wait for your move." }));
      return;
    }
    const button = h("button", { type: "button", class: "btn", id: "notify-ask", text: "Tell me when it is my move" });
    button.addEventListener("click", () => void askNotifications().then(renderNotify));
    notifyBox.append(button, h("span", { class: "hint", text: " A browser notification, for games you are not looking at." }));
  }

  function row(g: MyGame, now: number): HTMLElement {
    const left = g.deadline !== null ? ctx.live.clock.remaining(g.deadline, now) : null;
    return h(
      "li",
      { class: `my-game${g.your_move ? " my-turn" : ""}`, "data-game": g.id, "data-your-move": String(g.your_move) },
      h(
        "a",
        { href: `/g/${g.id}`, class: "my-game-link" },
        h("span", { class: "my-game-who", text: g.bot ? `vs ${g.opponent.name}` : `vs ${g.opponent.name}` }),
        h("span", { class: "my-game-terms", text: `${originLabel(g.origin, g.bot ? "bot" : "friend")} · ${rulesetName(g.ruleset)} · ${durationText(g.move_time)} a move · ${g.rated ? "rated" : "casual"} · you play the ${g.side}` }),
        h(
          "span",
          { class: "my-game-state" },
          g.your_move ? h("strong", { class: "badge badge-turn", text: "Your move" }) : h("span", { class: "muted", text: "Their move" }),
          left !== null ? h("span", { class: "my-game-left", text: ` · ${formatRemaining(left)} left` }) : null,
        ),
      ),
    );
  }

  function render(): void {
    const list = ctx.myGames.list;
    const now = Date.now();
    clear(playing);
    playing.dataset.count = String(list.playing.length);
    for (const g of list.playing) playing.appendChild(row(g, now));
    if (list.playing.length === 0) {
      playing.appendChild(h("li", { class: "muted empty" }, "No games in progress. ", h("a", { href: "/", text: "Start one" }), "."));
    }
    clear(finished);
    const me = ctx.live.player?.id ?? "";
    for (const s of list.finished) {
      const opp = opponentOf(s, me);
      const change = s.ratings?.[me];
      finished.appendChild(
        h(
          "li",
          { class: "my-game", "data-game": s.id },
          h("span", { class: "my-game-who", text: `vs ${opp?.name ?? "?"}` }),
          h("span", { class: "my-game-terms", text: `${originLabel(s.origin, s.opponent)} · ${outcomeLine(s, me)}${change ? ` · ${deltaText(change.before, change.after)}` : ""}` }),
          h("span", { class: "my-game-state" }, h("a", { href: `/replay/${s.id}`, text: "Replay" })),
        ),
      );
    }
    if (list.finished.length === 0) finished.appendChild(h("li", { class: "muted empty", text: "No finished games yet." }));
  }

  renderNotify();
  render();
  const off = ctx.myGames.subscribe(render);
  void ctx.myGames.refresh();
  const timer = setInterval(render, 15_000);
  return () => {
    off();
    clearInterval(timer);
  };
}
