"""An opponent who left (issue 30, item 2) in real Chromium against a real hub, at 1280×800
and 390×844: a player closes their tab; the other sees "X left the game" with the time
since, cannot claim before the grace, sees the offer vanish when the player comes back,
and claims victory after the grace once they leave again, with no layout shift. The hub's
grace is shortened (BRANDUBH_CLAIM_GRACE_S); the client reads it from ``hello``.
Screenshots go to test-output/screenshots/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from pages import (
    SIZES,
    click_squares,
    friend_game_via_home,
    name_of,
    shifts,
    shot,
    wait_my_turn,
    wait_ply,
    watch_shifts,
)

Page = Any
GRACE_S = 3


@pytest.fixture
def claim_hub(start_hub: Any, client_dist: Path) -> Any:
    return start_hub(
        {"BRANDUBH_CLIENT_DIR": str(client_dist), "BRANDUBH_CLAIM_GRACE_S": str(GRACE_S)}
    )


def offer_shown(page: Page) -> bool:
    return bool(page.evaluate("document.querySelector('#claim-offer')?.dataset.wants === '1'"))


@pytest.mark.parametrize("size", SIZES)
def test_a_player_closes_the_tab_and_the_other_claims_victory_after_the_grace(
    new_page: Any, claim_hub: Any, size: dict[str, int]
) -> None:
    base = claim_hub.url
    pages, game = friend_game_via_home(new_page, base, size, move_time=180)
    stayer, leaver = pages["attackers"], pages["defenders"]
    click_squares(stayer, wait_my_turn(stayer, 0)[0])
    click_squares(leaver, wait_my_turn(leaver, 1)[0])
    wait_ply(stayer, 2)
    watch_shifts(stayer)
    board_box = stayer.locator(".board").bounding_box()
    context = leaver.context

    leaver.close()  # the tab closes: every socket of the defender is gone
    stayer.wait_for_selector('#claim-offer[data-wants="1"]', state="attached")
    said = stayer.inner_text("#claim-text")
    assert said.split(" left the game — 0:0")[0] in ("Ann Host", "Ben Guest"), said
    # Before the grace: no button to press, and the time left said.
    assert not stayer.locator("#claim-victory").is_visible()
    assert stayer.locator("#claim-victory").is_disabled()
    assert "you may claim the game in" in said
    shot(stayer, f"claim-waiting-{name_of(size)}", full=False)

    stayer.wait_for_selector("#claim-victory:enabled", state="visible")
    assert "you may claim" not in stayer.inner_text("#claim-text")
    shot(stayer, f"claim-due-{name_of(size)}", full=False)

    back = context.new_page()  # the defender comes back before anyone claims
    back.goto(f"{base}/g/{game}")
    stayer.wait_for_selector('#claim-offer[data-wants=""]', state="attached")
    assert not stayer.locator("#claim-victory").is_visible()
    back.wait_for_selector('.page-game[data-status="active"]')
    back.close()  # and leaves again: the grace starts afresh

    stayer.wait_for_selector('#claim-offer[data-wants="1"]', state="attached")
    assert not stayer.locator("#claim-victory").is_visible()
    stayer.wait_for_selector("#claim-victory:enabled", state="visible")
    # The banner came and went in its slot: nothing moved, the board included.
    moved = [s for s in shifts(stayer) if s["value"] > 0]
    assert moved == [], moved
    assert stayer.locator(".board").bounding_box() == board_box
    stayer.click("#claim-victory")
    stayer.wait_for_selector('.page-game[data-status="ended"]')
    assert not offer_shown(stayer)
    text = stayer.inner_text(".page-game")
    assert "left the game" in text, text
    shot(stayer, f"claim-won-{name_of(size)}", full=False)

    state = httpx.get(f"{base}/api/games/{game}").json()["state"]
    assert state["result"] == {"winner": "attackers", "reason": "abandoned"}
