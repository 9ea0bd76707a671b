// The replay's analysis panel: "Request computer analysis" for those allowed (refusals in
// words), the progress pushed over the socket (`follow_analysis`; analysis_progress and
// analysis_done frames), then each side's judgments and accuracy, the first forced win
// found, and the record with the analysis as comments. The page draws the rest (graph,
// marks, arrows) from the analysis this hands it (`onReady`).

import { type Analysis, type AnalysisStatus, analysisApi, analysisErrorText, analysisRecordUrl, progressText } from "../network/analysis";
import { h } from "../dom";
import type { Side } from "../board/notation";
import type { AnalysisProgressFrame } from "../network/protocol";

/** What the panel needs of the live connection (LiveClient; tests may pass a fake). */
export interface AnalysisTransport {
  readonly isOpen: boolean;
  sendExtra(frame: { t: string }): boolean;
  onFrame(fn: (frame: { t: string }) => boolean | void): () => void;
  subscribe(fn: (change: { type: string }) => void): () => void;
}

/** Whether this viewer may ask (the server decides; this only hides a button that would be
 *  refused): a player of the game, or an account (a confirmed one: `account` true). */
export function mayRequest(viewer: { id: string | null; account: boolean } | null, players: readonly (string | undefined)[]): boolean {
  if (!viewer?.id) return false;
  return viewer.account || players.includes(viewer.id);
}

const SIDES: readonly Side[] = ["attackers", "defenders"];

export class AnalysisPanel {
  readonly root: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly error: HTMLElement;
  private readonly body: HTMLElement;
  private following = false;
  private done = false;
  private gone = false;
  private readonly unhooks: (() => void)[] = [];
  private poll: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly live: AnalysisTransport,
    private readonly game: string,
    private readonly onReady: (a: Analysis) => void,
  ) {
    this.button = h("button", { type: "button", class: "btn btn-primary", id: "analysis-request", text: "Request computer analysis", hidden: true });
    this.button.addEventListener("click", () => void this.request());
    this.status = h("p", { class: "analysis-status", id: "analysis-status", role: "status", "aria-live": "polite" });
    this.error = h("p", { class: "error", id: "analysis-error", role: "alert", hidden: true });
    this.body = h("div", { class: "analysis-body", id: "analysis-summary", hidden: true });
    this.root = h(
      "section",
      { class: "analysis-panel panel", id: "analysis", "aria-labelledby": "analysis-title" },
      h("h2", { id: "analysis-title", text: "Computer analysis" }),
      this.button,
      this.status,
      this.error,
      this.body,
    );
    this.unhooks.push(live.onFrame((f) => this.onFrame(f)));
    // A reconnect forgets what the socket followed: follow again.
    this.unhooks.push(
      live.subscribe((c) => {
        if (c.type === "hello" && this.following) this.follow(true);
      }),
    );
  }

  /** Start: what the server has for this game; `allowed` shows the button, `ended` whether
   *  the game can be analysed at all. */
  start(ended: boolean, allowed: boolean): void {
    if (!ended) {
      this.status.textContent = "The game can be analysed by the computer once it has ended.";
      return;
    }
    this.status.textContent = "Looking for an analysis…";
    analysisApi
      .status(this.game)
      .then((s) => this.apply(s, allowed))
      .catch((err: unknown) => this.fail(err));
  }

  private apply(s: AnalysisStatus, allowed: boolean): void {
    if (this.gone || this.done) return;
    this.root.dataset.status = s.status;
    if (s.status === "done") {
      if (s.analysis) return this.show(s.analysis);
      return void this.fetch();
    }
    if (s.status === "none") {
      this.button.hidden = !allowed;
      this.status.textContent = allowed
        ? "The bot can go through this game move by move: how each side's chances went, the mistakes, and better moves."
        : "Nobody has asked for this game's analysis yet. Its players, and for a public game anyone with a confirmed account, may ask.";
      return;
    }
    this.button.hidden = true;
    this.status.textContent = progressText(s);
    this.follow(true);
  }

  private async request(): Promise<void> {
    this.button.disabled = true;
    this.error.hidden = true;
    this.status.textContent = "Asking…";
    this.follow(true); // before the answer: no progress frame is missed
    try {
      const s = await analysisApi.ask(this.game);
      this.button.hidden = true;
      this.apply(s, false);
    } catch (err) {
      this.follow(false);
      this.button.disabled = false;
      this.status.textContent = "";
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.gone) return;
    this.error.textContent = analysisErrorText(err);
    this.error.hidden = false;
    this.root.dataset.error = err instanceof Error && "code" in err ? String((err as { code: unknown }).code) : "error";
  }

  private follow(on: boolean): void {
    this.following = on;
    this.live.sendExtra({ t: "follow_analysis", game: this.game, on } as { t: string });
    // Without the socket nothing is pushed: ask now and then instead.
    if (on && this.poll === null) {
      this.poll = setInterval(() => {
        if (!this.live.isOpen) void this.fetch();
      }, 5000);
    } else if (!on && this.poll !== null) {
      clearInterval(this.poll);
      this.poll = null;
    }
  }

  private onFrame(frame: { t: string }): boolean {
    if (frame.t === "analysis_progress") {
      const f = frame as AnalysisProgressFrame;
      if (f.game !== this.game) return false;
      if (!this.done) {
        this.root.dataset.status = "running";
        this.status.textContent = progressText({ status: "running", ply: f.ply, of: f.of });
        this.status.dataset.ply = String(f.ply);
      }
      return true;
    }
    if (frame.t === "analysis_done") {
      if ((frame as { game?: string }).game !== this.game) return false;
      void this.fetch();
      return true;
    }
    return false;
  }

  private async fetch(): Promise<void> {
    try {
      const s = await analysisApi.status(this.game);
      if (s.status === "done" && s.analysis) this.show(s.analysis);
      else if (!this.done && s.status !== "none") this.status.textContent = progressText(s);
    } catch (err) {
      this.fail(err);
    }
  }

  private show(a: Analysis): void {
    if (this.gone || this.done) return;
    this.done = true;
    this.follow(false);
    this.root.dataset.status = "done";
    this.button.hidden = true;
    this.error.hidden = true;
    this.status.textContent = `By the bot at ${a.nodes.toLocaleString("en-GB")} nodes a move.`;
    const rows = SIDES.map((side) => {
      const s = a.sides[side];
      return h(
        "tr",
        { "data-side": side },
        h("th", { scope: "row", text: side === "attackers" ? "Attackers" : "Defenders" }),
        h("td", { class: "judg-inaccuracy", text: String(s.inaccuracy) }),
        h("td", { class: "judg-mistake", text: String(s.mistake) }),
        h("td", { class: "judg-blunder", text: String(s.blunder) }),
        h("td", { class: "accuracy", text: `${Math.round(s.accuracy)} %` }),
      );
    });
    const forced = a.plies.find((p) => p.forced);
    this.body.replaceChildren(
      h(
        "table",
        { class: "analysis-sides", id: "analysis-sides" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col", text: "" }),
            h("th", { scope: "col", title: "Inaccuracies (?!)", text: "?!" }),
            h("th", { scope: "col", title: "Mistakes (?)", text: "?" }),
            h("th", { scope: "col", title: "Blunders (??)", text: "??" }),
            h("th", { scope: "col", text: "Accuracy" }),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
      h("p", { class: "hint", text: "?! inaccuracy · ? mistake · ?? blunder: the mover's chance to win dropped by that much. Click a marked move, or the graph, to see the better move." }),
      ...(forced?.forced
        ? [h("p", { class: "analysis-forced", id: "analysis-forced", text: `After ply ${forced.ply} (${forced.move}) the search proves a win: ${forced.forced.text}.` })]
        : []),
      h("p", {}, h("a", { href: analysisRecordUrl(this.game), class: "btn btn-small", id: "analysis-record", download: `brandubh-${this.game}-analysis.txt`, text: "Record with the analysis" })),
    );
    this.body.hidden = false;
    this.onReady(a);
  }

  /** A control of the page's own under the judgments (the replay's "Learn from your
   *  mistakes"), once the analysis is shown. */
  addAction(node: HTMLElement): void {
    this.body.append(node);
  }

  destroy(): void {
    this.gone = true;
    if (this.following) this.follow(false);
    for (const u of this.unhooks) u();
  }
}
