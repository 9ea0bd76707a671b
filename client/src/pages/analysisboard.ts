// `/analysis?ruleset=..&position=..&moves=a,b,c&ply=k`: the analysis board. Pieces move
// freely for both sides; the client has no rules engine, so the server walks the line
// (POST /api/board/walk: each step's position, legal moves and result). Step back and forth
// with the buttons or the arrow keys, type a position, ask the bot for its evaluation
// (POST /api/analysis/position; the best line drawn as arrows), and see the opening
// explorer beside it. The URL follows the line (replaceState), so it can be shared. A pasted
// OpenTafl record is read by the server's converter (POST /api/otn/import) and walked as a line.

import "../accounts.css";
import "../analysis.css";
import { ApiError } from "../network/api";
import { type OtnImport, type PositionEval, type WalkStep, analysisApi, analysisErrorText, evalText } from "../network/analysis";
import { Board } from "../board/board";
import { type BoardState, boardUrl, parseBoardUrl, playAt } from "../board/boardurl";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { type Explorer, mountExplorer } from "../panels/explorer";
import { describeMove, parsePosition } from "../board/notation";
import { RULES, RULESET_ORDER } from "../board/rules";
import { resultText } from "../logic/status";
import { listenStepKeys } from "../board/stepkeys";
import { flipControl } from "../board/flip";

/** The index (from 0) of the move an `illegal_move` refusal names ("move 3 (…) cannot be
 *  played: …"); 0 when it names none. */
export function illegalIndex(message: string): number {
  const m = /^move (\d+)\b/.exec(message);
  return m ? Number(m[1]) - 1 : 0;
}

/** "1. d1-c1 d3-c3 2. …" as buttons: the move number before each attackers' move. */
function lineButtons(moves: readonly string[], startsWith: "attackers" | "defenders", onPly: (ply: number) => void): HTMLButtonElement[] {
  return moves.map((move, i) => {
    const b = h("button", { type: "button", class: "ply", "data-ply": String(i + 1), title: describeMove(move), text: move });
    b.addEventListener("click", () => onPly(i + 1));
    const attackersMove = (i % 2 === 0) === (startsWith === "attackers");
    if (attackersMove || i === 0) {
      const n = Math.floor((i + (startsWith === "attackers" ? 0 : 1)) / 2) + 1;
      b.prepend(h("span", { class: "move-no", text: attackersMove ? `${n}.` : `${n}…` }));
    }
    return b;
  });
}

export function mountAnalysisBoard(root: HTMLElement, ctx: AppContext, search: string): Unmount {
  ctx.setTitle("Analysis board");
  let gone = false;
  let state: BoardState = parseBoardUrl(search);
  let steps: WalkStep[] = [];
  let evalFor = ""; // the position whose evaluation is shown
  // Evaluations already had on this page, by rule set and position: stepping back to one
  // shows it again without asking the server.
  const evals = new Map<string, PositionEval>();
  let busy = false;

  const board = new Board((move) => void play(move));
  const flip = flipControl(board, "analysis"); // one analysis board: kept as one
  const caption = h("p", { class: "status-line", id: "ab-caption", "aria-live": "polite" });
  const error = h("p", { class: "error", id: "ab-error", role: "alert", hidden: true });
  const line = h("div", { class: "ab-line", id: "ab-line", "aria-label": "The line" });
  const buttons = {
    first: h("button", { type: "button", class: "btn", id: "ab-first", "aria-label": "Start of the line", text: "|◀" }),
    prev: h("button", { type: "button", class: "btn", id: "ab-prev", "aria-label": "Back one move", text: "◀" }),
    next: h("button", { type: "button", class: "btn", id: "ab-next", "aria-label": "Forward one move", text: "▶" }),
    end: h("button", { type: "button", class: "btn", id: "ab-last", "aria-label": "End of the line", text: "▶|" }),
  };
  const evaluate = h("button", { type: "button", class: "btn btn-primary", id: "ab-evaluate", text: "Evaluate" });
  const evalOut = h("p", { class: "ab-eval", id: "ab-eval", "aria-live": "polite" });
  const rulesetSelect = h("select", { id: "ab-ruleset", "aria-label": "Rule set" });
  for (const id of RULESET_ORDER) rulesetSelect.append(h("option", { value: id, text: RULES[id]?.title ?? id }));
  const positionInput = h("input", {
    id: "ab-position",
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    "aria-label": "Position",
    placeholder: "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a",
  });
  const positionForm = h(
    "form",
    { class: "ab-position-form", id: "ab-position-form" },
    rulesetSelect,
    positionInput,
    h("button", { type: "submit", class: "btn", id: "ab-set-position", text: "Set up" }),
  );
  const positionError = h("p", { class: "error", id: "ab-position-error", role: "alert", hidden: true });
  const otnText = h("textarea", {
    id: "ab-otn",
    rows: 5,
    spellcheck: "false",
    autocomplete: "off",
    "aria-label": "OpenTafl notation",
    placeholder: "[rules:dim:7 atkf:y … start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n1. d2-c2 d3-c3\n2. …",
  });
  const otnForm = h(
    "form",
    { class: "ab-otn-form", id: "ab-otn-form" },
    otnText,
    h("button", { type: "submit", class: "btn", id: "ab-otn-load", text: "Load" }),
  );
  const otnNote = h("p", { class: "hint", id: "ab-otn-note", "aria-live": "polite" });
  const otnError = h("p", { class: "error ab-otn-error", id: "ab-otn-error", role: "alert", hidden: true });
  const explorerHost = h("div", { class: "ab-explorer", id: "ab-explorer" });
  let explorer: Explorer | null = null;
  let explorerRuleset = "";

  const page = h(
    "div",
    { class: "page page-analysis", id: "analysis-board" },
    h("h1", { text: "Analysis board" }),
    h(
      "div",
      { class: "ab-layout board-page" },
      h(
        "div",
        { class: "ab-board board-page-board" },
        h("div", { class: "ab-controls", role: "group", "aria-label": "Step through the line" }, buttons.first, buttons.prev, buttons.next, buttons.end, flip.button, evaluate),
        caption,
        board.root,
        error,
        h("p", { class: "hint", text: "Move the pieces of either side. Arrow keys step through the line; f flips the board; a move played at an earlier step starts a new line from there." }),
      ),
      h(
        "div",
        { class: "ab-side board-page-side" },
        h("section", { class: "panel ab-panel", "aria-labelledby": "ab-eval-title" }, h("h2", { id: "ab-eval-title", text: "The bot's evaluation" }), evalOut),
        h("section", { class: "panel ab-panel", "aria-labelledby": "ab-line-title" }, h("h2", { id: "ab-line-title", text: "Line" }), line),
        h(
          "section",
          { class: "panel ab-panel", "aria-labelledby": "ab-position-title" },
          h("h2", { id: "ab-position-title", text: "Position" }),
          h("p", { class: "hint", text: "Ranks 7 to 1, each from file a: A attacker, D defender, K king, digits for empty squares; then a or d for the side to move." }),
          positionForm,
          positionError,
        ),
        h(
          "section",
          { class: "panel ab-panel", "aria-labelledby": "ab-otn-title" },
          h("h2", { id: "ab-otn-title", text: "Import OpenTafl notation" }),
          h("p", { class: "hint", text: "Paste an OTN game record (its [rules:…] tag says the rule set; nielsen and walker can be said in OTN), a rules string, or a bare position, played under the rule set chosen above." }),
          otnForm,
          otnNote,
          otnError,
        ),
        h("section", { class: "panel ab-panel", "aria-labelledby": "ab-explorer-title" }, h("h2", { id: "ab-explorer-title", text: "Opening explorer" }), explorerHost),
      ),
    ),
  );
  root.append(page);

  function fail(target: HTMLElement, err: unknown): void {
    target.textContent = analysisErrorText(err);
    target.hidden = false;
  }

  /** Walk the whole line from its start (at load and after a new position). */
  async function walkAll(next: BoardState): Promise<boolean> {
    try {
      const r = await analysisApi.walk(next.ruleset, next.position, next.moves);
      if (gone) return false;
      steps = r.steps;
      state = { ...next, ply: Math.min(next.ply, steps.length - 1) };
      return true;
    } catch (err) {
      if (gone) return false;
      if (err instanceof ApiError && err.code === "illegal_move" && next.moves.length) {
        // Keep the line up to the move that does not hold ("move 3 (…) cannot be played"),
        // and say which.
        fail(error, err);
        const keep = Math.max(0, Math.min(next.moves.length - 1, illegalIndex(err.message)));
        const moves = next.moves.slice(0, keep);
        return walkAll({ ...next, moves, ply: Math.min(next.ply, moves.length) });
      }
      throw err;
    }
  }

  async function play(move: string): Promise<void> {
    if (busy) return;
    const next = playAt(state, move);
    error.hidden = true;
    if (state.moves[state.ply] === move) {
      state = next; // on along the same line: its steps are known
      return show();
    }
    busy = true;
    try {
      const from = steps[state.ply];
      const r = await analysisApi.walk(state.ruleset, from.position, [move]);
      if (gone) return;
      steps = [...steps.slice(0, state.ply + 1), ...r.steps.slice(1)];
      state = next;
      board.animate(move, false);
    } catch (err) {
      fail(error, err);
    } finally {
      busy = false;
    }
    show();
  }

  function go(ply: number): void {
    state = { ...state, ply: Math.max(0, Math.min(state.moves.length, ply)) };
    show();
  }

  function show(): void {
    if (gone || !steps.length) return;
    const step = steps[state.ply];
    board.update({
      position: parsePosition(step.position),
      legal: step.result ? [] : step.legal,
      interactive: !step.result,
      last: state.ply > 0 ? state.moves[state.ply - 1] : null,
      pending: null,
      ply: state.ply,
      status: step.result ? "ended" : "analysis",
      turn: step.turn,
    });
    board.root.dataset.position = step.position;
    if (evalFor !== step.position) {
      const known = evals.get(`${state.ruleset} ${step.position}`);
      if (known) showEval(step.position, known);
      else {
        evalFor = "";
        board.setArrows([]);
        evalOut.textContent = "";
        evalOut.removeAttribute("data-score");
        evalOut.removeAttribute("data-error");
      }
    }
    const who = step.turn === "attackers" ? "Attackers" : "Defenders";
    caption.textContent = step.result
      ? resultText({ winner: step.result.winner, reason: step.result.reason })
      : `${state.ply === 0 ? "Start of the line" : `After ${state.moves[state.ply - 1]} (step ${state.ply} of ${state.moves.length})`} · ${who} to move`;
    const firstSide = steps[0]?.turn ?? "attackers";
    const plyButtons = lineButtons(state.moves, firstSide, go);
    plyButtons.forEach((b, i) => b.setAttribute("aria-current", String(i + 1 === state.ply)));
    line.replaceChildren(...(plyButtons.length ? plyButtons : [h("span", { class: "muted", text: "No moves yet: move a piece on the board." })]));
    buttons.first.disabled = buttons.prev.disabled = state.ply === 0;
    buttons.next.disabled = buttons.end.disabled = state.ply === state.moves.length;
    evaluate.disabled = !!step.result;
    if (document.activeElement !== positionInput) positionInput.value = step.position;
    rulesetSelect.value = state.ruleset;
    page.dataset.ply = String(state.ply);
    page.dataset.ruleset = state.ruleset;
    history.replaceState(null, "", boardUrl(state));
    showExplorer(step.position);
  }

  function showExplorer(position: string): void {
    if (!explorer || explorerRuleset !== state.ruleset) {
      explorerHost.replaceChildren();
      explorerRuleset = state.ruleset;
      explorer = mountExplorer(explorerHost, { ruleset: state.ruleset, onMove: (move) => void play(move) });
    }
    explorer.show(position);
  }

  function showEval(position: string, e: PositionEval): void {
    evalFor = position;
    evalOut.replaceChildren(
      h("strong", { text: evalText(e) }),
      e.pv.length ? h("br") : "",
      e.pv.length ? `Best line: ${e.pv.join(" ")}` : "",
    );
    evalOut.dataset.score = String(e.score);
    evalOut.removeAttribute("data-error");
    board.setArrows(e.pv);
  }

  evaluate.addEventListener("click", async () => {
    const step = steps[state.ply];
    if (!step) return;
    evaluate.disabled = true;
    evaluate.textContent = "Evaluating…";
    evalOut.textContent = "";
    try {
      const e = await analysisApi.evaluate(state.ruleset, step.position);
      evals.set(`${state.ruleset} ${step.position}`, e);
      if (gone || steps[state.ply]?.position !== step.position) return;
      showEval(step.position, e);
    } catch (err) {
      evalOut.textContent = analysisErrorText(err);
      evalOut.dataset.error = err instanceof ApiError ? err.code : "error";
    } finally {
      evaluate.textContent = "Evaluate";
      evaluate.disabled = !!steps[state.ply]?.result;
    }
  });

  positionForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = positionInput.value.trim();
    const ruleset = rulesetSelect.value;
    positionError.hidden = true;
    try {
      parsePosition(text);
    } catch {
      positionError.textContent = "That position does not read: seven ranks separated by /, each of seven squares, then a or d.";
      positionError.hidden = false;
      return;
    }
    void analysisApi
      .walk(ruleset, text, [])
      .then((r) => {
        if (gone) return;
        steps = r.steps;
        state = { ruleset, position: text, moves: [], ply: 0 };
        show();
      })
      .catch((err: unknown) => fail(positionError, err));
  });
  /** "nielsen · 8 moves · ann (attackers) against bo · Defenders win: …" for a loaded import. */
  function importedText(r: OtnImport): string {
    const title = RULES[r.ruleset]?.title ?? r.ruleset;
    const parts = [`Loaded: ${title}`, `${r.moves.length} ${r.moves.length === 1 ? "move" : "moves"}`];
    if (r.attackers || r.defenders) parts.push(`${r.attackers ?? "?"} (attackers) against ${r.defenders ?? "?"} (defenders)`);
    if (r.result) parts.push(resultText({ winner: r.result.winner, reason: r.result.reason }));
    return parts.join(" · ");
  }

  otnForm.addEventListener("submit", (e) => {
    e.preventDefault();
    otnError.hidden = true;
    otnNote.textContent = "";
    const text = otnText.value;
    if (!text.trim()) {
      otnError.textContent = "Paste an OTN game record, rules string or position first.";
      otnError.hidden = false;
      return;
    }
    // Nothing on the board changes unless the whole record reads and replays.
    void analysisApi
      .importOtn(text, rulesetSelect.value)
      .then(async (r) => {
        if (gone) return;
        error.hidden = true;
        if (await walkAll({ ruleset: r.ruleset, position: r.position, moves: r.moves, ply: 0 })) {
          otnNote.textContent = importedText(r);
          show();
        }
      })
      .catch((err: unknown) => fail(otnError, err));
  });
  rulesetSelect.addEventListener("change", () => {
    // A rule set changes what is legal: walk the same line again under it.
    const next = { ...state, ruleset: rulesetSelect.value };
    void walkAll(next)
      .then((ok) => ok && show())
      .catch((err: unknown) => fail(error, err));
  });

  buttons.first.addEventListener("click", () => go(0));
  buttons.prev.addEventListener("click", () => go(state.ply - 1));
  buttons.next.addEventListener("click", () => go(state.ply + 1));
  buttons.end.addEventListener("click", () => go(state.moves.length));
  const stopKeys = listenStepKeys(document, () => ({ ply: state.ply, last: state.moves.length }), go, { skipPrevented: true });

  caption.textContent = "Setting up the board…";
  walkAll(state)
    .then((ok) => ok && show())
    .catch((err: unknown) => {
      if (gone) return;
      fail(error, err);
      caption.textContent = "";
      // A start that the server refuses: the rule set's own start instead.
      if (state.position) {
        void walkAll({ ...state, position: null, moves: [], ply: 0 }).then((ok) => ok && show());
      }
    });

  return () => {
    gone = true;
    stopKeys();
    flip.stop();
  };
}
