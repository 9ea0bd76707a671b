"""The reflexes a lichess player brings (issue 40, item 5), in real Chromium at 1280×800
and 390×844: the board flipped by a button and by the f key, kept per game (after a
reload, and on the game's replay); the players' bars turn with it; a player's name leads
to their profile; the analysis board one click away in the header (the phone's menu);
times written as a person would ("1 d", not "1 d 0 h")."""

from __future__ import annotations

from typing import Any

import pytest
from layout import assert_no_overlap

from pages import PHONE, SIZES, friend_game_via_home, name_of, shot

Page = Any
HubProcess = Any
FIRST_SQUARE = "document.querySelector('.board .sq').dataset.square"


@pytest.mark.parametrize("size", SIZES)
def test_flip_the_board_follow_a_name_and_find_the_analysis_board(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    tag = name_of(size)
    pages, game = friend_game_via_home(new_page, base, size, move_time=86400)
    att, dfn = pages["attackers"], pages["defenders"]
    assert att.evaluate(FIRST_SQUARE) == "a7"  # rank 7 on top, file a on the left
    assert att.get_attribute("#bar-bottom", "data-side") == "attackers"
    # The time per move as a person writes it.
    assert att.inner_text("#bar-top .clock-time").strip() == "1 d"

    att.click("#flip-board")
    att.wait_for_selector('.board[data-flipped="true"]')
    assert att.evaluate(FIRST_SQUARE) == "g1"  # half a turn: rank 1 on top, file g left
    att.wait_for_selector('#bar-bottom[data-side="defenders"]')  # the bars turn with it
    assert att.get_attribute("#flip-board", "aria-pressed") == "true"
    assert_no_overlap(att, "a turned board")
    shot(att, f"reflexes-flipped-{tag}", full=False)
    # A move still lands on the square clicked: the squares keep their names.
    legal = str(att.get_attribute(".board", "data-legal")).split()
    move = legal[0]
    frm, to = move.split("-")[0][-2:], move.split("-")[1][:2]
    att.click(f'.board [data-square="{frm}"]')
    att.click(f'.board [data-square="{to}"]')
    att.wait_for_selector('.board[data-ply="1"]')
    dfn.wait_for_selector('.board[data-ply="1"]')

    # Kept for this game: after a reload, and on its replay; the other player's is theirs.
    att.reload()
    att.wait_for_selector('.board[data-flipped="true"]')
    assert dfn.get_attribute(".board", "data-flipped") in (None, "false")
    att.goto(f"{base}/replay/{game}")
    att.wait_for_selector('.board[data-flipped="true"]')
    # The f key turns it back (not while typing).
    att.keyboard.press("f")
    att.wait_for_selector('.board[data-flipped="false"]')
    att.goto(f"{base}/g/{game}")
    att.wait_for_selector(".board[data-ply]")
    assert att.get_attribute(".board", "data-flipped") in (None, "false")

    # The opponent's name leads to their profile.
    name = att.locator("#bar-top .pbar-name")
    name.wait_for()
    href = name.get_attribute("href")
    assert href is not None and href.startswith("/u/"), href
    name.click()
    att.wait_for_url(f"{base}{href}")

    # The analysis board from the header (on a phone, from its menu).
    if size is PHONE:
        att.click("#nav-menu")
    att.click("#nav-analysis")
    att.wait_for_selector("#analysis-board .board")
    assert att.url.split("?")[0] == f"{base}/analysis", att.url
    att.click("#flip-board")
    att.wait_for_selector('#analysis-board .board[data-flipped="true"]')
    shot(att, f"reflexes-analysis-flipped-{tag}", full=False)
