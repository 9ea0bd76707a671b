// The opening explorer (docs/protocol.md, "The opening explorer"): the moves played from a
// position in archived games between people, as lichess shows them: the move, its games,
// a bar of attackers' wins / draws / defenders' wins, and the players' average rating.
// Shown beside the analysis board and the replay; clicking a move plays it there.

import "./explorer.css";
import { ApiError, request } from "../network/api";
import { clear, h } from "../dom";

/** One row of GET /api/explorer. */
export interface ExplorerMove {
  move: string;
  games: number;
  attackers: number;
  defenders: number;
  draws: number;
  rating: number | null;
}

/** GET /api/explorer's answer. */
export interface ExplorerAnswer {
  ruleset: string;
  position: string;
  total: { games: number; attackers: number; defenders: number; draws: number };
  moves: ExplorerMove[];
}

export interface ExplorerOptions {
  ruleset: string;
  onMove?: (move: string) => void;
}

export interface Explorer {
  show(position: string): void;
}

/** The route of one position's answer. */
export function explorerPath(ruleset: string, position: string): string {
  return `/api/explorer?ruleset=${encodeURIComponent(ruleset)}&position=${encodeURIComponent(position)}`;
}

/** Whole percentages of attackers' wins, draws and defenders' wins that add up to 100
 * (largest remainder, so a bar is never 99 % or 101 % wide); all 0 without games. */
export function percentages(row: { attackers: number; draws: number; defenders: number }): [number, number, number] {
  const counts = [row.attackers, row.draws, row.defenders];
  const total = counts[0] + counts[1] + counts[2];
  if (total <= 0) return [0, 0, 0];
  const exact = counts.map((c) => (c * 100) / total);
  const whole = exact.map(Math.floor);
  let left = 100 - whole.reduce((a, b) => a + b, 0);
  const order = [0, 1, 2].sort((i, j) => exact[j] - whole[j] - (exact[i] - whole[i]) || i - j);
  for (const i of order) {
    if (left <= 0) break;
    whole[i] += 1;
    left -= 1;
  }
  return [whole[0], whole[1], whole[2]];
}

/** A count with thousands separated: 1234567 -> "1,234,567". */
export function gamesText(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** The share of all the position's games a move has, to one decimal under 10 %: "42%", "3.5%". */
export function shareText(games: number, total: number): string {
  if (total <= 0) return "0%";
  const share = (games * 100) / total;
  return share >= 10 || share === 0 ? `${Math.round(share)}%` : `${share.toFixed(1)}%`;
}

/** The average rating, or a dash when no game of the move was rated. */
export function ratingText(rating: number | null): string {
  return rating === null ? "–" : String(Math.round(rating));
}

/** A segment of the bar shows its percentage in words only when wide enough to hold it. */
export const LABEL_MIN_PCT = 12;

export interface Segment {
  side: "attackers" | "draws" | "defenders";
  pct: number;
  label: string;
  title: string;
}

/** The bar's three segments, in order attackers / draws / defenders, with their labels. */
export function segments(row: { attackers: number; draws: number; defenders: number }): Segment[] {
  const [a, d, f] = percentages(row);
  const names: [Segment["side"], number, number, string][] = [
    ["attackers", a, row.attackers, "attackers won"],
    ["draws", d, row.draws, "drawn"],
    ["defenders", f, row.defenders, "defenders won"],
  ];
  return names.map(([side, pct, count, words]) => ({
    side,
    pct,
    label: pct >= LABEL_MIN_PCT ? `${pct}%` : "",
    title: `${gamesText(count)} ${words} (${pct}%)`,
  }));
}

function bar(row: { attackers: number; draws: number; defenders: number }): HTMLElement {
  const el = h("div", { class: "ex-bar" });
  for (const s of segments(row)) {
    if (s.pct === 0) continue;
    const seg = h("span", { class: `ex-seg ex-${s.side}`, title: s.title, text: s.label });
    seg.style.width = `${s.pct}%`;
    el.append(seg);
  }
  const [a, d, f] = percentages(row);
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", `attackers won ${a}%, drawn ${d}%, defenders won ${f}%`);
  return el;
}

/** The table of an answer: a row per move, most played first, then the position's total. */
export function renderAnswer(answer: ExplorerAnswer, onMove?: (move: string) => void): HTMLElement {
  if (answer.moves.length === 0) {
    return h("p", {
      class: "ex-empty muted",
      text: "No archived game between people reached this position in its first 40 plies.",
    });
  }
  const body = h("tbody");
  for (const m of answer.moves) {
    const move = onMove
      ? h("button", { type: "button", class: "ex-move-btn", text: m.move, title: `Play ${m.move}` })
      : h("span", { text: m.move });
    if (onMove) move.addEventListener("click", () => onMove(m.move));
    body.append(
      h(
        "tr",
        { class: "ex-row", "data-move": m.move },
        h("td", { class: "ex-move" }, move),
        h("td", { class: "ex-games" }, h("span", { class: "ex-share", text: shareText(m.games, answer.total.games) }), " ", gamesText(m.games)),
        h("td", { class: "ex-result" }, bar(m)),
        h("td", { class: "ex-rating", text: ratingText(m.rating) }),
      ),
    );
  }
  const total = answer.total;
  return h(
    "table",
    { class: "ex-table" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", { text: "Move" }), h("th", { text: "Games" }), h("th", { text: "Results", title: "Attackers' wins · draws · defenders' wins" }), h("th", { text: "Rating", title: "Average rating of the players, over the rated games" })),
    ),
    body,
    h(
      "tfoot",
      {},
      h(
        "tr",
        { class: "ex-total" },
        h("td", { class: "ex-move", text: "Σ" }),
        h("td", { class: "ex-games", text: gamesText(total.games) }),
        h("td", { class: "ex-result" }, bar(total)),
        h("td", { class: "ex-rating" }),
      ),
    ),
  );
}

/** Mount the explorer in `host`; `show(position)` fetches and draws that position's moves
 * (answers kept for the page's life, and only the last position asked for is drawn). */
export function mountExplorer(host: HTMLElement, opts: ExplorerOptions): Explorer {
  const root = h("div", { class: "explorer", "aria-live": "polite" });
  host.append(root);
  const known = new Map<string, ExplorerAnswer>();
  let wanted = "";

  function draw(content: HTMLElement): void {
    clear(root);
    root.append(content);
  }

  return {
    show(position: string): void {
      wanted = position;
      const cached = known.get(position);
      if (cached) {
        draw(renderAnswer(cached, opts.onMove));
        return;
      }
      root.classList.add("ex-loading");
      request<ExplorerAnswer>("GET", explorerPath(opts.ruleset, position))
        .then((answer) => {
          known.set(position, answer);
          if (wanted === position) draw(renderAnswer(answer, opts.onMove));
        })
        .catch((err: unknown) => {
          if (wanted !== position) return;
          const words = err instanceof ApiError ? err.message : "The explorer could not be read.";
          draw(h("p", { class: "ex-error error", role: "alert", text: words }));
        })
        .finally(() => {
          if (wanted === position) root.classList.remove("ex-loading");
        });
    },
  };
}
