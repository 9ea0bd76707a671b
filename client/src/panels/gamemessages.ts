// The message slot beside the board (a slot of fixed size: style.css, "game page"): the
// connection, an error, the opponent who left (claim.ts), a draw offer (actions.ts), a
// repetition warning and a notice (a move on its way, a queued premove, news) — one at a
// time, the most urgent.

import { type Premove, queuedText, touchScreen } from "../board/premove";
import { h } from "../dom";
import { repetitionWarning } from "../logic/status";
import type { GameTracker } from "../network/gamestate";
import type { LiveClient } from "../network/live";
import type { PendingMove } from "../network/pending";
import type { State } from "../network/protocol";

export class GameMessages {
  readonly root: HTMLElement;
  /** a message that is not news of the game (a duplicate move, a premove dropped); cleared by the next move or action */
  info = "";
  private error = "";
  private errorPly = -1;
  private readonly conn: HTMLElement;
  private readonly alert: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly repetition: HTMLElement;

  /** `claim`, `draw` and `takeback` are the claim's and the offers' banners, shown in the slot. */
  constructor(
    private readonly claim: HTMLElement,
    private readonly draw: HTMLElement,
    private readonly takeback: HTMLElement = h("div"),
  ) {
    this.conn = h("div", { class: "slot-msg conn-banner", id: "conn-banner", role: "status", hidden: true });
    this.alert = h("div", { class: "slot-msg alert", id: "game-error", role: "alert" });
    this.notice = h("p", { class: "slot-msg notice", id: "game-notice", "aria-live": "polite" });
    this.repetition = h("p", { class: "slot-msg notice notice-warn", id: "repetition-warning", role: "status", hidden: true });
    draw.classList.add("slot-msg");
    takeback.classList.add("slot-msg");
    this.root = h("div", { class: "g-msg", id: "game-messages" }, this.conn, this.alert, claim, draw, takeback, this.repetition, this.notice);
  }

  /** An error beside the board, shown until the game moves on from `ply` (or clearError). */
  setError(text: string, ply: number): void {
    this.error = text;
    this.errorPly = ply;
  }

  clearError(): void {
    this.error = "";
  }

  /** Whether the connection's banner is in the slot now. */
  get connectionShown(): boolean {
    return !this.conn.classList.contains("slot-hidden");
  }

  /** The connection's banner; whether the connection is down. */
  showConnection(live: Pick<LiveClient, "connection" | "retryAt" | "browserOffline">): boolean {
    const down = live.connection !== "open";
    const conn = this.conn;
    conn.hidden = !down;
    if (down) {
      const secs = live.retryAt ? Math.max(0, Math.ceil((live.retryAt - Date.now()) / 1000)) : 0;
      conn.textContent = live.browserOffline
        ? "You are offline — the game goes on when your network is back. Moves you make now are sent then."
        : live.connection === "connecting"
          ? "Connecting to the server…"
          : `Connection lost — reconnecting${secs > 0 ? ` in ${secs} s` : "…"}. Moves you make now are sent when it is back.`;
    }
    conn.dataset.wants = down ? "1" : "";
    return down;
  }

  /** The error, the repetition warning and the notice for a state (the draw and the claim have their own). */
  update(state: State, tracker: GameTracker, premove: Premove | null, pending: PendingMove | null | undefined): void {
    if (this.error && state.ply !== this.errorPly) this.error = ""; // the game moved on
    const alert = this.alert;
    alert.textContent = this.error;
    alert.hidden = false;
    alert.dataset.wants = this.error ? "1" : "";

    const warn = repetitionWarning(state);
    const repetition = this.repetition;
    repetition.textContent = warn ?? "";
    repetition.hidden = warn === null;
    repetition.dataset.wants = warn ? "1" : "";

    // The latest event in words when it is news about a draw offer's answer (or an outage);
    // offers themselves have their banner.
    const latest = tracker.notes.at(-1);
    const news =
      latest && latest.n === tracker.n && state.status === "active" && latest.kind !== "draw_offer" && latest.kind !== "takeback_offer"
        ? latest.text
        : "";
    let noticeText = premove ? queuedText(premove, touchScreen()) : this.info || news;
    if (pending) {
      noticeText = pending.sent
        ? `Sending your move ${pending.move}…`
        : `Your move ${pending.move} is waiting for the connection; it is sent as soon as it is back.`;
    }
    const notice = this.notice;
    notice.textContent = noticeText;
    notice.dataset.pending = pending ? pending.move : "";
    notice.dataset.premove = premove?.text ?? "";
    notice.hidden = !noticeText;
    notice.dataset.wants = noticeText ? "1" : "";
  }

  /** One message at a time in the fixed slot beside the board: the most urgent. */
  choose(): void {
    const { notice, conn, alert, claim, draw, takeback, repetition } = this;
    // A move waiting for the connection says both (the move, and that the connection is down).
    const waitingMove = notice.dataset.pending !== "" && notice.dataset.wants === "1";
    const order = waitingMove
      ? [notice, conn, alert, claim, draw, takeback, repetition]
      : [conn, alert, claim, draw, takeback, repetition, notice];
    let shown = false;
    for (const el of order) {
      const wants = el.dataset.wants === "1";
      el.classList.toggle("slot-hidden", shown || !wants);
      if (wants && !shown) shown = true;
    }
  }
}
