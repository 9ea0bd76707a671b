"""The analysis in the browser (issue 31), at 1280×800 and 390×844: a finished game's
computer analysis requested on the replay, its progress pushed over the socket, a judged
move clicked and the search's better move drawn on the board; the analysis board opened
from the replay, a line played on it, the URL following, an evaluation asked for; the
game page offering the board to a spectator and not to a player of the live game.

The hub of this module analyses with a tiny node budget (BRANDUBH_ANALYSIS_NODES), so a
game of eight plies takes a moment; the game is QUICK_ESCAPE, whose attackers let the
king walk out: the analysis judges their moves (deterministically: a fixed budget).
Screenshots go to test-output/screenshots/ as analysis-*.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import wsclient
from brandubh.run.redis_server import EmbeddedRedis, RedisNotFound
from pages import DESKTOP, PHONE, QUICK_ESCAPE, SIZES, name_of, shot, sign_up
from services import HubProcess, mail_env, missing, run_async

Page = Any

# Every text #analysis-status shows, from the page's start (the progress may pass quickly).
RECORD_STATUS = """
window.__statusTexts = [];
new MutationObserver(() => {
  const el = document.getElementById("analysis-status");
  const t = el ? el.textContent : "";
  if (t && window.__statusTexts.at(-1) !== t) window.__statusTexts.push(t);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""

# No element wider than the screen: the document does not scroll sideways.
NO_OVERFLOW = "document.scrollingElement.scrollWidth <= window.innerWidth"

# The font sizes (px) of the analysis's own texts, the graph's labels included.
FONT_SIZES = """() => [...document.querySelectorAll(
  '#analysis *, #eval-graph text, #analysis-ply, .page-analysis *'
)].filter(e => e.getClientRects().length && [...e.childNodes].some(
  n => n.nodeType === 3 && n.textContent.trim()
)).map(e => parseFloat(getComputedStyle(e).fontSize))"""


@pytest.fixture(scope="module")
def hub(redis_url: str, database_url: str, client_dist: Path, mailbox: Any) -> Iterator[HubProcess]:
    """A hub serving the client whose analysis worker searches a few nodes a ply."""
    env = {
        "BRANDUBH_CLIENT_DIR": str(client_dist),
        "BRANDUBH_ANALYSIS_NODES": "3000",
        "BRANDUBH_ANALYSIS_BOARD_NODES": "3000",
        "BRANDUBH_ANALYSIS_WORKERS": "1",  # the test hubs have none by default
        **mail_env(mailbox),
    }
    proc = HubProcess(redis_url, env=env, database_url=database_url).start()
    yield proc
    proc.stop()


async def _played(base: str, moves: list[str], finish: bool = True) -> tuple[str, str]:
    """A friend game between two new accounts with ``moves`` played: (game id, the
    attackers' session cookie)."""
    game, alice, bob = await wsclient.friend_game(base, "nielsen")
    socks = await wsclient.seated(game, alice, bob)
    for ply, move in enumerate(moves):
        await socks["attackers" if ply % 2 == 0 else "defenders"].move(game, ply, move)
        await socks["attackers"].recv_until(lambda m, mv=move: m.get("move") == mv)
    state = (await alice.game(game))["state"]
    attackers = alice if state["players"]["attackers"]["id"] == alice.id else bob
    cookie = attackers.cookie
    for s in socks.values():
        await s.close()
    assert not finish or state["status"] == "ended", state
    return game, cookie


@pytest.fixture(scope="module")
def finished(hub: HubProcess) -> str:
    """QUICK_ESCAPE played to its end: the king escaped."""
    game, _ = run_async(_played(hub.url, QUICK_ESCAPE))
    return str(game)


def wait_done(page: Page, hub: HubProcess) -> None:
    """Wait for the analysis on the page; on a timeout, say what the panel and the hub said."""
    try:
        page.wait_for_selector('#analysis[data-status="done"]', timeout=60_000)
    except Exception as exc:
        said = page.inner_text("#analysis")
        log = "".join(hub.log[-30:])
        raise AssertionError(f"no analysis: the panel says {said!r}; hub: {log}") from exc


def check_layout(page: Page) -> None:
    """Nothing wider than the screen, no text under 11 px."""
    assert page.evaluate(NO_OVERFLOW), "the page scrolls sideways"
    small = [s for s in page.evaluate(FONT_SIZES) if s < 11]
    assert not small, f"text under 11 px: {small}"


def test_request_watch_progress_click_a_judged_move_see_the_better_move(
    new_page: Any, hub: HubProcess, finished: str
) -> None:
    base = hub.url
    page = new_page(DESKTOP)
    page.add_init_script(RECORD_STATUS)
    sign_up(page, base)  # any confirmed account may ask for a public game's analysis
    page.goto(f"{base}/replay/{finished}")
    button = page.locator("#analysis-request")
    button.wait_for()
    assert button.inner_text() == "Request computer analysis"
    shot(page, "analysis-replay-before-desktop", full=False)
    button.click()
    wait_done(page, hub)
    texts = page.evaluate("window.__statusTexts")
    of = len(QUICK_ESCAPE)
    assert any(re.fullmatch(rf"Analysing: ply [1-{of}] of {of}", t) for t in texts), texts
    # The graph under the board, the same width as the board's column, one dot a judgment.
    graph = page.locator("#eval-graph svg")
    graph.wait_for()
    judged = page.locator(".replay-moves .ply[data-judgment]")
    assert judged.count() >= 1, "the attackers who let the king out made no judged move"
    assert page.locator("#eval-graph .eval-dot").count() == judged.count()
    # Per side counts and accuracy, and the record with the analysis.
    rows = page.locator("#analysis-sides tbody tr")
    assert rows.count() == 2
    assert re.fullmatch(r"\d+ %", rows.nth(0).locator(".accuracy").inner_text())
    record = page.context.request.get(base + page.get_attribute("#analysis-record", "href"))
    assert record.status == 200 and "{" in record.text(), record.text()[:200]

    analysis = page.context.request.get(f"{base}/api/games/{finished}/analysis").json()["analysis"]
    blunders = page.locator('.replay-moves .ply[data-judgment="blunder"]')
    target = blunders.first if blunders.count() else judged.first
    ply = int(target.get_attribute("data-ply"))
    entry = analysis["plies"][ply - 1]
    target.click()
    page.wait_for_selector(f'.page-replay[data-ply="{ply}"]')
    mark = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}[entry["judgment"]]
    assert target.locator(".judg-mark").inner_text() == mark
    # The position before the move, the move played as a red arrow, the better move as the
    # first arrow of its line.
    best = page.locator(".board-arrows path.arrow-best")
    best.wait_for()
    assert page.get_attribute(".page-replay", "data-shown") == "before"
    assert best.get_attribute("data-move") == (entry["line"] or [entry["best"]])[0]
    assert page.get_attribute(".board-arrows path.arrow-played", "data-move") == entry["move"]
    assert entry["best"] and entry["best"] != entry["move"]
    replay = page.context.request.get(f"{base}/api/games/{finished}/positions").json()
    position = replay["positions"]
    assert page.locator(".board").get_attribute("data-ply") == str(ply)
    shown = {
        sq.get_attribute("data-square"): sq.get_attribute("data-piece")
        for sq in page.locator(".board [data-piece]:not([data-piece=''])").all()
    }
    assert len(shown) == sum(c in "ADK" for c in position[ply - 1].split()[0])
    note = page.inner_text("#analysis-ply")
    assert f"{entry['best']} was better" in note, note
    shot(page, "analysis-replay-judged-desktop", full=False)
    # The position after the move, on asking; no arrows there.
    page.click("#analysis-toggle")
    page.wait_for_selector('.page-replay[data-shown="after"]')
    assert page.locator(".board-arrows path").count() == 0
    # A click on the graph's start jumps to the start.
    graph.click(position={"x": 2, "y": 40})
    page.wait_for_selector('.page-replay[data-ply="0"]')
    box = graph.bounding_box()
    assert box is not None
    assert page.locator(".board-arrows path").count() == 0
    # The graph fits its column: no wider than the board.
    board = page.locator(".replay-board .board").bounding_box()
    assert board is not None and box["width"] <= board["width"] + 1
    check_layout(page)


@pytest.mark.parametrize("size", SIZES)
def test_an_analysed_replay_fits_the_screen(
    new_page: Any, hub: HubProcess, finished: str, size: dict[str, int]
) -> None:
    base = hub.url
    page = new_page(size)
    sign_up(page, base)
    page.request.post(f"{base}/api/games/{finished}/analysis", headers={"Origin": base})
    page.goto(f"{base}/replay/{finished}")
    wait_done(page, hub)
    page.wait_for_selector("#eval-graph svg")
    judged = page.locator(".replay-moves .ply[data-judgment]").first
    judged.click()
    page.wait_for_selector(".board-arrows path.arrow-best")
    graph = page.locator("#eval-graph svg").bounding_box()
    assert graph is not None and graph["x"] >= 0
    assert graph["x"] + graph["width"] <= size["width"]
    check_layout(page)
    shot(page, f"analysis-replay-{name_of(size)}", full=True)


@pytest.mark.parametrize("size", SIZES)
def test_the_analysis_board_from_the_replay_a_line_and_an_evaluation(
    new_page: Any, hub: HubProcess, finished: str, size: dict[str, int]
) -> None:
    base = hub.url
    page = new_page(size)
    page.goto(f"{base}/replay/{finished}?ply=2")
    page.wait_for_selector('.page-replay[data-ply="2"]')
    link = page.locator("#replay-board-link")
    link.wait_for()
    link.click()
    page.wait_for_url(re.compile(r"/analysis\?"))
    page.wait_for_selector('.page-analysis[data-ply="2"]')
    assert page.locator(".board").get_attribute("data-ply") == "2"
    assert "moves=" + "%2C".join(QUICK_ESCAPE) in page.url, page.url
    # Play a move for the side to move (the attackers after two plies) by clicks.
    legal = (page.locator(".board").get_attribute("data-legal") or "").split()
    assert legal, "no legal moves on the analysis board"
    move = next(m for m in legal if not m.startswith("K"))
    src, dst = re.match(r"^K?([a-g][1-7])-([a-g][1-7])", move).groups()  # type: ignore[union-attr]
    page.click(f'.board [data-square="{src}"]')
    page.click(f'.board [data-square="{dst}"]')
    page.wait_for_selector('.page-analysis[data-ply="3"]')
    # A new line from step 2: what followed is dropped, the URL says the new line.
    url_moves = re.search(r"moves=([^&]+)", page.url)
    assert url_moves, page.url
    assert url_moves.group(1).split("%2C") == [*QUICK_ESCAPE[:2], move]
    assert "ply=" not in page.url  # at the end of the line
    # Then a defenders' move: both sides move freely.
    legal = (page.locator(".board").get_attribute("data-legal") or "").split()
    reply = legal[0]
    src, dst = re.match(r"^K?([a-g][1-7])-([a-g][1-7])", reply).groups()  # type: ignore[union-attr]
    page.click(f'.board [data-square="{src}"]')
    page.click(f'.board [data-square="{dst}"]')
    page.wait_for_selector('.page-analysis[data-ply="4"]')
    # Step back with the keyboard and the button, forward again.
    page.locator("h1").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('.page-analysis[data-ply="3"]')
    assert "ply=3" in page.url
    page.click("#ab-prev")
    page.wait_for_selector('.page-analysis[data-ply="2"]')
    page.click("#ab-next")
    page.wait_for_selector('.page-analysis[data-ply="3"]')
    # The bot's evaluation of the position: chances in words, its best line as arrows.
    page.click("#ab-evaluate")
    page.wait_for_selector("#ab-eval[data-score]", timeout=60_000)
    said = page.inner_text("#ab-eval")
    assert re.search(r"Defenders \d+ % · attackers \d+ %|win\)", said), said
    assert page.locator(".board-arrows path.arrow-best").count() == 1
    # Away from the position the evaluation goes; back there it is shown again, unasked.
    page.click("#ab-prev")
    page.wait_for_selector('.page-analysis[data-ply="2"]')
    assert page.locator(".board-arrows path").count() == 0
    assert page.get_attribute("#ab-eval", "data-score") is None
    page.click("#ab-next")
    page.wait_for_selector('.page-analysis[data-ply="3"]')
    assert page.inner_text("#ab-eval") == said
    assert page.locator(".board-arrows path.arrow-best").count() == 1
    # The URL opens the same board anew.
    shared = page.url
    other = new_page(size)
    other.goto(shared)
    other.wait_for_selector('.page-analysis[data-ply="3"]')
    shown_here = page.locator(".board").get_attribute("data-position")
    assert other.locator(".board").get_attribute("data-position") == shown_here
    # A position that does not read is refused in words.
    page.fill("#ab-position", "not a position")
    page.click("#ab-set-position")
    error = page.locator("#ab-position-error")
    error.wait_for()
    assert "does not read" in error.inner_text()
    check_layout(page)
    shot(page, f"analysis-board-{name_of(size)}", full=True)


def test_the_game_page_offers_the_board_to_spectators_not_to_its_players(
    new_page: Any, hub: HubProcess
) -> None:
    base = hub.url
    game, cookie = run_async(_played(base, QUICK_ESCAPE[:2], finish=False))
    player = new_page(PHONE)
    player.context.add_cookies([{"name": "bd_session", "value": cookie, "url": base}])
    player.goto(f"{base}/g/{game}")
    player.wait_for_selector('.page-game[data-side="attackers"][data-status="active"]')
    assert player.locator("#game-board-link").is_hidden()
    # The server refuses an evaluation of the game's position anyway (to anyone).
    position = player.context.request.get(f"{base}/api/games/{game}").json()["state"]["position"]
    r = player.context.request.post(
        f"{base}/api/analysis/position",
        data={"ruleset": "nielsen", "position": position},
        headers={"Origin": base},
    )
    assert r.status == 403 and r.json()["error"] == "position_in_play", r.text()
    watcher = new_page(DESKTOP)
    watcher.goto(f"{base}/g/{game}")
    watcher.wait_for_selector('.page-game[data-side="spectator"]')
    link = watcher.locator("#game-board-link")
    link.wait_for()
    href = link.get_attribute("href") or ""
    assert href.startswith("/analysis?") and "moves=" + "%2C".join(QUICK_ESCAPE[:2]) in href, href
    shot(watcher, "analysis-game-spectator-desktop", full=False)


@pytest.mark.parametrize("size", SIZES)
def test_a_player_asks_from_the_game_over_panel_and_lands_on_the_replay(
    new_page: Any, hub: HubProcess, size: dict[str, int]
) -> None:
    base = hub.url
    game, cookie = run_async(_played(base, QUICK_ESCAPE))
    page = new_page(size)
    page.add_init_script(RECORD_STATUS)
    page.context.add_cookies([{"name": "bd_session", "value": cookie, "url": base}])
    page.goto(f"{base}/g/{game}")
    page.wait_for_selector('.page-game[data-status="ended"][data-side="attackers"]')
    ask = page.locator("#gameover-analysis")
    ask.wait_for()
    # After the end a player may open the board too.
    assert page.locator("#game-board-link").is_visible()
    check_layout(page)
    shot(page, f"analysis-gameover-{name_of(size)}", full=False)
    ask.click()
    page.wait_for_url(re.compile(rf"/replay/{game}$"))
    wait_done(page, hub)
    assert page.locator(".replay-moves .ply[data-judgment]").count() >= 1


@pytest.fixture(scope="module")
def tight_hub(
    tmp_path_factory: pytest.TempPathFactory, database_url: str, client_dist: Path, mailbox: Any
) -> Iterator[HubProcess]:
    """A hub with no worker, a queue of two games and one analysis an account a day: the
    refusals, on a Redis of its own (the other hub's worker would empty a shared queue)."""
    try:
        server = EmbeddedRedis(tmp_path_factory.mktemp("redis-tight"), appendonly=False)
    except RedisNotFound as exc:
        missing(str(exc))
    env = {
        "BRANDUBH_CLIENT_DIR": str(client_dist),
        "BRANDUBH_ANALYSIS_QUEUE_MAX": "2",
        "BRANDUBH_ANALYSIS_PER_ACCOUNT": "1",
        **mail_env(mailbox),
    }
    with server:
        proc = HubProcess(server.url, env=env, database_url=database_url).start()
        yield proc
        proc.stop()


def ask_on_replay(page: Page, base: str, game: str) -> None:
    page.goto(f"{base}/replay/{game}")
    page.locator("#analysis-request").click()


def test_refusals_in_words_limit_and_busy(new_page: Any, tight_hub: HubProcess) -> None:
    base = tight_hub.url
    games = [run_async(_played(base, QUICK_ESCAPE))[0] for _ in range(3)]
    one = new_page(DESKTOP)
    sign_up(one, base)
    ask_on_replay(one, base, games[0])
    one.wait_for_selector('#analysis[data-status="queued"]')
    assert one.inner_text("#analysis-status") == "Queued: yours is next."
    # The same account again: its day's analysis is spent.
    ask_on_replay(one, base, games[1])
    error = one.locator("#analysis-error")
    error.wait_for()
    assert error.inner_text().startswith("You have requested as many analyses"), error.inner_text()
    assert one.locator("#analysis-request").is_enabled()  # may try again later
    # Another account fills the queue's second place; a third finds it full.
    two = new_page(PHONE)
    sign_up(two, base)
    ask_on_replay(two, base, games[1])
    two.wait_for_selector('#analysis[data-status="queued"]')
    assert two.inner_text("#analysis-status") == "Queued: you are number 2."
    three = new_page(PHONE)
    sign_up(three, base)
    ask_on_replay(three, base, games[2])
    error = three.locator("#analysis-error")
    error.wait_for()
    said = error.inner_text()
    assert said.startswith("The analysis queue is full") and "number 3" in said, said
    check_layout(three)
    shot(three, "analysis-busy-phone", full=False)
    # A guest is not offered the button, and is told who may ask.
    guest = new_page(PHONE)
    guest.goto(f"{base}/replay/{games[2]}")
    guest.wait_for_selector('#analysis[data-status="none"]')
    assert guest.locator("#analysis-request").is_hidden()
    assert "confirmed account" in guest.inner_text("#analysis-status")
