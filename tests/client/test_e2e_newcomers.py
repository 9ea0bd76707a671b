"""A newcomer at the board from an invitation (issue 30), in Chromium at 1280×800 and
390×844: one sign-up on the invitation's card seats them at once and both players see the
game start; the same newcomer cannot use the lobby or create games until the mailed link
is followed; after it, everything works. Screenshots go to test-output/screenshots/
(newcomer-*); the time from opening the link to the started board, for the report, to
test-output/newcomer-seated.json (measured, never asserted: the machine is shared)."""

from __future__ import annotations

import json
import re
import secrets
import time
from typing import Any

import pytest

from pages import (
    PASSWORD,
    SHOTS,
    SIZES,
    click_squares,
    follow_confirmation,
    name_of,
    shot,
    sign_up,
    wait_my_turn,
)

Page = Any
HubProcess = Any
GAME_URL = re.compile(r"/g/[A-Za-z0-9_-]+$")


def record_seconds(size: str, seconds: float) -> None:
    """Keep the measured time beside the screenshots (one entry per size)."""
    path = SHOTS.parent / "newcomer-seated.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    known[size] = round(seconds, 2)
    path.write_text(json.dumps(known, indent=1))


@pytest.mark.parametrize("size", SIZES)
def test_a_newcomer_is_at_the_board_from_the_invitation_card(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    host = new_page(size)
    sign_up(host, base, "Hal Host")
    host.goto(base + "/")
    host.click("#play-friend")
    link = host.locator("#invite-link")
    link.wait_for()
    invite = link.input_value()

    newcomer = new_page(size)
    opened = time.monotonic()
    newcomer.goto(invite)
    newcomer.wait_for_selector("#invite-auth")
    why = newcomer.inner_text("#invite-auth-why")
    assert "you are at the board at once" in why and "confirm your address" in why
    assert "rated if you confirm before it ends" in why
    assert newcomer.locator("#invite-submit").is_visible()
    shot(newcomer, f"newcomer-card-{name_of(size)}", full=False)
    email = f"nia{secrets.token_hex(4)}@example.org"
    newcomer.fill("#invite-email", email)
    newcomer.fill("#invite-password", PASSWORD)
    newcomer.fill("#invite-name", "Nia Newcomer")
    newcomer.click("#invite-submit")
    # One step: seated at once, and both see the game start.
    newcomer.wait_for_url(GAME_URL)
    newcomer.wait_for_selector('.page-game[data-status="active"] .board[data-ply="0"]')
    record_seconds(name_of(size), time.monotonic() - opened)
    host.wait_for_url(GAME_URL)
    host.wait_for_selector('.page-game[data-status="active"]')
    assert "Nia Newcomer (you)" in newcomer.inner_text("#players")
    assert "Hal Host" in newcomer.inner_text("#players")
    assert "Nia Newcomer" in host.inner_text("#players")
    banner = newcomer.inner_text("#mail-banner")
    assert "Confirm your address to keep your account" in banner and email in banner
    # The header offers no second sign-up: what is left is the mailed link.
    assert newcomer.locator("#nav-signup").count() == 0
    assert newcomer.locator("#nav-pending").get_attribute("title") == f"We sent a link to {email}"
    # (Folded under the page on a phone: its text, not its sight.)
    newcomer.wait_for_function(
        "() => document.querySelector('#chat')?.textContent.includes('Confirm your email to chat.')"
    )
    shot(newcomer, f"newcomer-seated-{name_of(size)}", full=False)
    # They play: the attacker's first move reaches the other side.
    by_side = {p.get_attribute(".page-game", "data-side"): p for p in (host, newcomer)}
    legal = wait_my_turn(by_side["attackers"], 0)
    click_squares(by_side["attackers"], legal[0])
    by_side["defenders"].wait_for_selector('.board[data-ply="1"]')

    # Nothing else before the address is confirmed: no new game, no lobby.
    newcomer.goto(base + "/")
    newcomer.click("#play-friend")
    newcomer.wait_for_selector("#home-error:not(:empty)")
    said = newcomer.inner_text("#home-error")
    assert said.startswith("Confirm your email address first") and email in said
    assert newcomer.locator("#invite-link").count() == 0
    newcomer.goto(base + "/lobby")
    newcomer.wait_for_selector("#lobby-guest:not([hidden])")
    assert newcomer.inner_text("#lobby-guest").startswith("Confirm your email address first")
    shot(newcomer, f"newcomer-lobby-{name_of(size)}", full=False)
    refused = newcomer.request.post(
        base + "/api/games", data={"opponent": "friend"}, headers={"Origin": base}
    )
    assert refused.status == 403 and refused.json()["error"] == "verification_required"

    # The mailed link: confirmed and logged in as the same player, back to the game.
    follow_confirmation(newcomer, email)
    newcomer.click("#verify-email-invite")
    newcomer.wait_for_url(GAME_URL)
    newcomer.wait_for_selector('.page-game[data-status="active"] .board[data-ply="1"]')
    assert "Nia Newcomer (you)" in newcomer.inner_text("#players")
    assert newcomer.locator("#mail-banner").count() == 0
    # Now everything works: a game of their own against a friend.
    newcomer.goto(base + "/")
    newcomer.click("#play-friend")
    newcomer.wait_for_selector("#invite-link")
    shot(newcomer, f"newcomer-confirmed-{name_of(size)}", full=False)
