"""The home page for a returning player (issue 40, item 6), at 1280x800 and 390x844: below
the three ways to play, the player's games (theirs to move first), the tournaments running
and upcoming, and games being played now, each with real data from a real hub; the bot one
click from a game for a newcomer; no two sections overlapping; nothing shifting as the
sections arrive. Screenshots `home-*` in test-output/screenshots.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import pytest
from layout import overlaps, panel_boxes

from pages import (
    NOT_RESIZED,
    SIZES,
    click_move,
    friend_game_via_home,
    in_view,
    name_of,
    shot,
    wait_my_turn,
)
from waiting import wait_for_sync

Page = Any
HubProcess = Any

# Every layout shift from the page's start (buffered: the first answers count), with what moved.
SHIFTS = (
    NOT_RESIZED
    + """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (!window.__byResize(e)) window.__shifts.push({
      value: e.value,
      at: Math.round(e.startTime),
      ids: e.sources.map((s) => {
        const n = s.node;
        if (!n || !n.nodeName) return "?";
        const cls = typeof n.className === "string" && n.className ? "." + n.className : "";
        return n.id ? n.id : n.nodeName + cls.replaceAll(" ", ".");
      }),
      rects: e.sources.map((s) => [s.previousRect.toJSON(), s.currentRect.toJSON()]),
    });
}).observe({ type: "layout-shift", buffered: true });
"""
)

# The parts of the home page, none over another.
HOME_PARTS = {
    "hero": ".hero",
    "mine": "#home-mine",
    "tournaments": "#home-tournaments",
    "watch": "#home-watch",
    "below": "#home-below",
}


def post(page: Page, base: str, path: str, body: dict[str, Any]) -> Any:
    made = page.request.post(base + path, data=body, headers={"Origin": base})
    assert made.status in (200, 201), made.text()
    return made.json()


def my_games(page: Page, base: str) -> Any:
    return page.request.get(base + "/api/me/games").json()


def open_home(page: Page, base: str) -> None:
    page.add_init_script(SHIFTS)
    page.goto(base + "/")
    page.wait_for_selector('#home-live[data-ready="true"]')


def page_shifts(page: Page) -> list[dict[str, Any]]:
    """The layout shifts of the page itself; the header's account links, drawn once the
    session is known, are the header's (they move the same on every page)."""
    found = page.evaluate("() => window.__shifts")
    return [s for s in found if not s["ids"] or not all(i.startswith("nav-") for i in s["ids"])]


def timeline(page: Page) -> Any:
    """When the page painted, loaded its style and drew its live part (for a failure)."""
    return page.evaluate(
        """() => ({
          paints: performance.getEntriesByType("paint")
            .map((p) => [p.name, Math.round(p.startTime)]),
          css: performance.getEntriesByType("resource").filter((r) => r.name.endsWith(".css"))
            .map((r) => [Math.round(r.startTime), Math.round(r.responseEnd)]),
          ready: performance.getEntriesByName("home-live-ready")
            .map((m) => Math.round(m.startTime)),
          resized: window.__resized,
          size: [innerWidth, innerHeight],
        })"""
    )


def check_layout(page: Page, what: str) -> None:
    boxes = panel_boxes(page, HOME_PARTS)
    bad = overlaps(boxes, set())
    assert not bad, f"{what}: parts overlap: " + "; ".join(bad)
    order = [boxes[k]["y"] for k in ("hero", "tournaments", "below") if k in boxes]
    assert order == sorted(order), boxes
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{what}: wider than the screen: {width}"


@pytest.mark.parametrize("size", SIZES)
def test_the_home_page_for_a_returning_player(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    tag = secrets.token_hex(3)

    # A game in progress between two people, one move in: the defenders' move.
    players, friend_game = friend_game_via_home(new_page, base, size)
    ann = players["attackers"]
    click_move(ann, wait_my_turn(ann, 0)[0])
    wait_my_turn(players["defenders"], 1)

    # Ann also plays the bot: that game is hers to move, the friend game not.
    bot_game = post(ann, base, "/api/games", {"opponent": "bot", "move_time": 600})["id"]
    wait_for_sync(
        lambda: any(g["id"] == bot_game and g["your_move"] for g in my_games(ann, base)["playing"]),
        "Ann's move against the bot",
        20,
    )
    # An arena on now and a Swiss event tomorrow.
    now = int(ann.evaluate("Date.now()"))
    arena = f"Arena {tag}"
    swiss = f"Swiss {tag}"
    post(
        ann,
        base,
        "/api/tournaments",
        {
            "name": arena,
            "format": "arena",
            "ruleset": "nielsen",
            "move_time": 60,
            "starts_at": now,
            "duration_min": 60,
        },
    )
    post(
        ann,
        base,
        "/api/tournaments",
        {
            "name": swiss,
            "format": "swiss",
            "ruleset": "common",
            "move_time": 86_400,
            "starts_at": now + 86_400_000,
            "rounds": 3,
        },
    )

    open_home(ann, base)
    assert in_view(ann, "#play-bot"), "the bot's button is below the fold"

    # Your move: the bot game (hers to move) before the friend game (theirs).
    rows = ann.locator("#home-mine-list li")
    assert ann.inner_text("#home-mine-h") == "Your move"
    got = [
        (rows.nth(i).get_attribute("data-game"), rows.nth(i).get_attribute("data-your-move"))
        for i in range(rows.count())
    ]
    assert got[0] == (bot_game, "true"), got
    assert (friend_game, "false") in got, got
    first = ann.inner_text("#home-mine-list li >> nth=0")
    assert "Your move" in first and "left" in first and "Nielsen" in first, first
    assert ann.get_attribute("#home-mine-list li >> nth=0 >> a", "href") == f"/g/{bot_game}"
    assert ann.get_attribute("#home-mine-more a", "href") == "/games"

    # Tournaments: the arena on now (to join), the Swiss event tomorrow.
    on_now = ann.locator("#home-t-running li", has_text=arena)
    assert "on now" in on_now.inner_text() and "Join" in on_now.inner_text(), on_now.inner_text()
    assert on_now.locator(".tag-arena").count() == 1
    soon = ann.locator("#home-t-upcoming li", has_text=swiss)
    assert "starts" in soon.inner_text() and "Common" in soon.inner_text(), soon.inner_text()
    assert ann.get_attribute("#home-tournaments-more a", "href") == "/tournaments"
    assert ann.locator("#home-tournament").count() == 0  # the old line at the bottom is gone

    # Watch: the friend game, one click to watch, among at most six.
    card = ann.locator(f'#home-watch-list a.watch-game[data-game="{friend_game}"]')
    card.wait_for()
    assert card.get_attribute("href") == f"/g/{friend_game}"
    assert ann.locator("#home-watch-list li").count() <= 6
    assert ann.get_attribute("#home-watch-more a", "href") == "/watch"

    # A second later the clocks have counted down in place, moving nothing.
    clock = ann.locator("#home-mine-list li >> nth=0 >> .home-game-left")
    ann.wait_for_function(
        "was => document.querySelector('#home-mine-list .home-game-left').textContent !== was",
        arg=clock.inner_text(),
    )
    check_layout(ann, "returning player")
    shot(ann, f"home-returning-{name_of(size)}")
    shot(ann, f"home-returning-fold-{name_of(size)}", full=False)
    assert page_shifts(ann) == [], json.dumps([page_shifts(ann), timeline(ann)])

    # One click from the list to the game.
    card.click()
    ann.wait_for_url(re.compile(rf"/g/{friend_game}$"))
    ann.wait_for_selector('.page-game[data-status="active"] .board')

    # A newcomer: no games of theirs, the same tournaments and games; the bot one click away.
    guest = new_page(size)
    open_home(guest, base)
    assert in_view(guest, "#play-bot")
    assert guest.locator("#home-mine").is_hidden()
    assert guest.locator("#home-t-running li", has_text=arena).count() == 1
    guest.wait_for_selector(f'#home-watch-list a[data-game="{friend_game}"]')
    check_layout(guest, "newcomer")
    shot(guest, f"home-newcomer-{name_of(size)}")
    assert page_shifts(guest) == [], json.dumps([page_shifts(guest), timeline(guest)])
    guest.click("#play-bot")
    guest.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    guest.wait_for_selector('.page-game[data-status="active"]')
