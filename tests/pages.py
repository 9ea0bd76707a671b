"""What the browser tests do on a page, shared by the modules of tests/client/: sizes,
screenshots, moves by click and keyboard, signing up, games started through the UI, the
lobby, layout shifts. Screenshots go to test-output/screenshots/."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest

import wsclient
from waiting import wait_for_sync

Page = Any  # playwright.sync_api.Page (imported lazily: the browser fixture may skip)


# -- sizes, screenshots, moves ----------------------------------------------------------

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "screenshots"


# The first browser tests' sizes; the experience tests' (issue 16) are DESKTOP and PHONE.
TALL_DESKTOP = {"width": 1280, "height": 900}
SMALL_PHONE = {"width": 360, "height": 740}


# A real game from the real start position (Nielsen rules): the attackers shuffle one
# piece while the king walks out d4-d5-a5-a7 and escapes to the corner.
QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


def shot(page: Page, name: str, full: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def board(page: Page) -> Any:
    return page.locator(".board")


def wait_ply(page: Page, ply: int) -> None:
    page.wait_for_selector(f'.board[data-ply="{ply}"]')


def wait_my_turn(page: Page, ply: int) -> list[str]:
    """Wait until this page may move at `ply`; the legal moves it shows."""
    page.wait_for_selector(f'.board[data-ply="{ply}"][data-interactive="true"]')
    return (board(page).get_attribute("data-legal") or "").split()


def square(page: Page, name: str) -> Any:
    return page.locator(f'.board [data-square="{name}"]')


def from_to(move: str) -> tuple[str, str]:
    m = re.match(r"^K?([a-g][1-7])-([a-g][1-7])", move)
    assert m, move
    return m.group(1), m.group(2)


def click_move(page: Page, move: str) -> None:
    src, dst = from_to(move)
    square(page, src).click()
    page.wait_for_selector(f'.board [data-square="{dst}"].dest')
    square(page, dst).click()


def keyboard_move(page: Page, move: str) -> None:
    """Focus the piece, Enter, then arrow keys to the destination and Enter."""
    src, dst = from_to(move)
    square(page, src).focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f'.board [data-square="{src}"].selected')
    df = ord(dst[0]) - ord(src[0])
    dr = int(dst[1]) - int(src[1])
    for _ in range(abs(df)):
        page.keyboard.press("ArrowRight" if df > 0 else "ArrowLeft")
    for _ in range(abs(dr)):
        page.keyboard.press("ArrowUp" if dr > 0 else "ArrowDown")
    page.keyboard.press("Enter")


def sign_up(page: Page, base: str, name: str | None = None) -> dict[str, Any]:
    """Give a page's browser context a new account with a confirmed address, as the
    sign-up form and the mailed link do (games against people need one); the link logs
    in, so the session cookie lands in the context. The account's fields."""
    body = {"email": f"e2e{secrets.token_hex(6)}@example.org", "password": "correct horse battery"}
    if name:
        body["name"] = name
    r = page.context.request.post(f"{base}/api/signup", data=body, headers={"Origin": base})
    assert r.status == 202, r.text()
    return confirm_address(page, base, body["email"])


def confirm_address(
    page: Page, base: str, email: str, password: str = "correct horse battery"
) -> dict[str, Any]:
    """Follow the link of the confirmation mail to ``email`` as its page does (a POST
    with the context's cookies, and the password where the page asks for it), without
    leaving the page; the account's fields."""
    link = wsclient.MAILBOX.wait_blocking(email, wsclient.CONFIRM).link("/verify-email/")
    token = link.rsplit("/", 1)[1]
    url = f"{base}/api/verify-email/{token}"
    asks = page.context.request.get(url).json()["asks_password"]
    body = {"password": password} if asks else {}
    r = page.context.request.post(url, data=body, headers={"Origin": base})
    assert r.status == 200, r.text()
    return dict(r.json())


def start_friend_game(new_page: Any, base: str) -> tuple[dict[str, Page], str]:
    """Player one creates a friend game on the home page, player two opens the invite
    (both with new accounts).

    Returns the players' pages by side, and the game id.
    """
    one = new_page(TALL_DESKTOP)
    sign_up(one, base)
    one.goto(base + "/")
    one.check("#time-600")
    one.click("#play-friend")
    link = one.locator("#invite-link")
    link.wait_for()
    invite = link.input_value()
    assert re.fullmatch(re.escape(base) + r"/join/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+", invite), invite
    assert "Waiting for your friend" in one.inner_text(".invite")
    two = new_page(SMALL_PHONE)
    sign_up(two, base)
    two.goto(invite)
    two.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    one.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))  # the waiting page goes to the game
    game_id = two.url.rsplit("/", 1)[1]
    assert one.url.endswith(f"/g/{game_id}")
    for p in (one, two):
        p.wait_for_selector('.page-game[data-status="active"]')
    by_side = {p.get_attribute(".page-game", "data-side"): p for p in (one, two)}
    assert set(by_side) == {"attackers", "defenders"}, by_side.keys()
    return by_side, game_id


# -- the experience tests' sizes and helpers (issue 16) -----------------------------------

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]
PASSWORD = "correct horse battery"


# What each layout-shift recorder runs first: a shift within half a second of the window's
# resize is the harness's, not the page's. Under load Chromium has laid a new page out at
# another size before the context's viewport reached it (CI: the home page's main went from
# 250 px wide, below a phone's 44 px header, to 1080 px at 2.2 s, after the page was drawn).
NOT_RESIZED = """
window.__resized = [];
addEventListener("resize", () => window.__resized.push(Math.round(performance.now())));
window.__byResize = (e) => window.__resized.some((t) => Math.abs(t - e.startTime) < 500);
"""

# Every layout shift the page reports, from the moment it is installed (buffered: false,
# so the page's first paint does not count; the game does).
SHIFT_WATCH = (
    NOT_RESIZED
    + """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (window.__byResize(e)) continue;
    window.__shifts.push({
      value: e.value,
      input: e.hadRecentInput,
      sources: (e.sources || []).map((s) => {
        const n = s.node;
        if (!n || !n.nodeName) return "?";
        const cls = typeof n.className === "string" && n.className ? "." + n.className : "";
        return n.nodeName + (n.id ? "#" + n.id : "") + cls.replaceAll(" ", ".");
      }),
    });
  }
}).observe({ type: "layout-shift", buffered: false });
"""
)


def name_of(size: dict[str, int]) -> str:
    return "desktop" if size is DESKTOP else "phone"


def in_view(page: Page, selector: str) -> bool:
    """Whether the element is wholly inside the viewport as the page first shows it."""
    box = page.locator(selector).bounding_box()
    vp = page.viewport_size
    assert box is not None, f"{selector} has no box"
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= vp["width"] + 0.5
        and box["y"] + box["height"] <= vp["height"] + 0.5
    )


def click_squares(page: Page, move: str) -> None:
    a, b = from_to(move)
    square(page, a).click()
    square(page, b).click()


def shifts(page: Page) -> list[dict[str, Any]]:
    return list(page.evaluate("window.__shifts || []"))


def watch_shifts(page: Page) -> None:
    page.evaluate(SHIFT_WATCH)


def friend_game_via_home(
    new_page: Any, base: str, size: dict[str, int], move_time: int = 600
) -> tuple[dict[str, Page], str]:
    """Two players with accounts: one clicks "Play a friend", the other opens the link."""
    one = new_page(size)
    sign_up(one, base, "Ann Host")
    one.goto(base + "/")
    one.check(f"#time-{move_time}")
    one.click("#play-friend")
    link = one.locator("#invite-link")
    link.wait_for()
    two = new_page(size)
    sign_up(two, base, "Ben Guest")
    two.goto(link.input_value())
    two.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    one.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    game_id = two.url.rsplit("/", 1)[1]
    for p in (one, two):
        p.wait_for_selector('.page-game[data-status="active"]')
    by_side = {p.get_attribute(".page-game", "data-side"): p for p in (one, two)}
    assert set(by_side) == {"attackers", "defenders"}
    return by_side, game_id


# -- the lobby ---------------------------------------------------------------------------

GAME_URL = re.compile(r"/g/([A-Za-z0-9_-]{6,32})$")


def sign_up_on_home(page: Page, base: str) -> None:
    """Give the page's browser context an account (games against people need one):
    POST /api/signup with the context's cookies, as the sign-up page does."""
    page.goto(base + "/")  # a guest session first: the account adopts its name
    email = f"lobby-{secrets.token_hex(6)}@example.org"
    answer = page.request.post(
        base + "/api/signup",
        data={"email": email, "password": "quiet river walks the lobby"},
        headers={"Origin": base},
    )
    assert answer.status == 202, answer.text()  # "check your inbox": the link logs in
    confirm_address(page, base, email, "quiet river walks the lobby")


def player(new_page: Any, base: str, viewport: dict[str, int] = TALL_DESKTOP) -> Page:
    """A person with an account, on the lobby page."""
    page = new_page(viewport)
    sign_up_on_home(page, base)
    open_lobby(page, base)
    return page


def open_lobby(page: Page, base: str) -> None:
    page.goto(base + "/lobby")
    try:
        page.wait_for_selector('#conn[data-state="open"]')
    except Exception as exc:
        raise AssertionError(f"never connected; failed requests: {page.failed}") from exc
    # The snapshot has arrived: the list says so (empty) or shows seeks.
    page.wait_for_function(
        "() => document.querySelector('#seek-list').dataset.count !== undefined"
        " && !document.querySelector('#seek-empty').textContent.startsWith('Loading')"
    )


def game_id_of(page: Page) -> str:
    page.wait_for_url(GAME_URL)
    m = GAME_URL.search(page.url)
    assert m, page.url
    return m.group(1)


def wait_game(page: Page, status: str = "active") -> str:
    page.wait_for_selector(f'.page-game[data-status="{status}"] .board')
    return page.get_attribute(".page-game", "data-side") or ""


# -- mail and the server's view -----------------------------------------------------------


def follow_confirmation(page: Page, email: str, password: str | None = None) -> None:
    """Open the link of the confirmation mail and press its button, as its reader does
    (typing ``password`` where the page asks for it, outside the browser that signed up):
    the address is confirmed and its account logged in."""
    page.goto(wsclient.MAILBOX.wait_blocking(email, wsclient.CONFIRM).link("/verify-email/"))
    page.wait_for_selector('#verify-email-status[data-state="ask"]')
    if page.locator("#verify-email-password").count():
        assert password is not None, "the link's page asks for the password"
        page.fill("#verify-email-password", password)
    page.click("#verify-email-confirm")
    page.wait_for_selector('#verify-email-status[data-state="ok"]')
    assert email in page.inner_text("#verify-email-status")
    assert "you are logged in" in page.inner_text("#verify-email-status")


def true_in_page(page: Page, script: str, timeout: float = 20) -> None:
    """Until a predicate holds in the page (the site's CSP forbids wait_for_function's eval)."""
    wait_for_sync(lambda: page.evaluate(script), f"{script} in the page", timeout)


def server_moves(base: str, game_id: str, count: int) -> list[str]:
    """The game's moves on the server once it has `count` of them (moves are async)."""

    def moves() -> list[str]:
        got = httpx.get(f"{base}/api/games/{game_id}").json()["moves"]
        return list(got) if len(got) >= count else []

    return wait_for_sync(moves, f"{count} moves of game {game_id} on the server", 15)
