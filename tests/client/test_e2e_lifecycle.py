"""A game's life in the browser, end to end: clocks, draw offers, resigning, aborting,
rematches, the repetition warning, timeouts, the game-over panel and the verify page.

Real Chromium, a real hub, real Redis (fixtures in tests/conftest.py); two browser
contexts are the players, a third one watches. Helpers come
from test_e2e.py. Screenshots go to test-output/screenshots/ (desktop and 360 px wide).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import httpx

from pages import (
    SHOTS,
    SMALL_PHONE,
    TALL_DESKTOP,
    click_move,
    shot,
    start_friend_game,
    wait_my_turn,
    wait_ply,
)

Page = Any  # playwright.sync_api.Page
HubProcess = Any  # services.HubProcess

# From the start position these bring it round a second time at ply 4 (Nielsen rules).
SHUFFLE = ["d1-c1", "c4-c5", "c1-d1", "c5-c4"]
HEX64 = re.compile(r"^[0-9a-f]{64}$")


def snap(page: Page, name: str, part: str | None = None) -> None:
    """A screenshot named by what it shows and the page's width (desktop or phone);
    with `part`, only that element (a close-up)."""
    width = (
        "phone"
        if (page.viewport_size or TALL_DESKTOP)["width"] <= SMALL_PHONE["width"]
        else "desktop"
    )
    if part is None:
        shot(page, f"lifecycle-{name}-{width}")
    else:
        page.locator(part).screenshot(path=str(SHOTS / f"lifecycle-{name}-{width}.png"))


def status(page: Page) -> str:
    return page.locator("#status-line").inner_text()


def play(pages: dict[str, Page], moves: list[str], watchers: tuple[Page, ...] = ()) -> None:
    """Play moves through clicks, attackers first, each seen by every page before the next."""
    for ply, move in enumerate(moves):
        mover = pages["attackers"] if ply % 2 == 0 else pages["defenders"]
        assert move in wait_my_turn(mover, ply), move
        click_move(mover, move)
        for p in (*pages.values(), *watchers):
            wait_ply(p, ply + 1)


def wait_ended(page: Page, reason: str) -> None:
    page.wait_for_selector(f'#result[data-reason="{reason}"]')
    assert page.get_attribute(".page-game", "data-status") == "ended"


def test_repetition_draw_offers_and_the_verify_page(new_page: Any, web_hub: HubProcess) -> None:
    pages, game_id = start_friend_game(new_page, web_hub.url)
    att, dfn = pages["attackers"], pages["defenders"]
    watcher = new_page(SMALL_PHONE)
    watcher.goto(f"{web_hub.url}/g/{game_id}")
    wait_ply(watcher, 0)

    # Clocks: the attackers' counts down from 10 minutes, the defenders' shows the allowance.
    for p in (att, dfn, watcher):
        p.wait_for_selector('#clock-attackers[data-tone="running"]')
        assert re.fullmatch(r"(10:00|9:[0-5]\d)", p.inner_text("#clock-attackers .clock-time"))
        assert p.inner_text("#clock-attackers .clock-caption") == "left"
        assert p.get_attribute("#clock-defenders", "data-tone") == "idle"
        assert p.inner_text("#clock-defenders .clock-time") == "10:00"
    assert "(you)" in (att.get_attribute("#clock-attackers", "aria-label") or "")
    snap(watcher, "clocks", ".play")
    snap(att, "clocks", ".play")
    # Players have controls (abort before both have moved); the spectator has none.
    assert att.locator("#abort").is_visible() and att.locator("#resign").is_hidden()
    assert att.locator("#offer-draw").is_enabled()
    assert watcher.locator("#controls").is_hidden()
    assert watcher.locator("#offer-draw").count() == 0 or watcher.locator("#offer-draw").is_hidden()

    # The start position comes round a second time: everyone is warned, by the rule set.
    play(pages, SHUFFLE, (watcher,))
    for p in (att, dfn, watcher):
        warning = p.locator("#repetition-warning")
        warning.wait_for()
        assert warning.inner_text() == (
            "This position has now occurred twice. If it comes round a third time, "
            "the game is a draw."
        )
    snap(watcher, "repetition-spectator")

    # A draw offer: prominent for the defenders, a line for the spectator and the offerer.
    att.click("#offer-draw")
    dfn.wait_for_selector("#draw-offer.prominent #accept-draw")
    assert "Your opponent offers a draw." in dfn.inner_text("#draw-offer")
    watcher.wait_for_selector('#draw-offer[data-by="attackers"]')
    assert watcher.inner_text("#draw-offer") == (
        "The attackers offer a draw — waiting for the defenders to answer."
    )
    assert watcher.locator("#accept-draw").count() == 0
    watcher.wait_for_selector('#game-notes li[data-kind="draw_offer"]')
    att.wait_for_selector("#offer-draw:disabled")
    assert "waiting for your opponent" in att.inner_text("#draw-offer")
    assert "Your draw offer is open" in att.inner_text("#draw-reason")
    snap(dfn, "draw-offered-defenders")
    snap(watcher, "draw-offered-spectator")

    # Declined: the spectator reads the answer; the attackers may offer again 10 plies on.
    dfn.click("#decline-draw")
    for p in (att, watcher):
        p.wait_for_selector('#game-notes li[data-kind="draw_declined"]')
        assert "The defenders declined the draw." in p.inner_text("#game-notes")
        assert p.inner_text("#game-notice") == "The defenders declined the draw."
    assert watcher.locator("#draw-offer").is_hidden()
    att.wait_for_selector("#offer-draw:disabled")
    assert att.inner_text("#draw-reason") == (
        "Your last draw offer was declined: you can offer again from move 8 (after 5 more moves)."
    )
    snap(att, "draw-declined-attackers")

    # The defenders offer; the attackers accept with the keyboard.
    dfn.click("#offer-draw")
    att.wait_for_selector("#draw-offer.prominent #accept-draw")
    att.focus("#accept-draw")
    att.keyboard.press("Enter")
    for p in (att, dfn, watcher):
        wait_ended(p, "draw_agreed")
        assert p.inner_text("#result-headline") == "Draw"
        assert p.inner_text("#result-text") == "The players agreed a draw."
        assert p.locator("#clock-attackers").is_hidden()
        assert p.locator("#controls").is_hidden()
    assert "The attackers accepted the draw" in watcher.inner_text("#game-notes")
    assert status(watcher) == "You are watching — game over: a draw, the players agreed a draw"

    # The seed is revealed and matches the commitment; the record can be downloaded.
    att.click("#fair-details summary")  # the fair-play details are one click away
    seed = att.inner_text("#seed").strip()
    commitment = att.inner_text("#commitment").strip()
    assert HEX64.match(seed) and HEX64.match(commitment), (seed, commitment)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    href = att.get_attribute("#download-record", "href")
    assert href == f"/api/games/{game_id}/record"
    record = httpx.get(web_hub.url + href).text
    assert f'[Seed "{seed}"]' in record and '[Reason "draw_agreed"]' in record
    assert watcher.locator("#rematch-button").count() == 0  # spectators cannot ask
    snap(att, "game-over-attackers")
    snap(dfn, "game-over-defenders")
    snap(att, "game-over-panel", "#result")
    snap(dfn, "game-over-panel", "#result")

    # The verify page, opened from the panel, fetches the record and checks it.
    desktop = att if att.viewport_size == TALL_DESKTOP else dfn
    desktop.click("#verify-link")
    desktop.wait_for_url(re.compile(rf"/verify\?game={game_id}$"))
    verdict = desktop.locator('#verify-result [data-ok="true"]')
    verdict.wait_for()
    text = verdict.inner_text()
    assert "The record verifies" in text and "Draw: the players agreed a draw." in text, text
    assert game_id in text and "Nielsen" in text
    assert desktop.input_value("#record-text") == record
    snap(desktop, "verify-ok")

    # One digit of the seed changed: the check fails and says why.
    edited = record.replace(seed, ("0" if seed[0] != "0" else "1") + seed[1:])
    desktop.fill("#record-text", edited)
    assert desktop.locator("#verify-result section").count() == 0  # the old verdict is gone
    desktop.click("#verify-button")
    failed = desktop.locator('#verify-result [data-ok="false"]')
    failed.wait_for()
    assert "The record does not verify" in failed.inner_text()
    assert "the seed does not match the commitment" in desktop.inner_text("#verify-error").lower()
    desktop.set_viewport_size(SMALL_PHONE)
    snap(desktop, "verify-failed")


def test_resign_with_a_confirm_step_then_rematch_and_abort(
    new_page: Any, web_hub: HubProcess
) -> None:
    pages, game_id = start_friend_game(new_page, web_hub.url)
    att, dfn = pages["attackers"], pages["defenders"]
    play(pages, ["g4-g3", "d5-g5"])

    # After both have moved: resign, no abort. Resigning asks first; Escape keeps playing.
    att.wait_for_selector("#resign:visible")
    assert att.locator("#abort").is_hidden()
    att.click("#resign")
    box = att.locator("#resign-confirm-box")
    box.wait_for()
    assert "Resign this game?" in box.inner_text()
    assert att.evaluate("document.activeElement.id") == "resign-cancel"
    snap(att, "resign-confirm")
    att.keyboard.press("Escape")
    box.wait_for(state="hidden")
    assert att.get_attribute(".page-game", "data-status") == "active"
    att.click("#resign")
    att.click("#resign-confirm")
    for p in (att, dfn):
        wait_ended(p, "resignation")
    assert att.inner_text("#result-headline") == "You lost"
    assert dfn.inner_text("#result-headline") == "You won!"
    assert "The defenders won: the attackers resigned." in dfn.inner_text("#result")

    # A rematch: offered by one, accepted by the other, and both go to the new game.
    dfn.click("#rematch-button")
    dfn.wait_for_selector('#rematch[data-state="waiting"]')
    assert "Rematch offered — waiting for your opponent." in dfn.inner_text("#rematch")
    att.wait_for_selector('#rematch[data-state="accept"]')
    assert "Your opponent offers a rematch — accept?" in att.inner_text("#rematch")
    snap(att, "rematch-offered")
    snap(dfn, "rematch-waiting")
    att.click("#rematch-button")
    new_url = re.compile(r"/g/(?!" + re.escape(game_id) + r"$)[A-Za-z0-9_-]+$")
    for p in (att, dfn):
        p.wait_for_url(new_url)
        p.wait_for_selector('.page-game[data-status="active"]')
    new_id = att.url.rsplit("/", 1)[1]
    assert dfn.url.endswith(f"/g/{new_id}")
    pages = {p.get_attribute(".page-game", "data-side"): p for p in (att, dfn)}
    assert set(pages) == {"attackers", "defenders"}

    # Abort: possible while only the attackers have moved, for either player.
    play(pages, ["g4-g3"])
    second = pages["defenders"]
    second.wait_for_selector("#abort:visible")
    assert second.locator("#resign").is_hidden()
    second.click("#abort")
    for p in pages.values():
        wait_ended(p, "aborted")
        assert p.inner_text("#result-headline") == "Aborted — no result"
        assert p.inner_text("#result-text") == "The game was aborted before both sides had moved."
    assert "The defenders aborted the game: no result." in pages["attackers"].inner_text(
        "#game-notes"
    )
    snap(pages["attackers"], "aborted")


def test_timeout_after_a_visible_countdown(
    start_hub: Any, client_dist: Path, new_page: Any
) -> None:
    # Deadlines 50 times shorter: ten minutes a move last 12 s. (The hub comes before the
    # pages so that it stops after them: with sockets open it would wait to shut down.)
    hub = start_hub(env={"BRANDUBH_CLIENT_DIR": str(client_dist), "BRANDUBH_TIME_SCALE": "0.02"})
    pages, _ = start_friend_game(new_page, hub.url)
    att, dfn = pages["attackers"], pages["defenders"]
    play(pages, ["g4-g3", "d5-g5"])  # past ply 2: running out of time now loses

    # The attackers' clock runs from the deadline by the server's clock, under a minute.
    for p in (att, dfn):
        p.wait_for_selector('#clock-attackers[data-tone="urgent"]')
        assert p.inner_text("#clock-attackers .clock-caption") == "under a minute!"
        assert re.fullmatch(r"0:[01]\d", p.inner_text("#clock-attackers .clock-time"))
        assert "under a minute" in (p.get_attribute("#clock-attackers", "aria-label") or "")
    first = att.inner_text("#clock-attackers .clock-time")
    att.wait_for_function(
        "t => document.querySelector('#clock-attackers .clock-time').textContent !== t", arg=first
    )
    snap(att, "countdown-urgent")
    snap(dfn, "countdown-urgent-clocks", ".play")
    snap(att, "countdown-urgent-clocks", ".play")

    for p in (att, dfn):
        p.wait_for_selector('#result[data-reason="timeout"]', timeout=45_000)
        assert p.locator("#clock-attackers").is_hidden()
    assert att.inner_text("#result-headline") == "You lost"
    assert "The defenders won: the attackers ran out of time." in dfn.inner_text("#result")
    assert "The attackers ran out of time." in dfn.inner_text("#game-notes")
    snap(dfn, "timeout")
