"""Puzzles in the browser, at 1280×800 and 390×844, as guests: a two-move puzzle solved
(the defence's reply played on the board between the moves), one failed with its
refutation drawn and said, the puzzle of the day reached from the home page in one click,
and a streak that climbs and ends. Every message has its own place: none overlaps the
board or another, and the page never scrolls sideways.

The hub of this module has a database of its own holding only the hand-made puzzles
(tests/handmade_puzzles.py), so which puzzle comes is known. Screenshots go to
test-output/screenshots/ as puzzles-*.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete

from brandubh.run.postgres_server import EmbeddedPostgres
from brandubh.store import Store
from brandubh.store.tables import puzzles
from handmade_puzzles import handmade, wrong_move
from pages import SIZES, click_move, name_of, shot
from services import HubProcess, mail_env, new_database, run_async

Page = Any
ONE, TWO, THREE, CAPTURE = handmade()
BY_ID = {p.id: p for p in handmade()}

NO_OVERFLOW = "document.scrollingElement.scrollWidth <= window.innerWidth"
# The boxes of the page's places, by selector; the test checks no two of them meet.
PLACES = ["#pz-prompt", ".pz-board .board", "#pz-message", "#pz-detail", "#pz-rating", "#pz-next"]


async def _fill(url: str) -> None:
    store = Store.from_url(url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(delete(puzzles))  # the shipped set, whatever it holds
        await store.add_puzzles(handmade())
    finally:
        await store.close()


@pytest.fixture(scope="module")
def hub(
    redis_url: str, postgres_server: EmbeddedPostgres, client_dist: Path, mailbox: Any
) -> Iterator[HubProcess]:
    url = new_database(postgres_server)
    env = {"BRANDUBH_CLIENT_DIR": str(client_dist), **mail_env(mailbox)}
    proc = HubProcess(redis_url, env=env, database_url=url).start()
    run_async(_fill(url))  # after the start, which adds the shipped set
    yield proc
    proc.stop()


def state(page: Page, wanted: str) -> None:
    page.wait_for_selector(f'#puzzles-page[data-state="{wanted}"]')


def solve(page: Page, puzzle: Any) -> None:
    """Play the puzzle's solution, each move once the board awaits it."""
    mine = puzzle.solution[::2]
    for i, move in enumerate(mine):
        click_move(page, move)
        if i < len(mine) - 1:  # the reply played: the next move awaited
            page.wait_for_selector(f'#puzzles-page[data-state="solving"][data-ply="{2 * i + 2}"]')
    state(page, "solved")


def check_places(page: Page) -> None:
    """No two places overlap, and nothing is wider than the screen."""
    assert page.evaluate(NO_OVERFLOW), "the page scrolls sideways"
    boxes = []
    for sel in PLACES:
        box = page.locator(sel).first.bounding_box()
        if box and box["height"] > 0:
            boxes.append((sel, box))
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1 :]:
            apart = (
                ba["x"] + ba["width"] <= bb["x"] + 0.5
                or bb["x"] + bb["width"] <= ba["x"] + 0.5
                or ba["y"] + ba["height"] <= bb["y"] + 0.5
                or bb["y"] + bb["height"] <= ba["y"] + 0.5
            )
            assert apart, f"{a} overlaps {b}: {ba} {bb}"


@pytest.mark.parametrize("size", SIZES)
def test_a_guest_solves_a_two_move_puzzle(new_page: Any, hub: HubProcess, size: Any) -> None:
    page = new_page(size)
    page.goto(f"{hub.url}/puzzles/{TWO.id}")
    state(page, "solving")
    assert "defenders" in page.inner_text("#pz-prompt")
    assert page.inner_text("#pz-you").startswith("You play the defenders")
    check_places(page)
    click_move(page, "Kc3-c7")
    page.wait_for_selector('#puzzles-page[data-state="solving"][data-ply="2"]')  # replied
    assert "answered d4-d7" in page.inner_text("#pz-message")
    after = TWO.game()
    after.play("Kc3-c7")
    after.play("d4-d7")
    assert page.get_attribute(".pz-board .board", "data-position") == after.position
    click_move(page, "Kc7-a7")
    state(page, "solved")
    assert page.inner_text("#pz-message").startswith("Solved")
    assert "→" in page.inner_text("#pz-rating")  # a first attempt: rated
    assert "escape" in page.inner_text("#pz-theme")
    assert page.locator("#pz-next").is_enabled()
    check_places(page)
    shot(page, f"puzzles-solved-{name_of(size)}", full=False)


@pytest.mark.parametrize("size", SIZES)
def test_a_wrong_move_shows_the_refutation(new_page: Any, hub: HubProcess, size: Any) -> None:
    page = new_page(size)
    page.goto(f"{hub.url}/puzzles/{ONE.id}")
    state(page, "solving")
    click_move(page, "Kb7-b1")
    state(page, "failed")
    detail = page.inner_text("#pz-detail")
    assert "g1-c1xb1" in detail and "Kb7-a7" in detail, detail
    assert page.get_attribute(".pz-board .board", "data-arrows") == "g1-c1xb1"
    assert page.locator(".pz-board .board-arrows").count() == 1
    assert "Theme: escape" in page.inner_text("#pz-theme")
    assert "→" in page.inner_text("#pz-rating")
    check_places(page)
    shot(page, f"puzzles-failed-{name_of(size)}", full=False)
    # Try again: the same puzzle, now unrated.
    page.click("#pz-retry")
    state(page, "solving")
    click_move(page, "Kb7-a7")
    state(page, "solved")
    assert "Unrated" in page.inner_text("#pz-rating")


@pytest.mark.parametrize("size", SIZES)
def test_the_daily_puzzle_from_the_home_page(new_page: Any, hub: HubProcess, size: Any) -> None:
    page = new_page(size)
    page.goto(hub.url)
    card = page.locator('#home-daily[data-ready="true"]')
    card.wait_for()
    daily = card.get_attribute("data-puzzle")
    assert daily in BY_ID
    card.scroll_into_view_if_needed()
    shot(page, f"puzzles-home-daily-{name_of(size)}", full=False)
    page.click("#home-daily-solve")
    page.wait_for_url("**/puzzles/daily")
    state(page, "solving")
    assert page.get_attribute("#puzzles-page", "data-puzzle") == daily
    solve(page, BY_ID[str(daily)])


@pytest.mark.parametrize("size", SIZES)
def test_a_streak_climbs_and_ends(new_page: Any, hub: HubProcess, size: Any) -> None:
    page = new_page(size)
    page.goto(f"{hub.url}/puzzles/streak")
    state(page, "solving")
    # The set's ratings move as this module's tests play it: which comes first is read.
    first = BY_ID[str(page.get_attribute("#puzzles-page", "data-puzzle"))]
    assert page.inner_text("#pz-streak-n") == "0"
    solve(page, first)
    assert page.inner_text("#pz-streak-n") == "1"
    page.click("#pz-next")
    page.wait_for_selector(f'#puzzles-page:not([data-puzzle="{first.id}"])[data-state="solving"]')
    second = BY_ID[str(page.get_attribute("#puzzles-page", "data-puzzle"))]
    click_move(page, wrong_move(second))
    state(page, "failed")
    assert "streak ends at 1" in page.inner_text("#pz-message")
    assert "Best streak: 1" in page.inner_text("#pz-rating")
    assert page.inner_text("#pz-next") == "Start a new streak"
    check_places(page)
    shot(page, f"puzzles-streak-{name_of(size)}", full=False)
