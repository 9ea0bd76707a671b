"""Bot accounts in the browser: an account made a bot with its token shows a "BOT" tag
beside its name on its profile and on the bots' leaderboard, and is absent from people's.
At the desktop's and the phone's sizes, with screenshots.

Real Chromium, a real hub serving the built client, real Redis and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy.dialects.postgresql import insert

from brandubh.store import Store
from brandubh.store.tables import ratings
from pages import DESKTOP, PHONE, name_of, shot, sign_up
from services import run_async

Page = Any  # playwright.sync_api.Page
HubProcess = Any  # services.HubProcess

NO_OVERFLOW = "document.scrollingElement.scrollWidth <= window.innerWidth"


async def settled_rating(database_url: str, player_id: str) -> None:
    """A settled rating in nielsen, as rated games through the Bot API would leave it."""
    store = Store.from_url(database_url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(
                insert(ratings).values(
                    player_id=player_id,
                    ruleset="nielsen",
                    rating=1834.0,
                    rd=70.0,
                    volatility=0.06,
                    games=12,
                    last=1,
                )
            )
    finally:
        await store.close()


@pytest.mark.parametrize(
    "size", [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]
)
def test_a_bot_account_is_tagged_where_its_name_shows(
    new_page: Any, web_hub: HubProcess, database_url: str, size: dict[str, int]
) -> None:
    base, size_name = web_hub.url, name_of(size)
    page = new_page(size)
    me = sign_up(page, base, name="Knotwork Engine")
    made = page.context.request.post(
        f"{base}/api/account/tokens",
        data={"name": "engine", "scopes": ["bot:play"]},
        headers={"Origin": base},
    )
    assert made.status == 201, made.text()
    token = made.json()["token"]
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as program:
        r = program.post("/api/bot/account/upgrade")
        assert r.status_code == 200 and r.json()["bot"] is True, r.text
    # Listed: opted in from its own session, with a settled rating.
    r = page.context.request.post(
        f"{base}/api/settings", data={"leaderboard": True}, headers={"Origin": base}
    )
    assert r.status == 200, r.text()
    run_async(settled_rating(database_url, me["id"]))

    page.goto(f"{base}/u/{me['id']}")
    tag = page.locator("#profile-name .bot-tag")
    tag.wait_for()
    assert tag.inner_text() == "BOT"
    assert page.locator("#profile-name").inner_text().startswith("Knotwork Engine")
    assert "Bot API" in page.locator("#profile-bot").inner_text()
    assert page.evaluate(NO_OVERFLOW), "the profile scrolls sideways"
    shot(page, f"bot-account-profile-{size_name}")

    page.goto(f"{base}/leaderboard/nielsen?bots=1")
    row = page.locator(f"#leaderboard tr[data-player='{me['id']}']")
    row.wait_for()
    assert row.locator(".bot-tag").inner_text() == "BOT"
    assert page.locator("#leaderboard-bots").get_attribute("aria-current") == "page"
    assert page.evaluate(NO_OVERFLOW), "the leaderboard scrolls sideways"
    shot(page, f"bot-account-leaderboard-{size_name}")
    # People's list, one click away, does not have it.
    page.click("#leaderboard-people")
    page.wait_for_selector("#leaderboard-people[aria-current='page']")
    page.wait_for_selector("#leaderboard-updated:has-text('Updated')")
    assert page.locator(f"#leaderboard tr[data-player='{me['id']}']").count() == 0
