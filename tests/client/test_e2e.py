"""The browser client end to end: real Chromium, a real hub, real Redis, real play.

Two browser contexts are the two players (separate sessions), a third one watches.
Moves are chosen from the legal moves the client exposes on the board (`data-legal`)
and made through the UI: clicks, the keyboard, dragging, the notation field.
Screenshots go to test-output/screenshots/.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from pages import (
    QUICK_ESCAPE,
    SMALL_PHONE,
    TALL_DESKTOP,
    board,
    click_move,
    from_to,
    keyboard_move,
    shot,
    sign_up,
    square,
    start_friend_game,
    wait_my_turn,
    wait_ply,
)

# Fixtures only (web_hub, browser from tests/conftest.py): importing `conftest` by name is
# ambiguous once another test folder has a conftest.py of its own.
Page = Any  # playwright.sync_api.Page (imported lazily: the browser fixture may skip)
HubProcess = Any  # conftest.HubProcess


def drag_move(page: Page, move: str) -> None:
    src, dst = from_to(move)
    square(page, src).drag_to(square(page, dst))


def pieces(page: Page) -> dict[str, str]:
    script = "els => Object.fromEntries(els.map(e => [e.dataset.square, e.dataset.piece]))"
    return page.eval_on_selector_all(".board [data-square]", script)


def move_list(page: Page) -> list[str]:
    return page.locator("#moves li[data-number]").all_inner_texts()


def expected_rows(moves: list[str]) -> list[str]:
    rows = []
    for i in range(0, len(moves), 2):
        rows.append(f"{i // 2 + 1}. " + " ".join(moves[i : i + 2]))
    return rows


def status(page: Page) -> str:
    return page.locator("#status-line").inner_text()


def test_friend_game_played_through_the_ui_while_watched(
    new_page: Any, web_hub: HubProcess
) -> None:
    pages, game_id = start_friend_game(new_page, web_hub.url)
    att, dfn = pages["attackers"], pages["defenders"]
    wait_ply(att, 0)
    assert status(att) == "You are the attackers — your move"
    assert status(dfn) == "You are the defenders — waiting for the attackers"

    watcher = new_page(TALL_DESKTOP)
    watcher.goto(f"{web_hub.url}/g/{game_id}")
    wait_ply(watcher, 0)
    assert status(watcher) == "You are watching — attackers to move"
    assert watcher.locator("#move-form").is_hidden()
    assert board(watcher).get_attribute("data-interactive") == "false"
    att.wait_for_selector('#watchers[data-count="1"]')
    assert att.inner_text("#watchers") == "1 person watching"
    # The throne and corners are marked, pieces carry their names.
    assert square(att, "d4").get_attribute("aria-label").startswith("d4, throne, king")
    assert square(att, "a1").get_attribute("aria-label").startswith("a1, corner, empty")
    shot(att, "friend-start-attackers")
    shot(dfn, "friend-start-defenders")

    # A spectator's click acts on nothing.
    square(watcher, "d1").click(force=True)
    assert watcher.locator(".board .selected").count() == 0

    ways = {1: keyboard_move, 4: drag_move}
    for ply, move in enumerate(QUICK_ESCAPE):
        mover = att if ply % 2 == 0 else dfn
        other = dfn if mover is att else att
        legal = wait_my_turn(mover, ply)
        assert move in legal, (move, legal)
        assert board(other).get_attribute("data-interactive") == "false"
        ways.get(ply, click_move)(mover, move)
        for p in (att, dfn, watcher):
            wait_ply(p, ply + 1)
        # The spectator sees each move appear in the numbered list and on the board.
        assert move_list(watcher) == expected_rows(QUICK_ESCAPE[: ply + 1])
        assert board(watcher).get_attribute("data-last-move") == move
        _, dst = from_to(move)
        assert "last-to" in (square(watcher, dst).get_attribute("class") or "")
        if ply == 3:
            shot(watcher, "friend-midgame-spectator")
            assert status(watcher) == "You are watching — attackers to move"
            assert status(dfn) == "You are the defenders — waiting for the attackers"

    for p in (att, dfn, watcher):
        p.wait_for_selector('.page-game[data-status="ended"]')
        assert p.get_attribute("#result", "data-winner") == "defenders"
        assert p.get_attribute("#result", "data-reason") == "king_escaped"
    assert "The defenders won: the king reached a corner." in dfn.inner_text("#result")
    assert "You won!" in dfn.inner_text("#result")
    assert "You lost" in att.inner_text("#result")
    assert status(watcher) == (
        "You are watching — game over: the defenders won, the king reached a corner"
    )
    assert status(dfn) == "You are the defenders — game over: you won, the king reached a corner"
    assert att.locator("#move-form").is_hidden()
    assert square(att, "a7").get_attribute("data-piece") == "K"
    shot(att, "friend-end-attackers")
    shot(dfn, "friend-end-defenders")
    shot(watcher, "friend-end-spectator")
    state = httpx.get(f"{web_hub.url}/api/games/{game_id}").json()
    assert state["moves"] == QUICK_ESCAPE


def test_illegal_move_shows_the_error_and_changes_nothing(
    new_page: Any, web_hub: HubProcess
) -> None:
    pages, game_id = start_friend_game(new_page, web_hub.url)
    att, dfn = pages["attackers"], pages["defenders"]
    wait_my_turn(att, 0)
    before = pieces(att)

    att.fill("#move-input", "d1-d3")  # blocked by the attacker on d2
    att.press("#move-input", "Enter")
    error = att.locator("#game-error")
    error.wait_for()
    text = error.inner_text()
    assert "not played" in text and "d1-d3" in text, text
    assert "d2" in text, text  # the server's reason names where the path is blocked
    shot(att, "illegal-move-error")
    assert pieces(att) == before
    assert board(att).get_attribute("data-ply") == "0"
    assert board(att).get_attribute("data-interactive") == "true"
    assert move_list(att) == []

    att.fill("#move-input", "hello")  # not move text at all: said locally
    att.press("#move-input", "Enter")
    att.wait_for_selector("#game-error:has-text('is not a move')")

    # The defenders cannot move out of turn: typing says so; the board does not act.
    dfn.fill("#move-input", "d3-c3")
    dfn.press("#move-input", "Enter")
    dfn.wait_for_selector("#game-error:has-text('not your move')")
    # A click picks a piece only for a premove (test_e2e_premove.py); Escape lets it go.
    square(dfn, "d3").click(force=True)
    assert board(dfn).get_attribute("data-premove") == "true"
    assert board(dfn).get_attribute("data-interactive") == "false"
    dfn.keyboard.press("Escape")
    assert dfn.locator(".board .selected").count() == 0

    # Nothing changed anywhere; a real move still works afterwards.
    assert httpx.get(f"{web_hub.url}/api/games/{game_id}").json()["moves"] == []
    att.fill("#move-input", "g4-g3")
    att.press("#move-input", "Enter")
    wait_ply(dfn, 1)
    assert att.locator("#game-error").inner_text() == ""
    assert move_list(dfn) == ["1. g4-g3"]


def test_dropped_connection_reconnects_and_the_game_goes_on(
    new_page: Any, web_hub: HubProcess
) -> None:
    pages, game_id = start_friend_game(new_page, web_hub.url)
    att, dfn = pages["attackers"], pages["defenders"]
    wait_my_turn(att, 0)

    # Drop the attackers' socket and hold the reconnect 2 s; move while it is down.
    att.evaluate("window.__brandubh.dropConnection(2000)")
    att.wait_for_selector('#conn[data-state="down"]')
    assert att.locator("#conn-banner").is_visible()
    assert "Connection lost" in att.inner_text("#conn-banner")
    click_move(att, "g4-g3")
    notice = att.locator('#game-notice[data-pending="g4-g3"]')
    notice.wait_for()
    assert "waiting for the connection" in notice.inner_text()
    assert square(att, "g3").get_attribute("data-piece") == "A"  # shown, marked pending
    assert "pending-to" in (square(att, "g3").get_attribute("class") or "")
    shot(att, "reconnect-pending-move")

    att.wait_for_selector('#conn[data-state="open"]')
    for p in (att, dfn):
        wait_ply(p, 1)
    att.wait_for_selector('#game-notice[data-pending=""]', state="attached")
    assert att.locator("#conn-banner").is_hidden()

    # The opponent replies while the attackers are cut off again; resumed with `since`.
    att.evaluate("window.__brandubh.dropConnection(1500)")
    att.wait_for_selector('#conn[data-state="down"]')
    click_move(dfn, "d5-g5")
    wait_ply(dfn, 2)
    wait_my_turn(att, 2)
    assert move_list(att) == ["1. g4-g3 d5-g5"]
    click_move(att, "g3-g2")
    for p in (att, dfn):
        wait_ply(p, 3)
    moves = httpx.get(f"{web_hub.url}/api/games/{game_id}").json()["moves"]
    assert moves == ["g4-g3", "d5-g5", "g3-g2"]  # each move applied exactly once
    assert move_list(att) == move_list(dfn) == ["1. g4-g3 d5-g5", "2. g3-g2"]


def test_bot_game_starts_without_an_account(new_page: Any, web_hub: HubProcess) -> None:
    page = new_page(SMALL_PHONE)
    page.goto(web_hub.url + "/")
    page.wait_for_selector("#ruleset-common", state="attached")
    shot(page, "home-phone")
    page.click("#ruleset-toggle")  # the rule sets are folded away
    page.check("#ruleset-common")
    page.check("#time-180")
    page.select_option("#bot-level", "2")
    # A first visit has no session: looking made none; playing makes it.
    assert not [c for c in page.context.cookies() if c["name"] == "bd_session"]
    page.click("#play-bot")
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    page.wait_for_selector('.page-game[data-status="active"]')
    assert [c for c in page.context.cookies() if c["name"] == "bd_session"]
    side = page.get_attribute(".page-game", "data-side")
    assert side in ("attackers", "defenders")
    info = page.inner_text("#game-info")
    assert "Common online rules" in info and "3 minutes" in info and "level 2" in info
    assert "Bot (level 2)" in page.inner_text("#players")
    # Whoever starts, the human gets a move: make it, and the bot answers.
    ply = 0 if side == "attackers" else 1
    legal = wait_my_turn(page, ply)
    assert status(page) == f"You are the {side} — your move"
    click_move(page, legal[0])
    wait_my_turn(page, ply + 2)
    assert len(page.locator("#moves li[data-number]").all()) == (ply + 3) // 2
    shot(page, "bot-game-phone")


def test_join_errors_are_shown_in_words(new_page: Any, web_hub: HubProcess) -> None:
    creator = new_page(TALL_DESKTOP)
    sign_up(creator, web_hub.url)
    creator.goto(web_hub.url + "/")
    creator.click("#play-friend")
    invite = creator.locator("#invite-link")
    invite.wait_for()
    game_id = invite.input_value().split("/")[-2]

    page = new_page(SMALL_PHONE)
    sign_up(page, web_hub.url)
    page.goto(f"{web_hub.url}/join/{game_id}/not-the-token")
    page.wait_for_selector("#join-error")
    assert "not valid" in page.inner_text("#join-error")
    page.goto(f"{web_hub.url}/join/NoSuchGame123/whatever")
    page.wait_for_selector("#join-error")
    assert "no such game" in page.inner_text("#join-error").lower()
    shot(page, "join-error-phone")
    page.goto(f"{web_hub.url}/g/NoSuchGame123")
    page.wait_for_selector("h1:has-text('No such game')")
    assert "There is no game NoSuchGame123." in page.inner_text(".page-game")


def test_rules_pages(new_page: Any, web_hub: HubProcess) -> None:
    page = new_page(TALL_DESKTOP)
    page.goto(web_hub.url + "/")
    page.locator("a[href='/rules/walker']:visible").first.click()
    page.wait_for_url(re.compile(r"/rules/walker$"))
    assert "Walker" in page.inner_text("h1")
    assert "two attackers" in page.inner_text(".page-rules")
    for rs in ("nielsen", "federation", "common", "newsome"):
        page.goto(f"{web_hub.url}/rules/{rs}")
        page.wait_for_selector(f'.page-rules[data-ruleset="{rs}"]')
    shot(page, "rules-newsome-desktop")
