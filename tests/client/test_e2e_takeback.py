"""Takebacks in real Chromium at 1280×800 and 390×844 (issue 40, item 5): against the
bot, "Take back" puts the board and the move list back to the player's previous turn at
once; between people in a casual game it asks, and the opponent accepts in a banner in the
message slot. No two panels overlap meanwhile."""

from __future__ import annotations

import re
from typing import Any

import pytest
from layout import assert_no_overlap

from pages import SIZES, click_move, name_of, shot, sign_up, wait_my_turn, wait_ply

Page = Any
HubProcess = Any
MOVES = "#moves button[data-ply]"


def assert_buttons_in_view(page: Page, what: str) -> None:
    """Every control button shown lies whole inside the actions' panel (none cut off at
    its right edge, as a third button was before they shared the row)."""
    cut = page.evaluate(
        """() => {
          const box = document.querySelector('#game-actions').getBoundingClientRect();
          return [...document.querySelectorAll('#controls .control-buttons .btn')]
            .filter(b => b.offsetParent !== null && getComputedStyle(b).visibility !== 'hidden')
            .filter(b => b.getBoundingClientRect().right > box.right + 1
              || b.scrollWidth > b.clientWidth + 1)
            .map(b => b.id);
        }"""
    )
    assert not cut, f"{what}: buttons cut off: {cut}"


@pytest.mark.parametrize("size", SIZES)
def test_take_back_against_the_bot(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    page = new_page(size)
    page.goto(web_hub.url + "/")
    page.select_option("#bot-level", "1")
    page.click("#play-bot")
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    page.wait_for_selector('.page-game[data-status="active"]')
    side = page.get_attribute(".page-game", "data-side")
    ply = 0 if side == "attackers" else 1
    legal = wait_my_turn(page, ply)
    # Nothing of the player's to take back yet.
    assert page.is_disabled("#takeback")
    click_move(page, legal[0])
    wait_my_turn(page, ply + 2)  # the bot answered
    assert page.locator(MOVES).count() == ply + 2
    assert page.inner_text("#takeback").strip() == "Take back"
    assert_no_overlap(page, "a bot game with its Take back button")
    assert_buttons_in_view(page, "a bot game")
    page.click("#takeback")
    wait_my_turn(page, ply)
    assert page.locator(MOVES).count() == ply  # the move list went back too
    page.wait_for_selector("#game-notice:has-text('took back')")
    assert_no_overlap(page, "after a takeback")
    shot(page, f"takeback-bot-{name_of(size)}", full=False)
    # The game goes on from there: the bot answers the player's new move.
    click_move(page, legal[-1])
    wait_my_turn(page, ply + 2)


@pytest.mark.parametrize("size", SIZES)
def test_ask_a_person_to_take_back_and_they_accept(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    one = new_page(size)
    sign_up(one, base, "Ann Host")
    one.goto(base + "/")
    one.check("#time-600")
    one.uncheck("#rated")  # takebacks are for casual games
    one.click("#play-friend")
    link = one.locator("#invite-link")
    link.wait_for()
    two = new_page(size)
    sign_up(two, base, "Ben Guest")
    two.goto(link.input_value())
    for p in (one, two):
        p.wait_for_selector('.page-game[data-status="active"]')
    pages = {p.get_attribute(".page-game", "data-side"): p for p in (one, two)}
    att, dfn = pages["attackers"], pages["defenders"]
    legal = wait_my_turn(att, 0)
    click_move(att, legal[0])
    wait_ply(dfn, 1)
    assert_buttons_in_view(att, "a casual game: take back, offer a draw, abort")
    assert (
        att.get_attribute("#takeback", "title")
        == "Ask your opponent to let you take your last move back"
    )
    att.click("#takeback")
    att.wait_for_selector("#takeback-offer:has-text('waiting for your opponent')")
    dfn.wait_for_selector("#accept-takeback")
    shot(dfn, f"takeback-offer-{name_of(size)}", full=False)
    assert_no_overlap(dfn, "a takeback offer to answer")
    dfn.click("#accept-takeback")
    for p in (att, dfn):
        wait_ply(p, 0)
        assert p.locator(MOVES).count() == 0
    wait_my_turn(att, 0)
    assert_no_overlap(att, "after an accepted takeback")
    assert_buttons_in_view(att, "after an accepted takeback")
    shot(att, f"takeback-accepted-{name_of(size)}", full=False)
