// Challenges on every page: the header's button with a count (challenges to answer and
// declines not yet read) and the panel it opens, with Accept / Decline (and a reason) for
// each challenge to the player, Cancel for theirs, and what became of the declined ones.
// An accepted challenge of the player's opens its game, as a pairing does (pairing.ts).

import "./challenges.css";
import type { AppContext } from "../context";
import { clear, h, svg } from "../dom";
import { type Challenge, attentionCount, challengeErrorText, declinedText, sideText, termsText } from "../logic/challenges";
import { type ChallengeFeed, challengeApi, challengeFeed } from "../network/challenges";
import { botTag } from "../panels/bottag";
import { challengeAnswer } from "../panels/challengeanswer";
import { shownNotifications } from "./mygames";
import { busyInAnotherGame } from "./pairing";

// Two crossed blades: a challenge.
const ICON =
  '<path d="M18 14 L70 66 M14 18 L66 70" stroke="currentColor" stroke-width="9" stroke-linecap="round"/>' +
  '<path d="M82 14 L30 66 M86 18 L34 70" stroke="currentColor" stroke-width="9" stroke-linecap="round"/>' +
  '<path d="M58 74 L74 58 M26 58 L42 74" stroke="currentColor" stroke-width="9" stroke-linecap="round"/>' +
  '<path d="M72 72 L86 86 M28 72 L14 86" stroke="currentColor" stroke-width="11" stroke-linecap="round"/>';

function nameOf(p: Challenge["from"]): HTMLElement {
  return h("span", { class: "ch-name" }, h("a", { href: `/u/${p.id}`, text: p.name }), p.bot ? botTag() : "");
}

/** One challenge to the player: who, the terms, Accept, Decline with a reason. */
function incomingItem(ctx: AppContext, feed: ChallengeFeed, c: Challenge, me: string, close: () => void): HTMLElement {
  const { accept, decline, reason, error } = challengeAnswer(c.id, {
    attrs: {
      accept: { class: "btn btn-small btn-primary ch-accept" },
      decline: { class: "btn btn-small ch-decline" },
      reason: { class: "ch-reason" },
      error: { class: "error ch-error" },
    },
    accepted(url) {
      feed.forget(c);
      close();
      ctx.navigate(url);
    },
    declined: () => feed.forget(c),
    refused: () => void feed.reload(), // gone meanwhile, perhaps
  });
  return h(
    "li",
    { class: "ch-item ch-in", "data-challenge": c.id, "data-from": c.from.id },
    h("p", { class: "ch-who" }, nameOf(c.from), " challenges you"),
    h("p", { class: "ch-terms muted", text: `${termsText(c)} · ${sideText(c, me)}` }),
    h("div", { class: "ch-buttons" }, accept, decline, reason),
    error,
  );
}

/** One challenge of the player's, waiting: to whom, the terms, its game, Cancel. */
function outgoingItem(feed: ChallengeFeed, c: Challenge, me: string, close: () => void): HTMLElement {
  const error = h("p", { class: "error ch-error", role: "alert" });
  const cancel = h("button", { type: "button", class: "btn btn-small ch-cancel", text: "Cancel" });
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    error.textContent = "";
    try {
      await challengeApi.cancel(c.id);
      feed.forget(c);
    } catch (err) {
      error.textContent = challengeErrorText(err);
      cancel.disabled = false;
      void feed.reload();
    }
  });
  const open = h("a", { href: c.url || `/g/${c.id}`, class: "btn btn-small ch-open", text: "Open" });
  open.addEventListener("click", close);
  return h(
    "li",
    { class: "ch-item ch-out", "data-challenge": c.id, "data-to": c.to.id },
    h("p", { class: "ch-who" }, "You challenge ", nameOf(c.to)),
    h("p", { class: "ch-terms muted", text: `${termsText(c)} · ${sideText(c, me)}` }),
    h("div", { class: "ch-buttons" }, open, cancel),
    error,
  );
}

function declinedItem(feed: ChallengeFeed, c: Challenge): HTMLElement {
  const ok = h("button", { type: "button", class: "btn btn-small ch-dismiss", text: "OK" });
  ok.addEventListener("click", () => feed.dismiss(c.id));
  return h(
    "li",
    { class: "ch-item ch-declined", "data-challenge": c.id, "data-reason": c.declineReason ?? "generic" },
    h("p", { class: "ch-who ch-declined-text", text: declinedText(c) }),
    h("p", { class: "ch-terms muted", text: termsText(c) }),
    h("div", { class: "ch-buttons" }, ok),
  );
}

/** "Ann challenges you: Nielsen · 3 minutes a move · rated" as a browser notification,
 *  once allowed (asked from a click elsewhere: the games page); a click opens its game. */
function notifyArrival(c: Challenge): void {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  const body = `${c.from.name} challenges you: ${termsText(c)}`;
  shownNotifications.push({ title: "Brandubh Live: a challenge", body, game: c.id });
  try {
    const n = new Notification("Brandubh Live: a challenge", { body, tag: `challenge-${c.id}` });
    n.onclick = () => {
      window.focus();
      window.__brandubh?.navigate(c.url || `/g/${c.id}`);
      n.close();
    };
  } catch {
    /* some browsers allow notifications only from a service worker */
  }
}

let notice: HTMLElement | null = null;

/** "Ann accepted your challenge" with the way to its game (when the page shows another
 *  game this player is playing, it is not opened over it). */
function acceptedNotice(c: Challenge): void {
  notice?.remove();
  const later = h("button", { type: "button", class: "btn btn-small", text: "Later" });
  const el = h(
    "div",
    { class: "pair-notice", role: "status", id: "challenge-notice", "data-game": c.id },
    h("span", { text: `${c.to.name} accepted your challenge. ` }),
    h("a", { href: c.url || `/g/${c.id}`, class: "btn btn-small btn-primary", text: "Open the game" }),
    later,
  );
  notice = el;
  later.addEventListener("click", () => el.remove());
  el.querySelector("a")?.addEventListener("click", () => el.remove());
  document.body.appendChild(el);
}

/** The header's button and panel, for the whole page load; returns the shared feed. */
export function installChallenges(ctx: AppContext, connSlot: HTMLElement): ChallengeFeed {
  const feed = challengeFeed(ctx.live);
  const count = h("span", { class: "count-badge ch-count", id: "challenge-count", "data-count": "0", hidden: true });
  const button = h(
    "button",
    {
      type: "button",
      class: "ch-btn",
      id: "challenges-btn",
      "aria-expanded": "false",
      "aria-controls": "challenge-panel",
      "aria-label": "Challenges",
      title: "Challenges",
      "data-account": "false",
    },
    svg(ICON, "ch-icon"),
    count,
  );
  const body = h("div", { class: "ch-body" });
  const panel = h(
    "section",
    { class: "ch-panel", id: "challenge-panel", "aria-label": "Challenges", hidden: true },
    h("h2", { class: "ch-title", text: "Challenges" }),
    body,
  );
  // The button takes the place "Retry now" keeps in the connection's slot (main.ts), so the
  // header's row is as wide as before; while the connection is down it gives that place
  // back (nothing can be accepted offline anyway), and the slot's width never changes.
  connSlot.prepend(button);
  connSlot.parentElement?.append(panel);

  const setOpen = (open: boolean) => {
    panel.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
  };
  const close = () => setOpen(false);
  button.addEventListener("click", () => setOpen(panel.hidden));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !panel.hidden) {
      close();
      button.focus();
    }
  });
  document.addEventListener("click", (e) => {
    const t = e.target as Node | null;
    if (panel.hidden || !t || button.contains(t) || panel.contains(t)) return;
    close();
  });
  // A link inside the panel changes the page: the panel folds away.
  panel.addEventListener("click", (e) => {
    if ((e.target as Element | null)?.closest?.("a")) close();
  });

  const render = () => {
    const me = feed.player;
    const list = feed.list;
    const n = attentionCount(list);
    count.hidden = n === 0;
    count.textContent = String(n);
    count.dataset.count = String(n);
    button.dataset.count = String(n);
    button.dataset.ready = String(feed.ready);
    button.setAttribute("aria-label", n ? `Challenges: ${n} waiting for you` : "Challenges");
    clear(body);
    if (!me) return;
    if (list.declined.length) body.append(h("ul", { class: "ch-list", id: "challenges-declined" }, ...list.declined.map((c) => declinedItem(feed, c))));
    body.append(h("h3", { class: "ch-sub", text: "To you" }));
    body.append(
      list.incoming.length
        ? h("ul", { class: "ch-list", id: "challenges-in" }, ...list.incoming.map((c) => incomingItem(ctx, feed, c, me, close)))
        : h("p", { class: "muted ch-none", id: "challenges-in-none", text: "Nobody is challenging you now." }),
    );
    body.append(h("h3", { class: "ch-sub", text: "From you" }));
    body.append(
      list.outgoing.length
        ? h("ul", { class: "ch-list", id: "challenges-out" }, ...list.outgoing.map((c) => outgoingItem(feed, c, me, close)))
        : h("p", { class: "muted ch-none", id: "challenges-out-none", text: "To challenge someone, open their profile (click their name) and press “Challenge”." }),
    );
  };
  feed.subscribe((change) => {
    if (change.type === "list") {
      render();
      return;
    }
    const c = change.challenge;
    if (change.arrived) {
      // A new challenge: the button says so (never a panel over the page, nor the board),
      // and so does the browser when the tab is hidden and notifications are allowed.
      button.classList.remove("ch-new");
      void button.offsetWidth; // restart the animation
      button.classList.add("ch-new");
      if (document.visibilityState === "hidden") notifyArrival(c);
    }
    if (c.status === "accepted" && c.from.id === feed.player && location.pathname !== `/g/${c.id}`) {
      if (busyInAnotherGame(ctx, c.id)) acceptedNotice(c);
      else ctx.navigate(c.url || `/g/${c.id}`);
    }
  });

  const follow = (me: { id: string | null; account: boolean } | null) => {
    const player = me?.account && me.id ? me.id : null;
    button.dataset.account = String(!!player);
    void feed.setPlayer(player);
    if (!player) close();
  };
  void ctx.me.then(follow);
  ctx.onSession(follow);
  render();
  return feed;
}
