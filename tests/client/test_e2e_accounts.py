"""Accounts in the browser, end to end: sign up and log in through the forms, play a rated
game to its end between two accounts, see both ratings move on the profile pages and the
game in both archives, replay it move by move, the leaderboard, logging out everywhere.

Real Chromium, a real hub, real Redis (fixtures in tests/conftest.py). Screenshots go to
test-output/screenshots/.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import httpx

from brandubh.engine import parse_otn_record
from brandubh.ratings import Rating, rate_game
from pages import (
    SMALL_PHONE,
    TALL_DESKTOP,
    click_move,
    follow_confirmation,
    shot,
    wait_my_turn,
    wait_ply,
)
from waiting import wait_for_sync

Page = Any  # playwright.sync_api.Page
HubProcess = Any  # services.HubProcess

PASSWORD = "a long walk to the corner"
# The smallest rendered size of the chart's labels: CSS size × the SVG's scale on screen.
LABEL_PX = """els => Math.min(...els.map((e) => {
  const svg = e.ownerSVGElement;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return parseFloat(getComputedStyle(e).fontSize) * scale;
}))"""
OPENING = ["g4-g3", "d5-g5", "g3-g2"]


def sign_up_form(page: Page, base: str, name: str) -> tuple[str, str]:
    """Sign up through the form and follow the mailed link, which logs in; (email, player
    id) once the header says who is logged in."""
    email = f"{name.split()[0].lower()}{secrets.token_hex(4)}@example.org"
    page.goto(base + "/signup")
    page.fill("#signup-email", email)
    page.fill("#signup-password", PASSWORD)
    page.fill("#signup-name", name)
    page.click("#signup-submit")
    sent = page.wait_for_selector("#signup-sent")
    assert f"We sent a link to {email}. Open it to finish signing up." in sent.inner_text()
    assert page.locator("#nav-profile").count() == 0  # signing up logs nobody in
    follow_confirmation(page, email, PASSWORD)
    page.click("#verify-email-lobby")
    page.wait_for_url(re.compile(r"/lobby$"))
    profile = page.wait_for_selector("#nav-profile", state="attached")
    assert profile.inner_text() == name  # the header says who is logged in
    pid = str(profile.get_attribute("data-player"))
    return email, pid


def test_two_accounts_play_a_rated_game_and_see_it_everywhere(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    ann = new_page(TALL_DESKTOP)
    ann.goto(base + "/")
    ann.wait_for_selector("#nav-login")
    assert ann.locator("#friend-needs-account").is_visible()  # a guest is told why
    shot(ann, "accounts-home-guest")

    # Sign-up errors are shown in words, then a good sign-up.
    ann.goto(base + "/signup")
    ann.fill("#signup-email", "not an email")
    ann.fill("#signup-password", "short")
    ann.click("#signup-submit")
    ann.wait_for_selector("#signup-error:has-text('email address')")
    ann.fill("#signup-email", "ann@example.org")
    ann.click("#signup-submit")
    ann.wait_for_selector("#signup-error:has-text('too short')")
    shot(ann, "accounts-signup-error")
    ann_email, ann_id = sign_up_form(ann, base, "Ann Tafl")

    ben = new_page(SMALL_PHONE)
    ben_email, ben_id = sign_up_form(ben, base, "Ben Tafl")
    shot(ben, "accounts-profile-new-phone")
    # Log out from the header, then log in again through the form (a wrong password first).
    ben.click("#nav-menu")  # on a phone the account's links are in the menu
    ben.click("#nav-logout")
    ben.wait_for_selector("#nav-login", state="attached")
    ben.goto(base + "/login")
    ben.fill("#login-email", ben_email)
    ben.fill("#login-password", "not my password")
    ben.click("#login-submit")
    ben.wait_for_selector("#login-error:has-text('not right')")
    ben.fill("#login-password", PASSWORD)
    ben.click("#login-submit")
    ben.wait_for_url(re.compile(rf"/u/{ben_id}$"))
    ben.wait_for_selector(f"#nav-profile[data-player='{ben_id}']", state="attached")

    # Ann starts a rated game against a friend; Ben joins with the invite link.
    ann.goto(base + "/")
    assert ann.is_checked("#rated") and ann.locator("#friend-needs-account").is_hidden()
    ann.check("#time-600")
    ann.click("#play-friend")
    link = ann.locator("#invite-link")
    link.wait_for()
    ben.goto(link.input_value())
    ben.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    game_id = ben.url.rsplit("/", 1)[1]
    ann.wait_for_url(re.compile(rf"/g/{game_id}$"))
    for p in (ann, ben):
        p.wait_for_selector('.page-game[data-status="active"]')
    pages = {p.get_attribute(".page-game", "data-side"): p for p in (ann, ben)}
    assert set(pages) == {"attackers", "defenders"}
    ids = {ann: ann_id, ben: ben_id}

    for ply, move in enumerate(OPENING):
        mover = pages["attackers" if ply % 2 == 0 else "defenders"]
        assert move in wait_my_turn(mover, ply)
        click_move(mover, move)
        for p in pages.values():
            wait_ply(p, ply + 1)
    # The defenders resign (a confirm step first): the attackers win.
    loser, winner = pages["defenders"], pages["attackers"]
    loser.click("#resign")
    loser.click("#resign-confirm")
    for p in pages.values():
        p.wait_for_selector('.page-game[data-status="ended"]')
    shot(winner, "accounts-rated-game-over")

    # Both ratings moved, once, by Glicko-2 from 1500/350: shown provisional ("?").
    won, lost = rate_game(Rating(), Rating(), 1.0)
    expected = {winner: f"{round(won.rating)}?", loser: f"{round(lost.rating)}?"}
    for p in (winner, loser):
        # Ratings follow the end by a moment (endings.py, after the archive): on a busy
        # machine the first load may come before them, as a player's reload would.

        def rated(p: Page = p) -> bool:
            p.goto(f"{base}/u/{ids[p]}")
            p.wait_for_selector("#ratings")
            return bool(p.locator(f"#rating-nielsen:has-text('{expected[p]}')").count())

        wait_for_sync(rated, f"the rating on {ids[p]}'s profile", 20, 0.5)
        p.wait_for_selector(f"#rating-nielsen:has-text('{expected[p]}')")
        assert p.get_attribute("#rating-nielsen", "data-provisional") == "true"
        p.wait_for_selector(f'#games [data-game="{game_id}"]')
        assert p.locator("#rating-chart svg .chart-dot").count() == 1
        # The chart is drawn at its width on the screen: labels of 11 px or more, phone too.
        assert p.eval_on_selector_all("#rating-chart .chart-label", LABEL_PX) >= 11
        assert p.locator("#leaderboard-optin").is_visible()  # own profile only
    assert winner.get_attribute(f'#games [data-game="{game_id}"]', "data-outcome") == "won"
    assert loser.get_attribute(f'#games [data-game="{game_id}"]', "data-outcome") == "lost"
    assert "+162" in winner.inner_text(f'#games [data-game="{game_id}"]')
    shot(ann, "accounts-profile-after-game")
    shot(ben, "accounts-profile-after-game-phone")
    # Someone else's profile: the ratings and games, no opt-in switch.
    ann.goto(f"{base}/u/{ben_id}")
    ann.wait_for_selector(f'#games [data-game="{game_id}"]')
    assert ann.locator("#leaderboard-optin").count() == 0
    assert "Ben Tafl" in ann.inner_text("#profile-name")

    # Replay the game from Ann's archive, move by move, and compare with the server.
    ann.goto(f"{base}/u/{ann_id}")
    ann.click(f'#games [data-game="{game_id}"] .replay-link')
    ann.wait_for_url(re.compile(rf"/replay/{game_id}$"))
    ann.wait_for_selector(f'.page-replay[data-ply="{len(OPENING)}"]')
    replay = httpx.get(f"{base}/api/games/{game_id}/positions").json()
    assert replay["moves"] == OPENING
    assert "resigned" in ann.inner_text("#replay-result")
    for ply in range(len(OPENING), -1, -1):
        ann.wait_for_selector(f'.page-replay[data-ply="{ply}"]')
        assert board_position(ann) == replay["positions"][ply], ply
        if ply == 1:
            shot(ann, "accounts-replay-ply1")
        if ply:
            ann.keyboard.press("ArrowLeft")
    assert ann.inner_text("#replay-caption").startswith("Start position")
    ann.click("#replay-last")
    ann.wait_for_selector(f'.page-replay[data-ply="{len(OPENING)}"]')
    assert ann.get_attribute("#replay-verify", "href") == f"/verify?game={game_id}"
    record = httpx.get(base + ann.get_attribute("#replay-record", "href")).text
    assert " ".join(OPENING[:2]) in record
    # The same game in OpenTafl notation (nielsen has an OTN rules string), read back.
    otn = httpx.get(base + ann.get_attribute("#replay-otn", "href")).text
    assert list(parse_otn_record(otn).moves) == OPENING

    # The leaderboard: opted in, but provisional players are not listed.
    ann.goto(f"{base}/u/{ann_id}")
    ann.check("#leaderboard-optin")
    ann.wait_for_selector("#leaderboard-status:has-text('on the leaderboards')")
    ann.click("#site-nav a[href='/leaderboard']")
    ann.wait_for_url(re.compile(r"/leaderboard$"))
    ann.wait_for_selector("#leaderboard-updated:has-text('Updated')")
    assert ann.locator(f'#leaderboard tr[data-player="{ann_id}"]').count() == 0
    ann.click(".tabs a[data-ruleset='walker']")
    ann.wait_for_selector('#leaderboard[data-ruleset="walker"]')
    shot(ann, "accounts-leaderboard")

    # Log out everywhere from the account page: Ben's other session (logged in as Ann in a
    # third browser) is closed by the server and comes back as a guest.
    other = new_page(TALL_DESKTOP)
    other.goto(base + "/login")
    other.fill("#login-email", ann_email)
    other.fill("#login-password", PASSWORD)
    other.click("#login-submit")
    other.wait_for_selector(f"#nav-profile[data-player='{ann_id}']")
    other.wait_for_selector('#conn[data-state="open"]')
    ann.goto(base + "/account")
    ann.wait_for_selector("#logout-everywhere")
    shot(ann, "accounts-account-page")
    ann.click("#logout-everywhere")
    ann.wait_for_selector("#nav-login")
    other.wait_for_selector("#nav-login", timeout=20_000)  # closed with 4004, reloaded
    assert other.locator("#nav-profile").count() == 0


def test_a_guest_opening_an_invite_is_asked_to_sign_up_and_comes_back(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    host = new_page(TALL_DESKTOP)
    sign_up_form(host, base, "Cat Tafl")
    host.goto(base + "/")
    host.uncheck("#rated")  # a casual game this time
    host.click("#play-friend")
    link = host.locator("#invite-link")
    link.wait_for()
    invite = link.input_value()

    guest = new_page(SMALL_PHONE)
    guest.goto(invite)
    # The invitation says an account is needed and takes the sign-up right there.
    guest.wait_for_selector("#invite-auth-why:has-text('needs an account')")
    assert "Casual" in guest.inner_text("#invite-terms")
    shot(guest, "accounts-join-needs-account-phone")
    email = f"dan{secrets.token_hex(4)}@example.org"
    guest.fill("#invite-email", email)
    guest.fill("#invite-password", PASSWORD)
    guest.click("#invite-submit")
    # Signed up right there and seated at once; the mailed link logs in, and its page
    # leads back to the game.
    guest.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))  # joined
    guest.wait_for_selector('.page-game[data-status="active"]')
    follow_confirmation(guest, email, PASSWORD)
    guest.click("#verify-email-invite")
    guest.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    guest.wait_for_selector('.page-game[data-status="active"]')
    game_id = guest.url.rsplit("/", 1)[1]
    assert httpx.get(f"{base}/api/games/{game_id}").json()["state"]["rated"] is False


def board_position(page: Page) -> str:
    """The position the board shows, as a position string (pieces only; side from the
    page is not needed: compared with the server's string without its side letter)."""
    pieces = page.eval_on_selector_all(
        ".board [data-square]",
        "els => Object.fromEntries(els.map(e => [e.dataset.square, e.dataset.piece || '']))",
    )
    rows = []
    for rank in range(7, 0, -1):
        row, empty = "", 0
        for file in "abcdefg":
            piece = pieces.get(f"{file}{rank}", "")
            if piece:
                row += (str(empty) if empty else "") + piece
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    side = page.get_attribute(".page-replay", "data-ply")
    return "/".join(rows) + (" a" if int(side or 0) % 2 == 0 else " d")
