"""The service on a real Redis Cluster (three masters, three replicas, on loopback).

The fixtures below put this module's hubs on the session's cluster with
BRANDUBH_REDIS_CLUSTER=1; the tests imported from the other modules then run here,
unchanged, on the cluster: whole games between two hubs, spectators, reconnect and
catch-up, events only to the hubs that follow the game (sharded channels), resends,
draws, resignation, deadlines, the bot, conditional moves (across a hub SIGKILL too), the
lobby, matches, sessions and login limits, analysis by the bot (the queue, its workers, one
SIGKILLed mid-analysis, board evaluations).
The tests written here are the cluster's own: games spread over the masters, a master
SIGKILLed mid-game (its replica takes over, the players on two hubs), a deadline on it
fires once, and a master restarted with no replica (its games pause and go on, nothing
acknowledged lost).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from test_accounts import (  # noqa: F401  (run here, on the cluster)
    test_a_guest_signs_up_and_keeps_their_id_under_a_new_token,
    test_change_password,
    test_friend_games_need_accounts_and_are_rated_by_default,
    test_login_limit_per_account,
    test_logout_ends_the_session_and_closes_its_sockets_on_every_hub,
)
from test_analysis_service import (  # noqa: F401  (the queue's keys share one slot: {ana})
    analysis_workers,
    test_a_request_is_queued_once_done_once_and_the_same_everywhere,
    test_a_worker_killed_mid_analysis_leaves_the_job_to_another,
    test_board_evaluations_are_cached_and_never_of_ones_own_game,
)
from test_conditional import (  # noqa: F401
    test_a_conditional_line_answers_the_opponents_move_and_the_opponent_never_learns_it,
    test_conditional_moves_across_a_hub_sigkill,
)
from test_fanout import (  # noqa: F401
    test_a_hub_with_no_socket_of_a_game_receives_none_of_its_events,
)
from test_lifecycle import (  # noqa: F401
    FAST,
    test_a_deadline_fires_once_with_two_hubs_even_when_one_dies,
    test_a_first_move_that_never_comes_aborts_the_game,
    test_abort_before_both_moved_and_its_refusal_after,
    test_draw_offer_accepted,
    test_rematch_offered_then_accepted_starts_a_new_game,
    test_resignation_at_any_time,
)
from test_lobby import (  # noqa: F401
    test_a_live_seek_vanishes_with_its_socket_a_correspondence_seek_stays,
    test_a_seek_is_accepted_across_hubs_and_both_land_in_one_game,
    test_quick_pairing_waits_for_a_close_rating_then_widens,
    test_seek_errors,
)
from test_matches import test_a_match_swaps_sides_and_reports_the_score  # noqa: F401
from test_play import (  # noqa: F401
    test_a_guest_plays_the_bot_to_the_end,
    test_players_on_two_hub_processes_share_one_game,
    test_two_players_play_a_whole_game_each_event_once_in_order,
)
from test_spectate_reconnect import (  # noqa: F401
    test_a_message_id_reused_for_another_move_is_refused_not_dropped,
    test_a_resent_move_is_applied_once_and_acknowledged_twice,
    test_reconnect_far_behind_gets_a_snapshot,
    test_reconnect_with_last_event_gets_exactly_what_was_missed,
    test_spectator_sees_every_move_and_cannot_act,
    test_two_different_moves_for_one_ply_exactly_one_applies,
)
from test_sweep import (  # noqa: F401  (one script call a bucket there, per node)
    hubs,
    test_two_schedulers_fire_each_deadline_once,
)
from test_tournaments import (  # noqa: F401  (a tournament's keys: one hash tag)
    test_an_arena_of_four_on_one_hub,
    test_rounds_run_to_the_end,
)

from brandubh.hub.redis import keys
from brandubh.run.redis_server import EmbeddedCluster, RedisNotFound
from services import CLUSTER_URLS, HubProcess, mail_env, missing
from wsclient import Player, Socket, friend_game, side_of

CLUSTER = {"BRANDUBH_REDIS_CLUSTER": "1"}


# -- this module's hubs are on the cluster --------------------------------------------------


@pytest.fixture(scope="module")
def redis_url(redis_cluster: EmbeddedCluster) -> str:
    CLUSTER_URLS.add(redis_cluster.url)
    return redis_cluster.url


@pytest.fixture
def fresh_redis_url(redis_cluster: EmbeddedCluster) -> str:
    """The cluster, with the rate limits of earlier tests forgotten (the tests that ask
    for a Redis of their own count attempts from zero)."""
    client = redis.RedisCluster.from_url(redis_cluster.url)
    try:
        node = client.get_node_from_key(keys.login_limits())
        found = client.scan_iter(match=f"{keys.login_limits()}*", target_nodes=node)
        for key in list(found):
            client.delete(key)
    finally:
        client.close()
    CLUSTER_URLS.add(redis_cluster.url)
    return redis_cluster.url


@pytest.fixture
def redis_sync(redis_cluster: EmbeddedCluster) -> Iterator[redis.RedisCluster]:
    client = redis.RedisCluster.from_url(redis_cluster.url)
    yield client
    client.close()


def cluster_hub(
    url: str, database_url: str, mailbox: Any, env: dict[str, str] | None = None, workers: int = 1
) -> HubProcess:
    return HubProcess(
        url, {**mail_env(mailbox), **CLUSTER, **(env or {})}, workers, database_url=database_url
    )


@pytest.fixture(scope="module")
def hub(redis_cluster: EmbeddedCluster, database_url: str, mailbox: Any) -> Iterator[HubProcess]:
    proc = cluster_hub(redis_cluster.url, database_url, mailbox).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def hub2(redis_cluster: EmbeddedCluster, database_url: str, mailbox: Any) -> Iterator[HubProcess]:
    proc = cluster_hub(redis_cluster.url, database_url, mailbox).start()
    yield proc
    proc.stop()


@pytest.fixture
def start_hub(
    redis_cluster: EmbeddedCluster, database_url: str, mailbox: Any
) -> Iterator[Callable[..., HubProcess]]:
    started: list[HubProcess] = []

    def start(
        env: dict[str, str] | None = None,
        workers: int = 1,
        redis: str | None = None,
        database: str | None = None,
    ) -> HubProcess:
        url = redis or redis_cluster.url
        proc = cluster_hub(url, database or database_url, mailbox, env, workers)
        started.append(proc.start())
        return proc

    yield start
    for proc in started:
        proc.stop()


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
        await asyncio.sleep(1.0)  # both schedulers have had time to fire it again
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
    hub = cluster_hub(bare_cluster.url, database_url, mailbox).start()
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
        await asyncio.sleep(1.5)
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
