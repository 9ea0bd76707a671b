"""Browser page helpers for the game page's layout: the boxes of its panels, and a check
that no two visible ones overlap (issue 40). Not a test module: tests import it."""

from __future__ import annotations

from typing import Any

Page = Any  # playwright.sync_api.Page

# The game page's panels, each a part of the page that must never lie over another.
GAME_PANELS = {
    "status": "#status-line",
    "bar-top": "#bar-top",
    "board": ".page-game .board-wrap",
    "bar-bottom": "#bar-bottom",
    "message": "#game-messages > .slot-msg:not(.slot-hidden):not([hidden])",
    "actions": "#game-actions",
    "game-over": "#result",
    "moves": ".g-moves",
    "move-form": "#move-form",
    "notes": "#game-notes",
    "info": ".g-info",
    "chat": "#chat",
}

# The visible boxes (page coordinates) of the selectors; an element not drawn has none.
BOXES = """selectors => {
  const out = {};
  for (const [name, sel] of Object.entries(selectors)) {
    for (const el of document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const drawn = r.width >= 1 && r.height >= 1 && style.visibility !== "hidden";
      if (!drawn || el.closest("[hidden]")) continue;
      out[name] = { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height };
      break;
    }
  }
  return out;
}"""


def panel_boxes(page: Page, panels: dict[str, str] = GAME_PANELS) -> dict[str, dict[str, float]]:
    """The boxes of the panels drawn on the page now, by name."""
    return dict(page.evaluate(BOXES, panels))


def overlaps(boxes: dict[str, dict[str, float]], nested: set[frozenset[str]]) -> list[str]:
    """Every pair of boxes that intersect by more than a pixel, but those allowed to nest."""
    found = []
    names = sorted(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if frozenset((a, b)) in nested:
                continue
            p, q = boxes[a], boxes[b]
            w = min(p["x"] + p["width"], q["x"] + q["width"]) - max(p["x"], q["x"])
            h = min(p["y"] + p["height"], q["y"] + q["height"]) - max(p["y"], q["y"])
            if w > 1 and h > 1:
                found.append(f"{a} {p} over {b} {q}")
    return found


# The game-over panel lives inside the actions slot, the notes inside the moves panel.
GAME_NESTED = {frozenset(("actions", "game-over")), frozenset(("moves", "notes"))}
# (inner, outer): the inner one drawn whole inside the outer one, never cut off by it.
GAME_NESTED_IN = [("game-over", "actions")]


def assert_no_overlap(page: Page, what: str) -> dict[str, dict[str, float]]:
    """Fail when any two visible panels of the game page intersect; their boxes."""
    boxes = panel_boxes(page)
    bad = overlaps(boxes, GAME_NESTED)
    assert not bad, f"{what}: panels overlap: " + "; ".join(bad)
    # The message shown is drawn whole in its slot (its buttons too), never cut.
    cut = page.evaluate(
        """() => [...document.querySelectorAll(
            '#game-messages > .slot-msg:not(.slot-hidden):not([hidden])')]
          .filter(e => {
            const r = document.createRange();
            r.selectNodeContents(e);
            return r.getBoundingClientRect().bottom > e.getBoundingClientRect().bottom + 1;
          }).map(e => e.id)"""
    )
    assert not cut, f"{what}: the message is cut off in its slot: {cut}"
    for inner, outer in GAME_NESTED_IN:
        if inner in boxes and outer in boxes:
            a, b = boxes[inner], boxes[outer]
            assert a["y"] + a["height"] <= b["y"] + b["height"] + 1, (
                f"{what}: {inner} {a} is cut off by {outer} {b}"
            )
    return boxes
