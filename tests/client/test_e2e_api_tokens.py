"""API tokens on the account page, end to end: make one with a name and a scope, see its
text once (Copy, the warning), use it from a program (httpx) against the real hub, see its
last use in the list, revoke it (confirmed in place) and see the program refused. At the
phone's and the desktop's sizes, with screenshots of each step's look.

Real Chromium, a real hub serving the built client, real Redis and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pages import DESKTOP, PHONE, name_of, shot, sign_up

Page = Any  # playwright.sync_api.Page
HubProcess = Any  # services.HubProcess

NO_OVERFLOW = "document.scrollingElement.scrollWidth <= window.innerWidth"


def check_layout(page: Page) -> None:
    """Nothing wider than the screen; the section's buttons at least 40 px tall (a finger)."""
    assert page.evaluate(NO_OVERFLOW), "the page scrolls sideways"
    heights = page.eval_on_selector_all(
        "#api-tokens button",
        "els => els.filter(e => e.getClientRects().length)"
        ".map(e => e.getBoundingClientRect().height)",
    )
    assert heights and min(heights) >= 40, heights


@pytest.mark.parametrize(
    "size", [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]
)
def test_make_see_once_use_revoke_a_token(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base, size_name = web_hub.url, name_of(size)
    page = new_page(size)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    me = sign_up(page, base, name="Engineer")
    page.goto(base + "/account")
    page.locator("#tokens-empty").wait_for()
    assert page.locator("#token-count").inner_text() == "(0 of 20)"
    for scope in ("bot-play", "challenge-write", "games-read"):  # each with its sentence
        assert page.locator(f"#scope-{scope}-text").inner_text().endswith(".")
    # The form says what is missing before asking the server.
    page.click("#token-create")
    assert "name" in page.locator("#token-error").inner_text()
    page.fill("#token-name", "my engine")
    page.click("#token-create")
    assert "scope" in page.locator("#token-error").inner_text()
    page.check("#scope-games-read")
    page.check("#scope-bot-play")
    page.click("#token-create")
    text_box = page.locator("#token-text")
    text_box.wait_for()
    token = text_box.input_value()
    assert token.startswith("bdl_") and len(token) == 47
    warning = page.locator("#token-warning").inner_text()
    assert "will not be shown again" in warning and "my engine" in warning
    page.click("#token-copy")
    page.wait_for_selector("#token-copied:has-text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == token
    item = page.locator("#token-list .token-item")
    item.wait_for()
    assert item.locator(".token-name").inner_text() == "my engine"
    assert item.locator(".token-scope-list code").all_inner_texts() == ["bot:play", "games:read"]
    assert "last used never" in item.locator(".token-times").inner_text()
    check_layout(page)
    shot(page, f"api-tokens-created-{size_name}")

    # A program uses it: no cookie, only the header.
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as program:
        r = program.get("/api/account")
        assert r.status_code == 200, r.text
        assert r.json() == {
            "id": me["id"],
            "name": "Engineer",
            "bot": False,
            "scopes": ["bot:play", "games:read"],
        }
        # Seen once: done with it, or on the page's next visit, the text is nowhere.
        page.click("#token-done")
        assert page.locator("#token-new").is_hidden()
        page.reload()
        item.wait_for()
        assert token not in page.content()
        assert "last used just now" in item.locator(".token-times").inner_text()

        # Revoke, confirmed in place; Cancel first leaves it.
        item.locator(".token-revoke").click()
        assert "stop working" in item.locator(".token-confirm").inner_text()
        check_layout(page)
        shot(page, f"api-tokens-revoke-{size_name}")
        item.locator(".token-revoke-no").click()
        item.locator(".token-revoke").click()
        item.locator(".token-revoke-yes").click()
        page.locator("#tokens-empty").wait_for()
        r = program.get("/api/account")
        assert r.status_code == 401 and r.json()["error"] == "token_invalid", r.text
    check_layout(page)
    shot(page, f"api-tokens-revoked-{size_name}")
