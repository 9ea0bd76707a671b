"""Follows and blocks in Chromium at 1280x800 and 390x844: a spectator opens a player's
profile from the game's bar and follows them; the home page then lists that player online
with their game, whose Watch opens it in one click, with nothing shifting on the way; a
block made from a profile (asked once more, in words) is listed on the account page and
undone there."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pages import NOT_RESIZED, SIZES, friend_game_via_home, name_of, shot, sign_up
from services import HubProcess

# Every layout shift of the page's own content (not the header's) from its first paint on.
PAGE_SHIFTS = (
    NOT_RESIZED
    + """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (window.__byResize(e)) continue;
    const nodes = (e.sources || []).map((s) => s.node).filter((n) => n && n.closest);
    if (nodes.some((n) => n.closest("main, .page"))) window.__shifts.push(e.value);
  }
}).observe({ type: "layout-shift", buffered: true });
"""
)


@pytest.mark.parametrize("size", SIZES)
def test_follow_from_a_game_then_watch_from_home_and_block_from_a_profile(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    pages, game = friend_game_via_home(new_page, base, size)
    fan = new_page(size)
    sign_up(fan, base, "Cleo Fan")
    fan.goto(f"{base}/g/{game}")
    fan.wait_for_selector('.page-game[data-status="active"]')
    # From the game: the player's name in its bar opens their profile.
    fan.click('a.pbar-name[href]:has-text("Ann Host")')
    fan.wait_for_url(re.compile(r"/u/[A-Za-z0-9_-]+$"))
    ann_id = fan.url.rsplit("/", 1)[1]
    follow = fan.locator("#follow-toggle")
    follow.wait_for()
    assert follow.inner_text() == "Follow"
    follow.click()
    fan.wait_for_selector('#follow-toggle[aria-pressed="true"]')
    assert follow.inner_text() == "Unfollow"
    assert "You follow Ann Host" in fan.inner_text("#relation-status")
    shot(fan, f"social-profile-followed-{name_of(size)}")

    # Home: Ann online, with her game; nothing on the page moves as the list arrives.
    fan.add_init_script(PAGE_SHIFTS)
    fan.goto(base + "/")
    entry = fan.locator(f'#home-following li.followed[data-player="{ann_id}"]')
    entry.wait_for()
    assert entry.get_attribute("data-online") == "true"
    assert "Ann Host" in entry.inner_text() and "against Ben Guest" in entry.inner_text()
    fan.wait_for_selector('#account-line[data-known="true"]')
    fan.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert fan.evaluate("window.__shifts") == []
    entry.scroll_into_view_if_needed()
    shot(fan, f"social-home-following-{name_of(size)}", full=False)
    entry.locator(f'a.watch-link[href="/g/{game}"]').click()
    fan.wait_for_url(re.compile(rf"/g/{game}$"))
    fan.wait_for_selector('.page-game[data-status="active"]')

    # Block Ben from his profile: asked once more, with what a block does.
    fan.click('a.pbar-name[href]:has-text("Ben Guest")')
    fan.wait_for_url(re.compile(r"/u/[A-Za-z0-9_-]+$"))
    ben_id = fan.url.rsplit("/", 1)[1]
    fan.click("#block-toggle")
    confirm = fan.locator("#block-confirm")
    confirm.wait_for()
    assert "not be able to challenge you" in confirm.inner_text()
    assert "chat lines" in confirm.inner_text()
    shot(fan, f"social-block-confirm-{name_of(size)}")
    fan.click("#block-yes")
    fan.wait_for_selector("#block-confirm", state="hidden")
    assert fan.inner_text("#block-toggle") == "Unblock"
    assert fan.locator("#follow-toggle").is_hidden()

    # The account page lists him; Unblock there undoes it.
    fan.goto(base + "/account")
    row = fan.locator(f'#blocked-list li[data-player="{ben_id}"]')
    row.wait_for()
    assert "Ben Guest" in row.inner_text()
    row.scroll_into_view_if_needed()
    shot(fan, f"social-account-blocked-{name_of(size)}", full=False)
    row.get_by_role("button", name="Unblock Ben Guest").click()
    row.wait_for(state="detached")
    fan.wait_for_selector("#blocked-none", state="visible")
    fan.goto(f"{base}/u/{ben_id}")
    fan.wait_for_selector("#block-toggle")
    assert fan.inner_text("#block-toggle") == "Block"
    assert not fan.errors
    for p in pages.values():
        assert not p.errors
