// Arrows on the board for a line of moves (the search's preferred move and what follows).
// `arrowGeometry` is pure (tested): each square is 100 units of a 700 × 700 box, a1 at the
// bottom left, as the board draws it; `arrowsSvg` draws them with DOM calls only.

import { SIZE, isSquare, parseMove, squareCoords } from "./notation";

export const CELL = 100;

export interface ArrowShape {
  move: string;
  /** 0: the first move of the line (drawn strongest), 1, 2…: the moves after it */
  index: number;
  /** the shaft and head, one closed SVG path */
  path: string;
  /** the end points (square centres) */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** The centre of a square in the 700 × 700 box. */
export function squareCentre(square: string): { x: number; y: number } {
  const { file, rank } = squareCoords(square);
  return { x: file * CELL + CELL / 2, y: (SIZE - rank) * CELL + CELL / 2 };
}

/** The arrows of a line's moves (moves that do not read as a move are left out). */
export function arrowGeometry(line: readonly string[], max = 4): ArrowShape[] {
  const out: ArrowShape[] = [];
  line.slice(0, max).forEach((move, index) => {
    const m = parseMove(move);
    if (!m || !isSquare(m.from) || !isSquare(m.to)) return;
    const a = squareCentre(m.from);
    const b = squareCentre(m.to);
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    if (len === 0) return;
    const ux = (b.x - a.x) / len;
    const uy = (b.y - a.y) / len;
    // Narrower for the later moves of the line; the head stops short of the centre.
    const half = index === 0 ? 9 : 6;
    const head = index === 0 ? 30 : 24;
    const headHalf = index === 0 ? 24 : 18;
    const tipX = b.x - ux * 12;
    const tipY = b.y - uy * 12;
    const baseX = tipX - ux * head;
    const baseY = tipY - uy * head;
    const px = -uy;
    const py = ux;
    const pts: [number, number][] = [
      [a.x + px * half, a.y + py * half],
      [baseX + px * half, baseY + py * half],
      [baseX + px * headHalf, baseY + py * headHalf],
      [tipX, tipY],
      [baseX - px * headHalf, baseY - py * headHalf],
      [baseX - px * half, baseY - py * half],
      [a.x - px * half, a.y - py * half],
    ];
    const path = pts.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join(" ") + " Z";
    out.push({ move, index, path, x1: a.x, y1: a.y, x2: b.x, y2: b.y });
  });
  return out;
}

const NS = "http://www.w3.org/2000/svg";

/** Draw the arrows into an SVG overlay (emptied first); numbered from the second on.
 *  `played`: a move played instead of the line's first, drawn in red beneath it. */
export function drawArrows(svg: SVGSVGElement, line: readonly string[], played: string | null = null): void {
  svg.replaceChildren();
  svg.dataset.line = line.join(" ");
  const shapes = [
    ...(played ? arrowGeometry([played]).map((a) => ({ ...a, cls: "arrow-played" })) : []),
    ...arrowGeometry(line).map((a) => ({ ...a, cls: a.index === 0 ? "arrow-best" : "arrow-line" })),
  ];
  for (const a of shapes) {
    const path = document.createElementNS(NS, "path");
    path.setAttribute("d", a.path);
    path.setAttribute("class", `arrow ${a.cls}`);
    path.dataset.move = a.move;
    path.dataset.index = String(a.index);
    svg.append(path);
    if (a.cls === "arrow-line") {
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", String((a.x1 + a.x2) / 2));
      t.setAttribute("y", String((a.y1 + a.y2) / 2 + 9));
      t.setAttribute("class", "arrow-num");
      t.setAttribute("text-anchor", "middle");
      t.textContent = String(a.index + 1);
      svg.append(t);
    }
  }
}
