"""Cancelling an invitation, declining a rematch and where a game came from, in Chromium
at 1280×800 and 390×844 (issue 16). Screenshots go to test-output/screenshots/ (inv-*).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pages import (
    DESKTOP,
    PHONE,
    SIZES,
    friend_game_via_home,
    game_id_of,
    name_of,
    player,
    shot,
    sign_up,
    wait_game,
)

Page = Any
HubProcess = Any


@pytest.mark.parametrize("size", SIZES)
def test_a_cancelled_invitation_tells_the_friend_who_withdrew_it(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    host = new_page(size)
    sign_up(host, base, "Ada Host")
    host.goto(base + "/")
    host.click("#play-friend")
    host.wait_for_selector("#invite-link, #home-error:not(:empty)")
    assert host.locator("#invite-link").count(), host.inner_text("#home-error")
    invite = host.locator("#invite-link").input_value()
    game = invite.split("/")[-2]
    cancel = host.locator("#cancel-invite")
    assert cancel.is_visible() and cancel.inner_text() == "Cancel the invitation"
    shot(host, f"inv-waiting-{name_of(size)}", full=False)

    # Cancelled from the home page's invite: the page opens the game, which says so.
    cancel.click()
    host.wait_for_url(re.compile(rf"/g/{re.escape(game)}$"))
    host.wait_for_selector("#invite-withdrawn")
    assert "You withdrew this invitation." in host.inner_text("#invite-withdrawn")
    assert host.inner_text("#status-line") == "You withdrew this invitation"
    assert host.locator("#cancel-invite").count() == 0 and host.locator("#invite-link").count() == 0
    assert host.locator("#result").is_hidden()  # no "Aborted" game-over panel for it
    assert host.get_attribute(".page-game", "data-status") == "ended"
    shot(host, f"inv-withdrawn-host-{name_of(size)}", full=False)

    # The friend opens the link afterwards, with no account yet: told who withdrew it,
    # not asked to sign up, and no error.
    friend = new_page(size)
    friend.goto(invite)
    friend.wait_for_selector("#join-withdrawn")
    said = friend.inner_text("#join-withdrawn")
    assert said.startswith("This invitation was withdrawn by Ada Host."), said
    assert friend.locator("#invite-auth").count() == 0
    assert friend.locator("#join-error").count() == 0
    assert "Ada Host" in friend.inner_text("#invite-terms")
    shot(friend, f"inv-withdrawn-friend-{name_of(size)}", full=False)

    # Opening the game itself says the same.
    friend.goto(f"{base}/g/{game}")
    friend.wait_for_selector("#invite-withdrawn")
    assert "This invitation was withdrawn by Ada Host." in friend.inner_text("#invite-withdrawn")

    # The game page's own invite (a new invitation, opened there) cancels the same way.
    host.goto(base + "/")
    host.click("#play-friend")
    host.locator("#invite-link").wait_for()
    second = host.locator("#invite-link").input_value().split("/")[-2]
    host.goto(f"{base}/g/{second}")
    host.click("#cancel-invite")
    host.wait_for_selector("#invite-withdrawn")
    assert host.get_attribute(".page-game", "data-status") == "ended"

    # It is on nobody's list of games (the list the /games page and the header read).
    mine = host.request.get(base + "/api/me/games").json()
    assert game not in [g["id"] for g in mine["playing"] + mine["finished"]], mine


def test_a_declined_rematch_is_seen_at_once(new_page: Any, web_hub: HubProcess) -> None:
    pages, _ = friend_game_via_home(new_page, web_hub.url, DESKTOP)
    att, dfn = pages["attackers"], pages["defenders"]
    att.click("#abort")  # before the first move: the game ends with no result
    for p in (att, dfn):
        p.wait_for_selector('.page-game[data-status="ended"]')
    names = {p: p.evaluate("() => window.__brandubh.live.player.name") for p in (att, dfn)}

    dfn.click("#rematch-button")
    dfn.wait_for_selector('#rematch[data-state="waiting"]')
    att.wait_for_selector('#rematch[data-state="accept"]')
    att.click("#rematch-decline")
    # The offerer sees it at once: the offer gone, the notice, no button to ask again.
    dfn.wait_for_selector('#rematch[data-state="declined"]')
    assert dfn.inner_text("#rematch-declined") == f"{names[att]} declined the rematch."
    assert dfn.locator("#rematch-button").count() == 0
    att.wait_for_selector('#rematch[data-state="offer"]')
    assert att.inner_text("#rematch-declined") == "You declined the rematch."
    shot(dfn, "inv-rematch-declined-offerer", full=False)
    shot(att, "inv-rematch-declined-decliner", full=False)

    # Reloaded, both pages still say so (the state keeps it).
    dfn.reload()
    dfn.wait_for_selector('#rematch[data-state="declined"]')
    assert names[att] in dfn.inner_text("#rematch-declined")


def test_games_are_labelled_by_where_they_came_from(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    pages, game = friend_game_via_home(new_page, base, PHONE)
    for p in pages.values():
        assert p.get_attribute("#origin-label", "data-origin") == "invite"
        info = p.inner_text("#game-info")
        assert info.startswith("Friend game · Nielsen") and info.endswith("· rated"), info
        p.goto(base + "/games")
        row = p.locator(f'#my-playing .my-game[data-game="{game}"]')
        row.wait_for()
        assert row.inner_text().count("Friend game") == 1, row.inner_text()

    # A game from a lobby seek: "Lobby game", never "a friend".
    one = player(new_page, base)
    one.click("#seek-open")
    seek = one.locator('#seek-list li.seek[data-mine="true"]')
    seek.wait_for()
    two = player(new_page, base, PHONE)
    two.locator(f'#seek-list li.seek[data-seek="{seek.get_attribute("data-seek")}"]').locator(
        ".accept-seek"
    ).click()
    lobby_game = game_id_of(two)
    for p in (one, two):
        wait_game(p)
        assert p.get_attribute("#origin-label", "data-origin") == "seek"
        info = p.inner_text("#game-info")
        assert "Lobby game" in info and "friend" not in info.lower(), info
    shot(two, "inv-lobby-game-phone", full=False)
    two.goto(base + "/games")
    row = two.locator(f'#my-playing .my-game[data-game="{lobby_game}"]')
    row.wait_for()
    assert "Lobby game" in row.inner_text()
    shot(two, "inv-games-list-phone", full=False)

    # Against the bot: no person's label at all.
    bot = new_page(DESKTOP)
    bot.goto(base + "/")
    bot.click("#play-bot")
    bot.wait_for_selector('.page-game[data-status="active"]')
    assert bot.locator("#origin-label").count() == 0
    assert "against the bot" in bot.inner_text("#game-info")


def test_the_phone_header_fits_with_an_account(new_page: Any, web_hub: HubProcess) -> None:
    """At 390 px, "Play" and "Your games" with its count stay in sight beside the menu
    button, which holds the other sections and the account's name in full and log-out."""
    page = new_page(PHONE)
    sign_up(page, web_hub.url, "Maximilian Long")
    page.goto(web_hub.url + "/games")
    page.wait_for_selector("#nav-profile", state="attached")
    games = page.locator("#nav-games").bounding_box()
    menu = page.locator("#nav-menu").bounding_box()
    assert games is not None and menu is not None
    assert games["x"] + games["width"] <= menu["x"] + 0.5, (games, menu)
    assert menu["x"] + menu["width"] <= PHONE["width"] + 0.5, menu
    page.click("#nav-menu")
    assert page.inner_text("#nav-profile") == "Maximilian Long"
    assert page.locator("#nav-logout").is_visible()
    shot(page, "inv-phone-header", full=False)
