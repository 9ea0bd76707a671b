"""The header, the phone and smaller things (issue 30, part 5), at 1280×800 and 390×844:
every section reachable through the narrow screen's menu (a real button, keyboard too);
the connection pill and "Retry now" inside the header; the phone's game page on one
screen; a confirmed mailed link logging the page in without a reload; no layout shift on
the home page for a guest; no profile asked of a guest; one's own clicked moves sliding
and captured pieces fading; the replay's step buttons and names in sight; an unknown
rule set's leaderboard not found. Screenshots go to test-output/screenshots/.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest
from layout import assert_no_overlap

import wsclient
from pages import (
    DESKTOP,
    NOT_RESIZED,
    PHONE,
    SIZES,
    click_move,
    click_squares,
    friend_game_via_home,
    in_view,
    name_of,
    shot,
    sign_up,
    square,
    true_in_page,
    wait_my_turn,
)

Page = Any
HubProcess = Any
PASSWORD = "correct horse battery"

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


# Whether an element's own text is drawn whole (not cut with an ellipsis): its first text
# node's width against the element's (scrollWidth rounds a cut of a pixel or two away).
FITS = """e => {
  const r = document.createRange();
  r.selectNodeContents(e.firstChild);
  return r.getBoundingClientRect().width <= e.getBoundingClientRect().width + 0.01;
}"""


def contrast(fg: str, bg: str) -> float:
    """WCAG's contrast ratio of two CSS rgb() colours."""

    def luminance(css: str) -> float:
        r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def box(page: Page, selector: str) -> dict[str, float]:
    b = page.locator(selector).bounding_box()
    assert b is not None, f"{selector} has no box"
    return dict(b)


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def open_menu(page: Page) -> None:
    page.click("#nav-menu")
    assert page.get_attribute("#nav-menu", "aria-expanded") == "true"
    page.locator("#nav-more").wait_for(state="visible")


def through_menu(page: Page, selector: str, url: str) -> None:
    """Open the menu, check the link is wholly on the screen, follow it."""
    open_menu(page)
    link = page.locator(selector)
    assert link.is_visible() and in_view(page, selector), f"{selector} is not on the screen"
    link.click()
    page.wait_for_url(re.compile(url))
    assert page.get_attribute("#nav-menu", "aria-expanded") == "false"
    assert page.locator("#nav-more").is_hidden()


def test_every_header_link_is_reachable_at_390_px(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    guest = new_page(PHONE)
    guest.goto(base + "/lobby")
    guest.wait_for_selector("#nav-login", state="attached")
    assert guest.locator("#nav-more").is_hidden()  # folded until asked for
    for sel in ("#site-nav a[href='/']", "#nav-games", "#nav-menu", "#conn"):
        assert in_view(guest, sel), f"{sel} is not in the header's row"
    open_menu(guest)
    shot(guest, "phone-menu-guest", full=False)
    guest.keyboard.press("Escape")  # closes, and the focus goes back to the button
    assert guest.get_attribute("#nav-menu", "aria-expanded") == "false"
    assert guest.evaluate("document.activeElement.id") == "nav-menu"
    # The keyboard alone: Enter opens it with the focus on its first link, Tab walks on.
    guest.keyboard.press("Enter")
    assert guest.get_attribute("#nav-menu", "aria-expanded") == "true"
    assert guest.evaluate("document.activeElement.getAttribute('href')") == "/lobby"
    guest.keyboard.press("Tab")
    assert guest.evaluate("document.activeElement.getAttribute('href')") == "/watch"
    guest.keyboard.press("Enter")
    guest.wait_for_url(re.compile(r"/watch$"))
    assert guest.get_attribute("#nav-menu", "aria-expanded") == "false"
    for sel, url in (
        ("#nav-more a[href='/lobby']", r"/lobby$"),
        ("#nav-more a[href='/watch']", r"/watch$"),
        ("#nav-more a[href='/leaderboard']", r"/leaderboard$"),
        ("#nav-login", r"/login"),
        ("#nav-signup", r"/signup"),
    ):
        through_menu(guest, sel, url)
    # A click outside the open menu folds it.
    open_menu(guest)
    guest.mouse.click(200, 600)
    assert guest.get_attribute("#nav-menu", "aria-expanded") == "false"
    guest.click("#nav-games")
    guest.wait_for_url(re.compile(r"/games$"))
    guest.click("#site-nav a[href='/']")
    guest.wait_for_url(re.compile(r"/$"))

    member = new_page(PHONE)
    account = sign_up(member, base, "Maximilian Long")
    member.goto(base + "/games")
    member.wait_for_selector("#nav-profile", state="attached")
    open_menu(member)
    assert member.inner_text("#nav-profile") == "Maximilian Long"  # in full, not cut short
    shot(member, "phone-menu-account", full=False)
    member.keyboard.press("Escape")
    through_menu(member, "#nav-profile", rf"/u/{account['id']}$")
    through_menu(member, "#nav-account", r"/account$")
    through_menu(member, "#nav-more a[href='/leaderboard']", r"/leaderboard$")
    open_menu(member)
    member.click("#nav-logout")
    member.wait_for_selector("#nav-login", state="attached")

    # A wide screen has no menu: every link is in the row.
    wide = new_page(DESKTOP)
    sign_up(wide, base, "Maximilian Long")
    wide.goto(base + "/")
    wide.wait_for_selector("#nav-profile")
    assert wide.locator("#nav-menu").is_hidden()
    for sel in (
        "#site-nav a[href='/']",
        "#nav-games",
        "#nav-more a[href='/lobby']",
        "#nav-more a[href='/watch']",
        "#nav-more a[href='/leaderboard']",
        "#nav-profile",
        "#nav-account",
        "#nav-logout",
        "#conn",
    ):
        assert in_view(wide, sel), f"{sel} is not in the header at 1280 px"
        assert inside(box(wide, sel), box(wide, "#top")), sel


@pytest.mark.parametrize("size", SIZES)
def test_the_connection_pill_and_retry_stay_inside_the_header(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    page = new_page(size)
    sign_up(page, web_hub.url, "Maximilian Long")
    page.goto(web_hub.url + "/")
    page.wait_for_selector('#conn[data-state="open"]')
    page.wait_for_selector("#nav-profile", state="attached")
    page.wait_for_selector('#home-live[data-ready="true"]')  # the home page drawn whole
    header = box(page, "#top")
    before = {sel: box(page, sel) for sel in ("#site-nav", "#conn-box", "#main")}
    page.evaluate("window.__brandubh.dropConnection(60000)")
    page.wait_for_selector('#conn[data-state="down"]')
    page.wait_for_selector("#conn-retry", state="visible")
    true_in_page(page, "document.getElementById('conn').textContent.includes('retrying in')")
    assert box(page, "#top") == header  # the header keeps its size
    for sel in ("#conn", "#conn-retry"):
        assert inside(box(page, sel), header), f"{sel} leaves the header: {box(page, sel)}"
    for sel, was in before.items():
        assert box(page, sel) == was, f"{sel} moved when the connection dropped"
    # Below 1600 px the pill is a dot: its words are there for screen readers and on hover.
    assert "Offline — retrying in" in str(page.get_attribute("#conn", "title"))
    shot(page, f"phone-offline-header-{name_of(size)}", full=False)
    if size is DESKTOP:  # wider, the words in full, never clipped
        page.set_viewport_size({"width": 1680, "height": size["height"]})
        page.wait_for_function("document.getElementById('conn').clientWidth > 100")
        assert page.eval_on_selector("#conn", "e => e.scrollWidth <= e.clientWidth")
        assert "Offline — retrying in" in page.inner_text("#conn")
        assert inside(box(page, "#conn-retry"), box(page, "#top"))
    page.click("#conn-retry")
    page.wait_for_selector('#conn[data-state="open"]')
    assert page.locator("#conn-retry").is_hidden()


def test_the_phone_game_page_fits_one_screen(new_page: Any, web_hub: HubProcess) -> None:
    page = new_page(PHONE)
    sign_up(page, web_hub.url, "Brave Hedgehog")
    page.goto(web_hub.url + "/")
    page.check("#time-60")
    page.click("#play-bot")
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    page.wait_for_selector('.page-game[data-status="active"]')
    side = page.get_attribute(".page-game", "data-side")
    legal = wait_my_turn(page, 0 if side == "attackers" else 1)
    click_squares(page, legal[0])
    ply = 2 if side == "attackers" else 3
    wait_my_turn(page, ply)
    for sel in ("#status-line", "#bar-top", ".board", "#bar-bottom", "#controls"):
        assert in_view(page, sel), f"{sel} is not on the screen"
    # No empty band between the board and the actions.
    under = box(page, "#bar-bottom")
    gap = box(page, "#controls")["y"] - (under["y"] + under["height"])
    assert gap <= 24, f"{gap} px between the board and the actions"
    # The first row of the move list is wholly on the screen.
    assert in_view(page, "#moves li[data-number='1']")
    # The names are said in full where there is room.
    for bar in ("#bar-top", "#bar-bottom"):
        name = page.locator(f"{bar} .pbar-name")
        assert name.evaluate(FITS), name.inner_text()
    assert "Brave Hedgehog" in page.inner_text("#players")
    # The your-move count (this game waits for my move) reads at 4.5:1 or more.
    page.wait_for_selector("#my-move-count:not([hidden])")
    colours = page.eval_on_selector(
        "#my-move-count", "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]"
    )
    assert contrast(*colours) >= 4.5, colours
    shot(page, "phone-game", full=False)


@pytest.mark.parametrize("size", SIZES)
def test_confirming_the_mailed_link_logs_the_page_in_without_a_reload(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    base = web_hub.url
    page = new_page(size)
    email = f"carol{secrets.token_hex(4)}@example.org"
    page.goto(base + "/signup")
    page.fill("#signup-email", email)
    page.fill("#signup-password", PASSWORD)
    page.fill("#signup-name", "Carol Confirm")
    page.click("#signup-submit")
    page.wait_for_selector("#signup-sent")
    link = wsclient.MAILBOX.wait_blocking(email, wsclient.CONFIRM).link("/verify-email/")
    page.goto(link)
    page.wait_for_selector("#verify-email-confirm")
    page.evaluate("window.__notReloaded = true")
    page.fill("#verify-email-password", PASSWORD)  # it signed up without a session
    page.click("#verify-email-confirm")
    page.wait_for_selector('#verify-email-status[data-state="ok"]')
    assert "logged in as Carol Confirm" in page.inner_text("#verify-email-status")
    # The header says so at once, and the socket speaks for the account.
    page.wait_for_selector("#nav-profile:has-text('Carol Confirm')", state="attached")
    assert page.locator("#nav-login").count() == 0
    true_in_page(page, "window.__brandubh.live.player?.name === 'Carol Confirm'")
    if size is PHONE:
        open_menu(page)
    assert page.locator("#nav-profile").is_visible()
    shot(page, f"phone-confirmed-header-{name_of(size)}", full=False)
    if size is PHONE:
        page.keyboard.press("Escape")
    page.click("#site-nav a[href='/']")
    page.wait_for_url(re.compile(r"/$"))
    page.wait_for_selector('#account-line[data-known="true"]')
    assert page.locator("#friend-needs-account").is_hidden()
    page.click("#play-friend")
    page.wait_for_selector("#invite-link")
    assert page.evaluate("window.__notReloaded === true")


@pytest.mark.parametrize("size", SIZES)
def test_the_home_page_does_not_shift_for_a_guest(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    page = new_page(size)
    page.add_init_script(SHIFTS_FROM_START)
    page.goto(web_hub.url + "/")
    page.wait_for_selector('#account-line[data-known="true"]')
    page.wait_for_selector("#friend-needs-account", state="visible")
    page.wait_for_selector("#nav-login", state="attached")
    page.wait_for_selector('#conn[data-state="open"]')
    # Two frames more, for a shift from the last answer to be reported.
    page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate("window.__shifts") == []


def test_a_guests_game_page_asks_for_no_profile(new_page: Any, web_hub: HubProcess) -> None:
    page = new_page(DESKTOP)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/players/" in r.url else None)
    page.goto(web_hub.url + "/")
    page.click("#play-bot")
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    page.wait_for_selector('.page-game[data-status="active"]')
    page.wait_for_selector("#bar-bottom .pbar-name:not(:empty)")
    page.wait_for_selector("#bar-top .pbar-name:not(:empty)")
    assert asked == []
    assert not [f for f in page.failed if "/api/players/" in f]


# What the board animates, as it happens: squares a piece slides into, and the squares
# where a captured piece fades out.
ANIMATIONS = """
window.__anim = { arriving: [], fading: [] };
new MutationObserver((records) => {
  for (const m of records) {
    if (m.type === "attributes" && m.target.classList.contains("arriving")) {
      window.__anim.arriving.push(m.target.dataset.square);
    }
    for (const n of m.addedNodes) {
      if (n.classList && n.classList.contains("piece-fading")) {
        window.__anim.fading.push(n.parentElement.dataset.square);
      }
    }
  }
}).observe(document.querySelector(".board"), {
  subtree: true, childList: true, attributes: true, attributeFilter: ["class"],
});
"""

# Nielsen from the start: the attackers close c3 and c5 around the defender on c4.
CAPTURE_LINE = ["d2-c2", "e4-e5", "c2-c3", "e5-e6", "d6-c6", "e6-f6", "c6-c5"]


def test_own_clicked_moves_slide_and_captured_pieces_fade(
    new_page: Any, web_hub: HubProcess
) -> None:
    pages, _ = friend_game_via_home(new_page, web_hub.url, DESKTOP)
    for p in pages.values():
        p.evaluate(ANIMATIONS)
    for ply, move in enumerate(CAPTURE_LINE):
        mover = pages["attackers" if ply % 2 == 0 else "defenders"]
        legal = wait_my_turn(mover, ply)
        played = next(m for m in legal if m.startswith(move))
        click_squares(mover, played)
        for p in pages.values():
            p.wait_for_selector(f'.board[data-ply="{ply + 1}"]')
        dest = move.split("-")[1]
        # The mover's own click slides too, as the opponent's move does on the other page.
        for p in pages.values():
            assert dest in p.evaluate("window.__anim.arriving"), (move, p.evaluate("window.__anim"))
    assert "xc4" in played
    for p in pages.values():
        assert p.evaluate("window.__anim.fading") == ["c4"]
        p.wait_for_selector('.board [data-square="c4"][data-piece=""]')
        p.wait_for_selector(".piece-fading", state="detached")  # gone once faded


def test_the_replay_shows_the_names_and_its_steps_above_the_fold(
    new_page: Any, web_hub: HubProcess
) -> None:
    page = new_page(DESKTOP)
    sign_up(page, web_hub.url, "Rita Replay")
    page.goto(web_hub.url + "/")
    page.click("#play-bot")
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector('.page-game[data-status="active"]')
    side = page.get_attribute(".page-game", "data-side")
    first = 0 if side == "attackers" else 1
    click_squares(page, wait_my_turn(page, first)[0])
    wait_my_turn(page, first + 2)
    page.goto(f"{web_hub.url}/replay/{game_id}")
    page.wait_for_selector("#replay-caption:not(:empty)")
    for sel in ("#replay-first", "#replay-prev", "#replay-next", "#replay-last", "#replay-players"):
        assert in_view(page, sel), f"{sel} is below the fold"
    names = page.inner_text("#replay-players")
    assert "Rita Replay" in names and "Bot (level 1)" in names, names
    page.click("#replay-first")
    assert page.get_attribute(".page-replay", "data-ply") == "0"
    shot(page, "phone-replay-desktop", full=False)
    # At 390×844 it opens at its top (the shown move is kept in sight by scrolling the
    # list, never the page), and the keys still step.
    page.set_viewport_size(PHONE)
    page.goto(f"{web_hub.url}/replay/{game_id}")
    page.wait_for_selector("#replay-caption:not(:empty)")
    last = int(page.get_attribute(".page-replay", "data-ply") or "0")
    assert last >= 2
    assert page.evaluate("window.scrollY") == 0, "the replay opened scrolled down"
    assert in_view(page, "#replay-players")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f'.page-replay[data-ply="{last - 1}"]')
    page.keyboard.press("Home")
    page.wait_for_selector('.page-replay[data-ply="0"]')
    shot(page, "phone-replay-phone", full=False)


def test_an_unknown_rule_sets_leaderboard_is_not_found(new_page: Any, web_hub: HubProcess) -> None:
    page = new_page(PHONE)
    answer = page.goto(web_hub.url + "/leaderboard/xyz")
    assert answer is not None and answer.status == 404
    page.wait_for_selector("#leaderboard-missing")
    assert "There is no rule set called “xyz”" in page.inner_text("#leaderboard-missing")
    assert page.locator("#leaderboard").count() == 0  # no other rule set's board instead
    page.click("#leaderboard-missing a[data-ruleset='nielsen']")
    page.wait_for_selector('#leaderboard[data-ruleset="nielsen"]')
    page.failed.clear()  # the 404 above was the point


@pytest.mark.parametrize("size", SIZES)
def test_no_two_panels_of_the_game_page_overlap_through_a_game(
    new_page: Any, web_hub: HubProcess, size: dict[str, int]
) -> None:
    """Every message of a game (a premove, the repetition warning, a draw offer and its
    answer, an opponent who left, the end) in its own place: no two panels intersect."""
    pages, _ = friend_game_via_home(new_page, web_hub.url, size)
    att, dfn = pages["attackers"], pages["defenders"]
    name = name_of(size)
    for p in (att, dfn):
        p.wait_for_selector('#bar-top[data-online="true"]')
        assert_no_overlap(p, "the start")
    # A premove queued by the defenders during the attackers' first move.
    dfn.wait_for_selector('.board[data-ply="0"]')
    square(dfn, "d3").click()
    square(dfn, "c3").click()
    dfn.wait_for_selector('.board[data-queued="d3-c3"]')
    dfn.wait_for_selector("#game-notice:not(.slot-hidden)")
    shot(dfn, f"phone-layout-premove-{name}", full=False)
    assert_no_overlap(dfn, "a premove's note")
    dfn.keyboard.press("Escape")
    dfn.wait_for_selector('#game-notice[data-premove=""]', state="attached")
    wait_my_turn(att, 0)
    click_move(att, "d1-c1")
    wait_my_turn(dfn, 1)
    click_move(dfn, "c4-c5")
    # A draw offer and its answer.
    wait_my_turn(att, 2)
    att.click("#offer-draw")
    dfn.wait_for_selector("#draw-offer.prominent #decline-draw")
    shot(dfn, f"phone-layout-draw-offer-{name}", full=False)
    assert_no_overlap(dfn, "a draw offer")
    dfn.click("#decline-draw")
    att.wait_for_selector("#game-notice:not(.slot-hidden):has-text('declined')")
    shot(att, f"phone-layout-draw-answer-{name}", full=False)
    assert_no_overlap(att, "the draw's answer")
    # The repetition warning (the position of ply 0 again).
    click_move(att, "c1-d1")
    wait_my_turn(dfn, 3)
    click_move(dfn, "c5-c4")
    att.wait_for_selector("#repetition-warning:not(.slot-hidden)")
    shot(att, f"phone-layout-repetition-{name}", full=False)
    assert_no_overlap(att, "the repetition warning")
    # The opponent leaves.
    dfn.close()
    att.wait_for_selector('#claim-offer[data-wants="1"]:not(.slot-hidden)', state="attached")
    shot(att, f"phone-layout-left-{name}", full=False)
    assert_no_overlap(att, "an opponent who left")
    # The end.
    att.click("#resign")
    att.wait_for_selector("#resign-confirm:visible")
    assert_no_overlap(att, "the resignation's question")
    att.click("#resign-confirm")
    att.wait_for_selector('.page-game[data-status="ended"]')
    att.wait_for_selector("#result-headline")
    shot(att, f"phone-layout-game-over-{name}", full=False)
    boxes = assert_no_overlap(att, "the game-over card")
    # The card is drawn whole: its rematch and replay link on the screen.
    for sel in ("#result", "#replay-link"):
        assert in_view(att, sel), f"{sel} is cut off at the end"
    assert "game-over" in boxes
