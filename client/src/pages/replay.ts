// `/replay/<id>`: step through a game's positions, move by move. The client has no rules:
// the positions come from the server (GET /api/games/<id>/positions), computed with the
// engine. Arrow keys step; Home and End jump to the start and the end.

import { ApiError } from "../network/api";
import { type Replay, accountApi, accountErrorText } from "../network/account";
import "../accounts.css";
import "../analysis.css";
import { type Analysis, evalText, judgmentMark, judgmentText } from "../network/analysis";
import { AnalysisPanel, mayRequest } from "../panels/analysispanel";
import { MistakesTrainer, mistakesOf } from "../panels/mistakes";
import { Board } from "../board/board";
import { boardUrl } from "../board/boardurl";
import { EvalGraph } from "../panels/evalgraph";
import { mountExplorer } from "../panels/explorer";
import { replayChat } from "../panels/chat";
import type { AppContext, Unmount } from "../context";
import { clear, h, scrollIntoList } from "../dom";
import { START_POSITION, describeMove, parsePosition } from "../board/notation";
import { RULES } from "../board/rules";
import { resultText } from "../logic/status";
import { type StepAt, listenStepKeys } from "../board/stepkeys";
import { type FlipControl, flipControl } from "../board/flip";

/** The rule sets OpenTafl notation has a rules string for (brandubh.engine.OTN_RULES). */
export const OTN_RULESETS: readonly string[] = ["nielsen", "walker"];

/** "Start position (2 moves in all)" / "After 2. g3-g2 (move 2 of 2)" / "After 1… d5-g5" */
export function plyCaption(moves: readonly string[], ply: number): string {
  const total = Math.ceil(moves.length / 2);
  if (ply === 0) return `Start position (${total === 1 ? "1 move" : `${total} moves`} in all)`;
  const n = Math.floor((ply - 1) / 2) + 1;
  const dots = ply % 2 === 1 ? "." : "…";
  return `After ${n}${dots} ${moves[ply - 1]} (move ${n} of ${total})`;
}

/** The ply a replay opens at: `?ply=N` within the game, else the end. */
export function startPly(search: string, last: number): number {
  const asked = Number(new URLSearchParams(search).get("ply"));
  return Number.isInteger(asked) && asked >= 0 && asked <= last && new URLSearchParams(search).has("ply") ? asked : last;
}

/** "Attackers: Ann · Defenders: Ben", the names in bold. */
function playersLine(replay: Replay): (Node | string)[] {
  const name = (side: "attackers" | "defenders") => h("strong", { "data-side": side, text: replay.players?.[side]?.name ?? "nobody" });
  return ["Attackers: ", name("attackers"), " · Defenders: ", name("defenders")];
}

export function mountReplay(root: HTMLElement, ctx: AppContext, game: string): Unmount {
  ctx.setTitle("Replay");
  let gone = false;
  const page = h("div", { class: "page page-replay", "data-game": game }, h("p", { class: "muted", text: "Loading the game…" }));
  root.append(page);
  // The keys step once the game is loaded (`stepper`, set by show's closure below).
  let stepper: { at: () => StepAt; go: (ply: number) => void } | null = null;
  let flip: FlipControl | null = null;
  const stopKeys = listenStepKeys(document, () => stepper?.at() ?? null, (to) => stepper?.go(to));
  let cleanup: (() => void) | null = null;

  accountApi
    .positions(game)
    .then((replay) => {
      if (!gone) render(replay);
    })
    .catch((err: unknown) => {
      if (gone) return;
      clear(page);
      const missing = err instanceof ApiError && err.code === "not_found";
      page.append(
        h("h1", { text: missing ? "No such game" : "The game could not be loaded" }),
        h("p", { id: "replay-error", text: missing ? `There is no game ${game}.` : accountErrorText(err) }),
      );
    });

  function render(replay: Replay): void {
    clear(page);
    const last = replay.moves.length;
    let ply = last;
    // The board takes moves only in the exercises of "Learn from your mistakes".
    let trainer: MistakesTrainer | null = null;
    const board = new Board((move) => void trainer?.play(move));
    flip = flipControl(board, game);
    const caption = h("p", { class: "status-line", id: "replay-caption", "aria-live": "polite" });
    const list = h("ol", { class: "moves replay-moves", id: "replay-moves", "aria-label": "Moves" });
    const buttons = {
      first: h("button", { type: "button", class: "btn", id: "replay-first", "aria-label": "Start position", text: "|◀" }),
      prev: h("button", { type: "button", class: "btn", id: "replay-prev", "aria-label": "Previous move", text: "◀" }),
      next: h("button", { type: "button", class: "btn", id: "replay-next", "aria-label": "Next move", text: "▶" }),
      end: h("button", { type: "button", class: "btn", id: "replay-last", "aria-label": "Final position", text: "▶|" }),
    };
    const plyButtons: HTMLButtonElement[] = [];
    replay.moves.forEach((move, i) => {
      const b = h("button", { type: "button", class: "ply", "data-ply": String(i + 1), title: describeMove(move), text: move });
      b.addEventListener("click", () => show(i + 1));
      plyButtons.push(b);
      if (i % 2 === 0) list.append(h("li", { "data-number": String(i / 2 + 1) }, h("span", { class: "move-no", text: `${i / 2 + 1}.` }), b));
      else list.lastElementChild?.append(" ", b);
    });

    // The analysis, once there is one: the graph under the board, marks in the list, arrows.
    let analysis: Analysis | null = null;
    let graph: EvalGraph | null = null;
    const graphSlot = h("div", { class: "eval-slot", id: "eval-slot" });
    const plyNote = h("p", { class: "analysis-ply", id: "analysis-ply", "aria-live": "polite" });
    const boardLink = h("a", { class: "btn btn-small", id: "replay-board-link", text: "Analysis board", hidden: true });
    const learn = h("button", { type: "button", class: "btn btn-primary", id: "mistakes-start", text: "Learn from your mistakes", hidden: true });
    const panel = new AnalysisPanel(ctx.live, game, (a) => {
      analysis = a;
      panel.addAction(h("p", { class: "mistakes-start" }, learn));
      void ctx.me.then((me) => {
        const side = me?.id && replay.players.attackers?.id === me.id ? "attackers" : me?.id && replay.players.defenders?.id === me.id ? "defenders" : null;
        const list = side ? mistakesOf(a, side) : [];
        learn.hidden = !side || !list.length;
        learn.onclick = () => {
          if (!side || trainer) return;
          trainer = new MistakesTrainer(
            {
              game,
              board,
              positions: replay.positions,
              ruleset: replay.ruleset,
              start: replay.positions[0] === START_POSITION ? null : replay.positions[0],
              moves: replay.moves,
              onShow: (at) => {
                plyButtons.forEach((b, i) => b.setAttribute("aria-current", String(i + 1 === at)));
                plyNote.replaceChildren();
                graph?.mark(at);
              },
              onStop: () => {
                trainer = null;
                learn.hidden = false;
                page.dataset.training = "false";
                show(ply);
              },
            },
            list,
            side,
          );
          learn.hidden = true;
          page.dataset.training = "true";
          board.root.after(trainer.root);
          caption.textContent = "Learn from your mistakes";
          caption.scrollIntoView({ block: "start" });
          void trainer.start();
        };
      });
      graph = new EvalGraph(a, (to) => show(to));
      graphSlot.replaceChildren(graph.root);
      page.dataset.analysed = "true";
      graph.draw();
      a.plies.forEach((p) => {
        const mark = judgmentMark(p.judgment);
        const b = plyButtons[p.ply - 1];
        if (!mark || !b) return;
        b.dataset.judgment = p.judgment ?? "";
        b.title = `${describeMove(p.move)} — ${judgmentText(p)}`;
        b.append(h("span", { class: `judg-mark judg-${p.judgment}`, "aria-hidden": "true", text: mark.symbol }));
        b.setAttribute("aria-label", `${p.move}, ${judgmentText(p)}`);
      });
      show(ply);
    });
    cleanup = () => {
      trainer?.destroy();
      panel.destroy();
      graph?.destroy();
    };
    // The opening explorer at the shown position; a move clicked there opens the analysis
    // board with the game's moves up to here and that move.
    const explorerHost = h("div", { class: "ab-explorer", id: "replay-explorer" });
    const explorer = mountExplorer(explorerHost, {
      ruleset: replay.ruleset,
      onMove: (move) => {
        if (boardLink.hidden) return;
        const start = replay.positions[0];
        ctx.navigate(boardUrl({ ruleset: replay.ruleset, position: start === START_POSITION ? null : start, moves: [...replay.moves.slice(0, ply), move], ply: ply + 1 }));
      },
    });
    const players = [replay.players.attackers?.id, replay.players.defenders?.id];
    void ctx.me.then((me) => {
      const mine = !!me?.id && players.includes(me.id);
      // Never engine help for a player during their own game (the server refuses it too).
      boardLink.hidden = replay.status !== "ended" && (mine || !me);
      panel.start(replay.status === "ended", mayRequest(me, players));
    });

    /** A judged move shows the position before it: the move played as a red arrow, the
     *  better line in green and blue; `after` shows the position after it instead. */
    let after = false;
    const judgedAt = (n: number) => (analysis && n > 0 ? analysis.plies[n - 1] : null);
    const toggle = h("button", { type: "button", class: "btn btn-small", id: "analysis-toggle" });
    toggle.addEventListener("click", () => {
      after = !after;
      show(ply, true);
    });

    /** The analysis of the shown ply in words, and its better line as arrows. */
    const showAnalysis = (before: boolean) => {
      graph?.mark(ply);
      const p = judgedAt(ply);
      const e = analysis ? (p ?? analysis.start) : null;
      const line = p?.judgment ? (p.line.length ? p.line : p.best ? [p.best] : []) : [];
      if (before && p) board.setArrows(line, p.move);
      else board.setArrows([]);
      plyNote.replaceChildren();
      plyNote.dataset.judgment = p?.judgment ?? "";
      if (!e) return;
      if (p?.judgment) {
        toggle.textContent = before ? "Show the position after it" : "Show the better line";
        plyNote.append(
          h("strong", { class: `judg-${p.judgment}`, text: `${judgmentMark(p.judgment)?.symbol} ${judgmentText(p)}` }),
          line.length > 1 ? ` (line: ${line.join(" ")})` : "",
          " ",
          toggle,
          h("br"),
        );
      }
      plyNote.append(before && p ? `After ${p.move}: ${evalText(e)}` : evalText(e));
    };

    const show = (to: number, keep = false) => {
      if (trainer) return; // the exercises hold the board until stopped
      if (!keep) after = false;
      ply = to;
      const before = !!judgedAt(ply)?.judgment && !after;
      const position = parsePosition(replay.positions[before ? ply - 1 : ply]);
      board.update({
        position,
        legal: [],
        interactive: false,
        last: before ? null : ply > 0 ? replay.moves[ply - 1] : null,
        pending: null,
        ply,
        status: ply === last ? replay.status : "replay",
        turn: null,
      });
      caption.textContent = before ? `Before ${plyCaption(replay.moves, ply).replace(/^After /, "")}` : plyCaption(replay.moves, ply);
      page.dataset.ply = String(ply);
      page.dataset.shown = before ? "before" : "after";
      plyButtons.forEach((b, i) => b.setAttribute("aria-current", String(i + 1 === ply)));
      // Keep the shown move in sight in the list (it opens at the end, not at move 1); the
      // list scrolls, never the page (which would open scrolled past its header).
      const shownButton = plyButtons[ply - 1];
      if (shownButton) scrollIntoList(list, shownButton);
      if (ply === 0) list.scrollTop = 0;
      buttons.first.disabled = buttons.prev.disabled = ply === 0;
      buttons.next.disabled = buttons.end.disabled = ply === last;
      const start = replay.positions[0];
      const shownPly = before ? ply - 1 : ply;
      boardLink.href = boardUrl({ ruleset: replay.ruleset, position: start === START_POSITION ? null : start, moves: replay.moves, ply: shownPly });
      showAnalysis(before);
      explorer.show(replay.positions[shownPly]);
    };
    buttons.first.addEventListener("click", () => show(0));
    buttons.prev.addEventListener("click", () => show(Math.max(0, ply - 1)));
    buttons.next.addEventListener("click", () => show(Math.min(last, ply + 1)));
    buttons.end.addEventListener("click", () => show(last));
    stepper = { at: () => ({ ply, last }), go: show };

    const title = RULES[replay.ruleset]?.title ?? replay.ruleset;
    ctx.setTitle(`Replay of ${game}`);
    page.append(
      h("h1", { text: "Replay" }),
      h("p", { class: "replay-players", id: "replay-players" }, ...playersLine(replay)),
      h(
        "p",
        { class: "muted", id: "replay-info" },
        `${title} · ${replay.status === "ended" ? "finished" : "still being played"} · `,
        h("a", { href: `/g/${game}`, text: "game page" }),
      ),
      h(
        "div",
        { class: "replay-layout" },
        // The step buttons above the board: in sight at once, whatever the screen's height.
        h(
          "div",
          { class: "replay-board" },
          h("div", { class: "replay-controls", role: "group", "aria-label": "Step through the game" }, buttons.first, buttons.prev, buttons.next, buttons.end, flip.button),
          caption,
          board.root,
          graphSlot,
          h("p", { class: "hint", text: "Arrow keys step through the moves; Home and End jump; f flips the board." }),
        ),
        h(
          "div",
          { class: "replay-side" },
          replay.result ? h("p", { class: "result-text", id: "replay-result", text: resultText(replay.result) }) : null,
          list,
          plyNote,
          h(
            "p",
            { class: "game-links" },
            h("a", { href: `/api/games/${game}/record`, class: "btn btn-small", id: "replay-record", download: `brandubh-${game}.txt`, text: "Download the record" }),
            " ",
            // OpenTafl notation can say two of the rule sets (docs/otep.md): the others have no link.
            OTN_RULESETS.includes(replay.ruleset)
              ? h("a", { href: `/api/games/${game}/record?format=otn`, class: "btn btn-small", id: "replay-otn", download: `brandubh-${game}.otn`, title: "The record in OpenTafl notation, for OpenTafl and other tafl programs", text: "OpenTafl (OTN)" })
              : null,
            " ",
            h("a", { href: `/verify?game=${game}`, class: "btn btn-small", id: "replay-verify", text: "Verify" }),
            " ",
            boardLink,
          ),
          panel.root,
          h("section", { class: "panel ab-panel replay-explorer", "aria-labelledby": "replay-explorer-title" }, h("h2", { id: "replay-explorer-title", text: "Opening explorer" }), explorerHost),
          replayChat(game),
        ),
      ),
    );
    show(startPly(location.search, last));
  }

  return () => {
    gone = true;
    cleanup?.();
    stopKeys();
    flip?.stop();
  };
}
