// `/rules/<ruleset>`: the full rules of one rule set.

import type { AppContext, Unmount } from "../context";
import { h } from "../dom";
import { PIECE_NAMES, cornerSvg, pieceSvg, throneSvg } from "../pieces";
import { RULES, RULESET_ORDER } from "../rules";

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
      h("section", { class: "panel" }, h("h2", { text: "On the board here" }), legend),
      ...page.sections.map((s) =>
        h("section", {}, h("h2", { text: s.heading }), h("ul", {}, ...s.items.map((t) => h("li", { text: t })))),
      ),
      h("p", {}, h("a", { href: "/", class: "btn btn-primary", text: "Start a game" })),
    ),
  );
  return () => undefined;
}
