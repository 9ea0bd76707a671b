"""The opening explorer in the browser, at 1280×800 and 390×844: beside the analysis board,
the moves archived games between people played from the shown position, most played
first, each with its games, its bar of results and its average rating; a move clicked is
played on the board, and the explorer follows. Screenshots: test-output/screenshots/
explorer-*."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brandubh.engine import Game
from brandubh.run.postgres_server import EmbeddedPostgres
from brandubh.store import FinishedGame, Seat, Store
from pages import SIZES, shot
from services import HubProcess, mail_env, new_database, run_async

Page = Any
NO_OVERFLOW = "document.scrollingElement.scrollWidth <= window.innerWidth"
WIDER_THAN_SCREEN = """() => [...document.querySelectorAll('*')]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .map(e => e.tagName + '.' + e.className)"""
ANN, BOB = Seat("u_ann", "Ann", "attackers"), Seat("u_bob", "Bob", "defenders")
# (first move, reply, winner, rated) of each archived game: g4-g3 most played.
GAMES = [
    ("g4-g3", "d5-g5", "defenders", True),
    ("g4-g3", "d5-g5", "attackers", True),
    ("g4-g3", "d5-g5", None, False),
    ("g4-g3", "c4-c6", "defenders", False),
    ("g4-g3", "c4-c6", "defenders", True),
    ("a4-a2", "d5-g5", "attackers", False),
    ("a4-a2", "d5-g5", "attackers", False),
    ("d2-b2", "d5-g5", None, False),
]


def archived(game_no: int, first: str, reply: str, winner: str | None, rated: bool) -> FinishedGame:
    game = Game("nielsen")
    moves = (game.play(first).text, game.play(reply).text)
    a, d = (
        (ANN, BOB)
        if game_no % 2
        else (Seat(ANN.id, ANN.name, "defenders"), Seat(BOB.id, BOB.name, "attackers"))
    )
    return FinishedGame(
        id=f"explorer{game_no:04d}",
        ruleset="nielsen",
        wants_rating=rated,
        opponent="friend",
        bot_level=None,
        seats=(a, d),
        humans=(a, d),
        winner=winner,
        reason="resignation" if winner else "draw_agreed",
        plies=len(moves),
        move_time=600,
        created=1_000 + game_no,
        ended=2_000 + game_no,
        moves=moves,
        seed="ab" * 16,
        commitment="cd" * 32,
        record="",
        final=b"\x80",
        final_seq=2,
    )


async def archive_games(url: str) -> None:
    store = Store.from_url(url, pool_size=1)
    try:
        for seat in (ANN, BOB):
            await store.create_account(seat.id, f"{seat.id}@example.org", seat.name, "h")
        for n, (first, reply, winner, rated) in enumerate(GAMES):
            await store.archive_game(archived(n, first, reply, winner, rated))
    finally:
        await store.close()


@pytest.fixture(scope="module")
def hub(
    redis_url: str, postgres_server: EmbeddedPostgres, client_dist: Path, mailbox: Any
) -> Iterator[HubProcess]:
    """A hub serving the client on a database of its own, holding GAMES."""
    url = new_database(postgres_server)
    run_async(archive_games(url))
    env = {"BRANDUBH_CLIENT_DIR": str(client_dist), **mail_env(mailbox)}
    proc = HubProcess(redis_url, env=env, database_url=url).start()
    yield proc
    proc.stop()


def rows(page: Page, host: str) -> list[str]:
    return [
        str(m)
        for m in page.locator(f"{host} .ex-row").evaluate_all("rs => rs.map(r => r.dataset.move)")
    ]


@pytest.mark.parametrize("size", SIZES)
def test_the_explorer_shows_the_archive_and_plays_a_clicked_move(
    hub: HubProcess, new_page: Any, size: dict[str, int]
) -> None:
    page = new_page(size)
    page.goto(hub.url + "/analysis?ruleset=nielsen")
    host = "#ab-explorer"
    page.locator(f"{host} .ex-row").first.wait_for()
    assert rows(page, host) == ["g4-g3", "a4-a2", "d2-b2"]
    first = page.locator(f"{host} .ex-row").first
    assert re.search(r"63%\s*5\b", first.locator(".ex-games").inner_text())
    # 5 games: 1 attackers' win, 1 draw, 3 defenders' wins -> 20 / 20 / 60.
    widths = first.locator(".ex-seg").evaluate_all("ss => ss.map(s => s.style.width)")
    assert widths == ["20%", "20%", "60%"]
    assert first.locator(".ex-defenders").inner_text() == "60%"
    # The mean of both players before each rated game: rating moves them apart evenly.
    assert first.locator(".ex-rating").inner_text() == "1500"
    assert page.locator(f"{host} .ex-row").nth(1).locator(".ex-rating").inner_text() == "–"
    assert page.locator(f"{host} .ex-total .ex-games").inner_text() == "8"
    shot(page, f"explorer-{size['width']}")
    assert page.evaluate(NO_OVERFLOW), page.evaluate(WIDER_THAN_SCREEN)

    first.locator("button").click()
    page.wait_for_url(re.compile(r"moves=g4-g3"))
    page.wait_for_function(
        "() => [...document.querySelectorAll('#ab-explorer .ex-row')]"
        ".map(r => r.dataset.move).join() === 'd5-g5,c4-c6'"
    )
    assert page.locator(f"{host} .ex-total .ex-games").inner_text() == "5"
    assert page.errors == []
