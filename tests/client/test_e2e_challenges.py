"""Challenges in the browser (issues 39 and 40, item 4), at 1280×800 and 390×844: one
player challenges another from their profile; the challenge reaches the other's header
live (no reload) and is accepted there, and both land on the started game; declined with
a reason, which the challenger's page says in words; cancelled, and gone from the other's
list; a refusal said in the form; the account's "Let bot accounts challenge me"; the
header's items apart and the home page still for a returning player.

Real Chromium, a real hub serving the built client, real Redis and PostgreSQL.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from layout import assert_no_overlap, overlaps, panel_boxes

from pages import DESKTOP, NOT_RESIZED, PHONE, SIZES, in_view, name_of, shot, sign_up, true_in_page

Page = Any  # playwright.sync_api.Page
HubProcess = Any  # services.HubProcess

GAME_URL = re.compile(r"/g/([A-Za-z0-9_-]{6,32})$")
NOT_RELOADED = "window.__notReloaded = true"

# Every layout shift from the page's start (buffered: the first answers of the server count).
SHIFTS_FROM_START = (
    NOT_RESIZED
    + """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (!window.__byResize(e)) window.__shifts.push(e.value);
}).observe({ type: "layout-shift", buffered: true });
"""
)

# The header's items, none of which may lie over another.
HEADER_ITEMS = {
    "brand": ".top .brand",
    "play": "#site-nav > a[href='/']",
    "games": "#nav-games",
    "lobby": "#nav-more > a[href='/lobby']",
    "watch": "#nav-more > a[href='/watch']",
    "tournaments": "#nav-more > a[href='/tournaments']",
    "analysis": "#nav-more > a[href='/analysis']",
    "leaderboard": "#nav-more > a[href='/leaderboard']",
    "profile": "#nav-profile",
    "account": "#nav-account",
    "logout": "#nav-logout",
    "challenges": "#challenges-btn",
    "retry": "#conn-retry",
    "conn": "#conn",
    "menu": "#nav-menu",
}


def header_ready(page: Page) -> None:
    """The session known, the socket open and the challenges loaded."""
    page.wait_for_selector('#challenges-btn[data-account="true"][data-ready="true"]')
    page.wait_for_selector('#conn[data-state="open"]')


def open_panel(page: Page) -> None:
    if page.get_attribute("#challenges-btn", "aria-expanded") != "true":
        page.click("#challenges-btn")
    page.wait_for_selector("#challenge-panel", state="visible")


def challenge_from_profile(
    page: Page, base: str, target: dict[str, Any], move_time: int = 600, side: str = "random"
) -> str:
    """Open the target's profile, fill the form and send it; the waiting game's id."""
    page.goto(f"{base}/u/{target['id']}")
    page.click("#challenge-open")
    page.wait_for_selector("#challenge-form", state="visible")
    page.select_option("#challenge-ruleset", "nielsen")
    page.check(f"#challenge-time-{move_time}")
    page.check(f"#challenge-side-{side}")
    page.click("#challenge-send")
    page.wait_for_url(GAME_URL)
    m = GAME_URL.search(page.url)
    assert m
    return m.group(1)


def two_players(
    new_page: Any, base: str, size: dict[str, int]
) -> tuple[Page, dict[str, Any], Page, dict[str, Any]]:
    """Ann (who will challenge) and Ben (challenged, on the lobby page, not reloaded)."""
    ann = new_page(size)
    ann_acc = sign_up(ann, base, "Ann Challenger")
    ben = new_page(size)
    ben_acc = sign_up(ben, base, "Ben Challenged")
    ben.goto(base + "/lobby")
    header_ready(ben)
    ben.evaluate(NOT_RELOADED)
    return ann, ann_acc, ben, ben_acc


@pytest.mark.parametrize("size", SIZES)
def test_a_challenge_from_a_profile_arrives_live_and_is_accepted(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base, size_name = web_hub.url, name_of(size)
    ann, _, ben, ben_acc = two_players(new_page, base, size)

    ann.goto(f"{base}/u/{ben_acc['id']}")
    ann.click("#challenge-open")
    ann.wait_for_selector("#challenge-form", state="visible")
    assert "both ratings" in ann.inner_text("#challenge-rated-hint")
    shot(ann, f"challenge-form-{size_name}")
    game = challenge_from_profile(ann, base, ben_acc, move_time=600, side="attackers")
    true_in_page(
        ann,
        "document.getElementById('status-line').textContent"
        " === 'Waiting for Ben Challenged to accept your challenge'",
    )
    assert ann.inner_text("#challenge-waiting-title") == (
        "Waiting for Ben Challenged to accept your challenge"
    )
    ann.wait_for_selector("#cancel-challenge")
    assert in_view(ann, "#cancel-challenge"), "the challenge's Cancel is out of sight"
    shot(ann, f"challenge-waiting-{size_name}")

    # Ben's header says so, live: the count, and the panel with the terms.
    ben.wait_for_selector('#challenges-btn[data-count="1"]')
    assert ben.inner_text("#challenge-count") == "1"
    open_panel(ben)
    item = ben.locator(f'#challenges-in .ch-in[data-challenge="{game}"]')
    item.wait_for()
    text = item.inner_text()
    assert "Ann Challenger challenges you" in text
    assert "Nielsen · 10 minutes a move · rated · you play the defenders" in text
    assert ben.evaluate("window.__notReloaded === true")
    shot(ben, f"challenge-panel-{size_name}", full=False)
    if size is PHONE:  # the panel fits the screen's width, and the page does not scroll sideways
        panel = ben.locator("#challenge-panel").bounding_box()
        assert panel is not None and panel["x"] >= 0 and panel["x"] + panel["width"] <= 390.5
        assert ben.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")

    item.locator(".ch-accept").click()
    ben.wait_for_url(re.compile(rf"/g/{game}$"))
    for p in (ann, ben):
        p.wait_for_selector('.page-game[data-status="active"]')
    assert ann.get_attribute(".page-game", "data-side") == "attackers"
    assert ben.get_attribute(".page-game", "data-side") == "defenders"
    ben.wait_for_selector('#challenges-btn[data-count="0"]')
    assert ben.locator("#challenge-panel").is_hidden()
    assert_no_overlap(ben, "the game started by a challenge")
    shot(ben, f"challenge-accepted-{size_name}", full=False)


def test_a_declined_challenge_tells_the_challenger_why(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    ann, _, ben, ben_acc = two_players(new_page, base, DESKTOP)
    game = challenge_from_profile(ann, base, ben_acc, move_time=60)
    ben.wait_for_selector('#challenges-btn[data-count="1"]')
    open_panel(ben)
    item = ben.locator(f'.ch-in[data-challenge="{game}"]')
    item.locator(".ch-reason").select_option("tooFast")
    item.locator(".ch-decline").click()
    ben.wait_for_selector('#challenges-btn[data-count="0"]')
    ben.wait_for_selector("#challenges-in-none")

    ann.wait_for_selector("#challenge-ended")
    assert ann.inner_text("#challenge-ended") == (
        "Ben Challenged declined: too fast, ask with more time per move."
    )
    assert "declined: too fast" in ann.inner_text("#status-line")
    # The challenger's header keeps the decline to read until it is put away.
    ann.wait_for_selector('#challenges-btn[data-count="1"]')
    open_panel(ann)
    note = ann.locator(f'.ch-declined[data-challenge="{game}"]')
    assert note.get_attribute("data-reason") == "tooFast"
    assert "Ben Challenged declined: too fast" in note.inner_text()
    shot(ann, "challenge-declined-desktop", full=False)
    note.locator(".ch-dismiss").click()
    ann.wait_for_selector('#challenges-btn[data-count="0"]')


def test_a_cancelled_challenge_leaves_the_challenged_players_list(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    ann, _, ben, ben_acc = two_players(new_page, base, PHONE)
    game = challenge_from_profile(ann, base, ben_acc)
    ben.wait_for_selector('#challenges-btn[data-count="1"]')
    open_panel(ben)
    ben.wait_for_selector(f'.ch-in[data-challenge="{game}"]')

    # Ann's header lists it as hers, with its own Cancel; she cancels from the game page.
    header_ready(ann)
    open_panel(ann)
    ann.wait_for_selector(f'#challenges-out .ch-out[data-challenge="{game}"]')
    ann.keyboard.press("Escape")
    ann.click("#cancel-challenge")
    ann.wait_for_selector("#challenge-ended")
    assert ann.inner_text("#challenge-ended") == "You cancelled this challenge."

    ben.wait_for_selector(f'.ch-in[data-challenge="{game}"]', state="detached")
    ben.wait_for_selector('#challenges-btn[data-count="0"]')
    assert ben.evaluate("window.__notReloaded === true")
    # Opened now, the game says what became of it.
    ben.goto(f"{base}/g/{game}")
    true_in_page(
        ben,
        "document.getElementById('status-line').textContent"
        " === 'This challenge was cancelled by Ann Challenger'",
    )


def test_a_refusal_is_said_in_the_form(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    ann = new_page(DESKTOP)
    sign_up(ann, base, "Ann Eager")
    ben = new_page(DESKTOP)
    ben_acc = sign_up(ben, base, "Ben Busy")
    # As many open challenges as one may hold, sent through the route the form uses.
    for _ in range(10):
        r = ann.context.request.post(
            f"{base}/api/challenge/{ben_acc['id']}",
            data={"ruleset": "nielsen", "move_time": 600, "rated": False, "side": "random"},
            headers={"Origin": base},
        )
        assert r.status == 201, r.text()
    ann.goto(f"{base}/u/{ben_acc['id']}")
    ann.click("#challenge-open")
    ann.click("#challenge-send")
    ann.wait_for_selector("#challenge-error:not(:empty)")
    assert "cancel one" in ann.inner_text("#challenge-error")
    assert ann.url.endswith(f"/u/{ben_acc['id']}")  # still on the profile
    # Ben's header holds all ten; his own profile offers no challenge.
    ben.goto(f"{base}/u/{ben_acc['id']}")
    header_ready(ben)
    assert ben.get_attribute("#challenges-btn", "data-count") == "10"
    assert ben.locator("#challenge-open").count() == 0


def test_the_bot_challenges_setting_opens_a_person_to_bots(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    person = new_page(DESKTOP)
    acc = sign_up(person, base, "Nora Open")
    bot_page = new_page(DESKTOP)
    bot_acc = sign_up(bot_page, base, "Tafl Engine")
    made = bot_page.context.request.post(
        f"{base}/api/account/tokens",
        data={"name": "engine", "scopes": ["bot:play", "challenge:write"]},
        headers={"Origin": base},
    )
    assert made.status == 201, made.text()
    token = made.json()["token"]
    terms = {"ruleset": "nielsen", "move_time": 600, "rated": True, "side": "random"}
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as program:
        r = program.post("/api/bot/account/upgrade")
        assert r.status_code == 200, r.text
        refused = program.post(f"/api/challenge/{acc['id']}", json=terms)
        assert refused.status_code == 403 and refused.json()["error"] == "challenges_closed"

        person.goto(base + "/account")
        box = person.locator("#bot-challenges")
        person.wait_for_selector("#bot-challenges:not([disabled])")
        assert not box.is_checked()
        box.check()
        person.wait_for_selector("#bot-challenges-saved:not(:empty)")
        assert person.inner_text("#bot-challenges-saved") == "Bot accounts may challenge you."
        person.reload()
        person.wait_for_selector("#bot-challenges:not([disabled])")
        assert person.locator("#bot-challenges").is_checked()
        shot(person, "challenge-setting-desktop")

        header_ready(person)
        made_c = program.post(f"/api/challenge/{acc['id']}", json=terms)
        assert made_c.status_code == 201, made_c.text
        person.wait_for_selector('#challenges-btn[data-count="1"]')
        open_panel(person)
        item = person.locator(f'.ch-in[data-from="{bot_acc["id"]}"]')
        assert item.locator(".bot-tag").inner_text() == "BOT"

        # Off again: the bot is refused once more.
        person.keyboard.press("Escape")
        person.locator("#bot-challenges").uncheck()
        person.wait_for_selector("#bot-challenges-saved:has-text('may not')")
        again = program.post(f"/api/challenge/{acc['id']}", json=terms)
        assert again.status_code == 403 and again.json()["error"] == "challenges_closed"


@pytest.mark.parametrize("size", SIZES)
def test_the_header_keeps_its_items_apart(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    page = new_page(size)
    sign_up(page, web_hub.url, "Maximilian Long")
    page.goto(web_hub.url + "/")
    header_ready(page)
    assert page.locator("#challenges-btn").is_visible()
    boxes = panel_boxes(page, HEADER_ITEMS)
    assert "challenges" in boxes
    assert overlaps(boxes, set()) == [], "the header's items overlap"
    shot(page, f"challenge-header-{name_of(size)}", full=False)
    before = {sel: page.locator(sel).bounding_box() for sel in ("#site-nav", "#conn-box", "#conn")}
    # Offline: "Retry now" takes the button's place, and nothing else moves.
    page.evaluate("window.__brandubh.dropConnection(60000)")
    page.wait_for_selector("#conn-retry", state="visible")
    assert page.locator("#challenges-btn").is_hidden()
    boxes = panel_boxes(page, HEADER_ITEMS)
    assert "retry" in boxes
    assert overlaps(boxes, set()) == [], "the header's items overlap offline"
    for sel, was in before.items():
        assert page.locator(sel).bounding_box() == was, f"{sel} moved when the connection dropped"


@pytest.mark.parametrize("size", SIZES)
def test_the_home_page_does_not_shift_for_a_returning_player(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    page = new_page(size)
    sign_up(page, web_hub.url, "Returning Rosalind")
    page.add_init_script(SHIFTS_FROM_START)
    page.goto(web_hub.url + "/")
    page.wait_for_selector('#account-line[data-known="true"]')
    header_ready(page)
    page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate("window.__shifts") == []


def test_the_player_challenged_answers_on_the_games_page(
    new_page: Any, web_hub: HubProcess
) -> None:
    base = web_hub.url
    ann, _, ben, ben_acc = two_players(new_page, base, PHONE)
    game = challenge_from_profile(ann, base, ben_acc, move_time=3600, side="defenders")
    ben.goto(f"{base}/g/{game}")
    ben.wait_for_selector("#challenge-incoming")
    assert ben.inner_text("#challenge-incoming h2") == "Ann Challenger challenges you"
    assert "Nielsen · 1 hour a move · rated" in ben.inner_text("#challenge-incoming")
    for sel in ("#challenge-accept", "#challenge-decline", "#challenge-decline-reason"):
        assert in_view(ben, sel), f"{sel} is out of sight"
    shot(ben, "challenge-incoming-phone", full=False)
    ben.click("#challenge-accept")
    for p in (ann, ben):
        p.wait_for_selector('.page-game[data-status="active"]')
    assert ann.get_attribute(".page-game", "data-side") == "defenders"
    assert ben.get_attribute(".page-game", "data-side") == "attackers"
