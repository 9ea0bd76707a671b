"""Tournaments on real hubs, Redis and PostgreSQL: arenas paired promptly and ended once
(a hub SIGKILLed midway), round robins and Swiss events run to the end, each checked
against the core's verifier from the export (the pairings recomputed from the seed)."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets
from tournament_follow import Follower

import wsclient
from brandubh import fairplay
from brandubh.engine import parse_record
from brandubh.tournaments import verify_tournament
from services import DurableRedis, HubProcess
from waiting import wait_for
from wsclient import Msg, Player, Socket

# An arena's minute lasts SCALE minutes on these hubs (BRANDUBH_TOURNAMENT_SCALE).
SCALE = 0.3
ARENA_ENV = {"BRANDUBH_TOURNAMENT_SCALE": str(SCALE)}


def now_ms() -> int:
    return int(time.time() * 1000)


async def players(base: str, n: int) -> list[Player]:
    """``n`` confirmed accounts (a few at a time: each sign-up hashes a password)."""
    out: list[Player] = []
    while len(out) < n:
        batch = min(4, n - len(out))
        out += await asyncio.gather(*(Player(base).signup() for _ in range(batch)))
    return out


async def create(creator: Player, **body: Any) -> str:
    r = await creator.http.post("/api/tournaments", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


async def act(p: Player, tid: str, op: str, base: str | None = None) -> httpx.Response:
    url = f"{base or ''}/api/tournaments/{tid}/{op}"
    if base is None:
        return await p.http.post(url)
    return await p.http.post(url, headers={"Origin": base})


async def view(p: Player, tid: str) -> Msg:
    r = await p.http.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    data: Msg = r.json()
    return data


async def export_of(p: Player, tid: str) -> Msg:
    r = await p.http.get(f"/api/tournaments/{tid}/export")
    assert r.status_code == 200, r.text
    data: Msg = r.json()
    return data


async def finished(p: Player, tid: str, timeout: float) -> Msg:
    async def done() -> Msg | None:
        v = await view(p, tid)
        return v if v["status"] == "finished" else None

    found: Msg = await wait_for(done, "the tournament's end", timeout, 0.2)
    return found


def loser_of(game: str, attackers: str, defenders: str) -> str:
    """Who resigns an arena game: drawn from its id, so results vary."""
    return attackers if hashlib.sha256(game.encode()).digest()[0] % 2 else defenders


async def play_arena(p: Player, sock: Socket, stop: asyncio.Event) -> list[Msg]:
    """Answer every "your next game" notice: the player the id picks resigns at once."""
    seen: list[Msg] = []
    while not stop.is_set():
        try:
            msg = await sock.recv_until(lambda m: m["t"] == "tournament_game", timeout=0.5)
        except TimeoutError:
            continue
        if any(m["game"] == msg["game"] for m in seen):
            continue
        seen.append(msg)
        game = await p.game(msg["game"])
        who = {s: info["id"] for s, info in game["state"]["players"].items() if info}
        assert who[msg["side"]] == p.id
        if loser_of(msg["game"], who["attackers"], who["defenders"]) == p.id:
            await sock.send({"t": "resign", "game": msg["game"], "id": f"r-{msg['game']}"})
            reply = await sock.reply_to(f"r-{msg['game']}")
            assert reply["t"] == "ack", reply
    return seen


def arena_points(outcomes: list[str]) -> int:
    """Hand scoring: win 2, draw 1, loss 0; after two wins in a row, results count double
    until one is not a win."""
    points, run = 0, 0
    for o in outcomes:
        factor = 2 if run >= 2 else 1
        if o == "win":
            points, run = points + 2 * factor, run + 1
        else:
            points, run = points + (factor if o == "draw" else 0), 0
    return points


def check_arena(v: Msg, export: Msg) -> list[float]:
    """Never the same two in a row, sides balanced, streaks scored: and each wait (ms,
    by Redis's clock) from a player's game's end to their next pairing."""
    games = sorted(v["games"], key=lambda g: int(g["id"].rsplit("-", 1)[1]))
    by_player: dict[str, list[Msg]] = {}
    for g in games:
        for side in ("attackers", "defenders"):
            by_player.setdefault(g[side]["id"], []).append(g)
    outcomes: dict[str, list[str]] = {}
    for pid, mine in by_player.items():
        opponents = [
            g["defenders"]["id"] if g["attackers"]["id"] == pid else g["attackers"]["id"]
            for g in mine
        ]
        assert all(a != b for a, b in itertools.pairwise(opponents)), pid
        attacked = sum(g["attackers"]["id"] == pid for g in mine)
        assert abs(attacked - (len(mine) - attacked)) <= 1, (pid, attacked, len(mine))
        # An aborted game (no first move in time, as a player cut off by a fault may be)
        # scores nothing and leaves a streak as it was (docs/tournaments.md).
        outcomes[pid] = [
            "draw" if g["result"] == "draw" else "win" if g[g["result"]]["id"] == pid else "loss"
            for g in mine
            if g["result"] != "aborted"
        ]
    for row in v["standings"]:
        pid = row["player"]["id"]
        assert row["points"] == arena_points(outcomes.get(pid, [])), row
    # Waits, from the log: a result frees both players, the next pairing takes them.
    waits: list[float] = []
    freed: dict[str, int] = {}
    sides = {g["id"]: (g["attackers"]["id"], g["defenders"]["id"]) for g in games}
    for e in export["events"]:
        if e["t"] == "result":
            for pid in sides[e["game"]]:
                freed[pid] = e["at"]
        elif e["t"] == "pairing":
            for g in e["games"]:
                for pid in (g["attackers"], g["defenders"]):
                    if pid in freed:
                        waits.append(e["at"] - freed.pop(pid))
    return waits


@pytest.mark.cluster
async def test_an_arena_of_four_on_one_hub(start_hub: Callable[..., HubProcess]) -> None:
    hub = start_hub(ARENA_ENV)
    ps = await players(hub.url, 4)
    tid = await create(
        ps[0],
        name="Quick arena",
        format="arena",
        ruleset="nielsen",
        move_time=60,
        starts_at=now_ms(),
        duration_min=1,
    )
    socks = [await p.connect() for p in ps]
    for p in ps:
        r = await act(p, tid, "join")
        assert r.status_code == 200 and r.json()["me"]["joined"], r.text
    stop = asyncio.Event()
    tasks = [asyncio.create_task(play_arena(p, s, stop)) for p, s in zip(ps, socks, strict=True)]
    final = await finished(ps[0], tid, 60 * SCALE + 30)
    stop.set()
    await asyncio.gather(*tasks)
    assert final["games"] and all(g["result"] for g in final["games"])
    export = await export_of(ps[0], tid)
    assert verify_tournament(export) == []
    check_arena(final, export)
    # Each game's record verifies on its own too: the pairing gave its sides, and its
    # creator is whoever its seed seats there (GameService.create, seat_by_seed).
    for g in final["games"]:
        text = (await ps[0].http.get(f"/api/games/{g['id']}/record")).text
        fairplay.verify(parse_record(text))
    # Each game's state names its tournament, for anyone (the game page's way back).
    for g in final["games"]:
        state = (await ps[3].game(g["id"]))["state"]
        assert state["tournament"] == tid and state["origin"] == "tournament", state


async def test_an_arena_of_twenty_on_two_hubs_ends_once_with_a_hub_killed(
    start_hub: Callable[..., HubProcess],
) -> None:
    hubs = [start_hub(ARENA_ENV) for _ in range(3)]
    victim = hubs[2]
    ps = await players(hubs[0].url, 20)
    tid = await create(
        ps[0],
        name="Twenty",
        format="arena",
        ruleset="nielsen",
        move_time=60,
        starts_at=now_ms(),
        duration_min=1,
    )
    # Sockets on the two hubs that live; joins through all three.
    socks = [await p.connect(hubs[i % 2].url) for i, p in enumerate(ps)]
    # A follower folds the frames (a snapshot, then deltas: tournament_follow.py).
    follower = Follower(await ps[0].connect(hubs[1].url), tid)
    following = asyncio.Event()
    follow_task = asyncio.create_task(follower.run(following))
    await follower.follow()
    await wait_for(lambda: follower.snapshots, "the tournament's snapshot", 10)
    for i, p in enumerate(ps):
        r = await act(p, tid, "join", hubs[i % 3].url)
        assert r.status_code == 200, r.text
    stop = asyncio.Event()
    tasks = [asyncio.create_task(play_arena(p, s, stop)) for p, s in zip(ps, socks, strict=True)]
    await asyncio.sleep(60 * SCALE / 2)
    victim.kill()
    final = await finished(ps[0], tid, 60 * SCALE + 40)
    stop.set()
    notices = await asyncio.gather(*tasks)
    export = await export_of(ps[0], tid)
    assert [e["t"] for e in export["events"]].count("end") == 1
    assert verify_tournament(export) == []
    waits = check_arena(final, export)
    assert all(n for n in notices), "every player was paired"
    print(f"arena of 20: {len(final['games'])} games, median wait {statistics.median(waits)} ms")
    assert statistics.median(waits) < 2000, sorted(waits)
    # The followers saw the standings change over the socket, not by polling.
    last = await wait_for(
        lambda: follower.view if follower.view and follower.view["status"] == "finished" else None,
        "the follower's view of the end",
        30,
    )
    following.set()
    await follow_task
    assert last["standings"] == final["standings"]
    running = [v for v in follower.views if v["status"] == "running"]
    assert len({str(v["standings"]) for v in running}) > 1, "standings pushed as they changed"
    assert follower.deltas > follower.snapshots, "changes go as deltas"
    # A frame carries each player's latest games, by ids (state.frame_view), and counts all.
    assert sum(last["game_counts"].values()) == 2 * len(final["games"])
    whole = {g["id"]: g for g in final["games"]}
    for g in last["games"]:
        w = whole[g["id"]]
        sides = (w["attackers"]["id"], w["defenders"]["id"], w["result"])
        assert (g["attackers"], g["defenders"], g["result"]) == sides, g


def hand_standings(v: Msg, fmt: str) -> list[tuple[str, float, dict[str, float]]]:
    """The standings worked out by hand from the rounds: a match won 2, drawn 1, lost 0
    (by its game points: a win 1, a draw 1/2); a bye a drawn match with 1 game point;
    Buchholz the opponents' match points, Sonneborn-Berger those of the opponents beaten
    plus half those drawn; ranked by match points, then (round robin) game points and
    Sonneborn-Berger, (Swiss) Buchholz, Sonneborn-Berger and game points; then id."""
    mp: dict[str, float] = {}
    gp: dict[str, float] = {}
    met: dict[str, list[tuple[str, float]]] = {}
    for rnd in v["rounds"]:
        for p in rnd["pairings"]:
            a = p["a"]["id"]
            if p["b"] is None:
                mp[a] = mp.get(a, 0) + 1
                gp[a] = gp.get(a, 0) + 1
                continue
            b = p["b"]["id"]
            points = {a: 0.0, b: 0.0}
            for g in p["games"]:
                if g["result"] in ("draw", "aborted"):
                    points[a] += 0.5
                    points[b] += 0.5
                else:
                    points[g[g["result"]]["id"]] += 1
            for me, other in ((a, b), (b, a)):
                mine = 2 if points[me] > points[other] else 1 if points[me] == points[other] else 0
                mp[me] = mp.get(me, 0) + mine
                gp[me] = gp.get(me, 0) + points[me]
                met.setdefault(me, []).append((other, mine))
    rows = []
    for pid in mp:
        buchholz = float(sum(mp[o] for o, _ in met.get(pid, [])))
        sb = sum(mp[o] * mine / 2 for o, mine in met.get(pid, []))
        rows.append(
            (pid, mp[pid], {"game_points": gp[pid], "buchholz": buchholz, "sonneborn_berger": sb})
        )
    order = (
        ("game_points", "sonneborn_berger")
        if fmt == "round_robin"
        else ("buchholz", "sonneborn_berger", "game_points")
    )
    rows.sort(key=lambda r: (-r[1], *(-r[2][k] for k in order), r[0]))
    return rows


# Five in the round robin: an odd number, so each round one player rests.
@pytest.mark.cluster
@pytest.mark.parametrize(("fmt", "count"), [("round_robin", 5), ("swiss", 16)])
async def test_rounds_run_to_the_end(
    start_hub: Callable[..., HubProcess], fmt: str, count: int
) -> None:
    hubs = [start_hub(), start_hub()]
    ps = await players(hubs[0].url, count)
    extra = {"rounds": 4} if fmt == "swiss" else {}
    tid = await create(
        ps[0],
        name=f"A {fmt}",
        format=fmt,
        ruleset="nielsen",
        move_time=3600,
        starts_at=now_ms() + 3000,
        **extra,
    )
    for i, p in enumerate(ps):
        r = await act(p, tid, "join", hubs[i % 2].url)
        assert r.status_code == 200, r.text
    home = {p.id: hubs[i % 2].url for i, p in enumerate(ps)}
    by_id = {p.id: p for p in ps}
    done: set[str] = set()

    async def step() -> Msg | None:
        """Resign every game in play once (who resigns is drawn from the game's id)."""
        v = await view(ps[0], tid)
        if v["status"] == "finished":
            return v
        for rnd in v["rounds"]:
            for pairing in rnd["pairings"]:
                for g in pairing["games"]:
                    if g["result"] or g["id"] in done:
                        continue
                    a, d = g["attackers"]["id"], g["defenders"]["id"]
                    loser = loser_of(g["id"], a, d)
                    state = (await by_id[loser].game(g["id"]))["state"]
                    assert state["tournament"] == tid, state  # the match's later games too
                    if state["status"] != "active":
                        continue
                    done.add(g["id"])
                    # A socket a resignation (one kept open idle meanwhile would be closed
                    # by the heartbeat).
                    sock = await by_id[loser].connect(home[loser])
                    await sock.send({"t": "resign", "game": g["id"], "id": g["id"]})
                    assert (await sock.reply_to(g["id"]))["t"] == "ack"
                    await sock.close()
        return None

    final: Msg = await wait_for(step, f"the {fmt}'s end", 120, 0.2)
    export = await export_of(ps[0], tid)
    assert verify_tournament(export) == []
    met = [
        frozenset((p["a"]["id"], p["b"]["id"]))
        for rnd in final["rounds"]
        for p in rnd["pairings"]
        if p["b"]
    ]
    assert len(met) == len(set(met)), "no pairing repeats"
    rounds = len(final["rounds"])
    assert rounds == (count if fmt == "round_robin" else 4)
    # Each round robin round names who sits it out: one player, each once, never one who
    # plays that round. A Swiss round has nobody resting (its bye is a pairing of its own).
    rests = [x["id"] for rnd in final["rounds"] for x in rnd["rests"]]
    assert sorted(rests) == (sorted(p.id for p in ps) if fmt == "round_robin" else [])
    for rnd in final["rounds"]:
        paired = {x["id"] for p in rnd["pairings"] for x in (p["a"], p["b"]) if x}
        assert not paired & {x["id"] for x in rnd["rests"]}, rnd
    # Each player of a round was mailed its games (a correspondence round), once.
    first = {x["id"] for p in final["rounds"][0]["pairings"] for x in (p["a"], p["b"]) if x}
    for p in [p for p in ps if p.id in first][:3]:
        mail = await wsclient.MAILBOX.wait(p.email, f"round 1 of A {fmt}: your games")
        assert f"/t/{tid}" in mail.text
        assert len(wsclient.MAILBOX.mails(p.email, f"round 1 of A {fmt}")) == 1
    # The standings and tie-breaks, as worked out by hand from the results.
    table = hand_standings(final, fmt)
    shown = [(r["player"]["id"], r["points"], r["tiebreaks"]) for r in final["standings"]]
    assert shown == table
    # Every match is two games with the sides swapped.
    for rnd in final["rounds"]:
        for p in rnd["pairings"]:
            if p["b"]:
                g1, g2 = p["games"][:2]
                assert g1["attackers"] == g2["defenders"] and g1["defenders"] == g2["attackers"]


async def test_creating_and_joining_are_refused_with_their_codes(hub: HubProcess) -> None:
    guest = await Player(hub.url).guest()
    unconfirmed = await Player(hub.url).signup(verify=False)
    creator, other = await players(hub.url, 2)
    good = {
        "name": "Weekly",
        "format": "round_robin",
        "ruleset": "nielsen",
        "move_time": 86400,
        "starts_at": now_ms() + 3_600_000,
    }
    for who in (guest, unconfirmed):
        r = await who.http.post("/api/tournaments", json=good)
        assert (r.status_code, r.json()["error"]) == (403, "not_allowed")
    r = await creator.http.post("/api/tournaments", json={**good, "duration_min": 30})
    assert (r.status_code, r.json()["error"]) == (400, "invalid_tournament")
    assert r.json()["message"].startswith("duration_min:")
    made = [await create(creator, **good) for _ in range(3)]
    r = await creator.http.post("/api/tournaments", json=good)
    assert (r.status_code, r.json()["error"]) == (429, "too_many_tournaments")
    tid = made[0]
    r = await act(other, tid, "withdraw")
    assert (r.status_code, r.json()["error"]) == (409, "not_joined")
    r = await act(other, tid, "pause")
    assert (r.status_code, r.json()["error"]) == (409, "not_joined")
    r = await act(other, tid, "join")
    assert r.status_code == 200 and r.json()["me"]["joined"]
    r = await act(other, tid, "pause")
    assert (r.status_code, r.json()["error"]) == (409, "tournament_closed")
    r = await act(unconfirmed, tid, "join")
    assert (r.status_code, r.json()["error"]) == (403, "not_allowed")
    listed = (await creator.http.get("/api/tournaments")).json()
    mine = [s for s in listed["upcoming"] if s["id"] in made]
    assert len(mine) == 3 and all(s["creator"]["id"] == creator.id for s in mine)
    assert next(s for s in mine if s["id"] == tid)["players"] == 1
    r = await creator.http.get("/api/tournaments/tNoSuch00")
    assert (r.status_code, r.json()["error"]) == (404, "not_found")


async def play_arena_through_faults(p: Player, base: str, tid: str, stop: asyncio.Event) -> None:
    """As play_arena, on a socket opened again whenever it closes; the game to play is also
    read from the page (``me.game``), so a notice lost meanwhile loses no game."""
    done: set[str] = set()
    sock: Socket | None = None
    while not stop.is_set():
        try:
            if sock is None:
                sock = await p.connect(base)
            try:
                msg = await sock.recv_until(lambda m: m["t"] == "tournament_game", timeout=1)
                game = msg["game"]
            except TimeoutError:
                r = await p.http.get(f"/api/tournaments/{tid}")
                game = r.json()["me"]["game"] if r.status_code == 200 else None
            if not game or game in done:
                continue
            r = await p.http.get(f"/api/games/{game}")
            if r.status_code != 200:
                continue
            state = r.json()["state"]
            who = {s: info["id"] for s, info in state["players"].items() if info}
            if state["status"] != "active" or len(who) < 2:
                continue
            done.add(game)
            if loser_of(game, who["attackers"], who["defenders"]) == p.id:
                await sock.send({"t": "resign", "game": game, "id": f"r-{game}"})
                await sock.reply_to(f"r-{game}")
        except (OSError, httpx.HTTPError, websockets.ConnectionClosed):
            sock = None
            await asyncio.sleep(0.3)
    if sock is not None:
        await sock.close()


async def test_following_an_unknown_tournament_is_refused_and_follows_nothing(
    hub: HubProcess,
) -> None:
    """not_found, every time: a refused follow takes none of the socket's 8 places."""
    guest = await Player(hub.url).guest()
    sock = await guest.connect()
    for n in range(10):
        await sock.send({"t": "follow_tournament", "tournament": f"tNoSuch{n:02d}", "on": True})
        refused = await sock.recv_until(lambda m: m["t"] == "error")
        assert refused["code"] == "not_found", refused
    await sock.close()
    await guest.close()


async def test_an_arena_ends_once_through_a_redis_restart(
    durable_redis: DurableRedis, start_hub: Callable[..., HubProcess]
) -> None:
    hubs = [start_hub(ARENA_ENV, redis=durable_redis.url) for _ in range(2)]
    ps = await players(hubs[0].url, 6)
    tid = await create(
        ps[0],
        name="Through a restart",
        format="arena",
        ruleset="nielsen",
        move_time=60,
        starts_at=now_ms(),
        duration_min=1,
    )
    for p in ps:
        assert (await act(p, tid, "join")).status_code == 200
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(play_arena_through_faults(p, hubs[i % 2].url, tid, stop))
        for i, p in enumerate(ps)
    ]
    await asyncio.sleep(60 * SCALE / 3)
    durable_redis.kill()
    await asyncio.sleep(1)
    durable_redis.restart()

    async def ended() -> Msg | None:
        try:
            v = await view(ps[0], tid)
        except (AssertionError, httpx.HTTPError):
            return None
        return v if v["status"] == "finished" else None

    final: Msg = await wait_for(ended, "the arena's end after the restart", 60 * SCALE + 60, 0.2)
    stop.set()
    await asyncio.gather(*tasks)
    export = await export_of(ps[0], tid)
    assert [e["t"] for e in export["events"]].count("end") == 1
    assert verify_tournament(export) == []
    check_arena(final, export)


async def test_an_export_unlike_the_tournament_run_under_its_id_does_not_verify(
    hub: HubProcess,
) -> None:
    """As a record is compared with the game stored under its id: a forged export that
    holds together on its own (here another name in its settings) is not that tournament."""
    creator, p = await players(hub.url, 2)
    tid = await create(
        creator,
        name="Too few",
        format="round_robin",
        ruleset="nielsen",
        move_time=86400,
        starts_at=now_ms() + 1500,
    )
    assert (await act(p, tid, "join")).status_code == 200
    early = await export_of(p, tid)  # before its end: no seed, nothing to verify yet
    assert early["seed"] is None and early["status"] == "upcoming", early
    verdict = (await p.http.post("/api/verify", content=json.dumps(early).encode())).json()
    assert (verdict["ok"], verdict["error"]) == (False, "export_invalid"), verdict
    assert "the export has no seed" in verdict["message"]
    await finished(p, tid, 30)  # one player: it ends at its start, unplayed
    export = await export_of(p, tid)
    assert verify_tournament(export) == []
    kinds = [e["t"] for e in export["events"]]
    assert "start" not in kinds and kinds[-1] == "end", kinds
    assert export["standings"] == []  # nobody played: no standings
    verdict = (await p.http.post("/api/verify", content=json.dumps(export).encode())).json()
    assert verdict["ok"] is True, verdict
    assert verdict["stored"] == {"found": True, "same": True, "differences": []}
    forged = {**export, "settings": {**export["settings"], "name": "Another"}}
    assert verify_tournament(forged) == []
    verdict = (await p.http.post("/api/verify", content=json.dumps(forged).encode())).json()
    assert verdict["ok"] is False and verdict["tournament"] == tid, verdict
    assert verdict["stored"]["differences"] == [
        "the settings differ from the tournament this service ran"
    ]
    assert verdict["error"] == "export_not_run"
    assert f"not the tournament this service ran as {tid}" in verdict["message"]
