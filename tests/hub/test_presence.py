"""Presence, turn notices and the "your games" list, over real hubs, websockets and Redis;
and how the hub serves the client's files (gzip, cache headers, its own not-found page)."""

from __future__ import annotations

from typing import Any

import httpx
import msgpack

from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import Player as Seat
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.wire.presence import PRESENCE_TTL_MS, Presence
from services import HubProcess
from waiting import wait_for
from wsclient import Player, Socket, friend_game, side_of


def presence_of(sock: Socket, game: str) -> list[str] | None:
    frames = [m for m in sock.frames if m["t"] == "presence" and m["game"] == game]
    return frames[-1]["online"] if frames else None


async def test_each_player_and_spectators_see_who_is_connected(
    hub: HubProcess, hub2: HubProcess
) -> None:
    game, alice, bob = await friend_game(hub.url)
    a = await alice.connect(hub.url)
    await a.watch(game)
    first = await a.recv_until(lambda m: m["t"] == "presence")
    assert first["online"] == [alice.id]

    spectator = await Socket.open(hub2.url)
    await spectator.watch(game)
    seen = await spectator.recv_until(lambda m: m["t"] == "presence")
    assert seen["online"] == [alice.id]

    b = await bob.connect(hub2.url)  # the other player, on another hub
    await b.watch(game)
    both = sorted([alice.id, bob.id])
    await a.recv_until(lambda m: m["t"] == "presence" and m["online"] == both)
    await spectator.recv_until(lambda m: m["t"] == "presence" and m["online"] == both)

    await b.close()  # bob closes the tab: everyone is told at once
    await a.recv_until(lambda m: m["t"] == "presence" and m["online"] == [alice.id])
    await spectator.recv_until(lambda m: m["t"] == "presence" and m["online"] == [alice.id])
    await a.close()
    await spectator.recv_until(lambda m: m["t"] == "presence" and m["online"] == [])
    await spectator.close()


async def test_turn_notice_and_your_games_list(hub: HubProcess, hub2: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url, move_time=3600)
    state = (await alice.game(game))["state"]
    mover, waiter = (alice, bob) if side_of(state, alice) == "attackers" else (bob, alice)

    async with httpx.AsyncClient(base_url=hub.url, cookies={"bd_session": mover.cookie}) as c:
        mine = (await c.get("/api/me/games")).json()
    assert mine["your_move"] == 1
    assert [g["id"] for g in mine["playing"]] == [game]
    card = mine["playing"][0]
    assert card["your_move"] is True and card["side"] == "attackers"
    assert card["opponent"]["id"] == waiter.id and card["deadline"]

    # The waiter's socket, on another hub, follows no game: it is told when its turn comes.
    w = await waiter.connect(hub2.url)
    m = await mover.connect(hub.url)
    await m.watch(game)
    await m.move(game, 0, state["legal"][0])
    notice = await w.recv_until(lambda f: f["t"] == "turn")
    assert notice["game"] == game and notice["ply"] == 1
    assert notice["opponent"] == state["players"]["attackers"]["name"]
    async with httpx.AsyncClient(base_url=hub.url, cookies={"bd_session": waiter.cookie}) as c:
        theirs = (await c.get("/api/me/games")).json()
    assert theirs["your_move"] == 1 and theirs["playing"][0]["last"] == state["legal"][0]

    await m.send({"t": "resign", "game": game, "id": "r1"})
    await m.reply_to("r1")
    async with httpx.AsyncClient(base_url=hub.url, cookies={"bd_session": waiter.cookie}) as c:
        after = (await c.get("/api/me/games")).json()
    assert after["playing"] == [] and after["your_move"] == 0
    await m.close()
    await w.close()


async def test_a_turn_notice_skips_the_sockets_that_follow_the_game(
    hub: HubProcess, hub2: HubProcess
) -> None:
    # An hour a move: the notice also goes through the hubs' channel to the other hub.
    game, alice, bob = await friend_game(hub.url, move_time=3600)
    state = (await alice.game(game))["state"]
    mover, waiter = (alice, bob) if side_of(state, alice) == "attackers" else (bob, alice)
    following = [await waiter.connect(url) for url in (hub.url, hub2.url)]
    for sock in following:
        await sock.watch(game)
    elsewhere = [await waiter.connect(url) for url in (hub.url, hub2.url)]
    m = await mover.connect(hub.url)
    await m.watch(game)
    await m.move(game, 0, state["legal"][0])
    for sock in elsewhere:  # the waiter's sockets on other pages: told, on both hubs
        notice = await sock.recv_until(lambda f: f["t"] == "turn")
        assert notice["game"] == game and notice["ply"] == 1
    for n, sock in enumerate(following):  # those on the game's page: its event says it
        event = await sock.recv_until(lambda f: f["t"] == "event" and f["state"]["ply"] == 1)
        assert event["state"]["turn"] == "defenders"
        # A round trip after the notices went out (the other hub's came before its
        # sockets' notices above): a turn frame sent to this socket would be in by now.
        await sock.send({"t": "ping", "n": 100 + n})
        await sock.recv_until(lambda f, n=n: f["t"] == "pong" and f.get("n") == 100 + n)
        assert [f for f in sock.frames if f["t"] == "turn"] == []
    for sock in [*following, *elsewhere, m]:
        await sock.close()


async def test_a_guest_has_no_games_listed(hub: HubProcess) -> None:
    guest = await Player(hub.url).start()
    async with httpx.AsyncClient(base_url=hub.url, cookies={"bd_session": guest.cookie}) as c:
        body = (await c.get("/api/me/games")).json()
    assert body == {"playing": [], "finished": [], "your_move": 0}


def test_assets_are_gzipped_and_cached_and_unknown_pages_get_the_app(web_hub: HubProcess) -> None:
    with httpx.Client(base_url=web_hub.url) as c:
        index = c.get("/")
        script = next(
            part.split('"')[0] for part in index.text.split('src="')[1:] if "/assets/" in part
        )
        asset = c.get(script, headers={"Accept-Encoding": "gzip"})
        assert asset.status_code == 200
        assert asset.headers["content-encoding"] == "gzip"
        assert "immutable" in asset.headers["cache-control"]
        missing = c.get("/no/such/page")
        assert missing.status_code == 404
        assert '<div id="app"' in missing.text
        api_missing = c.get("/api/nothing-here")
        assert api_missing.status_code == 404
        assert api_missing.json()["error"] == "not_found"


async def test_a_bot_game_its_player_left_is_not_on_the_watch_list(hub: HubProcess) -> None:
    guest = await Player(hub.url).start()
    created = await guest.create_game(opponent="bot", move_time=604800)
    game = created["id"]
    player = await guest.connect()
    await player.watch(game)  # the player is there: the game is listed

    async def listed() -> bool:
        watcher = await Socket.open(hub.url)
        await watcher.send({"t": "lobby", "on": True})
        snap = await watcher.recv_until(lambda m: m["t"] == "lobby")
        await watcher.close()
        return any(g["id"] == game for g in snap["games"])

    assert await listed()
    await player.close()  # the player leaves the bot game: nobody is playing it

    async def unlisted() -> bool:  # the hub notices the close in its own time
        return not await listed()

    await wait_for(unlisted, "the abandoned bot game off the watch list", 5, 0.1)


async def test_each_presence_change_has_a_later_version_even_after_its_hash_expired(
    redis_async: Any,
) -> None:
    presence = Presence(Scripts.register(redis_async).presence)
    game = "PvErSiOn0001"
    await presence.update(game, "c1", "alice", "add")
    first, _ = await presence.frame(game)
    await presence.update(game, "c1", "alice", "add")  # a renewal: nothing changed
    assert (await presence.frame(game))[0] == first
    await presence.update(game, "c2", "bob", "add")
    second, frame = await presence.frame(game)
    assert second > first
    assert msgpack.unpackb(frame)["online"] == ["alice", "bob"]
    # The hash that holds the version runs out (no change for hours): the next change
    # still takes a later version than any a socket may have been sent.
    await redis_async.delete(keys.gone(game))
    await presence.update(game, "c2", "bob", "del")
    third, frame = await presence.frame(game)
    assert third > second
    assert msgpack.unpackb(frame) == {
        "t": "presence",
        "game": game,
        "online": ["alice"],
        "gone": {"bob": msgpack.unpackb(frame)["gone"]["bob"]},
    }
    assert "#v" not in msgpack.unpackb(frame)["gone"]


async def test_a_finished_games_gone_hash_goes_with_its_final_change(redis_async: Any) -> None:
    """While played, when a player left is kept GONE_TTL_MS (a claim reads it); the game's
    final change deletes it, and a socket leaving the finished game keeps it as long as a
    presence entry only, never two hours past the game's other keys."""
    scripts = Scripts.register(redis_async)
    games = GameService(redis_async, scripts)
    presence = Presence(scripts.presence)
    a, b = Seat("u_gone_a", "A"), Seat("u_gone_b", "B")
    state, invite = await games.create(a, "nielsen", 600, "friend")
    state = await games.join(b, state.id, invite)
    await presence.update(state.id, "c1", a.id, "add")
    await presence.update(state.id, "c1", a.id, "del")  # a leaves while the game is played
    assert await redis_async.pttl(keys.gone(state.id)) > PRESENCE_TTL_MS
    await games.resign(state.attacker, state.id, "r1")
    assert not await redis_async.exists(keys.gone(state.id))
    await presence.update(state.id, "c2", b.id, "add")  # b looks at the result, and leaves
    await presence.update(state.id, "c2", b.id, "del")
    assert 0 < await redis_async.pttl(keys.gone(state.id)) <= PRESENCE_TTL_MS
