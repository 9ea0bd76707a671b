// "Learn from your mistakes" on an analysed game's replay: the viewer's own judged moves
// (?!, ?, ??) one after another as exercises. The board shows the position before the
// move, the viewer plays another on it (click, drag or keyboard), and the server judges it
// as the analysis would have (POST /api/games/<id>/analysis/exercise): any good move passes,
// not only the engine's. Then "Next mistake", and at the end how many were found.
// The messages sit under the board, in the page's flow (nothing drawn over the board).

import { type Analysis, type PlyEval, type TriedMove, analysisApi, analysisErrorText, judgmentMark } from "../network/analysis";
import type { Board } from "../board/board";
import { type Side, parsePosition } from "../board/notation";
import { h } from "../dom";

/** The viewer's side's judged moves, in the game's order. */
export function mistakesOf(analysis: Analysis, side: Side): PlyEval[] {
  return analysis.plies.filter((p) => p.side === side && p.judgment !== null && p.best !== null);
}

/** "Move 2 (ply 3) of the game" style heading: which mistake of how many. */
export function progressLine(index: number, total: number, p: PlyEval): string {
  const mark = judgmentMark(p.judgment);
  const n = Math.floor((p.ply - 1) / 2) + 1;
  return `Mistake ${index + 1} of ${total} · move ${n}: you played ${p.move}${mark ? ` (${mark.title.toLowerCase()}, ${mark.symbol})` : ""}`;
}

/** The prompt: "Find a better move for the attackers." */
export function promptText(side: Side): string {
  return `Find a better move for the ${side}.`;
}

/** The verdict in words. */
export function verdictText(v: TriedMove, best: string): string {
  if (v.good) {
    if (v.why === "best") return `Good move! ${v.move} is the engine's own choice.`;
    if (v.why === "won") return `Good move! ${v.move} wins by force (the engine's choice: ${best}).`;
    return `Good move! ${v.move} is as good as the engine's ${best}.`;
  }
  if (v.why === "played") return `Not quite — ${v.move} is the move you played. Try again.`;
  if (v.why === "lost") return `Not quite — after ${v.move} the engine proves a loss. Try again.`;
  if (v.why === "win_lost") return `Not quite — you had a forced win, and ${v.move} lets it go. Try again.`;
  const mark = judgmentMark(v.judgment);
  return `Not quite — ${v.move} would also be ${mark ? `${/^[aeiou]/i.test(mark.title) ? "an" : "a"} ${mark.title.toLowerCase()}` : "worse"}. Try again.`;
}

/** "3 of 5 found" and a word for it. */
export function summaryText(found: number, total: number): string {
  const mistakes = total === 1 ? "mistake" : "mistakes";
  return `${found} of ${total} found. You went through your ${total} ${mistakes} in this game.`;
}

type Phase = "playing" | "checking" | "good" | "wrong" | "answer" | "done";

/** What the trainer needs of the replay page. */
export interface MistakesHost {
  game: string;
  board: Board;
  /** the position before each ply: positions[ply - 1] */
  positions: readonly string[];
  ruleset: string;
  start: string | null;
  moves: readonly string[];
  /** the exercise at this ply is shown (the page marks the move in its list) */
  onShow: (ply: number) => void;
  /** leave the exercises: the replay shows its ply again */
  onStop: () => void;
}

export class MistakesTrainer {
  readonly root: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly prompt: HTMLElement;
  private readonly verdict: HTMLElement;
  private readonly buttons: Record<"retry" | "answer" | "next" | "stop", HTMLButtonElement>;
  private index = 0;
  private found = 0;
  private solved = false; // the current one was found (before its answer was shown)
  private phase: Phase = "playing";
  private legal: string[][] = []; // legal moves before each ply, from the server's walk
  private gone = false;

  constructor(
    private readonly host: MistakesHost,
    private readonly list: readonly PlyEval[],
    private readonly side: Side,
  ) {
    this.heading = h("p", { class: "mistakes-heading", id: "mistakes-heading" });
    this.prompt = h("p", { class: "mistakes-prompt", id: "mistakes-prompt" });
    this.verdict = h("p", { class: "mistakes-verdict", id: "mistakes-verdict", role: "status", "aria-live": "polite" });
    const button = (id: string, text: string, primary = false) => h("button", { type: "button", class: `btn btn-small${primary ? " btn-primary" : ""}`, id, text });
    this.buttons = {
      retry: button("mistakes-retry", "Try again"),
      answer: button("mistakes-answer", "Show the answer"),
      next: button("mistakes-next", "Next mistake", true),
      stop: button("mistakes-stop", "Stop"),
    };
    this.buttons.retry.addEventListener("click", () => this.show());
    this.buttons.answer.addEventListener("click", () => this.answer());
    this.buttons.next.addEventListener("click", () => this.next());
    this.buttons.stop.addEventListener("click", () => this.stop());
    this.root = h(
      "section",
      { class: "mistakes panel", id: "mistakes", "aria-labelledby": "mistakes-heading" },
      this.heading,
      this.prompt,
      this.verdict,
      h("div", { class: "mistakes-actions" }, this.buttons.retry, this.buttons.answer, this.buttons.next, this.buttons.stop),
    );
  }

  /** Fetch the legal moves (the server's walk of the game), then the first exercise. */
  async start(): Promise<void> {
    this.verdict.textContent = "Setting up the board…";
    this.setPhase("checking");
    try {
      const walked = await analysisApi.walk(this.host.ruleset, this.host.start, this.host.moves);
      this.legal = walked.steps.map((s) => s.legal);
    } catch (err) {
      this.verdict.textContent = analysisErrorText(err);
      return;
    }
    if (!this.gone) this.show();
  }

  private get current(): PlyEval {
    return this.list[this.index];
  }

  private setPhase(phase: Phase): void {
    this.phase = phase;
    this.root.dataset.phase = phase;
    const b = this.buttons;
    b.retry.hidden = phase !== "wrong";
    b.answer.hidden = phase !== "wrong";
    b.next.hidden = !(phase === "good" || phase === "wrong" || phase === "answer");
    b.next.textContent = this.index + 1 < this.list.length ? "Next mistake" : "See the summary";
    b.stop.textContent = phase === "done" ? "Back to the replay" : "Stop";
  }

  /** The current exercise: its position, the board ready for a move. */
  private show(): void {
    const p = this.current;
    this.root.dataset.ply = String(p.ply);
    this.host.onShow(p.ply);
    this.heading.textContent = progressLine(this.index, this.list.length, p);
    this.prompt.textContent = promptText(this.side);
    this.verdict.textContent = "Play a move on the board.";
    this.draw(true);
    this.host.board.setArrows([]);
    this.setPhase("playing");
  }

  private draw(interactive: boolean): void {
    const p = this.current;
    this.host.board.update({
      position: parsePosition(this.host.positions[p.ply - 1]),
      legal: interactive ? (this.legal[p.ply - 1] ?? []) : [],
      interactive,
      last: null,
      pending: null,
      ply: p.ply - 1,
      status: "exercise",
      turn: this.side,
    });
  }

  /** A move made on the board: judged by the server. */
  async play(move: string): Promise<void> {
    if (this.phase !== "playing") return;
    const p = this.current;
    this.setPhase("checking");
    this.draw(false);
    this.host.board.setArrows([move]);
    this.verdict.textContent = `Checking ${move}…`;
    let v: TriedMove;
    try {
      v = await analysisApi.tryMove(this.host.game, p.ply, move);
    } catch (err) {
      if (this.gone) return;
      this.verdict.textContent = analysisErrorText(err);
      this.draw(true);
      this.host.board.setArrows([]);
      this.setPhase("playing");
      return;
    }
    if (this.gone) return;
    this.root.dataset.tried = v.move;
    this.root.dataset.good = String(v.good);
    this.verdict.textContent = verdictText(v, p.best ?? "");
    if (v.good) {
      if (!this.solved) this.found += 1;
      this.solved = true;
      this.host.board.setArrows([v.move]);
      this.setPhase("good");
    } else {
      this.host.board.setArrows([], v.move);
      this.setPhase("wrong");
    }
  }

  /** The engine's move on the board, and its line in words. */
  private answer(): void {
    const p = this.current;
    const line = p.line.length ? p.line : p.best ? [p.best] : [];
    this.host.board.setArrows(line, this.root.dataset.tried ?? null);
    this.verdict.textContent = `The engine's move: ${p.best}${line.length > 1 ? ` (line: ${line.join(" ")})` : ""}.`;
    this.setPhase("answer");
  }

  private next(): void {
    this.solved = false;
    delete this.root.dataset.tried;
    delete this.root.dataset.good;
    if (this.index + 1 < this.list.length) {
      this.index += 1;
      this.show();
      return;
    }
    this.host.board.setArrows([]);
    this.draw(false);
    delete this.root.dataset.ply;
    this.heading.textContent = "Learn from your mistakes: done";
    this.prompt.textContent = "";
    this.verdict.textContent = summaryText(this.found, this.list.length);
    this.root.dataset.found = String(this.found);
    this.setPhase("done");
  }

  private stop(): void {
    this.destroy();
    this.host.onStop();
  }

  destroy(): void {
    this.gone = true;
    this.root.remove();
  }
}
