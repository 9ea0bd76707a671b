// The players' bars above and under the board: each side's piece, name ("(you)"), rating,
// connected or not, the pieces it captured, and its clock (clockbar.ts places them). The
// viewer's side is at the bottom; a spectator sees the attackers on top.

import { type Position, type Side, capturedCounts } from "../board/notation";
import { pieceSvg } from "../board/pieces";
import { h } from "../dom";
import { otherSide } from "../logic/status";
import { type Profile, accountApi, isGuestId, ratingText } from "../network/account";
import { botTag } from "./bottag";
import type { State } from "../network/protocol";
import type { ClockBar } from "./clockbar";
import type { GameView } from "./gameview";

interface Bar {
  root: HTMLElement;
  dot: HTMLElement;
  name: HTMLElement;
  rating: HTMLElement;
  captured: HTMLElement;
  icon: HTMLElement;
  clockSlot: HTMLElement;
}

function makeBar(where: "top" | "bottom"): Bar {
  const dot = h("span", { class: "online-dot", "data-online": "unknown", "aria-hidden": "true" });
  const name = h("a", { class: "pbar-name" }); // a link to the profile, for accounts
  const rating = h("span", { class: "pbar-rating" });
  const captured = h("span", { class: "pbar-captured", title: "Pieces captured" });
  const icon = h("span", { class: "pbar-icon", "aria-hidden": "true" });
  const clockSlot = h("div", { class: "pbar-clock" });
  const root = h(
    "div",
    { class: "pbar", id: `bar-${where}` },
    icon,
    h("span", { class: "pbar-who" }, dot, name, rating),
    captured,
    clockSlot,
  );
  return { root, dot, name, rating, captured, icon, clockSlot };
}

export class PlayerBars {
  readonly top: HTMLElement;
  readonly bottom: HTMLElement;
  /** The board is turned half a turn: the bars swap places. */
  flipped = false;
  private readonly topBar = makeBar("top");
  private readonly bottomBar = makeBar("bottom");
  private readonly profiles = new Map<string, Profile | null>();

  constructor(
    private readonly view: GameView,
    private readonly clocks: ClockBar,
  ) {
    this.top = this.topBar.root;
    this.bottom = this.bottomBar.root;
    this.topBar.clockSlot.append(clocks.el("attackers"));
    this.bottomBar.clockSlot.append(clocks.el("defenders"));
  }

  /** Both bars for a state, the viewer's `side` (null: a spectator) and the position shown. */
  update(state: State, side: Side | null, position: Position): void {
    // The viewer's side below, unless the board is turned (then the bars turn with it).
    const own = side ?? "defenders";
    const bottom = this.flipped ? otherSide(own) : own;
    const top = otherSide(bottom);
    this.renderBar(this.topBar, top, state, position);
    this.renderBar(this.bottomBar, bottom, state, position);
    if (this.topBar.clockSlot.firstChild !== this.clocks.el(top)) {
      this.topBar.clockSlot.replaceChildren(this.clocks.el(top));
      this.bottomBar.clockSlot.replaceChildren(this.clocks.el(bottom));
    }
  }

  /** A player's profile (for the rating), fetched once; the page is drawn again when it comes. */
  private profileOf(id: string | undefined): Profile | null | undefined {
    if (!id || id === "bot" || isGuestId(id)) return null; // a guest has no profile
    if (!this.profiles.has(id)) {
      this.profiles.set(id, null);
      accountApi
        .profile(id)
        .then((p) => {
          this.profiles.set(id, p);
          this.view.render();
        })
        .catch(() => undefined); // a guest has no profile: no rating shown
      return undefined;
    }
    return this.profiles.get(id);
  }

  private renderBar(bar: Bar, side: Side, state: State, pos: Position): void {
    const p = state.players[side];
    const mine = p !== null && p.id === this.view.me();
    bar.root.dataset.side = side;
    bar.root.classList.toggle("to-move", state.status === "active" && state.turn === side);
    bar.root.classList.toggle("mine", mine);
    const icon = side === "attackers" ? "A" : "K";
    if (bar.icon.dataset.piece !== icon) {
      bar.icon.dataset.piece = icon;
      bar.icon.replaceChildren(pieceSvg(icon));
    }
    const name = p ? `${p.name}${mine ? " (you)" : ""}` : state.withdrawn ? "no player" : "waiting for a player";
    // "(you)" is its own part: a phone says it to screen readers only, to keep the room
    // for the name (the status line says which side is yours).
    const profile = this.profileOf(p?.id);
    // A bot account: said by the game's player object, or else by its profile.
    const bot = !!p && p.id !== "bot" && (p.bot === true || profile?.bot === true);
    bar.name.replaceChildren(p ? p.name : name, bot ? botTag() : "", p && mine ? h("span", { class: "pbar-you", text: " (you)" }) : "");
    bar.name.title = `${side === "attackers" ? "Attackers" : "Defenders"}: ${name}${bot ? " (a bot account)" : ""}`;
    // Accounts have a profile page (guests and the bot none): the name leads there.
    if (p && profile && p.id !== "bot") bar.name.setAttribute("href", `/u/${p.id}`);
    else bar.name.removeAttribute("href");
    const r = profile?.ratings?.[state.ruleset];
    bar.rating.textContent = p?.id === "bot" ? "" : profile ? (r ? ratingText(r.rating, r.provisional) : "1500?") : "";
    // The bot has no rating: its bar keeps no room for one (from its first paint: no shift).
    bar.rating.hidden = p?.id === "bot";
    const online = p ? this.view.tracker.isOnline(p.id) : null;
    bar.dot.dataset.online = online === null ? "unknown" : String(online);
    bar.root.dataset.online = online === null ? "unknown" : String(online);
    bar.dot.title = online === null ? "" : online ? "connected" : "not connected";
    bar.dot.setAttribute("aria-label", online === null ? "" : online ? "connected" : "not connected");
    bar.dot.removeAttribute("aria-hidden");
    const n = capturedCounts(pos)[side];
    bar.captured.textContent = `×${n}`;
    bar.captured.dataset.count = String(n);
    bar.captured.setAttribute("aria-label", `${n} ${side === "attackers" ? "defender" : "attacker"}${n === 1 ? "" : "s"} captured`);
  }
}
