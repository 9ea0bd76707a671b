"""Follows and blocks over real HTTP on real hubs, Redis and PostgreSQL: following a
player and seeing them online with the games they play; blocking and its effects (chat
lines hidden from the blocker, no quick pairing and no seek taken between the two); every
refusal and limit, each changing nothing.

A frame that must not arrive is checked with a barrier, never a wait: a later line on the
same game's channel of the same hub arrives after every earlier one (tests/hub/test_chat.py).
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest
import redis
from api_tokens import bearer, error_of, make_token

from brandubh.hub.redis import keys
from brandubh.hub.social import rules
from brandubh.store import Store, tables
from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Player, Socket

_n = iter(range(1, 1_000_000))


async def act(p: Player, what: str, whom: str) -> httpx.Response:
    return await p.http.post(f"/api/{what}/{whom}")


async def listed(p: Player, which: str) -> list[Msg]:
    r = await p.http.get(f"/api/{which}")
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    found: list[Msg] = r.json()[which]
    return found


async def profile(viewer: Player, whom: Player) -> Msg:
    r = await viewer.http.get(f"/api/players/{whom.id}")
    assert r.status_code == 200, r.text
    shown: Msg = r.json()
    return shown


async def reply(sock: Socket, msg_id: str) -> Msg:
    return await sock.recv_until(lambda m: m["t"] in ("ack", "error") and m.get("id") == msg_id)


async def started(creator: Player, joiner: Player) -> str:
    """A friend game between two accounts, started: its id."""
    created = await creator.create_game(opponent="friend", ruleset="walker", move_time=600)
    await joiner.join(created["invite"])
    return str(created["id"])


async def accounts_made(database_url: str, n: int) -> list[str]:
    """``n`` confirmed accounts written straight into PostgreSQL: the limits' fillers."""
    ids = [f"fill{secrets.token_hex(6)}" for _ in range(n)]
    store = Store.from_url(database_url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(
                tables.accounts.insert(),
                [
                    {"id": i, "email": f"{i}@example.org", "name": i[:20], "password_hash": "x"}
                    | {"created": 0, "verified": True}
                    for i in ids
                ],
            )
    finally:
        await store.close()
    return ids


async def related(database_url: str, table: Any, one: str, others: list[str]) -> None:
    """Rows of a follows or blocks table from ``one`` to each of ``others``, straight in."""
    store = Store.from_url(database_url)
    try:
        async with store.engine.begin() as conn:
            cols = list(table.c.keys())
            await conn.execute(
                table.insert(), [{cols[0]: one, cols[1]: o, "created": 0} for o in others]
            )
    finally:
        await store.close()


async def test_a_followed_player_is_listed_online_with_the_games_to_watch(
    hub: HubProcess,
) -> None:
    ann = await Player(hub.url).signup(name="Ann Follows")
    bob = await Player(hub.url).signup(name="Bob Played")
    cat = await Player(hub.url).signup(name="Cat Opponent")
    assert (await profile(ann, bob))["following"] is False
    r = await act(ann, "follow", bob.id)
    assert r.status_code == 200 and r.json() == {"id": bob.id, "following": True}
    assert (await act(ann, "follow", bob.id)).status_code == 200  # again: no change
    shown = await profile(ann, bob)
    assert shown["following"] is True and shown["blocking"] is False
    assert (await profile(bob, ann))["following"] is False  # one way only
    [entry] = await listed(ann, "following")
    assert entry["id"] == bob.id and entry["name"] == "Bob Played"
    assert entry["online"] is False and entry["games"] == [] and entry["bot"] is False

    game = await started(cat, bob)
    sock = await bob.connect()

    async def online_with_game() -> Msg | None:
        [e] = await listed(ann, "following")
        return e if e["online"] and e["games"] else None

    entry = await wait_for(online_with_game, "Bob shown online, playing")
    assert entry["games"] == [
        {
            "id": game,
            "url": f"/g/{game}",
            "ruleset": "walker",
            "move_time": 600,
            "rated": entry["games"][0]["rated"],
            "bot": False,
            "opponent": {"id": cat.id, "name": "Cat Opponent"},
        }
    ]
    # Anyone may open the game the list points at: a spectator's snapshot.
    watcher = await ann.connect()
    snap = await watcher.watch(game)
    assert snap["state"]["id"] == game
    await watcher.close()

    # A token with games:read reads the same list; one without it is refused.
    read = await make_token(ann, "reader", ["games:read"])
    other = await make_token(ann, "player", ["bot:play"])
    async with bearer(hub, read["token"]) as program:
        r = await program.get("/api/following")
        assert r.status_code == 200 and r.json()["following"][0]["id"] == bob.id
        assert (await program.get("/api/blocking")).json() == {"blocking": []}
    async with bearer(hub, other["token"]) as program:
        r = await program.get("/api/following")
        assert r.status_code == 403 and error_of(r) == "token_scope"

    r = await act(ann, "unfollow", bob.id)
    assert r.status_code == 200 and r.json() == {"id": bob.id, "following": False}
    assert (await act(ann, "unfollow", bob.id)).status_code == 200  # again: no change
    assert await listed(ann, "following") == []
    assert (await profile(ann, bob))["following"] is False
    await sock.close()
    for p in (ann, bob, cat):
        await p.close()


async def test_follow_and_block_refusals_change_nothing(hub: HubProcess) -> None:
    ann = await Player(hub.url).signup()
    bob = await Player(hub.url).signup()
    for what in ("follow", "unfollow", "block", "unblock"):
        r = await act(ann, what, ann.id)
        assert r.status_code == 400 and error_of(r) == "bad_field", r.text
        assert "yourself" in r.json()["message"]
        r = await act(ann, what, "nobody-such")
        assert r.status_code == 404 and error_of(r) == "not_found"
        async with httpx.AsyncClient(base_url=hub.url) as stranger:  # no session, no Origin
            r = await stranger.post(f"/api/{what}/{bob.id}", headers={"Origin": hub.url})
            assert r.status_code == 401 and error_of(r) == "not_logged_in"
        # From another site: refused before anything is read.
        r = await ann.http.post(f"/api/{what}/{bob.id}", headers={"Origin": "https://evil.test"})
        assert r.status_code == 403 and error_of(r) == "forbidden"
    guest = await Player(hub.url).guest()
    r = await act(guest, "follow", bob.id)
    assert r.status_code == 401 and error_of(r) == "not_logged_in"
    async with httpx.AsyncClient(base_url=hub.url) as stranger:
        for which in ("following", "blocking"):
            r = await stranger.get(f"/api/{which}")
            assert r.status_code == 401 and error_of(r) == "not_logged_in"
    assert await listed(ann, "following") == [] and await listed(ann, "blocking") == []
    for p in (ann, bob, guest):
        await p.close()


async def test_the_limits_on_follows_blocks_and_acts(hub: HubProcess, database_url: str) -> None:
    ann = await Player(hub.url).signup()
    bob = await Player(hub.url).signup()
    fillers = await accounts_made(database_url, max(rules.MAX_FOLLOWS, rules.MAX_BLOCKS))
    await related(database_url, tables.follows, ann.id, fillers[: rules.MAX_FOLLOWS])
    r = await act(ann, "follow", bob.id)
    assert r.status_code == 409 and error_of(r) == "too_many_followed"
    assert str(rules.MAX_FOLLOWS) in r.json()["message"]
    assert len(await listed(ann, "following")) == rules.MAX_FOLLOWS
    await related(database_url, tables.blocks, ann.id, fillers[: rules.MAX_BLOCKS])
    r = await act(ann, "block", bob.id)
    assert r.status_code == 409 and error_of(r) == "too_many_blocked"
    assert bob.id not in {b["id"] for b in await listed(ann, "blocking")}

    # The acts themselves: so many a window, then 429 with Retry-After, nothing done.
    cat = await Player(hub.url).signup()
    dan = await Player(hub.url).signup()
    for _ in range(rules.ACTIONS):
        assert (await act(cat, "unfollow", dan.id)).status_code == 200
    r = await act(cat, "follow", dan.id)
    assert r.status_code == 429 and error_of(r) == "rate_limited"
    assert 1 <= int(r.headers["retry-after"]) <= rules.WINDOW_S
    assert await listed(cat, "following") == []
    for p in (ann, bob, cat, dan):
        await p.close()


async def test_a_block_is_listed_undone_and_ends_follows_both_ways(hub: HubProcess) -> None:
    ann = await Player(hub.url).signup(name="Ann Blocks")
    bob = await Player(hub.url).signup(name="Bob Blocked")
    assert (await act(ann, "follow", bob.id)).status_code == 200
    assert (await act(bob, "follow", ann.id)).status_code == 200
    r = await act(ann, "block", bob.id)
    assert r.status_code == 200 and r.json() == {"id": bob.id, "blocking": True}
    assert (await act(ann, "block", bob.id)).status_code == 200  # again: no change
    [entry] = await listed(ann, "blocking")
    assert entry["id"] == bob.id and entry["name"] == "Bob Blocked" and entry["since"] > 0
    assert await listed(ann, "following") == [] and await listed(bob, "following") == []
    shown = await profile(ann, bob)
    assert shown["blocking"] is True and shown["following"] is False
    # Neither follows the other while the block stands, whoever asks.
    for one, other in ((bob, ann), (ann, bob)):
        r = await act(one, "follow", other.id)
        assert r.status_code == 403 and error_of(r) == "blocked", r.text
    assert await listed(bob, "blocking") == []  # the blocked one has no list of it
    r = await act(ann, "unblock", bob.id)
    assert r.status_code == 200 and r.json() == {"id": bob.id, "blocking": False}
    assert await listed(ann, "blocking") == []
    assert (await profile(ann, bob))["blocking"] is False
    assert (await act(bob, "follow", ann.id)).status_code == 200
    for p in (ann, bob):
        await p.close()


async def say(sock: Socket, game: str, text: str) -> Msg:
    msg_id = f"c{next(_n)}"
    await sock.send({"t": "chat", "game": game, "room": "players", "text": text, "id": msg_id})
    return await sock.reply_to(msg_id)


async def heard(sock: Socket, game: str, text: str) -> Msg:
    return await sock.seen_or_next(
        lambda m: m["t"] == "chat" and m["game"] == game and m["text"] == text
    )


@pytest.mark.cluster
async def test_the_blocker_sees_no_chat_line_of_the_blocked(
    hub: HubProcess, hub2: HubProcess
) -> None:
    ann = await Player(hub.url).signup()
    bob = await Player(hub.url).signup()
    game = await started(ann, bob)
    b = await bob.connect(hub2.url)
    await b.watch(game)
    assert (await say(b, game, "before the block"))["t"] == "ack"
    assert (await act(ann, "block", bob.id)).status_code == 200
    a = await ann.connect(hub.url)
    await a.watch(game)
    first = await a.recv_until(lambda m: m["t"] == "chat_lines" and m["game"] == game)
    assert first["lines"] == []  # the earlier line is not in the blocker's catch-up
    # The blocked one may still say lines (and sees them); the blocker never gets them.
    assert (await say(b, game, "after the block"))["t"] == "ack"
    await heard(b, game, "after the block")
    assert (await say(a, game, "barrier"))["t"] == "ack"
    await heard(a, game, "barrier")
    await heard(b, game, "barrier")  # the blocker's lines still reach the blocked one
    assert [m["text"] for m in a.frames if m["t"] == "chat"] == ["barrier"]
    r = await ann.http.get(f"/api/games/{game}/chat")
    assert [x["text"] for x in r.json()["lines"]] == ["barrier"]
    r = await bob.http.get(f"/api/games/{game}/chat")
    assert [x["text"] for x in r.json()["lines"]] == [
        "before the block",
        "after the block",
        "barrier",
    ]
    for sock in (a, b):
        await sock.close()
    for p in (ann, bob):
        await p.close()


@pytest.mark.cluster
async def test_no_quick_pairing_and_no_seek_taken_between_a_blocker_and_the_blocked(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    ann = await Player(hub.url).signup()
    bob = await Player(hub.url).signup()
    cat = await Player(hub.url).signup()
    assert (await act(ann, "block", bob.id)).status_code == 200
    a, b, c = (await ann.connect(), await bob.connect(), await cat.connect())
    terms = {"t": "quick", "ruleset": "federation", "move_time": 1800}
    # Either order: the one who joins second is not paired with the first.
    await a.send({**terms, "id": "qa"})
    assert (await reply(a, "qa"))["game"] is None
    await b.send({**terms, "id": "qb"})
    assert (await reply(b, "qb"))["game"] is None
    waiting = {k.decode() for k in redis_sync.zrange(keys.pool("federation", 1800), 0, -1)}
    assert {ann.id, bob.id} <= waiting
    # A third player is paired with one of them; the other still waits.
    await c.send({**terms, "id": "qc"})
    paired = (await reply(c, "qc"))["game"]
    assert paired is not None
    players = {p["id"] for p in (await cat.game(paired))["state"]["players"].values() if p}
    left = ({ann.id, bob.id} - players).pop()
    assert cat.id in players and len(players & {ann.id, bob.id}) == 1
    assert redis_sync.hget(keys.pools(), left) is not None
    lone = a if left == ann.id else b
    await lone.send({"t": "cancel_quick", "id": "cq"})
    assert (await reply(lone, "cq"))["left"] is True

    # Seeks: the blocked one cannot take the blocker's (nor the other way); others can.
    dan = await Player(hub.url).signup()
    d = await dan.connect()
    await a.send({"t": "seek", "ruleset": "federation", "move_time": 1800, "id": "s"})
    seek = (await reply(a, "s"))["seek"]
    await b.send({"t": "accept_seek", "seek": seek, "id": "x"})
    refused = await reply(b, "x")
    assert refused["t"] == "error" and refused["code"] == "blocked"
    await b.send({"t": "seek", "ruleset": "federation", "move_time": 1800, "id": "s2"})
    seek2 = (await reply(b, "s2"))["seek"]
    await a.send({"t": "accept_seek", "seek": seek2, "id": "x2"})
    assert (await reply(a, "x2"))["code"] == "blocked"
    await d.send({"t": "accept_seek", "seek": seek, "id": "y"})
    assert (await reply(d, "y"))["t"] == "ack"  # the seek stayed open for others
    await b.send({"t": "cancel_seek", "seek": seek2, "id": "z"})
    await reply(b, "z")
    for sock in (a, b, c, d):
        await sock.close()
    for p in (ann, bob, cat, dan):
        await p.close()


async def test_no_challenge_is_made_or_accepted_across_a_block(hub: HubProcess) -> None:
    ann = await Player(hub.url).signup(name="Ann Blocker")
    ben = await Player(hub.url).signup(name="Ben Blocked")
    # A challenge made before the block cannot be accepted after it.
    r = await ben.http.post(f"/api/challenge/{ann.id}", json={"move_time": 600})
    assert r.status_code == 201, r.text
    before = r.json()["challenge"]["id"]
    assert (await act(ann, "block", ben.id)).status_code == 200
    r = await ann.http.post(f"/api/challenge/{before}/accept")
    assert r.status_code == 403 and error_of(r) == "blocked"
    assert "decline it" in r.json()["message"]
    assert (await ann.game(before))["state"]["status"] == "waiting"  # nothing started
    # Neither challenges the other; the words say whose block it is, and no more.
    r = await ben.http.post(f"/api/challenge/{ann.id}", json={"move_time": 600})
    assert r.status_code == 403 and error_of(r) == "blocked"
    assert r.json()["message"] == "Ann Blocker does not accept challenges from you"
    r = await ann.http.post(f"/api/challenge/{ben.id}", json={"move_time": 600})
    assert r.status_code == 403 and error_of(r) == "blocked"
    assert "unblock" in r.json()["message"]
    listed = (await ann.http.get("/api/challenge")).json()
    assert listed["out"] == [] and [c["id"] for c in listed["in"]] == [before]
    # Unblocked: challenges go again.
    assert (await act(ann, "unblock", ben.id)).status_code == 200
    r = await ben.http.post(f"/api/challenge/{ann.id}", json={"move_time": 600})
    assert r.status_code == 201, r.text
    for p in (ann, ben):
        await p.close()
