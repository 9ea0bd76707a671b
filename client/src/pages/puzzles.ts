// `/puzzles`, `/puzzles/daily`, `/puzzles/streak`, `/puzzles/<id>`: a puzzle on the board
// with the side to move named below it (the player's side). Each move goes to the server
// (docs/protocol.md §2.13), which judges it against the hidden solution: a right one is
// answered by the defence's reply, played on the board after it; the last right one solves
// the puzzle; a wrong one fails it, and the opponent's refutation is drawn as an arrow and
// said in words with the move that was awaited and the theme. The rating change, the streak
// and "Next puzzle" have places of their own, kept from the first paint, so nothing moves.

import "../puzzles.css";
import { ApiError } from "../network/api";
import { Board } from "../board/board";
import { type Side, parsePosition } from "../board/notation";
import { pieceSvg } from "../board/pieces";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { THEME_HINTS, otherSide, ratingText, refutationText, solvedText } from "../logic/puzzles";
import { type Answer, type PuzzleView, type Started, type Theme, puzzlesApi } from "../network/puzzles";

export type PuzzlePageMode = "rated" | "daily" | "streak" | "one";

const REPLY_DELAY_MS = 450; // the defence's reply follows the player's move after this

const TITLES: Record<PuzzlePageMode, string> = {
  rated: "Puzzles",
  daily: "Puzzle of the day",
  streak: "Puzzle streak",
  one: "Puzzle",
};

function sideBar(side: Side, words: string, id: string): HTMLElement {
  return h(
    "div",
    { class: `pz-bar pz-bar-${side}`, id },
    h("span", { class: "pz-bar-piece", "aria-hidden": "true" }, pieceSvg(side === "attackers" ? "A" : "K")),
    h("span", { class: "pz-bar-text", text: words }),
  );
}

export function mountPuzzles(root: HTMLElement, ctx: AppContext, mode: PuzzlePageMode, id = ""): Unmount {
  ctx.setTitle(TITLES[mode]);
  let gone = false;
  let puzzle: PuzzleView | null = null;
  let ply = 0;
  let busy = false;
  let streak = 0;
  let theme: Theme | null = null;
  const timers: number[] = [];

  const board = new Board((move) => void play(move));
  const prompt = h("p", { class: "pz-prompt", id: "pz-prompt", "aria-live": "polite", text: "Finding a puzzle…" });
  const topBar = h("div", { class: "pz-bar-slot", id: "pz-top" });
  const bottomBar = h("div", { class: "pz-bar-slot", id: "pz-bottom" });
  const message = h("p", { class: "pz-message", id: "pz-message", role: "status" });
  const detail = h("p", { class: "pz-detail", id: "pz-detail" });
  const hint = h("p", { class: "pz-hint", id: "pz-theme" });
  const rating = h("p", { class: "pz-rating", id: "pz-rating" });
  const streakOut = h("p", { class: "pz-streak", id: "pz-streak", hidden: mode !== "streak" }, "Streak: ", h("strong", { id: "pz-streak-n", text: "0" }));
  const next = h("button", { type: "button", class: "btn btn-primary", id: "pz-next", text: mode === "streak" ? "Next in the streak" : "Next puzzle", disabled: true });
  const retry = h("button", { type: "button", class: "btn", id: "pz-retry", text: "Try again", disabled: true });
  const info = h("p", { class: "pz-info muted", id: "pz-info" });
  const mine = h("p", { class: "pz-mine", id: "pz-mine" });
  const themeSelect = h(
    "select",
    { id: "pz-theme-choice", "aria-label": "Theme of the next puzzle" },
    h("option", { value: "", text: "Any theme" }),
    h("option", { value: "escape", text: "Escape" }),
    h("option", { value: "capture", text: "Capture the king" }),
    h("option", { value: "defend", text: "Defend" }),
  );

  const page = h(
    "div",
    { class: "page page-puzzles", id: "puzzles-page", "data-mode": mode, "data-state": "loading" },
    h("h1", { text: TITLES[mode] }),
    h(
      "div",
      { class: "pz-layout board-page" },
      h("div", { class: "pz-board board-page-board" }, prompt, topBar, board.root, bottomBar),
      h(
        "div",
        { class: "pz-side board-page-side" },
        h("section", { class: "panel pz-panel pz-outcome", id: "pz-outcome", "aria-label": "How it went" }, message, detail, hint, rating, streakOut, h("div", { class: "pz-actions" }, next, retry)),
        h(
          "section",
          { class: "panel pz-panel", "aria-labelledby": "pz-modes-h" },
          h("h2", { id: "pz-modes-h", text: "More puzzles" }),
          mine,
          h(
            "nav",
            { class: "pz-modes", "aria-label": "Puzzle modes" },
            h("a", { href: "/puzzles", "data-nav-puzzles": "rated", text: "Rated" }),
            h("a", { href: "/puzzles/daily", text: "Puzzle of the day" }),
            h("a", { href: "/puzzles/streak", text: "Streak" }),
          ),
          h("label", { class: "pz-theme-label" }, "Next puzzle's theme ", themeSelect),
          info,
        ),
      ),
    ),
  );
  root.append(page);

  function setState(state: string): void {
    page.dataset.state = state;
    page.dataset.ply = String(ply); // the line's ply the board shows: what tests wait on
  }

  function fail(err: unknown): void {
    busy = false;
    setState("error");
    message.textContent = err instanceof ApiError ? err.message : "Something went wrong: try again.";
    message.dataset.kind = "error";
    next.disabled = false;
  }

  function showBoard(position: string, legal: readonly string[], last: string | null, interactive: boolean): void {
    const pos = parsePosition(position);
    board.update({ position: pos, legal, interactive, last, pending: null, ply, status: interactive ? "playing" : "ended", turn: pos.toMove });
    board.root.dataset.position = position;
  }

  function begin(started: Started): void {
    if (gone) return;
    puzzle = started.puzzle;
    ply = 0;
    busy = false;
    streak = started.streak;
    theme = null;
    const side = puzzle.side;
    page.dataset.puzzle = puzzle.id;
    page.dataset.side = side;
    setState("solving");
    board.setArrows([]);
    showBoard(puzzle.position, puzzle.legal, null, true);
    prompt.textContent = `${puzzle.prompt}${puzzle.depth > 1 ? ` (${puzzle.depth} moves)` : ""}.`;
    topBar.replaceChildren(sideBar(otherSide(side), `The ${otherSide(side)}`, "pz-them"));
    bottomBar.replaceChildren(sideBar(side, `You play the ${side} — your move`, "pz-you"));
    // Until the first move, the outcome's place says how a puzzle goes (it is never empty).
    message.textContent =
      puzzle.depth > 1
        ? `Play your move on the board. The ${otherSide(side)} answer, and you find the next: at each of your moves only one move does it.`
        : "Play your move on the board: only one move does it.";
    message.removeAttribute("data-kind");
    detail.textContent = "";
    hint.textContent = "";
    rating.textContent = `Your puzzle rating: ${started.rating}`;
    (streakOut.querySelector("#pz-streak-n") as HTMLElement).textContent = String(streak);
    info.textContent = `Puzzle ${puzzle.id} · ${puzzle.ruleset} · rated ${puzzle.rating} · tried ${puzzle.plays} ${puzzle.plays === 1 ? "time" : "times"}`;
    next.disabled = mode !== "rated"; // a rated player may skip; a streak or the day's is played out
    retry.disabled = true;
    if (mode === "one" || mode === "daily") history.replaceState(null, "", mode === "daily" ? "/puzzles/daily" : `/puzzles/${puzzle.id}`);
  }

  async function load(): Promise<void> {
    setState("loading");
    next.disabled = true;
    retry.disabled = true;
    try {
      let started: Started;
      if (mode === "daily") {
        const daily = await puzzlesApi.daily();
        started = await puzzlesApi.start(daily.puzzle.id);
      } else if (mode === "one" && !puzzle) started = await puzzlesApi.start(id);
      else if (mode === "streak") started = await puzzlesApi.next("streak", null);
      else started = await puzzlesApi.next("rated", (themeSelect.value || null) as Theme | null);
      begin(started);
      void showMine();
      // A visitor's first puzzle made its guest session: the header and socket learn it.
      void ctx.me.then((me) => {
        if (!gone && me && !me.id) void ctx.refreshSession();
      });
    } catch (err) {
      if (!gone) fail(err);
    }
  }

  async function again(): Promise<void> {
    if (!puzzle) return;
    try {
      begin(await puzzlesApi.start(puzzle.id));
    } catch (err) {
      if (!gone) fail(err);
    }
  }

  async function showMine(): Promise<void> {
    try {
      const s = await puzzlesApi.me();
      if (gone) return;
      mine.textContent = `Your puzzle rating: ${s.rating}${s.provisional ? "?" : ""} · ${s.attempts} rated ${s.attempts === 1 ? "attempt" : "attempts"} · best streak ${s.best_streak}${s.account ? "" : " (a guest's: kept with this browser's session)"}`;
    } catch {
      /* the page works without it */
    }
  }

  async function play(move: string): Promise<void> {
    if (busy || !puzzle || page.dataset.state !== "solving") return;
    busy = true;
    const current = puzzle;
    let answer: Answer;
    try {
      answer = await puzzlesApi.move(current.id, ply, move);
    } catch (err) {
      busy = false;
      if (gone) return;
      if (err instanceof ApiError && err.code === "illegal_move") {
        board.reset();
        message.textContent = err.message;
        message.dataset.kind = "error";
        return;
      }
      fail(err);
      return;
    }
    if (gone || puzzle !== current) return;
    message.textContent = "";
    message.removeAttribute("data-kind");
    ply += 1;
    showBoard(answer.moved, [], answer.move, false);
    board.animate(answer.move, false);
    if (answer.result === "right" && answer.reply) {
      const reply = answer.reply;
      setState("waiting");
      message.textContent = `Right: ${answer.move}. The ${otherSide(current.side)} answer…`;
      message.dataset.kind = "good";
      timers.push(
        window.setTimeout(() => {
          if (gone || puzzle !== current) return;
          ply = answer.ply;
          showBoard(answer.position, answer.legal, reply, true);
          board.animate(reply);
          message.textContent = `Right. The ${otherSide(current.side)} answered ${reply}: find the next move.`;
          setState("solving");
          busy = false;
        }, REPLY_DELAY_MS),
      );
      return;
    }
    finish(current, answer);
  }

  function finish(current: PuzzleView, answer: Answer): void {
    busy = false;
    theme = answer.theme;
    if (answer.reply) {
      showBoard(answer.position, [], answer.reply, false);
      board.animate(answer.reply);
    }
    const solved = answer.result === "solved";
    setState(solved ? "solved" : "failed");
    message.dataset.kind = solved ? "good" : "bad";
    if (answer.streak !== null) {
      streak = answer.streak;
      (streakOut.querySelector("#pz-streak-n") as HTMLElement).textContent = String(streak);
    }
    if (solved) {
      message.textContent = solvedText(current.depth, answer.streak);
      detail.textContent = answer.solution ? `The line: ${answer.solution.join(" ")}` : "";
      board.setArrows([]);
    } else {
      message.textContent = answer.streak !== null ? `Wrong: the streak ends at ${answer.streak}.` : "Wrong move: the puzzle is failed.";
      detail.textContent = refutationText(answer, current.side);
      if (answer.refutation) board.setArrows([answer.refutation]);
      board.root.dataset.refutation = answer.refutation ?? "";
    }
    hint.textContent = theme ? THEME_HINTS[theme] : "";
    const best = answer.best_streak !== null ? ` Best streak: ${answer.best_streak}.` : "";
    rating.textContent = ratingText(answer) + best;
    bottomBar.replaceChildren(sideBar(current.side, `You play the ${current.side}`, "pz-you"));
    next.disabled = false;
    next.textContent = mode === "streak" ? (solved ? "Next in the streak" : "Start a new streak") : "Next puzzle";
    retry.disabled = mode === "streak";
    void showMine();
  }

  next.addEventListener("click", () => {
    if (mode === "daily" || mode === "one") {
      // After the day's puzzle (or one by its link), on to rated puzzles.
      ctx.navigate("/puzzles");
      return;
    }
    void load();
  });
  retry.addEventListener("click", () => void again());

  void load();
  return () => {
    gone = true;
    for (const t of timers) clearTimeout(t);
  };
}
