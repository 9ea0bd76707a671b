"""Premoves (issue 30, item 3) in real Chromium against a real hub, at 1280×800 and 390×844:
the defenders queue a move during the attackers' turn (keys on the desktop, taps on a
touch phone) and it is committed when the attackers move, with nothing more done on the
defenders' page; a cancelled premove (Escape, a click elsewhere) is not sent; one made
illegal by the opponent's move is dropped with a notice, and nothing of it shifts the
layout; a spectator cannot premove.
Screenshots go to test-output/screenshots/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from pages import (
    DESKTOP,
    PHONE,
    SIZES,
    board,
    click_squares,
    friend_game_via_home,
    from_to,
    keyboard_move,
    name_of,
    server_moves,
    shifts,
    shot,
    square,
    wait_my_turn,
    wait_ply,
    watch_shifts,
)

Page = Any
HubProcess = Any


def pick(page: Page, move: str, touch: bool) -> None:
    """A premove made the way a player would: taps on a touch screen, the keyboard else."""
    if not touch:
        keyboard_move(page, move)
        return
    src, dst = from_to(move)
    square(page, src).tap()
    page.wait_for_selector(f'.board [data-square="{dst}"].dest')
    square(page, dst).tap()


def assert_queued(page: Page, move: str) -> None:
    src, dst = from_to(move)
    page.wait_for_selector(f'.board[data-queued="{move}"]')
    assert "premove-from" in (square(page, src).get_attribute("class") or "")
    assert "premove-to" in (square(page, dst).get_attribute("class") or "")
    assert "premove going here" in (square(page, dst).get_attribute("aria-label") or "")
    assert page.get_attribute("#game-notice", "data-premove") == move
    assert f"Premove: {move}" in page.inner_text("#game-notice")


@pytest.mark.parametrize("size", SIZES)
def test_a_premove_is_played_when_the_turn_arrives(
    touch_page: Callable[[dict[str, int]], Page], web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    pages, game_id = friend_game_via_home(touch_page, base, size)
    att, dfn = pages["attackers"], pages["defenders"]
    touch = size is PHONE
    tag = name_of(size)

    # A spectator's board takes no premove.
    watcher = touch_page(size)
    watcher.goto(f"{base}/g/{game_id}")
    wait_ply(watcher, 0)
    assert board(watcher).get_attribute("data-premove") == "false"
    square(watcher, "d3").click(force=True)
    assert watcher.locator(".board .selected").count() == 0

    # 1. During the attackers' first move the defenders queue d3-c3: nothing is sent yet.
    wait_my_turn(att, 0)
    wait_ply(dfn, 0)
    assert board(dfn).get_attribute("data-premove") == "true"
    assert board(dfn).get_attribute("data-interactive") == "false"
    dfn.wait_for_selector('#bar-top[data-online="true"]')
    watch_shifts(dfn)  # the premove's note and squares move nothing
    pick(dfn, "d3-c3", touch)
    assert_queued(dfn, "d3-c3")
    # A touch screen has no Escape key: the note says to tap.
    hint = "tap anywhere to cancel" if touch else "press Escape to cancel"
    assert hint in dfn.inner_text("#game-notice")
    shot(dfn, f"premove-queued-{tag}", full=False)
    assert httpx.get(f"{base}/api/games/{game_id}").json()["moves"] == []

    # The attackers move; the defenders' premove follows with nobody touching their page.
    click_squares(att, "g4-g3")
    assert server_moves(base, game_id, 2) == ["g4-g3", "d3-c3"]
    state = httpx.get(f"{base}/api/games/{game_id}").json()["state"]
    assert state["ply"] == 2 and state["turn"] == "attackers"
    wait_my_turn(att, 2)
    wait_ply(dfn, 2)
    assert board(dfn).get_attribute("data-queued") == ""
    assert square(dfn, "c3").get_attribute("data-piece") == "D"
    shot(dfn, f"premove-played-{tag}", full=False)

    # 2. A premove cancelled by Escape, another replaced, then cancelled by a click (a tap)
    # elsewhere: none is sent.
    pick(dfn, "e4-e3", touch)
    assert_queued(dfn, "e4-e3")
    dfn.keyboard.press("Escape")
    dfn.wait_for_selector('.board[data-queued=""]')
    pick(dfn, "e4-e3", touch)
    assert_queued(dfn, "e4-e3")
    pick(dfn, "e4-e2", touch)  # a second premove replaces the first
    assert_queued(dfn, "e4-e2")
    assert "premove-to" not in (square(dfn, "e3").get_attribute("class") or "")
    if touch:
        dfn.tap("#status-line")
    else:
        dfn.click("#status-line")
    dfn.wait_for_selector('.board[data-queued=""]')
    assert dfn.get_attribute("#game-notice", "data-premove") == ""
    click_squares(att, "g3-g2")
    # The turn has arrived and nothing went out: the board waits for the defenders' own move.
    legal = wait_my_turn(dfn, 3)
    assert "e4-e3" in legal  # it would have been legal
    assert httpx.get(f"{base}/api/games/{game_id}").json()["moves"] == ["g4-g3", "d3-c3", "g3-g2"]

    # 3. A premove the opponent's move makes illegal is dropped, with a word why.
    click_squares(dfn, "e4-e3")
    wait_my_turn(att, 4)
    wait_ply(dfn, 4)
    pick(dfn, "c3-c2", touch)
    assert_queued(dfn, "c3-c2")
    click_squares(att, "d2-c2")  # onto the premove's destination
    wait_my_turn(dfn, 5)
    dfn.wait_for_selector("#game-notice:has-text('dropped')")
    assert "Your premove c3-c2 was dropped: it is not legal after d2-c2." in dfn.inner_text(
        "#game-notice"
    )
    assert board(dfn).get_attribute("data-queued") == ""
    shot(dfn, f"premove-dropped-{tag}", full=False)
    moves = httpx.get(f"{base}/api/games/{game_id}").json()["moves"]
    assert moves == ["g4-g3", "d3-c3", "g3-g2", "e4-e3", "d2-c2"]
    moved = [s for s in shifts(dfn) if s["value"] > 0]
    assert moved == [], f"the premover's page shifted: {moved}"


def test_no_premove_in_a_game_of_an_hour_a_move(
    touch_page: Callable[[dict[str, int]], Page], web_hub: HubProcess
) -> None:
    """Correspondence (an hour or more a move): the opponent's turn leaves the board still."""
    pages, _ = friend_game_via_home(touch_page, web_hub.url, DESKTOP, move_time=3600)
    att, dfn = pages["attackers"], pages["defenders"]
    wait_my_turn(att, 0)
    wait_ply(dfn, 0)
    assert board(dfn).get_attribute("data-premove") == "false"
    assert square(dfn, "d3").get_attribute("aria-disabled") == "true"
    square(dfn, "d3").click(force=True)
    assert dfn.locator(".board .selected").count() == 0
    assert board(dfn).get_attribute("data-queued") == ""
