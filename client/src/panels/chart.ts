// The rating-history chart: plain SVG, no chart library. `chartGeometry` is pure (tested);
// `ratingChart` draws it with DOM calls only (no markup from data).

import type { HistoryPoint } from "../network/account";

export interface ChartGeometry {
  width: number;
  height: number;
  /** the line through the ratings, an SVG path */
  line: string;
  /** the band rating ± RD, an SVG path (closed) */
  band: string;
  /** each point: where it is drawn and what it is */
  points: { x: number; y: number; rating: number; t: number; game: string }[];
  /** horizontal grid lines with their labels */
  ticks: { y: number; label: string }[];
  min: number;
  max: number;
}

const PAD = { left: 44, right: 12, top: 12, bottom: 22 };

function niceStep(span: number): number {
  const raw = span / 4;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** Where everything goes for the points (oldest first) in a width × height box. */
export function chartGeometry(history: readonly HistoryPoint[], width = 600, height = 220): ChartGeometry {
  const ratings = history.map((p) => p.rating);
  const lows = history.map((p) => p.rating - p.rd);
  const highs = history.map((p) => p.rating + p.rd);
  let min = Math.min(...ratings, ...lows.map((v, i) => Math.max(v, ratings[i] - 150)));
  let max = Math.max(...ratings, ...highs.map((v, i) => Math.min(v, ratings[i] + 150)));
  if (!history.length) {
    min = 1400;
    max = 1600;
  }
  if (max - min < 100) {
    const mid = (max + min) / 2;
    min = mid - 50;
    max = mid + 50;
  }
  const step = niceStep(max - min);
  min = Math.floor(min / step) * step;
  max = Math.ceil(max / step) * step;
  const innerW = width - PAD.left - PAD.right;
  const innerH = height - PAD.top - PAD.bottom;
  const n = history.length;
  const x = (i: number) => PAD.left + (n <= 1 ? innerW / 2 : (innerW * i) / (n - 1));
  const y = (r: number) => PAD.top + innerH * (1 - (Math.min(Math.max(r, min), max) - min) / (max - min));
  const fmt = (v: number) => v.toFixed(1);
  const points = history.map((p, i) => ({ x: x(i), y: y(p.rating), rating: p.rating, t: p.t, game: p.game }));
  const line = points.map((p, i) => `${i ? "L" : "M"}${fmt(p.x)} ${fmt(p.y)}`).join(" ");
  const upper = history.map((p, i) => `${i ? "L" : "M"}${fmt(x(i))} ${fmt(y(p.rating + p.rd))}`);
  const lower = history.map((p, i) => `L${fmt(x(i))} ${fmt(y(p.rating - p.rd))}`).reverse();
  const band = n ? `${upper.join(" ")} ${lower.join(" ")} Z` : "";
  const ticks: { y: number; label: string }[] = [];
  for (let v = min; v <= max + 1e-9; v += step) ticks.push({ y: y(v), label: String(Math.round(v)) });
  return { width, height, line, band, points, ticks, min, max };
}

const NS = "http://www.w3.org/2000/svg";

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** The chart as an SVG element, described for screen readers; `width`: the pixels it gets. */
export function ratingChart(history: readonly HistoryPoint[], label: string, width = 600): SVGSVGElement {
  // Drawn at the width it is shown (not scaled down from 600): the labels stay readable.
  const g = chartGeometry(history, width);
  const svg = el("svg", { viewBox: `0 0 ${g.width} ${g.height}`, class: "rating-chart", role: "img", "aria-label": label });
  for (const t of g.ticks) {
    svg.append(el("line", { x1: PAD.left, x2: g.width - PAD.right, y1: t.y, y2: t.y, class: "chart-grid" }));
    const text = el("text", { x: PAD.left - 6, y: t.y + 4, class: "chart-label", "text-anchor": "end" });
    text.textContent = t.label;
    svg.append(text);
  }
  if (g.band) svg.append(el("path", { d: g.band, class: "chart-band" }));
  if (g.line) svg.append(el("path", { d: g.line, class: "chart-line" }));
  for (const p of g.points) {
    const dot = el("circle", { cx: p.x, cy: p.y, r: 3.5, class: "chart-dot", "data-game": p.game });
    const title = el("title", {});
    title.textContent = `${Math.round(p.rating)} after game ${p.game} (${new Date(p.t).toLocaleDateString("en-GB")})`;
    dot.append(title);
    svg.append(dot);
  }
  const caption = el("text", { x: PAD.left, y: g.height - 6, class: "chart-label" });
  caption.textContent = history.length ? `${history.length} rated game${history.length === 1 ? "" : "s"}, oldest on the left` : "No rated games yet";
  svg.append(caption);
  return svg;
}
