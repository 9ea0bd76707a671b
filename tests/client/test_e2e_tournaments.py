"""Tournaments in the browser, end to end: real Chromium, a real hub, Redis and PostgreSQL.

Each person is a browser context with an account. One creates an arena on /tournaments; two
players join on its page, are paired, see the "your next game" notice and land on the same
game, one side each; a third page (a guest, spectating) sees the standings change as each
thing happens, pushed over the socket (its page asks the HTTP view once). A resignation ends
the game: the winner's points reach the spectator live, and the game-over panel leads back to
the tournament. At 1280x800 and 390x844. Screenshots `tournament-*` in test-output/screenshots.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

from pages import NOT_RESIZED, click_move, shot, sign_up, wait_my_turn

Page = Any  # playwright.sync_api.Page (imported lazily: the browser fixture may skip)
HubProcess = Any  # conftest.HubProcess

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = pytest.mark.parametrize("size", ["desktop", "phone"])
VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}

GAME_URL = re.compile(r"/g/([A-Za-z0-9_-]{6,32})$")
EVENT_URL = re.compile(r"/t/([A-Za-z0-9_-]{4,40})$")

# Every layout shift from the page's start, with the ids of what moved.
SHIFTS = (
    NOT_RESIZED
    + """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (!window.__byResize(e)) window.__shifts.push({
      value: e.value,
      ids: e.sources.map((s) => s.node && s.node.id).filter(Boolean),
    });
}).observe({ type: "layout-shift", buffered: true });
"""
)


def connected(page: Page) -> None:
    try:
        page.wait_for_selector('#conn[data-state="open"]')
    except Exception as exc:
        raise AssertionError(f"never connected; failed requests: {page.failed}") from exc


def fits(page: Page) -> None:
    """Nothing wider than the screen: no sideways scrolling."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


def create_arena(page: Page, base: str, name: str) -> str:
    """Create an arena through the form (Nielsen, 1 minute a move, an hour, starting now);
    the new event's id (the page opens it)."""
    page.goto(base + "/tournaments")
    connected(page)
    page.wait_for_selector('#tc-note[data-can="true"]')
    assert page.locator("#tc-submit").is_enabled()
    page.fill("#tc-name", name)
    page.click("label:has(#tc-format-arena)")
    page.select_option("#tc-ruleset", "nielsen")
    page.click("label:has(#tc-time-60)")
    page.select_option("#tc-starts", "-1")
    page.click("label:has(#tc-duration-60)")
    page.click("#tc-submit")
    page.wait_for_url(EVENT_URL)
    m = EVENT_URL.search(page.url)
    assert m, page.url
    page.wait_for_selector('.page-tournament[data-status="running"]')
    return m.group(1)


def standings(page: Page) -> dict[str, dict[str, str]]:
    """The standings on a page: name -> points, state and the games' links."""
    script = """rows => rows.map(r => [r.querySelector('.t-pname').textContent, {
        points: r.querySelector('.t-points').textContent,
        state: r.dataset.state || '',
        games: [...r.querySelectorAll('a.t-g')]
            .map(a => a.dataset.game + ':' + a.dataset.outcome).join(' '),
    }])"""
    return dict(page.eval_on_selector_all("#t-standings tbody tr", script))


def name_of(page: Page) -> str:
    page.wait_for_function("() => !!window.__brandubh.live.player")
    return str(page.evaluate("() => window.__brandubh.live.player.name"))


@SIZES
def test_an_arena_created_joined_paired_and_followed_live(
    new_page: Any, web_hub: HubProcess, size: str
) -> None:
    base, viewport = web_hub.url, VIEWPORTS[size]
    ann = new_page(viewport)
    sign_up(ann, base)
    title = f"Arena {secrets.token_hex(3)}"
    event = create_arena(ann, base, title)
    assert ann.inner_text("#t-title") == title
    assert ann.inner_text("#t-countdown-label") == "Ends in"
    left = ann.inner_text("#t-countdown-time")
    assert re.fullmatch(r"1 h|59:\d\d", left), left
    assert "Nielsen" in ann.inner_text("#t-settings")
    assert ann.get_attribute('#site-nav a[href="/tournaments"]', "aria-current") == "page"

    # A spectator: a guest, who may follow but not join (and is told why).
    watcher = new_page(viewport)
    requests: list[str] = []
    watcher.on("request", lambda r: requests.append(r.url))
    # The home page lists a running arena among its tournaments, moving nothing.
    watcher.add_init_script(SHIFTS)
    watcher.goto(base + "/")
    teaser = watcher.locator(f'#home-t-running li[data-tournament="{event}"]')
    teaser.wait_for()
    assert "Arena" in teaser.inner_text() and "on now" in teaser.inner_text()
    assert watcher.evaluate("() => window.__shifts") == []
    watcher.goto(f"{base}/t/{event}")
    connected(watcher)
    watcher.wait_for_selector("#t-standings-empty")
    assert watcher.locator("#t-join").count() == 0
    assert "Joining needs an account" in watcher.inner_text("#t-my-state")
    watcher.wait_for_selector('#t-live[data-state="live"]')

    # Ann joins: waiting for an opponent; the spectator's standings grow by themselves.
    ann.click("#t-join")
    ann.wait_for_selector('#t-my-state[data-joined="true"]')
    assert "Waiting for an opponent" in ann.inner_text("#t-my-state")
    assert ann.locator("#t-pause").is_visible() and ann.locator("#t-withdraw").is_visible()
    watcher.wait_for_function("() => document.querySelector('#t-standings')?.dataset.count === '1'")
    shot(ann, f"tournament-waiting-{size}")

    # Bob joins from the list: both are paired, told so, and taken to the same game.
    bob = new_page(viewport)
    sign_up(bob, base)
    bob.goto(base + "/tournaments")
    connected(bob)
    item = bob.locator(f'#t-running li.t-item[data-tournament="{event}"]')
    item.wait_for()
    assert title in item.inner_text() and "Ends in" in item.inner_text()
    shot(bob, f"tournament-list-{size}")
    item.locator("a").click()
    bob.wait_for_url(EVENT_URL)
    bob.click("#t-join")
    for p in (ann, bob):
        notice = p.locator('#tournament-notice[data-auto="true"]')  # a live game: it opens
        notice.wait_for()
        assert "Your next tournament game: you play the " in notice.inner_text()
    shot(bob, f"tournament-notice-{size}", full=False)
    game = ""
    for p in (ann, bob):
        p.wait_for_url(GAME_URL)
        found = GAME_URL.search(p.url)
        assert found
        game = game or found.group(1)
        assert found.group(1) == game  # the same game for both
        p.wait_for_selector('.page-game[data-status="active"] .board')
    sides = {p.get_attribute(".page-game", "data-side") for p in (ann, bob)}
    assert sides == {"attackers", "defenders"}, sides
    assert "Tournament game" in ann.inner_text("#origin-label")

    # The spectator saw both join and both start playing, with the game linked.
    names = {name_of(ann), name_of(bob)}
    watcher.wait_for_function(
        "() => [...document.querySelectorAll('#t-standings tbody tr')]"
        ".filter(r => r.dataset.state === 'playing').length === 2"
    )
    table = standings(watcher)
    assert set(table) == names, table
    assert all(f"{game}:playing" in row["games"] for row in table.values()), table
    shot(watcher, f"tournament-spectator-playing-{size}")

    # Whoever attacks resigns: the defender's 2 points reach the spectator live.
    attacker = ann if ann.get_attribute(".page-game", "data-side") == "attackers" else bob
    defender = bob if attacker is ann else ann
    # Two moves first (before them a game can only be aborted, which counts for nobody).
    click_move(attacker, wait_my_turn(attacker, 0)[0])
    click_move(defender, wait_my_turn(defender, 1)[0])
    attacker.wait_for_selector('.board[data-ply="2"]')
    attacker.wait_for_selector("#resign:visible")
    attacker.click("#resign")
    attacker.click("#resign-confirm")
    winner = name_of(defender)
    watcher.wait_for_function(
        "name => [...document.querySelectorAll('#t-standings tbody tr')]"
        ".some(r => r.querySelector('.t-pname').textContent === name"
        " && r.querySelector('.t-points').textContent === '2')",
        arg=winner,
    )
    table = standings(watcher)
    assert table[winner]["points"] == "2" and f"{game}:won" in table[winner]["games"], table
    loser = (names - {winner}).pop()
    assert table[loser]["points"] == "0" and f"{game}:lost" in table[loser]["games"], table
    assert watcher.locator("#t-standings tbody tr").first.locator(".t-pname").inner_text() == winner
    assert int(watcher.get_attribute("#t-live", "data-updates") or "0") >= 3
    # Pushed, not polled: the page asked for the event's view once.
    views = [u for u in requests if re.search(rf"/api/tournaments/{event}$", u)]
    assert len(views) == 1, views
    shot(watcher, f"tournament-spectator-result-{size}")
    fits(watcher)

    # The game-over panel leads back to the tournament.
    for p in (attacker, defender):
        back = p.locator("#tournament-back")
        back.wait_for()
        assert back.get_attribute("href") == f"/t/{event}"
    shot(defender, f"tournament-game-over-{size}", full=False)
    # A spectator who opens the game by its link in a new browser, which never saw the
    # tournament, is led back to it too: the game's state names its tournament.
    stranger = new_page(viewport)
    stranger.goto(f"{base}/g/{game}")
    stranger.wait_for_selector('.page-game[data-status="ended"]')
    back = stranger.locator("#tournament-back")
    back.wait_for()
    assert back.get_attribute("href") == f"/t/{event}"
    # Not from the tab's memory of the tournament's games (logic/tournament.ts, tournamentOfGame).
    assert stranger.evaluate(f"() => sessionStorage.getItem('brandubh.tgame.{game}')") is None
    shot(stranger, f"tournament-game-over-spectator-{size}", full=False)
    defender.click("#tournament-back")
    defender.wait_for_url(EVENT_URL)
    defender.wait_for_selector(f'#t-standings tr[data-me="true"] a.t-g[data-game="{game}"]')
    assert defender.inner_text('#t-standings tr[data-me="true"] .t-points') == "2"
    shot(defender, f"tournament-event-{size}")
    fits(defender)

    # Pausing keeps the winner out of pairings, and says so; the spectator sees it pushed.
    defender.click("#t-pause")
    defender.wait_for_selector('#t-my-state[data-paused="true"]')
    assert "You are paused" in defender.inner_text("#t-my-state")
    defender.wait_for_selector("#t-resume")
    watcher.wait_for_selector('#t-standings tr[data-state="paused"]')
    defender.click("#t-resume")
    defender.wait_for_selector('#t-my-state[data-paused="false"]')
    # Withdrawing from an arena: out of it, and free to join again while it runs.
    defender.click("#t-withdraw")
    defender.wait_for_selector('#t-my-state[data-joined="false"]')
    defender.wait_for_selector("#t-join")
    watcher.wait_for_selector('#t-standings tr[data-state="withdrawn"]')
    for p in (ann, bob, watcher, stranger):
        assert not p.errors, p.errors


@SIZES
def test_a_guest_is_told_why_they_cannot_create_without_a_shift(
    new_page: Any, web_hub: HubProcess, size: str
) -> None:
    base, viewport = web_hub.url, VIEWPORTS[size]
    guest = new_page(viewport)
    guest.add_init_script(SHIFTS)
    guest.goto(base + "/tournaments")
    connected(guest)
    note = guest.locator('#tc-note[data-can="false"]')
    note.wait_for()
    assert "needs an account" in note.inner_text()
    assert guest.locator("#tc-signup").get_attribute("href") == "/signup?next=/tournaments"
    assert guest.locator("#tc-name").is_disabled() and guest.locator("#tc-submit").is_disabled()
    guest.wait_for_selector("#t-running-empty:not(:has-text('Loading'))", state="attached")
    shifts = guest.evaluate("() => window.__shifts")
    assert not [s for s in shifts if "tc-note" in s["ids"]], shifts
    shot(guest, f"tournament-guest-{size}")
    fits(guest)

    # An account holder's note takes the same room: the form below never moves for it.
    holder = new_page(viewport)
    sign_up(holder, base)
    holder.goto(base + "/tournaments")
    holder.wait_for_selector('#tc-note[data-can="true"]')
    assert holder.evaluate(
        "() => document.querySelector('#tc-note').getBoundingClientRect().height"
    ) == guest.evaluate("() => document.querySelector('#tc-note').getBoundingClientRect().height")

    # An event that does not exist is said not to.
    guest.goto(base + "/t/tnosuch1")
    guest.wait_for_selector('.page-tournament[data-status="missing"]')
    assert guest.inner_text("#t-title") == "Tournament not found"
    assert guest.inner_text("#t-missing")


def test_the_form_says_what_is_wrong_in_words(new_page: Any, web_hub: HubProcess) -> None:
    base = web_hub.url
    page = new_page(DESKTOP)
    sign_up(page, base)
    page.goto(base + "/tournaments")
    page.wait_for_selector('#tc-note[data-can="true"]')
    page.click("#tc-submit")  # no name
    assert page.inner_text("#tc-error") == "Give the tournament a name."
    assert page.get_attribute("#tc-name", "aria-invalid") == "true"
    # A Swiss by correspondence with more rounds than the hub takes: its refusal, in words.
    page.fill("#tc-name", "Winter Swiss")
    page.click("label:has(#tc-format-swiss)")
    assert page.locator("#tc-rounds-field").is_visible()
    assert page.locator("#tc-duration-field").is_hidden()
    assert page.locator('#tc-starts option[value="-1"]').is_disabled()  # "Now": arenas only
    page.click("label:has(#tc-time-86400)")
    page.fill("#tc-rounds", "21")
    page.click("#tc-submit")
    assert page.inner_text("#tc-error") == "A Swiss event has 1 to 20 rounds."
    assert page.get_attribute("#tc-rounds", "aria-invalid") == "true"
    page.fill("#tc-rounds", "3")
    page.click("#tc-submit")
    page.wait_for_url(EVENT_URL)
    page.wait_for_selector('.page-tournament[data-status="upcoming"]')
    assert page.inner_text("#t-countdown-label") == "Starts in"
    assert page.locator("#t-join").is_visible()

    # Two more through the API; a fourth unfinished one is the hub's to refuse, in words.
    for n in (2, 3):
        body = {
            "name": f"Swiss {n}",
            "format": "swiss",
            "ruleset": "nielsen",
            "move_time": 86_400,
            "starts_at": int(page.evaluate("Date.now()")) + 86_400_000,
            "rounds": 3,
        }
        made = page.request.post(base + "/api/tournaments", data=body, headers={"Origin": base})
        assert made.status == 201, made.text()
    page.goto(base + "/tournaments")
    page.wait_for_selector('#tc-note[data-can="true"]')
    page.fill("#tc-name", "One too many")
    page.click("#tc-submit")
    page.wait_for_selector("#tc-error:not(:empty)")
    assert "You already run as many tournaments as an account may at once" in page.inner_text(
        "#tc-error"
    )
    assert page.url.endswith("/tournaments")
    assert not page.errors, page.errors


def test_a_finished_arena_verifies_on_the_verify_page(
    new_page: Any, start_hub: Any, client_dist: Any
) -> None:
    """An arena of a "minute" on a hub whose arenas last a twentieth of their time: finished
    within seconds, its page links to the verify page, which fetches the export and says it
    verifies; the same export with its seed changed does not, and says why."""
    hub = start_hub(
        env={"BRANDUBH_CLIENT_DIR": str(client_dist), "BRANDUBH_TOURNAMENT_SCALE": "0.05"}
    )
    base = hub.url
    page = new_page(DESKTOP)
    sign_up(page, base)
    page.goto(base + "/tournaments")
    connected(page)
    body = {
        "name": "A short arena",
        "format": "arena",
        "ruleset": "nielsen",
        "move_time": 60,
        "starts_at": int(page.evaluate("Date.now()")),
        "duration_min": 1,
    }
    made = page.request.post(base + "/api/tournaments", data=body, headers={"Origin": base})
    assert made.status == 201, made.text()
    event = made.json()["id"]
    page.goto(f"{base}/t/{event}")
    page.wait_for_selector('.page-tournament[data-status="finished"]', timeout=60_000)
    assert page.inner_text("#t-countdown-label") == "Finished"
    assert page.locator("#t-seed").inner_text()  # the seed, published at the end
    page.click("#t-verify-link")
    page.wait_for_selector('.verdict[data-ok="true"][data-kind="tournament"]')
    assert "The tournament verifies" in page.inner_text("#verify-result")
    assert "A short arena" in page.inner_text("#verify-result")
    shot(page, "tournament-verify-desktop")

    # One hex digit of the seed changed: no longer the committed seed.
    export = page.input_value("#record-text")
    seed = page.request.get(f"{base}/api/tournaments/{event}").json()["seed"]
    assert seed and seed in export
    swapped = seed[:-1] + ("0" if seed[-1] != "0" else "1")
    page.fill("#record-text", export.replace(seed, swapped))
    page.click("#verify-button")
    page.wait_for_selector('.verdict[data-ok="false"][data-kind="tournament"]')
    assert "The tournament does not verify" in page.inner_text("#verify-result")
    assert page.locator("#verify-error li").count() >= 1
    assert not page.errors, page.errors


def test_a_round_robin_shows_its_rounds_and_each_players_games(
    new_page: Any, web_hub: HubProcess
) -> None:
    """Three players in a round robin by correspondence: once it starts, its page says round
    1 of 3, lists the round's match with links to its games and who rests that round, and
    the players' rows link to their games; on a phone the table fits."""
    base = web_hub.url
    people = [new_page(DESKTOP), new_page(DESKTOP), new_page(PHONE)]
    for p in people:
        sign_up(p, base)
    host = people[0]
    body = {
        "name": "Three for a week",
        "format": "round_robin",
        "ruleset": "federation",
        "move_time": 86_400,
        "starts_at": int(host.evaluate("Date.now()")) + 4000,
    }
    made = host.request.post(base + "/api/tournaments", data=body, headers={"Origin": base})
    assert made.status == 201, made.text()
    event = made.json()["id"]
    for p in people:
        joined = p.request.post(
            f"{base}/api/tournaments/{event}/join", data={}, headers={"Origin": base}
        )
        assert joined.status == 200, joined.text()
    for p in people:
        p.goto(f"{base}/t/{event}")
        p.wait_for_selector('.page-tournament[data-status="running"] #t-rounds', timeout=30_000)
    phone = people[2]
    # A round's game by correspondence is announced, not opened over the page.
    for p in people:
        if p.locator("#tournament-notice").count():
            p.wait_for_selector('#tournament-notice[data-auto="false"]')
        assert EVENT_URL.search(p.url), p.url
    assert phone.inner_text("#t-countdown-label") == "Round 1 of 3"
    # Two of the three play; the third sits this round out, and the round says so.
    assert phone.locator('#t-rounds .t-round[data-round="1"] .t-pairing').count() == 1
    rest = phone.locator('#t-rounds .t-round[data-round="1"] .t-rest')
    assert rest.count() == 1 and "rests this round" in rest.inner_text()
    paired = phone.inner_text('#t-rounds .t-round[data-round="1"] .t-pairing .t-pair-names')
    resting = rest.locator(".t-pair-names").inner_text()
    assert resting not in paired
    # The one resting is told so on their page (and only they are).
    told = [name_of(p) for p in people if "You rest this round" in p.inner_text("#t-my-state")]
    assert told == [resting], told
    links = phone.locator("#t-rounds a[data-game]")
    assert links.count() >= 1
    assert phone.locator("#t-standings tbody tr").count() == 3
    assert phone.locator("#t-standings a.t-g").count() >= 2  # the two players' match games
    assert phone.locator("#t-join").count() == 0 and phone.locator("#t-withdraw").is_visible()
    shot(phone, "tournament-round-robin-phone")
    shot(host, "tournament-round-robin-desktop")
    fits(phone)
    for p in people:
        assert not p.errors, p.errors
