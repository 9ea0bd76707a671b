"""Ended games after the live grace: Redis has let them go, PostgreSQL answers every read
in the same shapes (state, record, positions, archive lists, a spectator's snapshot)."""

from __future__ import annotations

from collections.abc import Callable

import redis

from brandubh.hub.redis import keys
from services import HubProcess
from waiting import wait_for
from wsclient import Player, friend_game, seated

QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]
GRACE = {"BRANDUBH_LIVE_GRACE_S": "1", "BRANDUBH_ARCHIVE_POLL_S": "0.2"}


async def gone_from_redis(r: redis.Redis, game: str, timeout: float = 20.0) -> None:
    live = [keys.game(game), keys.events(game), keys.acks(game), keys.seed(game)]
    await wait_for(lambda: not r.exists(*live), "the game's keys to expire", timeout, 0.1)


async def test_an_ended_game_reads_the_same_after_redis_let_it_go(
    start_hub: Callable[..., HubProcess], redis_sync: redis.Redis
) -> None:
    hub = start_hub(GRACE)
    game, alice, bob = await friend_game(hub.url, "nielsen")
    socks = await seated(game, alice, bob)
    for ply, move in enumerate(QUICK_ESCAPE):
        await socks["attackers" if ply % 2 == 0 else "defenders"].move(game, ply, move)
        await socks["attackers"].recv_until(lambda m, mv=move: m.get("move") == mv)

    async def read_all() -> tuple[object, ...]:
        state = (await alice.http.get(f"/api/games/{game}")).json()
        record = (await alice.http.get(f"/api/games/{game}/record")).text
        positions = (await alice.http.get(f"/api/games/{game}/positions")).json()
        return state, record, positions

    async def archived() -> list[object]:
        listed: list[object] = (await alice.http.get(f"/api/players/{alice.id}/games")).json()[
            "games"
        ]
        return listed

    await wait_for(archived, "the game in alice's archive", every=0.1)
    before = await read_all()
    assert before[0]["state"]["status"] == "ended"  # type: ignore[index]
    await gone_from_redis(redis_sync, game)
    after = await read_all()
    assert after == before
    assert after[0]["state"]["seed"]  # type: ignore[index]
    assert '[Seed "' in after[1]  # type: ignore[operator]
    [entry] = await archived()
    assert entry["id"] == game  # type: ignore[index]

    # A spectator (or a player coming back) gets the final state, not an error.
    viewer = await Player(hub.url).start()
    sock = await viewer.connect()
    snap = await sock.watch(game)
    assert snap["t"] == "snapshot" and snap["state"]["status"] == "ended"
    assert snap["moves"] == QUICK_ESCAPE and snap["n"] == after[0]["n"]  # type: ignore[index]
    # Resuming from an event number inside the replay window: the events are gone too.
    again = await alice.connect()
    snap = await again.watch(game, since=after[0]["n"] - 3)  # type: ignore[index]
    assert snap["t"] == "snapshot" and snap["state"]["result"]["reason"] == "king_escaped"
    # A rematch can no longer be agreed on an archived game: a clear refusal.
    await again.send({"t": "rematch", "game": game, "id": "rm"})
    refused = await again.reply_to("rm")
    assert refused["t"] == "error" and refused["code"] == "rematch_closed", refused
    assert not redis_sync.exists(keys.game(game))  # and no stub was written
    for s in (*socks.values(), sock, again):
        await s.close()
    for p in (alice, bob, viewer):
        await p.close()
