"""End to end with real processes: ``brandubh engine-bridge`` running ``brandubh engine``
for a bot account on a real hub accepts a person's challenge and plays the whole game
against the person's websocket, declining what its rules refuse; stopped during the game,
it declines new challenges ``later``, finishes the game and exits 0; and two bridges, one
per bot account, play a whole rated game against each other."""

from __future__ import annotations

import asyncio
import signal

import httpx
from bridge_helpers import (
    BridgeProcess,
    CuttableProxy,
    bot_account,
    person_plays_to_the_end,
    real_engine,
)

from brandubh.engine import ENGINE_REASONS
from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Player

ENGINE = " ".join(real_engine())
ENDS_BY_PLAY = ENGINE_REASONS  # the game ended on the board, not on time or by resigning


def bridge_for(hub: HubProcess, token: str, *more: str) -> BridgeProcess:
    bridge = BridgeProcess(["--url", hub.url, "--engine", ENGINE, *more], token)
    bridge.said("playing as")
    return bridge


async def challenge(client: httpx.AsyncClient, target: str, **terms: object) -> str:
    """A challenge to ``target`` (from a session or a token's client): its id."""
    body = {"ruleset": "nielsen", "move_time": 60, "rated": False, **terms}
    r = await client.post(f"/api/challenge/{target}", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["challenge"]["id"])


async def state_of(p: Player, game: str) -> Msg:
    state: Msg = (await p.game(game))["state"]
    return state


async def test_a_bridge_plays_a_person_declines_what_it_must_and_stops_cleanly(
    hub: HubProcess,
) -> None:
    bot, token = await bot_account(hub)
    bridge = bridge_for(hub, token, "--rulesets", "nielsen", "--max-games", "1")
    alice = await Player(hub.url).signup()
    try:
        # Refused by its rules: declined with the rule's reason.
        refused = await challenge(alice.http, bot.id, ruleset="walker")
        assert "declined, ruleset" in bridge.said(f"challenge {refused} from")
        # Accepted: the game starts, and the person plays it to the end.
        game = await challenge(alice.http, bot.id)  # casual: a person's game with a bot
        assert "accepted" in bridge.said(f"challenge {game} from")
        bridge.said(f"game {game}: nielsen")  # the bridge has the game
        # Stopped during the game: it finishes this game but takes no other.
        bridge.signal()
        bridge.said("stopping: declining new challenges")
        later = await challenge(alice.http, bot.id)
        declined = bridge.said(f"challenge {later} from")
        assert "declined, later (the bridge is stopping)" in declined
        # The person's socket opened only now: a socket left unread misses the hub's pings.
        sock = await alice.connect()
        await sock.watch(game)
        final = await person_plays_to_the_end(sock, game, alice.id)
        assert bridge.wait() == 0
    finally:
        bridge.kill()
    assert final["result"]["reason"] in ENDS_BY_PLAY, final["result"]
    assert final["ply"] > 1 and final["rated"] is False
    assert f"game {game}: ended" in bridge.text()
    assert "Traceback" not in bridge.text() and "resigning" not in bridge.text()
    for declined_id, reason in ((refused, "ruleset"), (later, "later")):
        state = await state_of(alice, declined_id)
        assert (state["status"], state["declined"]) == ("ended", reason)


async def test_a_bridge_plays_two_games_at_once_and_declines_a_third_later(
    hub: HubProcess,
) -> None:
    bot, token = await bot_account(hub)
    people = [await Player(hub.url).signup() for _ in range(3)]
    # Its waits are async: the two people play at once in this event loop.
    bridge = BridgeProcess(["--url", hub.url, "--engine", ENGINE, "--max-games", "2"], token)
    try:
        await bridge.heard("playing as")
        games = []
        for p in people[:2]:
            games.append(await challenge(p.http, bot.id))
            assert "accepted" in await bridge.heard(f"challenge {games[-1]} from")
        third = await challenge(people[2].http, bot.id)
        declined = await bridge.heard(f"challenge {third} from")
        assert "declined, later (2 games already, the most is 2)" in declined
        socks = [await p.connect() for p in people[:2]]
        for sock, game in zip(socks, games, strict=True):
            await sock.watch(game)
        finals = await asyncio.gather(
            *(
                person_plays_to_the_end(sock, game, p.id)
                for sock, game, p in zip(socks, games, people, strict=False)
            )
        )
        for game in games:
            await bridge.heard(f"game {game}: ended")
        bridge.signal()
        assert await bridge.exit_status() == 0
    finally:
        bridge.kill()
    for final in finals:
        assert final["result"]["reason"] in ENDS_BY_PLAY, final["result"]
    assert (await state_of(people[2], third))["declined"] == "later"
    assert "Traceback" not in bridge.text() and "resigning" not in bridge.text()


async def test_a_bridge_stopped_at_once_leaves_its_game_and_a_new_one_resumes_it(
    hub: HubProcess,
) -> None:
    bot, token = await bot_account(hub)
    alice = await Player(hub.url).signup()
    first = bridge_for(hub, token)
    try:
        game = await challenge(alice.http, bot.id)
        assert "accepted" in first.said(f"challenge {game} from")
        sock = await alice.connect()
        await sock.watch(game)
        paused = await person_plays_to_the_end(sock, game, alice.id, pause_at=4)
        assert paused["status"] == "active", paused["result"]  # a quick win would end here
        await sock.close()  # unread while the bridges change, it would miss the hub's pings
        first.signal()
        first.said("stopping: declining new challenges")
        first.signal(signal.SIGINT)  # the second signal: at once
        assert first.wait() == 0
    finally:
        first.kill()
    assert "stopping now: the games in progress are left to their clocks" in first.text()
    assert (await state_of(alice, game))["status"] == "active"  # left to its clock
    second = bridge_for(hub, token)
    try:
        resumed = second.said(f"game {game}: nielsen")
        assert f"at ply {paused['ply']}" in resumed
        sock = await alice.connect()
        await sock.watch(game)
        final = await person_plays_to_the_end(sock, game, alice.id)
        second.said(f"game {game}: ended")
        second.signal()
        assert second.wait() == 0
    finally:
        second.kill()
    assert final["result"]["reason"] in ENDS_BY_PLAY, final["result"]
    for bridge in (first, second):
        assert "Traceback" not in bridge.text() and "resigning" not in bridge.text()


async def test_a_bridge_rides_out_a_cut_network_and_a_failover_to_another_hub(
    hub: HubProcess, hub2: HubProcess
) -> None:
    bot, token = await bot_account(hub)
    alice = await Player(hub.url).signup()
    proxy = await CuttableProxy(hub.url).start()
    # The proxy runs in this event loop: every wait here is async.
    bridge = BridgeProcess(["--url", proxy.url, "--engine", ENGINE], token)
    try:
        await bridge.heard("playing as")
        game = await challenge(alice.http, bot.id)
        assert "accepted" in await bridge.heard(f"challenge {game} from")
        sock = await alice.connect()
        await sock.watch(game)
        paused = await person_plays_to_the_end(sock, game, alice.id, pause_at=4)
        assert paused["status"] == "active", paused["result"]
        before = proxy.connections
        # Every connection dropped and the site unreachable a while (nothing listens where
        # the proxy now sends them); the person moves meanwhile.
        await proxy.cut(upstream="http://127.0.0.1:9")
        await sock.move(game, paused["ply"], paused["legal"][0])
        await sock.recv_until(lambda m: m["t"] == "event" and m["game"] == game)
        await sock.close()  # unread while the test waits, it would miss the hub's pings
        await bridge.heard("reopening the event stream in")
        tries = bridge.text().count(f"game {game}: reopening its stream")
        await wait_for(
            lambda: bridge.text().count(f"game {game}: reopening its stream") > tries,
            "the bridge to fail to reopen the game's stream once more",
        )
        # Then the site is back, on another hub: the reopened stream brings the move.
        await proxy.cut(upstream=hub2.url)
        sock = await alice.connect()
        await sock.watch(game)
        final = await person_plays_to_the_end(sock, game, alice.id)
        await bridge.heard(f"game {game}: ended")
        bridge.signal()
        assert await bridge.exit_status() == 0
    finally:
        bridge.kill()
        await proxy.close()
    assert proxy.connections > before  # it came back through the proxy, to hub2
    assert final["result"]["reason"] in ENDS_BY_PLAY, final["result"]
    assert f"game {game}: reopening its stream" in bridge.text()
    assert "reopening the event stream" in bridge.text()
    assert "Traceback" not in bridge.text() and "resigning" not in bridge.text()


async def test_two_bridges_play_a_whole_rated_game_between_bot_accounts(
    hub: HubProcess,
) -> None:
    (ann, ann_token), (bob, bob_token) = await bot_account(hub), await bot_account(hub)
    # One plays over HTTP, the other over the bot socket.
    bridges = [bridge_for(hub, ann_token), bridge_for(hub, bob_token, "--transport", "socket")]
    try:
        async with httpx.AsyncClient(
            base_url=hub.url, headers={"Authorization": f"Bearer {ann_token}"}
        ) as client:
            game = await challenge(client, bob.id, ruleset="walker", rated=True)
        assert "accepted" in bridges[1].said(f"challenge {game} from")

        async def ended() -> Msg | None:
            state = await state_of(ann, game)
            return state if state["status"] == "ended" else None

        final = await wait_for(ended, f"game {game} to end", timeout=600, every=0.5)
        for bridge in bridges:
            bridge.said(f"game {game}: ended")
            bridge.signal()
        assert [bridge.wait() for bridge in bridges] == [0, 0]
    finally:
        for bridge in bridges:
            bridge.kill()
    assert final["result"]["reason"] in ENDS_BY_PLAY, final["result"]
    assert {p["id"] for p in final["players"].values()} == {ann.id, bob.id}
    assert final["rated"] is True and final["ply"] > 1
    for bridge in bridges:
        assert "Traceback" not in bridge.text() and "resigning" not in bridge.text()
