// The game-over panel: the result in words, the rematch (players) or news of it
// (spectators), and what anyone needs to check the game: the revealed seed, the
// commitment shown since the start, the record to download and the verify page.

import "../analysis.css";
import { analysisApi, analysisErrorText } from "../network/analysis";
import { copyText, h } from "../dom";
import { type RematchBook, type RematchControl, rematchNote, resultDetail, resultHeadline } from "../logic/lifecycle";
import type { Side } from "../board/notation";
import type { State } from "../network/protocol";

export class GameOverPanel {
  readonly root: HTMLElement;
  private readonly rematch: HTMLElement;
  private readonly ratingLine: HTMLElement = h("p", { class: "rating-change", id: "rating-change", "aria-live": "polite", hidden: true });
  /** "Back to the tournament", for a game of one (shown once the game is over) */
  private readonly tournamentLink: HTMLAnchorElement = h("a", { id: "tournament-back", class: "btn btn-primary", text: "Back to the tournament" });
  private readonly tournamentLine: HTMLElement = h("p", { class: "tournament-line", hidden: true }, this.tournamentLink);
  private newGameLink: HTMLElement | null = null;
  private builtFor = "";
  private rematchKey = "";

  constructor(
    private readonly game: string,
    private readonly onRematch: () => void,
    private readonly onDecline: () => void = () => {},
    private readonly openReplay: () => void = () => {},
  ) {
    this.rematch = h("div", { class: "rematch", id: "rematch" });
    this.root = h("section", { class: "result", id: "result", "aria-labelledby": "result-title", hidden: true });
  }

  /** Show the end of the game (hidden while it runs). */
  update(state: State, side: Side | null, control: RematchControl | null, book: RematchBook, sending: boolean): void {
    // A withdrawn invitation never started: the page says so instead (no result to show).
    const r = state.status === "ended" && !state.withdrawn ? state.result : null;
    if (!r) {
      this.root.hidden = true;
      return;
    }
    const key = `${r.winner}|${r.reason}|${side}|${state.seed}`;
    if (key !== this.builtFor) {
      this.builtFor = key;
      this.build(state, side);
    }
    this.root.hidden = false;
    this.root.dataset.winner = r.winner ?? "draw";
    this.root.dataset.reason = r.reason;
    const other = side === null ? null : state.players[side === "attackers" ? "defenders" : "attackers"];
    this.renderRematch(side, control, book, sending, other?.name ?? "Your opponent");
  }

  private build(state: State, side: Side | null): void {
    const r = state.result!;
    const headline = resultHeadline(r, side);
    const tone = r.reason === "aborted" || r.winner === null ? "neutral" : side === null ? "neutral" : r.winner === side ? "won" : "lost";
    this.root.dataset.tone = tone;
    const seed = state.seed ?? "";
    const seedEl = h("code", { class: "hash", id: "seed", tabindex: 0, "aria-label": `Seed: ${seed}` }, seed || "—");
    const copied = h("span", { class: "copy-done", role: "status", "aria-live": "polite" });
    const copy = h("button", { type: "button", class: "btn btn-small", id: "copy-seed", text: "Copy seed" });
    copy.addEventListener("click", async () => {
      const ok = await copyText(seed, seedEl);
      copied.textContent = ok ? "Seed copied." : "Select the seed and copy it yourself.";
    });
    const game = encodeURIComponent(this.game);
    this.root.replaceChildren(
      h("h2", { id: "result-title", class: "visually-hidden", text: "Game over" }),
      h("p", { class: "result-headline", id: "result-headline", text: headline }),
      h("p", { class: "result-text", id: "result-text", text: resultDetail(r, side) }),
      this.tournamentLine,
      this.rematch,
      this.ratingLine,
      h(
        "p",
        { class: "result-links" },
        h("a", { href: `/replay/${game}`, id: "replay-link", class: "btn btn-small", text: "Replay" }),
        // The players may ask for the bot's analysis here; it shows on the replay.
        ...(side !== null && r.reason !== "aborted" ? this.analysisAsk() : []),
        h("a", { href: `/verify?game=${game}`, id: "verify-link", class: "btn btn-small", text: "Verify" }),
        (this.newGameLink = h("a", { href: "/", id: "new-game-link", class: "btn btn-small", text: "New game" })),
      ),
      h(
        "details",
        { class: "fair", id: "fair-details" },
        h("summary", { text: "Fair play: the seed and the record" }),
        h("p", {
          class: "hint",
          text: "The seed decided who attacks. It was kept secret until the end; its SHA-256, the commitment, was shown from the start, so it cannot have been changed.",
        }),
        h("div", { class: "hash-row" }, h("span", { class: "hash-label", text: "Seed" }), seedEl),
        seed ? h("div", { class: "copy-line" }, copy, copied) : null,
        h(
          "div",
          { class: "hash-row" },
          h("span", { class: "hash-label", text: "Commitment" }),
          h("code", { class: "hash", id: "commitment", text: state.commitment }),
        ),
        h(
          "p",
          { class: "fair-links" },
          h("a", {
            href: `/api/games/${game}/record`,
            download: `brandubh-${this.game}.txt`,
            id: "download-record",
            class: "btn btn-small",
            text: "Download record",
          }),
        ),
      ),
    );
    this.ratingLine.hidden = !state.rated || r.reason === "aborted";
  }

  /** "Request computer analysis": asks (POST /api/games/<id>/analysis), then opens the
   *  replay, where the progress and the analysis show; a refusal stays here in words. */
  private analysisAsk(): HTMLElement[] {
    const button = h("button", { type: "button", class: "btn btn-small", id: "gameover-analysis", title: "Request computer analysis", text: "Analyse" });
    button.setAttribute("aria-label", "Request computer analysis");
    const why = h("span", { class: "error gameover-analysis-error", id: "gameover-analysis-error", role: "alert" });
    button.addEventListener("click", async () => {
      button.disabled = true;
      why.textContent = "";
      try {
        await analysisApi.ask(this.game);
        this.openReplay();
      } catch (err) {
        why.textContent = analysisErrorText(err);
        button.disabled = false;
      }
    });
    return [button, why];
  }

  /** The tournament this game belongs to (null: none), for the way back to its page. */
  setTournament(id: string | null): void {
    // The tournament pairs its players again by itself: its page takes the place of the
    // rematch and of "New game".
    this.tournamentLine.hidden = id === null;
    this.rematch.hidden = id !== null;
    if (this.newGameLink) this.newGameLink.hidden = id !== null;
    if (id !== null) this.tournamentLink.href = `/t/${encodeURIComponent(id)}`;
  }

  /** The rating change of a rated game, once the server has rated it ("" to leave it out). */
  setRatingChange(text: string): void {
    // Its line keeps its place from the end of the game: the text arriving moves nothing.
    this.ratingLine.textContent = text;
    this.ratingLine.title = text;
  }

  private renderRematch(side: Side | null, control: RematchControl | null, book: RematchBook, sending: boolean, opponent: string): void {
    const key = `${side}|${JSON.stringify(control)}|${book.offer}|${book.next}|${book.declined}|${sending}`;
    if (key === this.rematchKey) return;
    const hadFocus = this.rematch.contains(document.activeElement);
    this.rematchKey = key;
    this.rematch.replaceChildren();
    this.rematch.dataset.state = control?.kind ?? (book.next ? "open" : book.offer ? "offered" : book.declined ? "declined" : "none");
    let focus: HTMLElement | null = null;

    if (side === null || control === null) {
      // Spectators: the news, and the way to the new game once there is one.
      const note = rematchNote(book);
      if (note) this.rematch.append(h("p", { class: "rematch-text", role: "status", text: note }));
      if (book.next) {
        this.rematch.append(h("p", {}, h("a", { href: `/g/${book.next}`, class: "btn", id: "open-rematch", text: "Watch the rematch" })));
      }
      return;
    }
    switch (control.kind) {
      case "offer": {
        const button = h("button", { type: "button", class: "btn btn-primary", id: "rematch-button" });
        button.textContent = sending ? "Asking…" : control.label;
        button.disabled = sending;
        button.addEventListener("click", () => this.onRematch());
        if (book.declined === side) this.rematch.append(h("p", { class: "rematch-text", id: "rematch-declined", text: "You declined the rematch." }));
        this.rematch.append(h("p", {}, button));
        focus = button;
        break;
      }
      case "declined":
        this.rematch.append(h("p", { class: "rematch-text", id: "rematch-declined", role: "status", text: `${opponent} declined the rematch.` }));
        break;
      case "waiting":
        this.rematch.append(
          h(
            "p",
            { class: "rematch-text waiting", role: "status" },
            h("span", { class: "spinner", "aria-hidden": "true" }),
            "Rematch offered — waiting for your opponent.",
          ),
        );
        break;
      case "accept": {
        const button = h("button", { type: "button", class: "btn btn-primary", id: "rematch-button" });
        button.textContent = sending ? "Accepting…" : "Accept the rematch";
        button.disabled = sending;
        button.addEventListener("click", () => this.onRematch());
        // Declining tells the opponent at once (decline_rematch): their offer disappears.
        const decline = h("button", { type: "button", class: "btn", id: "rematch-decline", text: "No, thanks" });
        decline.disabled = sending;
        decline.addEventListener("click", () => this.onDecline());
        this.rematch.classList.add("prominent");
        this.rematch.append(
          h("p", { class: "rematch-text", role: "alert", text: "Your opponent offers a rematch — accept?" }),
          h("p", { class: "control-buttons" }, button, decline),
        );
        focus = button;
        break;
      }
      case "open":
        this.rematch.append(
          h("p", { class: "rematch-text", text: "A rematch was agreed." }),
          h("p", {}, h("a", { href: `/g/${control.game}`, class: "btn btn-primary", id: "open-rematch", text: "Open the rematch" })),
        );
        break;
    }
    if (control.kind !== "accept") this.rematch.classList.remove("prominent");
    if (hadFocus && focus) focus.focus();
  }
}
