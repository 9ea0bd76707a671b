"""Game chat over two real hubs, Redis and PostgreSQL: the rooms and who sees them, the
lines' own numbering beside the events, the limits, muting, reports, the archive.

A frame that must not arrive is checked with a barrier, never a wait: a later line on the
same game's channel of the same hub arrives after every earlier one, so once the later
line is in, an earlier one that was not will not come.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from brandubh.hub.chat.service import PER_ACCOUNT, PER_ROOM
from brandubh.store import Store
from services import HubProcess
from waiting import wait_for
from wsclient import Player, Socket, friend_game

Msg = dict[str, Any]
_n = iter(range(1, 1_000_000))


async def say(sock: Socket, game: str, room: str, text: str) -> Msg:
    """Send a line; the ack or error answering it."""
    msg_id = f"c{next(_n)}"
    await sock.send({"t": "chat", "game": game, "room": room, "text": text, "id": msg_id})
    return await sock.reply_to(msg_id)


async def heard(sock: Socket, game: str, room: str, text: str) -> Msg:
    return await sock.seen_or_next(
        lambda m: m["t"] == "chat" and m["game"] == game and m["room"] == room
        and m["text"] == text
    )  # fmt: skip


def lines_seen(sock: Socket, game: str) -> list[str]:
    return [m["text"] for m in sock.frames if m["t"] == "chat" and m["game"] == game]


async def chat_lines(sock: Socket, game: str) -> Msg:
    return await sock.recv_until(lambda m: m["t"] == "chat_lines" and m["game"] == game)


async def test_players_chat_across_hubs_apart_from_the_events(
    hub: HubProcess, hub2: HubProcess
) -> None:
    game, alice, bob = await friend_game(hub.url)
    a = await alice.connect(hub.url)
    snap = await a.watch(game)
    first = await chat_lines(a, game)
    assert first["room"] == "players" and first["lines"] == []
    b = await bob.connect(hub2.url)
    await b.watch(game)
    await chat_lines(b, game)

    ack = await say(a, game, "players", "Hello")
    assert ack["t"] == "ack" and ack["of"] == "chat" and ack["n"] == 1
    line = await heard(b, game, "players", "Hello")
    assert line["n"] == 1 and line["from"] == {"id": alice.id, "name": alice.me["name"]}
    await heard(a, game, "players", "Hello")  # the sender's own socket too
    assert (await say(b, game, "players", "Good luck"))["n"] == 2
    await heard(a, game, "players", "Good luck")

    # The lines took no event number: the first move is still the event after the snapshot.
    mover, other = (a, b) if snap["state"]["turn"] == "attackers" and snap["state"][
        "players"]["attackers"]["id"] == alice.id else (b, a)  # fmt: skip
    legal = snap["state"]["legal"][0]
    await mover.move(game, 0, legal)
    ev = await other.event(snap["n"] + 1)
    assert ev["kind"] == "move"

    # A reconnect with since gets exactly the events, then the chat's latest lines.
    again = await bob.connect(hub.url)
    await again.send({"t": "watch", "game": game, "since": snap["n"]})
    got = await again.recv_until(lambda m: m["t"] in ("event", "snapshot"))
    assert got["t"] == "event" and got["n"] == snap["n"] + 1
    recent = await chat_lines(again, game)
    assert [(x["n"], x["text"]) for x in recent["lines"]] == [(1, "Hello"), (2, "Good luck")]
    for sock in (a, b, again):
        await sock.close()


async def test_spectators_have_their_own_room_which_players_do_not_see(
    hub: HubProcess, hub2: HubProcess
) -> None:
    game, alice, _bob = await friend_game(hub.url)
    a = await alice.connect(hub2.url)
    await a.watch(game)
    carol = await Player(hub.url).signup()
    c = await carol.connect(hub2.url)
    await c.watch(game)
    assert (await chat_lines(c, game))["room"] == "spectators"
    visitor = await Socket.open(hub2.url)  # no session: reads the spectator room
    await visitor.watch(game)
    await chat_lines(visitor, game)

    assert (await say(c, game, "spectators", "nice opening"))["n"] == 1
    await heard(visitor, game, "spectators", "nice opening")
    # Each may write only in the room it sees.
    refused = await say(c, game, "players", "psst")
    assert refused["t"] == "error" and refused["code"] == "chat_room"
    refused = await say(a, game, "spectators", "hi all")
    assert refused["t"] == "error" and refused["code"] == "chat_room"
    refused = await say(visitor, game, "spectators", "hi")
    assert refused["code"] == "account_required"

    # A player line after the spectator's, on the same hub: once it is in, the spectator
    # line would have come before it, and did not.
    await say(a, game, "players", "gl")
    await heard(a, game, "players", "gl")
    assert lines_seen(a, game) == ["gl"]
    await say(c, game, "spectators", "barrier")
    await heard(visitor, game, "spectators", "barrier")
    assert lines_seen(visitor, game) == ["nice opening", "barrier"]  # never the players'
    # A player's snapshot brings the player room only.
    again = await alice.connect(hub.url)
    await again.watch(game)
    assert [x["text"] for x in (await chat_lines(again, game))["lines"]] == ["gl"]
    for sock in (a, c, visitor, again):
        await sock.close()


async def test_a_line_is_text_and_control_characters_go(hub: HubProcess) -> None:
    game, alice, _bob = await friend_game(hub.url)
    a = await alice.connect()
    await a.watch(game)
    injected = '<img src=x onerror="alert(1)"> <a href="http://x">x</a>'
    assert (await say(a, game, "players", injected))["t"] == "ack"
    assert (await heard(a, game, "players", injected))["text"] == injected
    ack = await say(a, game, "players", "  a\u202eb\x00c\n\td\u200b ")
    assert ack["t"] == "ack"
    line = await a.seen_or_next(lambda m: m["t"] == "chat" and m["n"] == ack["n"])
    assert line["text"] == "ab c d"  # the override and the zero width go, controls space
    assert (await say(a, game, "players", "\x00\u200b"))["code"] == "bad_field"
    # Fillers and tag characters draw nothing: such a line is refused.
    for blank in ("\u3164\u3164", "\u115f", "\U000e0041\U000e0042"):
        assert (await say(a, game, "players", blank))["code"] == "bad_field", ascii(blank)
    assert (await say(a, game, "players", "x" * 141))["code"] == "bad_field"
    await a.close()


async def test_an_account_and_a_room_are_rate_limited_across_hubs(
    hub: HubProcess, hub2: HubProcess
) -> None:
    game, alice, _bob = await friend_game(hub.url)
    a1 = await alice.connect(hub.url)
    a2 = await alice.connect(hub2.url)  # the same account on another hub shares the limit
    for sock in (a1, a2):
        await sock.watch(game)
    answers = [
        await say(a1 if i % 2 else a2, game, "players", f"line {i}") for i in range(PER_ACCOUNT + 1)
    ]
    assert [x["t"] for x in answers] == ["ack"] * PER_ACCOUNT + ["error"]
    assert answers[-1]["code"] == "rate_limited"
    # Numbered in the order Redis took them, one sequence for both hubs.
    assert [x["n"] for x in answers[:-1]] == list(range(1, PER_ACCOUNT + 1))

    # The spectator room takes PER_ROOM lines a window from everyone together.
    watchers = [await Player(hub.url).signup() for _ in range(PER_ROOM // PER_ACCOUNT + 1)]
    socks = []
    for i, watcher in enumerate(watchers):
        sock = await watcher.connect(hub.url if i % 2 else hub2.url)
        await sock.watch(game)
        socks.append(sock)
    said = []
    for sock in socks:
        for i in range(PER_ACCOUNT):
            said.append((await say(sock, game, "spectators", f"s{i}"))["t"])
            if said[-1] == "error":
                break
        if said[-1] == "error":
            break
    assert said.count("ack") == PER_ROOM and said[-1] == "error"
    for sock in (a1, a2, *socks):
        await sock.close()


async def test_a_muted_accounts_lines_reach_only_itself(
    hub: HubProcess, hub2: HubProcess, database_url: str
) -> None:
    game, alice, bob = await friend_game(hub.url)
    store = Store.from_url(database_url)
    try:
        assert await store.set_muted(bob.id, True)
        a = await alice.connect(hub.url)
        await a.watch(game)
        b1 = await bob.connect(hub.url)
        b2 = await bob.connect(hub2.url)
        for sock in (b1, b2):
            await sock.watch(game)
        assert (await say(b1, game, "players", "troll line"))["t"] == "ack"
        await heard(b1, game, "players", "troll line")
        await heard(b2, game, "players", "troll line")  # its own sockets, any hub
        await say(a, game, "players", "after")
        await heard(a, game, "players", "after")
        assert lines_seen(a, game) == ["after"]
        # Nor in a snapshot: the opponent's has none of it, its own has it.
        for player, want in ((alice, ["after"]), (bob, ["troll line", "after"])):
            sock = await player.connect(hub2.url)
            await sock.watch(game)
            assert [x["text"] for x in (await chat_lines(sock, game))["lines"]] == want
            await sock.close()
        for sock in (a, b1, b2):
            await sock.close()
    finally:
        await store.close()


async def test_no_chat_in_a_bot_game(hub: HubProcess) -> None:
    alice = await Player(hub.url).signup()
    game = (await alice.create_game(opponent="bot"))["id"]
    a = await alice.connect()
    await a.watch(game)
    assert (await chat_lines(a, game))["room"] is None
    assert (await say(a, game, "players", "hi bot"))["code"] == "no_chat"
    await a.close()


async def test_an_unconfirmed_account_reads_but_does_not_write(hub: HubProcess) -> None:
    game, _alice, _bob = await friend_game(hub.url)
    dave = await Player(hub.url).signup(verify=False)
    await dave.login()
    sock = await dave.connect()
    await sock.watch(game)
    await chat_lines(sock, game)
    answer = await say(sock, game, "spectators", "hi")
    assert answer["code"] in ("verification_required", "account_required")
    await sock.close()


async def test_a_report_is_kept_and_the_player_chat_archived_for_its_players(
    hub: HubProcess, database_url: str
) -> None:
    game, alice, bob = await friend_game(hub.url)
    a = await alice.connect()
    await a.watch(game)
    ack = await say(a, game, "players", "rude words")
    msg = {"t": "report", "game": game, "room": "players", "line": ack["n"], "id": "r1"}
    b = await bob.connect()
    await b.watch(game)
    await b.send(msg)
    assert (await b.reply_to("r1"))["duplicate"] is False
    await b.send(msg | {"id": "r2"})
    assert (await b.reply_to("r2"))["duplicate"] is True
    await b.send(msg | {"line": 99, "id": "r3"})
    assert (await b.reply_to("r3"))["code"] == "not_found"

    await a.send({"t": "resign", "game": game, "id": "x1"})
    await a.reply_to("x1")
    ack = await say(b, game, "players", "Good game")  # after the end: archived too
    assert ack["t"] == "ack"
    store = Store.from_url(database_url)
    try:
        reports = [r for r in await store.chat_reports() if r.game_id == game]
        assert [(r.text, r.author_id, r.reporter_id) for r in reports] == [
            ("rude words", alice.id, bob.id)
        ]

        async def both_archived() -> Any:  # the ending's archive runs beside the game
            archived = await store.archived_chat(game)
            return archived if len(archived) == 2 else None

        archived = await wait_for(both_archived, "the chat's two lines archived", 10)
        assert [x["text"] for x in archived] == ["rude words", "Good game"]
    finally:
        await store.close()
    r = await alice.http.get(f"/api/games/{game}/chat")
    assert [x["text"] for x in r.json()["lines"]] == ["rude words", "Good game"]
    carol = await Player(hub.url).signup()
    r = await carol.http.get(f"/api/games/{game}/chat")
    assert r.status_code == 403 and r.json()["error"] == "chat_room"
    for sock in (a, b):
        await sock.close()


@pytest.mark.parametrize("off", [True, False])
async def test_chat_off_is_remembered_with_the_account(hub: HubProcess, off: bool) -> None:
    alice = await Player(hub.url).signup()
    r = await alice.http.put("/api/me/chat", json={"chat_off": off})
    assert r.status_code == 200 and r.json() == {"chat_off": off}
    assert (await alice.http.get("/api/me/chat")).json() == {"chat_off": off}


async def test_the_moderation_command_lists_reports_mutes_and_clears(
    hub: HubProcess, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from brandubh.run.cli import main

    game, alice, bob = await friend_game(hub.url)
    a = await alice.connect()
    await a.watch(game)
    b = await bob.connect()
    await b.watch(game)
    first = await say(a, game, "players", "<b>spam</b>\u202e")
    second = await say(a, game, "players", "more spam")
    for n, msg_id in ((first["n"], "q1"), (second["n"], "q2")):
        await b.send({"t": "report", "game": game, "room": "players", "line": n, "id": msg_id})
        await b.reply_to(msg_id)
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()

    def run(*args: str) -> str:
        done = runner.invoke(main, ["moderation", *args], catch_exceptions=False)
        assert done.exit_code == 0, done.output
        return done.output

    listed = [
        line for line in (await asyncio.to_thread(run, "reports")).splitlines() if game in line
    ]
    assert len(listed) == 2 and "'<b>spam</b>'" in listed[0] and alice.id in listed[0]
    report_id = listed[0].split()[0].lstrip("#")
    assert "cleared" in await asyncio.to_thread(run, "clear", report_id)
    await asyncio.to_thread(run, "mute", alice.id)
    assert game not in await asyncio.to_thread(run, "reports")  # the other closed by the mute
    assert game in await asyncio.to_thread(run, "reports", "--status", "muted")

    # Muted now: alice's next line reaches bob no more.
    await say(a, game, "players", "unseen")
    await heard(a, game, "players", "unseen")
    await say(b, game, "players", "barrier")
    await heard(b, game, "players", "barrier")
    assert "unseen" not in lines_seen(b, game)
    await asyncio.to_thread(run, "unmute", alice.id)
    for sock in (a, b):
        await sock.close()
