// `/rules/<ruleset>`: the full rules of one rule set.

import { Board } from "../board/board";
import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { START_POSITION, parsePosition } from "../board/notation";
import { PIECE_NAMES, cornerSvg, pieceSvg, throneSvg } from "../board/pieces";
import { RULES, RULESET_ORDER } from "../board/rules";

export interface Diagram {
  id: string;
  position: string;
  last: string | null;
  caption: string;
}

/** Three small positions per rule set: the start, a capture, and the king beside the throne. */
export function diagramsFor(ruleset: string): Diagram[] {
  const start: Diagram = {
    id: "start",
    position: START_POSITION,
    last: null,
    caption: "The start: the king on the throne (d4), his four defenders around him, eight attackers at the edges. The attackers move first.",
  };
  if (ruleset === "newsome") {
    return [
      start,
      {
        id: "capture",
        position: "7/7/2A4/3K3/3D3/7/7 d",
        last: "c6-c5",
        caption: "Pieces step one square and capture by moving onto an enemy piece; the king is never taken.",
      },
      {
        id: "throne",
        position: "7/3A3/2AKA2/7/7/7/7 a",
        last: null,
        caption: "Beside the empty throne the king is safe here as anywhere: in this game he is never captured.",
      },
    ];
  }
  const throne: Record<string, string> = {
    nielsen: "Beside the throne the king needs three attackers, the throne on the fourth side: here he is taken.",
    federation: "Beside the throne the king needs three attackers, the throne on the fourth side: here he is taken.",
    common: "The throne never harms the king: beside it two attackers in a line take him, as anywhere.",
    walker: "Two attackers in a line take the king anywhere, beside the throne or on it.",
  };
  return [
    start,
    {
      id: "capture",
      position: "7/7/2A1A2/3K3/7/7/7 d",
      last: "c7-c5xd5",
      caption: "A capture: the attacker moves to c5, and the defender on d5, now between two attackers, is taken off.",
    },
    { id: "throne", position: "7/3A3/2AKA2/7/7/7/7 d", last: null, caption: throne[ruleset] ?? throne.nielsen },
  ];
}

function diagram(d: Diagram): HTMLElement {
  const board = new Board(() => undefined);
  board.update({ position: parsePosition(d.position), legal: [], interactive: false, last: d.last, pending: null, ply: 0, status: "ended", turn: null });
  board.root.setAttribute("aria-label", d.caption);
  for (const sq of board.root.querySelectorAll("button")) sq.tabIndex = -1;
  return h("figure", { class: "rules-diagram", "data-diagram": d.id }, board.root, h("figcaption", { text: d.caption }));
}

export function mountRules(root: HTMLElement, ctx: AppContext, id: string): Unmount {
  const page = RULES[id];
  const nav = h(
    "nav",
    { class: "rules-nav", "aria-label": "Rule sets" },
    ...RULESET_ORDER.map((rid) =>
      h("a", { href: `/rules/${rid}`, class: rid === id ? "current" : "", "aria-current": rid === id ? "page" : null, text: RULES[rid].title }),
    ),
  );
  if (!page) {
    ctx.setTitle("Rules");
    root.appendChild(
      h(
        "div",
        { class: "page page-rules" },
        h("h1", { text: "Rules" }),
        h("p", { class: "error", role: "alert", text: `There is no rule set called “${id}”. Pick one of these:` }),
        nav,
      ),
    );
    return () => undefined;
  }
  ctx.setTitle(`Rules: ${page.title}`);
  const legend = h(
    "ul",
    { class: "legend" },
    ...(["A", "D", "K"] as const).map((p) => h("li", {}, pieceSvg(p), `${PIECE_NAMES[p]}${p === "A" ? " (dark diamond)" : p === "D" ? " (light disc)" : " (disc with a crown)"}`)),
    h("li", {}, throneSvg(), "throne (d4)"),
    h("li", {}, cornerSvg(), "corner"),
  );
  root.appendChild(
    h(
      "article",
      { class: "page page-rules", "data-ruleset": id },
      nav,
      h("h1", { text: `Rules: ${page.title}` }),
      h("p", { class: "lead", text: page.intro }),
      h("section", { class: "panel" }, h("h2", { text: "On the board here" }), legend, h("div", { class: "rules-diagrams", id: "rules-diagrams" }, ...diagramsFor(id).map(diagram))),
      ...page.sections.map((s) =>
        h("section", {}, h("h2", { text: s.heading }), h("ul", {}, ...s.items.map((t) => h("li", { text: t })))),
      ),
      h("p", {}, h("a", { href: "/", class: "btn btn-primary", text: "Start a game" })),
    ),
  );
  return () => undefined;
}
