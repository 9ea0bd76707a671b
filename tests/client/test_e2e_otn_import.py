"""The analysis board's OpenTafl import in the browser, at both sizes: a pasted OTN game
record is loaded under its rule set and stepped through as any line; a record our rule sets
cannot replay is refused in words that name the line and the move, and the board keeps its
line. Screenshots go to test-output/screenshots/ as otn-import-*."""

from __future__ import annotations

from typing import Any

import pytest

from brandubh.engine import Game, Record, format_otn_record, format_otn_rules
from pages import QUICK_ESCAPE, SIZES, name_of, shot
from services import HubProcess

NO_OVERFLOW = "document.scrollingElement.scrollWidth <= window.innerWidth"


def escape_record() -> str:
    game = Game("walker")
    for move in QUICK_ESCAPE:
        game.play(move)
    return format_otn_record(Record.from_game(game, attackers="ann", defenders="bo"))


@pytest.mark.parametrize("size", SIZES)
def test_a_pasted_record_loads_and_steps_through(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    page = new_page(size)
    page.goto(f"{web_hub.url}/analysis")
    page.wait_for_selector('.page-analysis[data-ply="0"][data-ruleset]')
    page.fill("#ab-otn", escape_record())
    page.click("#ab-otn-load")
    last = len(QUICK_ESCAPE)
    page.wait_for_selector('.page-analysis[data-ruleset="walker"][data-ply="0"]')
    # (Selectors and locators, not scripts: the page's CSP forbids evaluating strings.)
    page.wait_for_selector(f'#ab-line button.ply[data-ply="{last}"]')
    assert page.locator("#ab-line button.ply").count() == last
    note = page.inner_text("#ab-otn-note")
    assert "Walker" in note and f"{last} moves" in note and "ann (attackers)" in note, note
    assert page.locator("#ab-line button.ply").all_inner_texts()[0].endswith(QUICK_ESCAPE[0])
    # Step through it as any line: forward by the button and the keys, to its end.
    page.click("#ab-next")
    page.wait_for_selector('.page-analysis[data-ply="1"]')
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('.page-analysis[data-ply="2"]')
    page.click("#ab-last")
    page.wait_for_selector(f'.page-analysis[data-ply="{last}"]')
    assert "king reached a corner" in page.inner_text("#ab-caption")
    assert "moves=" + "%2C".join(QUICK_ESCAPE) in page.url and "ruleset=walker" in page.url
    page.click("#ab-first")
    page.wait_for_selector('.page-analysis[data-ply="0"]')
    page.click("#ab-next")
    page.wait_for_selector('.page-analysis[data-ply="1"]')
    assert page.evaluate(NO_OVERFLOW), "the page scrolls sideways"
    assert page.locator("#ab-otn-error").is_hidden()
    shot(page, f"otn-import-{name_of(size)}", full=True)


@pytest.mark.parametrize("size", SIZES)
def test_a_record_that_does_not_replay_is_refused_in_words(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    page = new_page(size)
    page.goto(f"{web_hub.url}/analysis?ruleset=nielsen&moves=g4-g3")
    page.wait_for_selector('.page-analysis[data-ply="1"]')
    bad = f"[rules:{format_otn_rules('nielsen')}]\n\n1. d2-c2 d3-c3\n2. d1-d7\n"
    page.fill("#ab-otn", bad)
    page.click("#ab-otn-load")
    error = page.locator("#ab-otn-error")
    error.wait_for()
    said = error.inner_text()
    assert "line 4, turn 2, the attackers' move d1-d7 does not replay" in said, said
    # Nothing was loaded: the board keeps its line.
    assert page.get_attribute(".page-analysis", "data-ply") == "1"
    assert page.locator("#ab-line button.ply").count() == 1
    page.fill("#ab-otn", f"[rules:dim:7 ks:n start:{'/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/'}]\n")
    page.click("#ab-otn-load")
    page.locator("#ab-otn-error", has_text="none of our rule sets").wait_for()
    assert page.evaluate(NO_OVERFLOW), "the page scrolls sideways"
    error.scroll_into_view_if_needed()
    shot(page, f"otn-import-refused-{name_of(size)}", full=False)
