"""The service on a real Redis Cluster (three masters, three replicas, on loopback).

The tests marked `cluster` in the other modules run twice, the second time with their hubs
and clients on the session's cluster (the redis_kind fixture, tests/conftest.py): whole
games between two hubs, spectators, reconnect and catch-up, events only to the hubs that
follow the game (sharded channels), resends, draws, resignation, deadlines, the bot,
conditional moves (across a hub SIGKILL too), the lobby, matches, tournaments, sessions and
login limits, analysis by the bot (the queue, its workers, one SIGKILLed mid-analysis,
board evaluations).
The tests written here are the cluster's own (redis_kind is 'cluster' for all of them):
games spread over the masters, a master SIGKILLed mid-game (its replica takes over, the
players on two hubs), a deadline on it fires once, and a master restarted with no replica
(its games pause and go on, nothing acknowledged lost).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from brandubh.hub.redis import keys
from brandubh.run.redis_server import EmbeddedCluster, RedisNotFound
from games import FAST
from services import CLUSTER_ENV, HubProcess, mail_env, missing
from wsclient import Player, Socket, friend_game, side_of


@pytest.fixture
def redis_kind() -> str:
    """This module's hubs and clients are on the session's cluster."""
    return "cluster"


def hub_on(url: str, database_url: str, mailbox: Any) -> HubProcess:
    return HubProcess(url, {**mail_env(mailbox), **CLUSTER_ENV}, database_url=database_url)


# -- the cluster's own tests --------------------------------------------------------------


def master_of(cluster: redis.RedisCluster, key: str) -> int:
    return int(cluster.get_node_from_key(key).port)


def test_every_bucket_lands_on_a_master_and_games_spread_over_all(
    redis_cluster: EmbeddedCluster, redis_sync: redis.RedisCluster
) -> None:
    masters = set(redis_cluster.master_ports())
    per_master = dict.fromkeys(masters, 0)
    for b in range(keys.BUCKETS):
        per_master[master_of(redis_sync, keys.deadlines(b))] += 1
    assert set(per_master) == masters and all(per_master.values()), per_master
    # A game's keys and its bucket's indexes share one slot.
    for game_id in ("abc", "xyz123", "another-id"):
        b = keys.bucket(game_id)
        slots = {
            redis_sync.keyslot(k)
            for k in (
                keys.game(game_id),
                keys.events(game_id),
                keys.acks(game_id),
                keys.deadlines(b),
                keys.bot_jobs(b),
                keys.finished(b),
                keys.reminders(b),
                keys.game_channel(game_id, "a1b2c3"),
                keys.game_hubs(game_id),
                keys.watchers(game_id),
                keys.presence(game_id),
                keys.seed(game_id),
            )
        }
        assert len(slots) == 1


async def play_moves(
    sockets: dict[str, Socket],
    game: str,
    state: dict[str, Any],
    n: int,
    count: int,
    resend: bool = False,
) -> tuple[dict[str, Any], int]:
    """Play ``count`` moves in turn, each acknowledged and seen by every socket; the state
    and event number after. With ``resend``, a move refused as ``unavailable`` (Redis out
    of reach) is sent again with its id, as a client does."""
    for _ in range(count):
        mover = sockets[state["turn"]]
        mid = await mover.move(game, state["ply"], state["legal"][0])
        reply = await mover.reply_to(mid, timeout=20)
        for _ in range(20):
            if not (resend and reply["t"] == "error" and reply["code"] == "unavailable"):
                break
            await asyncio.sleep(0.5)
            await mover.move(game, state["ply"], state["legal"][0], mid)
            reply = await mover.reply_to(mid, timeout=20)
        assert reply["t"] == "ack", reply
        n += 1
        # The event may come before the ack (the ack waits for the commit's reply).
        state = (await mover.seen_or_next(lambda m, n=n: is_event(m, n), timeout=20))["state"]
        for sock in sockets.values():  # on another hub: through its sharded subscription
            await sock.seen_or_next(lambda m, n=n: is_event(m, n), timeout=20)
    return state, n


def is_event(m: dict[str, Any], n: int) -> bool:
    return bool(m["t"] == "event" and m["n"] == n)


async def seat(
    hub_url: str, other_url: str | None = None
) -> tuple[str, dict[str, Player], dict[str, Socket], Any, int]:
    """A friend game, its creator's socket on ``hub_url``, the joiner's on ``other_url``."""
    game, alice, bob = await friend_game(hub_url)
    players: dict[str, Player] = {}
    sockets: dict[str, Socket] = {}
    for p, url in ((alice, hub_url), (bob, other_url or hub_url)):
        sock = await p.connect(url)
        snap = await sock.watch(game)
        side = side_of(snap["state"], p)
        players[side], sockets[side] = p, sock
    return game, players, sockets, snap["state"], snap["n"]


async def test_a_master_killed_mid_game_its_replica_takes_over_and_the_game_goes_on(
    redis_cluster: EmbeddedCluster,
    redis_sync: redis.RedisCluster,
    hub: HubProcess,
    hub2: HubProcess,
) -> None:
    # The players on two hubs: each sees the other's moves by the game's sharded channel,
    # which after the kill is served by the promoted replica.
    game, players, sockets, state, n = await seat(hub.url, hub2.url)
    state, n = await play_moves(sockets, game, state, n, 3)
    doomed = master_of(redis_sync, keys.game(game))
    redis_cluster.kill(doomed)
    try:
        # The replica is promoted within a few node timeouts; the next move is taken once
        # it is, on the sockets the players already hold.
        state, n = await play_moves(sockets, game, state, n, 3, resend=True)
        assert (await players["attackers"].game(game))["state"]["ply"] == 6
        redis_cluster.wait_ok(20)
    except BaseException:
        for h in (hub, hub2):  # what the hubs said, for the failure's report
            print("".join(line for line in h.log if not line.startswith(" "))[-4000:])
        raise
    finally:
        redis_cluster.restart(doomed)  # back, as the new master's replica
        redis_cluster.wait_ok(30)
    for sock in sockets.values():
        await sock.close()


async def test_a_deadline_on_a_failed_over_master_fires_once(
    redis_cluster: EmbeddedCluster,
    redis_sync: redis.RedisCluster,
    start_hub: Callable[..., HubProcess],
) -> None:
    h1, _h2 = start_hub(FAST), start_hub(FAST)  # two schedulers
    game, _, sockets, state, n = await seat(h1.url)
    state, n = await play_moves(sockets, game, state, n, 2)  # 600 ms a move from here
    doomed = master_of(redis_sync, keys.game(game))
    redis_cluster.kill(doomed)
    try:
        try:
            ended = await sockets["attackers"].recv_until(
                lambda m: m["t"] == "event" and m["state"]["status"] == "ended", timeout=30
            )
        except BaseException:
            for h in (h1, _h2):
                print("".join(line for line in h.log if not line.startswith(" "))[-3000:])
            raise
        assert ended["state"]["result"]["reason"] == "timeout"
        redis_cluster.wait_ok(20)
        # Neither scheduler fires it again: each polls every 20 ms here, and a second firing
        # that was refused sends no signal.
        await asyncio.sleep(0.5)
        events = redis_sync.lrange(keys.events(game), 0, -1)
        assert len(events) == ended["n"]  # the timeout is the last event, and there is one
    finally:
        redis_cluster.restart(doomed)
        redis_cluster.wait_ok(30)
    for sock in sockets.values():
        await sock.close()


@pytest.fixture
def bare_cluster(tmp_path: Path) -> Iterator[EmbeddedCluster]:
    """Three masters and no replica, of the test's own."""
    try:
        cluster = EmbeddedCluster(tmp_path / "bare", replicas=0)
    except RedisNotFound as exc:
        missing(str(exc))
    with cluster:
        yield cluster


async def test_a_master_restarted_without_replicas_its_games_pause_and_go_on(
    bare_cluster: EmbeddedCluster, database_url: str, mailbox: Any
) -> None:
    hub = hub_on(bare_cluster.url, database_url, mailbox).start()
    client = redis.RedisCluster.from_url(bare_cluster.url)
    try:
        game, players, sockets, state, n = await seat(hub.url)
        state, n = await play_moves(sockets, game, state, n, 4)
        down = master_of(client, keys.game(game))
        bare_cluster.kill(down)
        # While it is down a move cannot be acknowledged: it is refused as unavailable
        # (the socket stays), or answered once the master is back.
        mover = sockets[state["turn"]]
        move = state["legal"][0]
        mid = await mover.move(game, state["ply"], move)
        await asyncio.sleep(1.5)  # the master stays down (the outage is the fault tested)
        bare_cluster.restart(down)
        bare_cluster.wait_ok(30)
        reply = await mover.reply_to(mid, timeout=30)
        if reply["t"] == "error":
            assert reply["code"] == "unavailable", reply
            await mover.move(game, state["ply"], move, mid)  # sent again, same id
            reply = await mover.reply_to(mid, timeout=30)
        assert reply["t"] == "ack", reply
        n += 1
        state = (await mover.seen_or_next(lambda m: is_event(m, n), timeout=20))["state"]
        state, n = await play_moves(sockets, game, state, n, 2)
        final = await players["attackers"].game(game)
        assert final["state"]["ply"] == state["ply"] and len(final["moves"]) == state["ply"]
        for sock in sockets.values():
            await sock.close()
    except BaseException:
        print("".join(line for line in hub.log if not line.startswith(" "))[-4000:])
        raise
    finally:
        client.close()
        hub.stop()
