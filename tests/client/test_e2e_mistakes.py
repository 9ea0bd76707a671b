"""Learn from your mistakes in the browser (issue 41, item 3), at 1280×800 and 390×844: the
attackers' player of an analysed game steps through their own judged moves as exercises on
the replay: a wrong move ("Not quite — try again"), a second good move found that is not the
engine's, a wrong move and the answer shown on the board, the summary; by mouse and by
keyboard; the messages under the board, never over it or another panel.

The game is QUICK_ESCAPE, analysed at 20,000 nodes a ply by the hub's own worker: the
attackers' judged moves are ply 3 (a mistake; the engine's b4-b5, f4-f6 as good, b4-b7 worse)
and ply 7 (a blunder: only d6-a6xa5, capturing the king, does not lose); the same plies as
tests/analysis/test_exercise.py, the analysis being deterministic.
Screenshots go to test-output/screenshots/ as mistakes-*.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import wsclient
from pages import QUICK_ESCAPE, SIZES, name_of, shot
from services import HubProcess, mail_env, run_async

Page = Any

NO_OVERFLOW = "document.scrollingElement.scrollWidth <= window.innerWidth"


@pytest.fixture(scope="module")
def hub(redis_url: str, database_url: str, client_dist: Path, mailbox: Any) -> Iterator[HubProcess]:
    """A hub serving the client, with one analysis worker at 20,000 nodes a ply."""
    env = {
        "BRANDUBH_CLIENT_DIR": str(client_dist),
        "BRANDUBH_ANALYSIS_NODES": "20000",
        "BRANDUBH_ANALYSIS_WORKERS": "1",
        "BRANDUBH_ANALYSIS_WAIT_S": "60",
        **mail_env(mailbox),
    }
    proc = HubProcess(redis_url, env=env, database_url=database_url).start()
    yield proc
    proc.stop()


async def _attackers_game(base: str) -> tuple[str, str]:
    """QUICK_ESCAPE played to its end between two accounts: (game id, the attackers'
    session cookie)."""
    game, alice, bob = await wsclient.friend_game(base, "nielsen")
    socks = await wsclient.seated(game, alice, bob)
    for ply, move in enumerate(QUICK_ESCAPE):
        await socks["attackers" if ply % 2 == 0 else "defenders"].move(game, ply, move)
        await socks["attackers"].recv_until(lambda m, mv=move: m.get("move") == mv)
    state = (await alice.game(game))["state"]
    attackers = alice if state["players"]["attackers"]["id"] == alice.id else bob
    for s in socks.values():
        await s.close()
    assert state["status"] == "ended", state
    return game, attackers.cookie


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return dict(found)


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"] + 0.5
        or b["x"] + b["width"] <= a["x"] + 0.5
        or a["y"] + a["height"] <= b["y"] + 0.5
        or b["y"] + b["height"] <= a["y"] + 0.5
    )


def check_layout(page: Page) -> None:
    """The exercise's panel under the board, overlapping neither it nor the side's panels;
    nothing wider than the screen."""
    assert page.evaluate(NO_OVERFLOW), "the page scrolls sideways"
    trainer = box(page, "#mistakes")
    board = box(page, ".replay-board .board")
    assert trainer["y"] >= board["y"] + board["height"] - 0.5, (trainer, board)
    for other in (".replay-board .board", "#analysis", "#replay-moves", "#eval-slot"):
        if page.locator(other).is_visible():
            assert not overlaps(trainer, box(page, other)), other


def verdict(page: Page, phase: str) -> str:
    page.wait_for_selector(f'#mistakes[data-phase="{phase}"]', timeout=90_000)
    return str(page.inner_text("#mistakes-verdict"))


def click_move(page: Page, move: str) -> None:
    start, end = move[:2], move[3:5]
    page.click(f'.board [data-square="{start}"]')
    page.click(f'.board [data-square="{end}"]')


@pytest.mark.parametrize("size", SIZES)
def test_step_through_ones_mistakes_find_one_fail_one_see_the_answer(
    new_page: Any, hub: HubProcess, size: dict[str, int]
) -> None:
    base = hub.url
    game, cookie = run_async(_attackers_game(base))
    page = new_page(size)
    page.context.add_cookies([{"name": "bd_session", "value": cookie, "url": base}])
    page.goto(f"{base}/replay/{game}")
    page.click("#analysis-request")
    page.wait_for_selector('#analysis[data-status="done"]', timeout=120_000)
    learn = page.locator("#mistakes-start")
    learn.wait_for()
    assert learn.inner_text() == "Learn from your mistakes"
    name = name_of(size)
    shot(page, f"mistakes-button-{name}", full=True)
    learn.click()

    # The first: ply 3, the position before it, the board taking the attackers' moves.
    page.wait_for_selector('#mistakes[data-phase="playing"][data-ply="3"]')
    assert page.inner_text("#mistakes-prompt") == "Find a better move for the attackers."
    heading = page.inner_text("#mistakes-heading")
    assert heading.startswith("Mistake 1 of 2 · move 2: you played g3-g2"), heading
    assert page.get_attribute(".replay-board .board", "data-interactive") == "true"
    assert "f4-f6" in (page.get_attribute(".replay-board .board", "data-legal") or "").split()
    assert not learn.is_visible()
    check_layout(page)
    shot(page, f"mistakes-prompt-{name}", full=False)
    # A worse move: not quite.
    click_move(page, "b4-b7")
    said = verdict(page, "wrong")
    assert said == "Not quite — b4-b7 would also be a mistake. Try again.", said
    assert page.get_attribute(".board", "data-played") == "b4-b7"
    shot(page, f"mistakes-wrong-{name}", full=False)
    check_layout(page)
    page.click("#mistakes-retry")
    page.wait_for_selector('#mistakes[data-phase="playing"]')
    # A second good move, not the engine's: good. By keyboard on the desktop.
    if size["width"] > 600:
        page.focus('.board [data-square="f4"]')
        page.keyboard.press("Enter")
        for _ in range(2):
            page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
    else:
        click_move(page, "f4-f6")
    said = verdict(page, "good")
    assert said == "Good move! f4-f6 is as good as the engine's b4-b5.", said
    assert page.get_attribute("#mistakes", "data-tried") == "f4-f6"
    shot(page, f"mistakes-good-{name}", full=False)
    check_layout(page)
    page.click("#mistakes-next")

    # The second: ply 7, where every move but the capture lets the king out.
    page.wait_for_selector('#mistakes[data-phase="playing"][data-ply="7"]')
    assert page.inner_text("#mistakes-heading").startswith("Mistake 2 of 2")
    click_move(page, "d1-e1")
    said = verdict(page, "wrong")
    assert "proves a loss" in said, said
    page.click("#mistakes-answer")
    page.wait_for_selector('#mistakes[data-phase="answer"]')
    assert page.get_attribute(".board", "data-arrows") == "d6-a6xa5"
    assert "The engine's move: d6-a6xa5" in page.inner_text("#mistakes-verdict")
    assert page.locator(".board-arrows path.arrow-best").get_attribute("data-move") == "d6-a6xa5"
    shot(page, f"mistakes-answer-{name}", full=False)
    check_layout(page)
    assert page.inner_text("#mistakes-next") == "See the summary"
    page.click("#mistakes-next")

    # The summary: one of two found (the answer shown is not found).
    page.wait_for_selector('#mistakes[data-phase="done"]')
    assert page.inner_text("#mistakes-verdict").startswith("1 of 2 found.")
    assert page.get_attribute(".replay-board .board", "data-interactive") == "false"
    shot(page, f"mistakes-summary-{name}", full=True)
    check_layout(page)
    # Back to the replay, without a reload: the board steps through the game again.
    page.click("#mistakes-stop")
    page.wait_for_selector("#mistakes", state="detached")
    assert learn.is_visible()
    page.click("#replay-first")
    page.wait_for_selector('.page-replay[data-ply="0"]')


def test_a_spectator_is_not_offered_the_exercises(new_page: Any, hub: HubProcess) -> None:
    base = hub.url
    game, cookie = run_async(_attackers_game(base))
    player = new_page()
    player.context.add_cookies([{"name": "bd_session", "value": cookie, "url": base}])
    player.request.post(f"{base}/api/games/{game}/analysis", headers={"Origin": base})
    spectator = new_page()
    spectator.goto(f"{base}/replay/{game}")
    spectator.wait_for_selector('#analysis[data-status="done"]', timeout=120_000)
    assert spectator.locator("#mistakes-start").count() == 1
    assert not spectator.locator("#mistakes-start").is_visible()
