// The evaluation graph under the replay's board: the defenders' chance to win after each ply
// (plain SVG, drawn at the width it is shown). `graphGeometry` and `plyAtX` are pure (tested);
// `EvalGraph` draws and takes clicks and keys (a click jumps to the ply under it).

import { type Analysis, type Judgment, chanceText, chances, judgmentMark } from "../network/analysis";

export const GRAPH_PAD = { left: 8, right: 8, top: 6, bottom: 6 };

export interface GraphGeometry {
  width: number;
  height: number;
  /** the line through the chances (ply 0 first), an SVG path */
  line: string;
  /** the area between the line and the 50 % line, closed */
  area: string;
  /** y of the 50 % line */
  mid: number;
  /** x of each ply 0..n */
  xs: number[];
  /** y of each ply 0..n */
  ys: number[];
  /** a dot for each judged ply */
  dots: { ply: number; x: number; y: number; judgment: Judgment }[];
}

/** Where everything goes: `values[i]` is the defenders' chance after ply i (ply 0: start),
 *  drawn high for the defenders; `judged[i]` the judgment of ply i (index 0 unused). */
export function graphGeometry(
  values: readonly number[],
  judged: readonly (Judgment | null)[],
  width: number,
  height: number,
): GraphGeometry {
  const innerW = width - GRAPH_PAD.left - GRAPH_PAD.right;
  const innerH = height - GRAPH_PAD.top - GRAPH_PAD.bottom;
  const n = values.length - 1;
  const x = (i: number) => GRAPH_PAD.left + (n <= 0 ? innerW / 2 : (innerW * i) / n);
  const y = (c: number) => GRAPH_PAD.top + innerH * (1 - Math.min(1, Math.max(0, c)));
  const fmt = (v: number) => v.toFixed(1);
  const xs = values.map((_, i) => x(i));
  const ys = values.map((c) => y(c));
  const mid = y(0.5);
  const line = xs.map((px, i) => `${i ? "L" : "M"}${fmt(px)} ${fmt(ys[i])}`).join(" ");
  const area = values.length ? `M${fmt(xs[0])} ${fmt(mid)} ${line.replace(/^M/, "L")} L${fmt(xs[n])} ${fmt(mid)} Z` : "";
  const dots: GraphGeometry["dots"] = [];
  judged.forEach((j, i) => {
    if (j && i > 0 && i <= n) dots.push({ ply: i, x: xs[i], y: ys[i], judgment: j });
  });
  return { width, height, line, area, mid, xs, ys, dots };
}

/** The ply nearest to an x in the graph's coordinates (0..last). */
export function plyAtX(x: number, width: number, last: number): number {
  const innerW = width - GRAPH_PAD.left - GRAPH_PAD.right;
  if (last <= 0 || innerW <= 0) return 0;
  const ply = Math.round(((x - GRAPH_PAD.left) / innerW) * last);
  return Math.min(last, Math.max(0, ply));
}

const NS = "http://www.w3.org/2000/svg";

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

const HEIGHT = 80;

/** The graph of an analysis: click or arrow keys choose a ply (`onPly`); `mark` shows one. */
export class EvalGraph {
  readonly root: HTMLElement;
  private svg: SVGSVGElement | null = null;
  private cursor: SVGLineElement | null = null;
  private geometry: GraphGeometry | null = null;
  private ply = 0;
  private readonly observer: ResizeObserver | null;

  constructor(
    private readonly analysis: Analysis,
    private readonly onPly: (ply: number) => void,
  ) {
    this.root = document.createElement("div");
    this.root.className = "eval-graph";
    this.root.id = "eval-graph";
    this.root.addEventListener("click", (e) => this.onClick(e));
    this.observer = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.draw()) : null;
    this.observer?.observe(this.root);
  }

  /** Draw at the width the graph has now (called again when it changes). */
  draw(): void {
    const width = Math.round(this.root.clientWidth) || 320;
    if (this.geometry?.width === width && this.svg) return;
    const a = this.analysis;
    const judged = [null, ...a.plies.map((p) => p.judgment)];
    const g = graphGeometry(chances(a), judged, width, HEIGHT);
    this.geometry = g;
    const svg = el("svg", {
      viewBox: `0 0 ${g.width} ${g.height}`,
      width: g.width,
      height: g.height,
      class: "eval-svg",
      role: "img",
      "aria-label": "The defenders' chance to win after each move: high for the defenders, low for the attackers. Click to see the position.",
    });
    svg.append(el("rect", { x: 0, y: 0, width: g.width, height: g.height, class: "eval-bg" }));
    svg.append(el("path", { d: g.area, class: "eval-area" }));
    svg.append(el("line", { x1: GRAPH_PAD.left, x2: g.width - GRAPH_PAD.right, y1: g.mid, y2: g.mid, class: "eval-mid" }));
    svg.append(el("path", { d: g.line, class: "eval-line" }));
    this.cursor = el("line", { x1: 0, x2: 0, y1: 0, y2: g.height, class: "eval-cursor" });
    svg.append(this.cursor);
    for (const d of g.dots) {
      const dot = el("circle", { cx: d.x, cy: d.y, r: 4.5, class: `eval-dot judg-${d.judgment}`, "data-ply": d.ply });
      const title = el("title", {});
      const p = a.plies[d.ply - 1];
      title.textContent = `${judgmentMark(d.judgment)?.title}: ${p.move}${p.best ? `, ${p.best} was better` : ""}`;
      dot.append(title);
      svg.append(dot);
    }
    for (const [label, y] of [["Defenders", 14], ["Attackers", g.height - 6]] as const) {
      const t = el("text", { x: GRAPH_PAD.left + 2, y, class: "eval-label" });
      t.textContent = label;
      svg.append(t);
    }
    this.svg?.remove();
    this.svg = svg;
    this.root.append(svg);
    this.mark(this.ply);
  }

  /** Show the cursor at a ply. */
  mark(ply: number): void {
    this.ply = ply;
    const g = this.geometry;
    if (!g || !this.cursor) return;
    const x = g.xs[Math.min(ply, g.xs.length - 1)] ?? 0;
    this.cursor.setAttribute("x1", String(x));
    this.cursor.setAttribute("x2", String(x));
    const c = chances(this.analysis)[ply];
    this.root.title = c === undefined ? "" : `After ply ${ply}: defenders ${chanceText(c)}`;
    this.root.dataset.ply = String(ply);
  }

  private onClick(e: MouseEvent): void {
    const g = this.geometry;
    const svg = this.svg;
    if (!g || !svg) return;
    const dot = (e.target as Element).closest?.("[data-ply]");
    if (dot instanceof SVGElement && dot.dataset.ply) return this.onPly(Number(dot.dataset.ply));
    const box = svg.getBoundingClientRect();
    const x = ((e.clientX - box.left) / (box.width || 1)) * g.width;
    this.onPly(plyAtX(x, g.width, g.xs.length - 1));
  }

  destroy(): void {
    this.observer?.disconnect();
  }
}
