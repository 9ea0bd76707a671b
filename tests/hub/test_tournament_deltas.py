"""A tournament's followers on real hubs get a snapshot, then deltas (``tournament_delta``,
docs/protocol.md) that fold into what ``GET /api/tournaments/<id>`` shows, on either hub;
one that misses a delta asks again and gets a snapshot (tournament_follow.py)."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable
from typing import Any

from tournament_follow import Follower

from brandubh.hub.tournaments.state import frame_view
from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Player

ENV = {"BRANDUBH_TOURNAMENT_SCALE": "0.5"}  # an arena's minute lasts 30 s


def shown(view: dict[str, Any]) -> dict[str, Any]:
    """A view but for when it was read and who asked."""
    return {k: v for k, v in view.items() if k not in ("now", "me")}


async def page(p: Player, tid: str) -> Msg:
    r = await p.http.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    data: Msg = r.json()
    return data


def loser_of(game: str, attackers: str, defenders: str) -> str:
    return attackers if hashlib.sha256(game.encode()).digest()[0] % 2 else defenders


async def resign_in_play(ps: dict[str, Player], home: dict[str, str], v: Msg) -> int:
    """Each game in play resigned by the player its id picks; how many."""
    n = 0
    for g in v["games"]:
        if g["result"]:
            continue
        loser = ps[loser_of(g["id"], g["attackers"]["id"], g["defenders"]["id"])]
        state = (await loser.game(g["id"]))["state"]
        if state["status"] != "active":
            continue
        sock = await loser.connect(home[loser.id])
        await sock.send({"t": "resign", "game": g["id"], "id": g["id"]})
        assert (await sock.reply_to(g["id"]))["t"] == "ack"
        await sock.close()
        n += 1
    return n


async def test_followers_fold_deltas_into_the_page_on_two_hubs_and_a_gap_takes_a_snapshot(
    start_hub: Callable[..., HubProcess],
) -> None:
    hubs = [start_hub(ENV), start_hub(ENV)]
    ps = [await Player(hubs[0].url).signup() for _ in range(6)]
    home = {p.id: hubs[i % 2].url for i, p in enumerate(ps)}
    by_id = {p.id: p for p in ps}
    r = await ps[0].http.post(
        "/api/tournaments",
        json={
            "name": "Deltas",
            "format": "arena",
            "ruleset": "nielsen",
            "move_time": 60,
            "starts_at": int(time.time() * 1000),
            "duration_min": 1,
        },
    )
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    # A follower on each hub, and one that leaves out a delta (on the first hub).
    followers = [
        Follower(await ps[0].connect(hubs[0].url), tid),
        Follower(await ps[1].connect(hubs[1].url), tid),
        Follower(await ps[2].connect(hubs[0].url), tid, drop=True),
    ]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(f.run(stop)) for f in followers]
    for f in followers:
        await f.follow()
    await wait_for(lambda: all(f.snapshots for f in followers), "the snapshots", 10)
    assert all(isinstance(f.version, int) for f in followers)
    for i, p in enumerate(ps):
        r = await p.http.post(
            f"{hubs[i % 2].url}/api/tournaments/{tid}/join", headers={"Origin": hubs[i % 2].url}
        )
        assert r.status_code == 200, r.text

    async def settled() -> Msg | None:
        """The page, once every follower's folded view shows it."""
        want = shown(frame_view(await page(ps[0], tid)))
        return want if all(f.view and shown(f.view) == want for f in followers) else None

    async def everyone_playing() -> Msg | None:
        v = await page(ps[0], tid)
        in_play = [g for g in v["games"] if not g["result"]]
        if len(in_play) < 3:
            return None
        for g in in_play:
            if (await ps[0].game(g["id"]))["state"]["status"] != "active":
                return None
        return v

    # Twice: everyone paired, the followers show the page; everyone's game resigned.
    for _ in range(2):
        v = await wait_for(everyone_playing, "a wave pairing everyone", 15, 0.2)
        await wait_for(settled, "the followers to show the page", 10, 0.2)
        assert await resign_in_play(by_id, home, v) == 3

    async def over() -> Msg | None:
        v = await page(ps[0], tid)
        if v["status"] == "finished":
            return v
        await resign_in_play(by_id, home, v)
        return None

    await wait_for(over, "the arena's end", 60, 0.3)
    final = await wait_for(settled, "the followers to show the end", 15, 0.2)
    stop.set()
    await asyncio.gather(*tasks)
    assert final["status"] == "finished" and final["seed"]
    for f in followers:
        # Deltas, whichever hub published (each hub's view follows the others' frames);
        # a whole frame now and then when two hubs publish at once.
        assert f.deltas > 2 * f.snapshots, (f.deltas, f.snapshots)
        assert any(v["status"] == "running" for v in f.views)
        assert f.version is not None and f.version > 1
    assert followers[0].version == followers[1].version  # every frame reaches either hub
    print(
        "followers (snapshots, deltas, gaps):", [(f.snapshots, f.deltas, f.gaps) for f in followers]
    )
    gap = followers[2]
    assert gap.dropped >= 1 and gap.gaps == 1 and gap.snapshots >= 2, vars(gap)
    for f in followers:
        await f.sock.close()
    for p in ps:
        await p.close()
