"""The lobby and watch pages end to end: real Chromium, a real hub, real Redis.

Separate browser contexts are separate people (sessions). A seek opened in one is accepted
in another and both land on the same game; quick pairing pairs two people; the watch list
shows a game in progress and opens it for a spectator. Screenshots go to
test-output/screenshots/ (lobby-*, watch-*).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

from pages import (
    SMALL_PHONE,
    TALL_DESKTOP,
    confirm_address,
    game_id_of,
    open_lobby,
    player,
    shot,
    wait_game,
)

Page = Any  # playwright.sync_api.Page (imported lazily: the browser fixture may skip)
HubProcess = Any  # conftest.HubProcess


def my_name(page: Page) -> str:
    """The player's name, as the server greeted this page's socket."""
    page.wait_for_function("() => !!window.__brandubh.live.player")
    return str(page.evaluate("() => window.__brandubh.live.player.name"))


def test_seek_opened_in_one_browser_is_accepted_in_another(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    one = player(new_page, base)
    assert one.get_attribute('#site-nav a[href="/lobby"]', "aria-current") == "page"
    shot(one, "lobby-empty-desktop")

    one.select_option("#seek-ruleset", "federation")
    one.click("label:has(#seek-time-600)")
    one.click("label:has(#seek-casual)")
    one.check("#seek-match")
    one.click("#seek-open")
    mine = one.locator('#seek-list li.seek[data-mine="true"]')
    mine.wait_for()
    seek_id = mine.get_attribute("data-seek")
    assert seek_id
    row = mine.inner_text()
    for words in (
        "You",
        "yours",
        "Federation",
        "10 minutes per move",
        "Casual",
        "Two-game match",
        "Live",
        "Cancel",
    ):
        assert words in row, (words, row)
    assert re.search(r"\b\d{3,4}\??", row), row  # the rating, "?" while provisional
    assert "Your seek is open" in one.inner_text("#seek-done")
    assert mine.locator(".accept-seek").count() == 0

    two = player(new_page, base, SMALL_PHONE)
    theirs = two.locator(f'#seek-list li.seek[data-seek="{seek_id}"]')
    theirs.wait_for()
    assert theirs.get_attribute("data-mine") == "false"
    text = theirs.inner_text()
    assert my_name(one) in text and "yours" not in text, text
    assert theirs.locator(".cancel-seek").count() == 0
    shot(one, "lobby-own-seek-desktop")
    shot(two, "lobby-seek-phone")

    theirs.locator(".accept-seek").click()
    game = game_id_of(two)
    assert game_id_of(one) == game  # the seek's owner is taken to the same game at once
    sides = {wait_game(one), wait_game(two)}
    assert sides == {"attackers", "defenders"}, sides
    for p in (one, two):
        assert p.locator(".board [data-square]").count() == 49
    shot(one, "lobby-paired-owner")
    shot(two, "lobby-paired-accepter")

    # The seek is gone from every list.
    three = new_page(TALL_DESKTOP)
    open_lobby(three, base)
    assert three.locator(f'#seek-list li.seek[data-seek="{seek_id}"]').count() == 0


def test_own_seek_can_be_cancelled_and_others_see_it_go(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    one, two = player(new_page, base), player(new_page, base)
    one.click("label:has(#seek-time-259200)")  # 3 days: a correspondence seek
    one.click("#seek-open")
    mine = one.locator('#seek-list li.seek[data-mine="true"]')
    mine.wait_for()
    seek_id = mine.get_attribute("data-seek")
    assert mine.get_attribute("data-kind") == "correspondence"
    assert "Correspondence" in mine.inner_text() and "3 days per move" in mine.inner_text()
    other = two.locator(f'#seek-list li.seek[data-seek="{seek_id}"]')
    other.wait_for()
    # A live seek of the second player is listed first, above the correspondence one.
    two.click("label:has(#seek-time-60)")
    two.click("#seek-open")
    live = one.locator('#seek-list li.seek[data-kind="live"][data-mine="false"]')
    live.wait_for()
    kinds = one.eval_on_selector_all("#seek-list li.seek", "els => els.map(e => e.dataset.kind)")
    assert kinds.index("live") < kinds.index("correspondence"), kinds
    phone = new_page(SMALL_PHONE)
    open_lobby(phone, base)
    phone.locator(f'li.seek[data-seek="{seek_id}"]').wait_for()
    shot(one, "lobby-two-seeks-desktop")
    shot(phone, "lobby-two-seeks-phone")

    mine.locator(".cancel-seek").click()
    mine.wait_for(state="detached")
    other.wait_for(state="detached")  # seek_removed reached the other browser
    phone.locator(f'li.seek[data-seek="{seek_id}"]').wait_for(state="detached")


def test_quick_pairing_pairs_two_browsers(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    one = player(new_page, base)
    one.select_option("#quick-ruleset", "walker")
    one.click("label:has(#quick-time-60)")
    one.click("#quick-find")
    status = one.locator("#quick-status")
    status.wait_for()
    assert status.inner_text().startswith("waiting… (")
    one.wait_for_function(
        "() => /waiting… \\(([2-9]|\\d\\d+) s\\)/"
        ".test(document.querySelector('#quick-status').textContent)"
    )
    detail = one.inner_text("#quick-detail")
    assert "Walker, 1 minute per move" in detail, detail
    assert one.locator("#quick-cancel").is_visible()
    shot(one, "lobby-quick-waiting-desktop")

    # Cancel, then wait again: the button ends the wait.
    one.click("#quick-cancel")
    one.wait_for_selector("#quick-find", state="visible")
    assert one.locator("#quick-waiting").is_hidden()
    one.click("#quick-find")
    status.wait_for()

    two = player(new_page, base, SMALL_PHONE)
    two.select_option("#quick-ruleset", "walker")
    two.click("label:has(#quick-time-60)")
    shot(two, "lobby-quick-phone")
    two.click("#quick-find")
    game = game_id_of(two)
    assert game_id_of(one) == game
    sides = {wait_game(one), wait_game(two)}
    assert sides == {"attackers", "defenders"}, sides
    state = one.evaluate(f"() => window.__brandubh.live.games.get('{game}').state")
    assert state["ruleset"] == "walker" and state["move_time"] == 60, state


def test_watch_list_opens_a_game_in_progress_as_spectator(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    one, two = player(new_page, base), player(new_page, base)
    one.click("label:has(#seek-time-3600)")
    one.click("#seek-open")
    mine = one.locator('#seek-list li.seek[data-mine="true"]')
    mine.wait_for()
    seek_id = mine.get_attribute("data-seek")
    two.locator(f'li.seek[data-seek="{seek_id}"] .accept-seek').click()
    game = game_id_of(two)
    assert game_id_of(one) == game
    pages = {wait_game(p): p for p in (one, two)}
    att = pages["attackers"]
    # The attackers play a first move, so the list shows the game at move 1, defenders to play.
    att.wait_for_selector('.board[data-ply="0"][data-interactive="true"]')
    first = (att.get_attribute(".board", "data-legal") or "").split()[0]
    src, dst = re.match(r"^K?([a-g][1-7])-([a-g][1-7])", first).groups()  # type: ignore[union-attr]
    att.click(f'.board [data-square="{src}"]')
    att.click(f'.board [data-square="{dst}"]')
    att.wait_for_selector('.board[data-ply="1"]')

    viewer = new_page(TALL_DESKTOP)
    viewer.goto(base + "/")
    viewer.click('#site-nav a[href="/watch"]')  # the header's link, without reloading
    viewer.wait_for_url(re.compile(r"/watch$"))
    link = viewer.locator(f'#watch-list a.watch-game[data-game="{game}"]')
    link.wait_for()
    text = link.inner_text()
    for words in (my_name(one), my_name(two), "Move 1, defenders to move", "Lobby game"):
        assert words in text, (words, text)
    shot(viewer, "watch-desktop")
    phone = new_page(SMALL_PHONE)
    phone.goto(base + "/watch")
    phone.locator(f'a.watch-game[data-game="{game}"]').wait_for()
    shot(phone, "watch-phone")

    # The lobby shows the same game among the games in progress.
    assert one.evaluate("() => location.pathname") == f"/g/{game}"
    lobby_view = new_page(TALL_DESKTOP)
    open_lobby(lobby_view, base)
    lobby_view.locator(f'#lobby-games a.watch-game[data-game="{game}"]').wait_for()
    shot(lobby_view, "lobby-with-games-desktop")

    link.click()
    viewer.wait_for_url(re.compile(rf"/g/{game}$"))
    assert wait_game(viewer) == "spectator"
    viewer.wait_for_selector('.board[data-ply="1"]')
    assert viewer.get_attribute(".board", "data-interactive") == "false"
    assert viewer.inner_text("#status-line").startswith("You are watching")
    att.wait_for_selector('#watchers[data-count="1"]')  # the players see their spectator


def test_a_guest_is_told_to_sign_up_and_then_plays(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    guest = new_page(SMALL_PHONE)
    open_lobby(guest, base)
    guest.click("#seek-open")
    mine = guest.locator('#seek-list li.seek[data-mine="true"]')
    error = guest.locator("#seek-error")
    guest.wait_for_function(
        "() => document.querySelector('#seek-list li.seek[data-mine=\"true\"]')"
        " || document.querySelector('#seek-error').textContent.length > 0"
    )
    if mine.count():  # a regression: withdraw the guest's seek from the shared lobby, then fail
        mine.locator(".cancel-seek").click()
        pytest.fail("a guest opened a seek: guests must be refused with account_required")
    assert error.get_attribute("data-code") == "account_required", error.inner_text()
    assert "need an account" in error.inner_text()
    # The page says so up front, too.
    assert "playing as a guest" in guest.inner_text("#lobby-guest")
    guest.evaluate("() => window.scrollTo(0, 0)")
    shot(guest, "lobby-guest-phone", full=False)
    guest.locator("#seek-error-signup").scroll_into_view_if_needed()
    shot(guest, "lobby-guest-error-phone", full=False)

    # Quick pairing says the same, and does not wait.
    guest.click("#quick-find")
    guest.wait_for_selector('#quick-error[data-code="account_required"] a[href^="/signup"]')
    assert guest.locator("#quick-waiting").is_hidden()

    # Sign up through the link and come back to the lobby, able to play.
    guest.click("#seek-error-signup")
    guest.wait_for_url(re.compile(r"/signup\?next=/lobby$"))
    email = f"guest-{secrets.token_hex(6)}@example.org"
    guest.fill("#signup-email", email)
    guest.fill("#signup-password", "quiet river walks the lobby")
    guest.click("#signup-submit")
    guest.wait_for_selector(f"#signup-sent:has-text('{email}')")  # "check your inbox"
    confirm_address(guest, base, email, "quiet river walks the lobby")  # it logs in
    open_lobby(guest, base)
    assert guest.locator("#lobby-guest").is_hidden()
    guest.click("#seek-open")
    mine.wait_for()
    mine.locator(".cancel-seek").click()
    mine.wait_for(state="detached")
