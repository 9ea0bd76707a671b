"""Conditional moves (issue 30, item 4) in real Chromium against a real hub, at 1280×800 and
390×844: in a game of an hour a move the defenders type "if g4-g3, reply d3-c3" and more
lines on the game page, a refused line says why, a line is deleted; the attackers move and
the reply is committed with nothing done on the defenders' page; the attackers' page shows
only their own (empty) panel, a spectator's none. Screenshots go to test-output/screenshots/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pages import (
    SIZES,
    click_squares,
    friend_game_via_home,
    name_of,
    server_moves,
    shot,
    wait_my_turn,
    wait_ply,
)

Page = Any
HubProcess = Any


def add_line(page: Page, moves: str) -> None:
    """Type a line (the form folded under "or type a line")."""
    if not page.locator("#conditional-input").is_visible():
        page.click(".cond-typed summary")
    page.fill("#conditional-input", moves)
    page.click("#conditional-add")


def lines(page: Page) -> list[str]:
    return [
        str(li.get_attribute("data-line")) for li in page.locator("#conditional-lines li").all()
    ]


@pytest.mark.parametrize("size", SIZES)
def test_a_conditional_line_answers_the_opponent_with_no_one_at_the_defenders_page(
    touch_page: Callable[[dict[str, int]], Page],
    web_hub: HubProcess,
    size: dict[str, int],
) -> None:
    base = web_hub.url
    tag = name_of(size)
    pages, game_id = friend_game_via_home(touch_page, base, size, move_time=3600)
    att, dfn = pages["attackers"], pages["defenders"]
    wait_my_turn(att, 0)
    wait_ply(dfn, 0)
    dfn.wait_for_selector("#conditional-panel", state="visible")
    dfn.click("#conditional-summary")  # folded until opened, as the legend is

    # The first line played on a board: the attackers' expected move, then the reply.
    dfn.click("#conditional-board")
    editor = dfn.locator("#conditional-editor")
    editor.wait_for()
    for square in ("g4", "g3"):
        dfn.click(f'#conditional-editor [data-square="{square}"]')
    dfn.wait_for_selector('#conditional-editor[data-moves="g4-g3"]')
    assert dfn.locator("#conditional-edit-save").is_disabled()  # a line ends with your move
    for square in ("d3", "c3"):
        dfn.click(f'#conditional-editor [data-square="{square}"]')
    dfn.wait_for_selector('#conditional-editor[data-moves="g4-g3 d3-c3"]')
    assert "if g4-g3 → d3-c3" in dfn.inner_text("#conditional-edit-line")
    shot(dfn, f"conditional-editor-{tag}", full=False)
    dfn.click("#conditional-edit-save")
    dfn.wait_for_selector("#conditional-editor", state="hidden")
    dfn.wait_for_selector('#conditional-lines li[data-line="g4-g3 d3-c3"]')
    assert "if g4-g3 → d3-c3" in dfn.inner_text("#conditional-lines")
    add_line(dfn, "d2-c2 e4-e3")
    dfn.wait_for_selector('#conditional-lines li[data-line="d2-c2 e4-e3"]')
    # A line the rules refuse is not stored, and the page says which move is wrong.
    add_line(dfn, "f4-f3 d4-d1")
    dfn.wait_for_selector('#conditional-message[data-problem="1"]')
    # Told about the line being added, not numbered among the kept ones.
    assert "the new line, move 2" in dfn.inner_text("#conditional-message")
    assert lines(dfn) == ["g4-g3 d3-c3", "d2-c2 e4-e3"]
    add_line(dfn, "f4-f3 c4-c3")
    dfn.wait_for_selector('#conditional-lines li[data-line="f4-f3 c4-c3"]')
    dfn.click('#conditional-lines li[data-line="f4-f3 c4-c3"] button')
    dfn.wait_for_selector('#conditional-lines li[data-line="f4-f3 c4-c3"]', state="detached")
    assert lines(dfn) == ["g4-g3 d3-c3", "d2-c2 e4-e3"]
    assert dfn.inner_text("#conditional-summary") == "Conditional moves: 2 lines"
    dfn.locator("#conditional-panel").scroll_into_view_if_needed()
    shot(dfn, f"conditional-stored-{tag}", full=False)

    # The opponent sees only their own panel, empty; a spectator sees none.
    att.wait_for_selector("#conditional-panel", state="visible")
    watcher = touch_page(size)
    watcher.goto(f"{base}/g/{game_id}")
    wait_ply(watcher, 0)
    assert watcher.locator("#conditional-panel").is_hidden()
    for page in (att, watcher):
        assert page.locator("#conditional-lines li").count() == 0
        assert "d3-c3" not in page.inner_text("#conditional-panel")

    # The attackers move; the defenders' reply follows with nobody touching their page.
    click_squares(att, "g4-g3")
    assert server_moves(base, game_id, 2) == ["g4-g3", "d3-c3"]
    wait_my_turn(att, 2)
    wait_ply(dfn, 2)
    dfn.wait_for_selector("#conditional-lines li", state="detached")  # that line is used up
    assert lines(dfn) == []
    assert dfn.inner_text("#conditional-summary") == "Conditional moves"
    dfn.locator("#conditional-panel").scroll_into_view_if_needed()
    shot(dfn, f"conditional-answered-{tag}", full=False)
