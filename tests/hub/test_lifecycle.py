"""A game's life: deadlines, outages, draw offers, resignation, abort, rematch.

Deadlines are shortened with BRANDUBH_TIME_SCALE (never by touching Redis's clock):
at 0.01 a one-minute move time is 600 ms.
"""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import replace
from typing import Any

import msgpack
import pytest
import redis

from brandubh import fairplay
from brandubh.engine import Game, format_record, parse_record
from brandubh.hub.redis import keys
from games import FAST, play, quiet_line
from services import redis_ms, sync_client
from waiting import wait_for
from wsclient import Msg, Player, friend_game, seated


def stored_events(r: redis.Redis, game: str) -> list[Msg]:
    return [msgpack.unpackb(f, raw=False) for f in r.lrange(keys.events(game), 0, -1)]


def endings(events: list[Msg]) -> list[Msg]:
    return [e for e in events if e["state"]["status"] == "ended"]


# -- deadlines -----------------------------------------------------------------------------


@pytest.mark.cluster
async def test_a_deadline_fires_once_with_two_hubs_even_when_one_dies(
    start_hub: Any, fresh_redis_url: str
) -> None:
    env = {**FAST, "BRANDUBH_TIME_SCALE": "0.03"}  # 1.8 s per move
    h1 = start_hub(env, redis=fresh_redis_url)
    h2 = start_hub(env, redis=fresh_redis_url)
    r = sync_client(fresh_redis_url)
    game, alice, bob = await friend_game(h1.url, "nielsen", joiner_base=h2.url, move_time=60)
    sockets = await seated(game, alice, bob)
    state = await play(sockets, alice, game, ["d1-c1", "d3-c3"])
    assert state["deadline"] is not None
    h1.kill()  # one scheduler dies during the wait; the other fires
    await wait_for(lambda: endings(stored_events(r, game)), "the timeout", timeout=15)
    # No second (wrong) firing: the surviving scheduler polls every 20 ms, and a firing
    # that took the game twice would send no signal of its own.
    await asyncio.sleep(0.5)
    events = stored_events(r, game)
    ends = endings(events)
    assert len(ends) == 1
    assert ends[0]["kind"] == "timeout" and ends[0]["side"] == "attackers"
    assert ends[0]["state"]["result"] == {"winner": "defenders", "reason": "timeout"}
    assert ends[0]["state"]["seed"]
    assert [e["n"] for e in events] == list(range(1, len(events) + 1))
    assert r.zscore(keys.deadlines(keys.bucket(game)), game) is None
    # Lateness by Redis's clock: the ending commit against the deadline it enforced.
    h = r.hgetall(keys.game(game))
    assert int(h[b"updated"]) >= events[-2]["state"]["deadline"]


async def test_a_move_racing_its_deadline_is_either_played_or_timed_out_never_both(
    start_hub: Any, fresh_redis_url: str
) -> None:
    env = {**FAST, "BRANDUBH_TIME_SCALE": "0.015"}  # 900 ms per move
    hubs = [start_hub(env, redis=fresh_redis_url) for _ in range(2)]
    r = sync_client(fresh_redis_url)
    outcomes = {"move": 0, "timeout": 0}
    trials = 16
    for trial in range(trials):
        game, alice, bob = await friend_game(hubs[trial % 2].url, "walker", move_time=60)
        sockets = await seated(game, alice, bob)
        state = await play(sockets, alice, game, ["d1-c1", "d3-c3"])
        # Send the third move close to its deadline: a little before or after.
        now_ms = int(r.time()[0]) * 1000 + int(r.time()[1]) // 1000
        await asyncio.sleep(max(0.0, (state["deadline"] - now_ms) / 1000 + (trial % 8 - 4) * 0.005))
        mover = sockets[state["turn"]]
        mid = await mover.move(game, state["ply"], state["legal"][0])
        reply = await mover.reply_to(mid)
        await asyncio.sleep(0.3)  # the old deadline's scheduler pass has surely run
        events = stored_events(r, game)
        played = [e for e in events if e["kind"] == "move" and e["state"]["ply"] == 3]
        timed_out = [e for e in events if e["kind"] == "timeout" and e["state"]["ply"] == 2]
        assert len(played) + len(timed_out) == 1, events
        if played:
            assert reply["t"] == "ack"
            outcomes["move"] += 1
        else:
            assert reply["t"] == "error" and reply["code"] in ("deadline_passed", "game_not_active")
            outcomes["timeout"] += 1
        assert len(endings(events)) <= 1
        for sock in sockets.values():
            await sock.close()
    assert sum(outcomes.values()) == trials


@pytest.mark.cluster
async def test_a_first_move_that_never_comes_aborts_the_game(start_hub: Any) -> None:
    hub = start_hub(FAST)
    game, alice, _ = await friend_game(hub.url, move_time=60)
    sock = await alice.connect()
    await sock.watch(game)
    end = await sock.recv_until(lambda m: m["t"] == "event" and m["state"]["status"] == "ended")
    assert end["kind"] == "abort" and end["by"] is None
    assert end["state"]["result"] == {"winner": None, "reason": "aborted"}
    await sock.close()


async def test_a_short_restart_fires_a_deadline_that_passed_meanwhile(
    start_hub: Any, fresh_redis_url: str
) -> None:
    env = {**FAST, "BRANDUBH_OUTAGE_AFTER_S": "30"}
    hub = start_hub(env, redis=fresh_redis_url)
    r = sync_client(fresh_redis_url)
    game, alice, bob = await friend_game(hub.url, move_time=60)
    sockets = await seated(game, alice, bob)
    state = await play(sockets, alice, game, ["d1-c1", "d3-c3"])
    hub.kill()
    # The 600 ms deadline passes while no hub runs.
    await wait_for(lambda: redis_ms(r) > state["deadline"], "Redis's clock past the deadline")
    assert not endings(stored_events(r, game))
    start_hub(env, redis=fresh_redis_url)
    await wait_for(lambda: endings(stored_events(r, game)), "the timeout", timeout=5)
    assert endings(stored_events(r, game))[0]["state"]["result"]["reason"] == "timeout"


async def test_an_outage_extends_the_deadlines_that_fell_inside_it(
    start_hub: Any, fresh_redis_url: str
) -> None:
    env = {**FAST, "BRANDUBH_TIME_SCALE": "0.02", "BRANDUBH_OUTAGE_AFTER_S": "1"}
    hub = start_hub(env, redis=fresh_redis_url)
    r = sync_client(fresh_redis_url)
    game, alice, bob = await friend_game(hub.url, move_time=60)
    sockets = await seated(game, alice, bob)
    state = await play(sockets, alice, game, ["d1-c1", "d3-c3"])
    deadline = state["deadline"]
    hub.kill()
    # 1.2 s per move: the deadline falls inside this outage, which lasts over a second more.
    await wait_for(lambda: redis_ms(r) > deadline + 1000, "Redis's clock a second past")
    start_hub(env, redis=fresh_redis_url)
    await wait_for(
        lambda: stored_events(r, game)[-1]["kind"] == "deadline_extended", "the extension", 5
    )
    extended = stored_events(r, game)[-1]
    # Every outage recorded: on a loaded machine a stall of the first hub's heartbeat around
    # the move can be one too, and it rightly adds the part of it after the deadline was set.
    outages = [tuple(map(int, o.decode().split(":"))) for o in r.lrange(keys.outages(), 0, -1)]
    assert max(end - start for start, end in outages) > 1000  # the gap was recorded
    assert extended["deadline"] > deadline + 1000
    assert extended["deadline"] <= deadline + sum(end - start for start, end in outages)
    assert extended["state"]["status"] == "active"
    # The side to move gets back the time it had when the service went down, then loses.
    await wait_for(lambda: endings(stored_events(r, game)), "the timeout", timeout=5)
    assert endings(stored_events(r, game))[0]["state"]["result"]["reason"] == "timeout"


# -- draw offers, resignation, abort -----------------------------------------------------


@pytest.mark.cluster
async def test_draw_offer_accepted(hub: Any) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    viewer = await (await Player(hub.url).start()).connect()
    await viewer.watch(game)
    a, d = sockets["attackers"], sockets["defenders"]
    await a.send({"t": "offer_draw", "game": game, "id": "o1"})
    assert (await a.reply_to("o1"))["t"] == "ack"
    seen = await viewer.recv_until(lambda m: m["t"] == "event" and m["kind"] == "draw_offer")
    assert seen["by"] == "attackers" and seen["state"]["draw_offer"] == "attackers"
    await d.send({"t": "answer_draw", "game": game, "accept": True, "id": "y1"})
    assert (await d.reply_to("y1"))["t"] == "ack"
    end = await viewer.recv_until(lambda m: m["t"] == "event" and m["kind"] == "draw_agreed")
    assert end["state"]["result"] == {"winner": None, "reason": "draw_agreed"}
    assert end["state"]["seed"]
    for s in (a, d, viewer):
        await s.close()


async def test_draw_offer_declined_then_blocked_for_ten_plies(hub: Any) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    a, d = sockets["attackers"], sockets["defenders"]
    await a.send({"t": "offer_draw", "game": game, "id": "o1"})
    await a.reply_to("o1")
    await a.send({"t": "offer_draw", "game": game, "id": "o2"})  # one open offer at a time
    assert (await a.reply_to("o2"))["code"] == "draw_offer_open"
    await d.send({"t": "offer_draw", "game": game, "id": "o3"})
    assert (await d.reply_to("o3"))["code"] == "draw_offer_open"
    await d.send({"t": "answer_draw", "game": game, "accept": False, "id": "n1"})
    assert (await d.reply_to("n1"))["t"] == "ack"
    await a.send({"t": "offer_draw", "game": game, "id": "o4"})
    refused = await a.reply_to("o4")
    assert refused["code"] == "draw_offer_too_soon" and "ply 10" in refused["message"]
    # Ten plies later the attackers may offer again.
    await play(sockets, alice, game, quiet_line(10))
    await a.send({"t": "offer_draw", "game": game, "id": "o5"})
    assert (await a.reply_to("o5"))["t"] == "ack"
    await d.send({"t": "answer_draw", "game": game, "accept": False, "id": "n2"})
    await d.reply_to("n2")
    await d.send({"t": "answer_draw", "game": game, "accept": True, "id": "n3"})
    assert (await d.reply_to("n3"))["code"] == "no_draw_offer"
    for s in (a, d):
        await s.close()


async def test_playing_on_declines_the_offer(hub: Any) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    a, d = sockets["attackers"], sockets["defenders"]
    await play(sockets, alice, game, ["d1-c1"])
    await a.send({"t": "offer_draw", "game": game, "id": "o1"})  # offered out of turn
    await a.reply_to("o1")
    state = await play(sockets, alice, game, ["d3-c3"])  # the defenders play on
    assert state["draw_offer"] is None
    assert state["draw_block"]["attackers"] == 12
    event = await a.recv_until(lambda m: m["t"] == "event" and m.get("move") == "d3-c3")
    assert event["draw_declined"] is True
    for s in (a, d):
        await s.close()


@pytest.mark.cluster
async def test_resignation_at_any_time(hub: Any) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    a, d = sockets["attackers"], sockets["defenders"]
    await d.send({"t": "resign", "game": game, "id": "r1"})  # not the defenders' turn
    assert (await d.reply_to("r1"))["t"] == "ack"
    end = await a.recv_until(lambda m: m["t"] == "event" and m["kind"] == "resign")
    assert end["state"]["result"] == {"winner": "attackers", "reason": "resignation"}
    await d.send({"t": "resign", "game": game, "id": "r1"})  # a resend: same ack
    again = await d.reply_to("r1")
    assert again["t"] == "ack" and again["duplicate"] is True
    await a.send({"t": "resign", "game": game, "id": "r2"})
    assert (await a.reply_to("r2"))["code"] == "game_not_active"
    for s in (a, d):
        await s.close()


@pytest.mark.cluster
async def test_abort_before_both_moved_and_its_refusal_after(hub: Any) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    await play(sockets, alice, game, ["d1-c1"])
    d = sockets["defenders"]
    await d.send({"t": "abort", "game": game, "id": "x1"})
    assert (await d.reply_to("x1"))["t"] == "ack"
    state = (await alice.game(game))["state"]
    assert state["status"] == "ended" and state["result"]["reason"] == "aborted"

    game2, carol, dave = await friend_game(hub.url)
    sockets2 = await seated(game2, carol, dave)
    await play(sockets2, carol, game2, ["d1-c1", "d3-c3"])
    await sockets2["attackers"].send({"t": "abort", "game": game2, "id": "x2"})
    refused = await sockets2["attackers"].reply_to("x2")
    assert refused["code"] == "cannot_abort"
    assert (await carol.game(game2))["state"]["status"] == "active"
    for s in (*sockets.values(), *sockets2.values()):
        await s.close()


async def test_spectators_cannot_offer_resign_or_abort(hub: Any) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    viewer = await (await Player(hub.url).guest()).connect()  # a session, not a player
    for i, kind in enumerate(("resign", "abort", "offer_draw")):
        await viewer.send({"t": kind, "game": game, "id": f"v{i}"})
        assert (await viewer.reply_to(f"v{i}"))["code"] == "not_a_player"
    assert (await alice.game(game))["n"] == 1
    for s in (*sockets.values(), viewer):
        await s.close()


# -- rematch -------------------------------------------------------------------------------


@pytest.mark.cluster
async def test_rematch_offered_then_accepted_starts_a_new_game(hub: Any) -> None:
    game, alice, bob = await friend_game(hub.url, "common")
    sockets = await seated(game, alice, bob)
    a, d = sockets["attackers"], sockets["defenders"]
    await a.send({"t": "resign", "game": game, "id": "r1"})
    await a.reply_to("r1")
    await a.send({"t": "rematch", "game": game, "id": "m1"})
    first = await a.recv_until(lambda m: m["t"] == "ack" and m["of"] == "rematch")
    assert first["outcome"] == "offered" and first["next"] is None
    notice = await d.recv_until(lambda m: m["t"] == "rematch" and m.get("offer"))
    assert notice["offer"] == "attackers"
    await d.send({"t": "rematch", "game": game, "id": "m2"})
    second = await d.recv_until(lambda m: m["t"] == "ack" and m["of"] == "rematch")
    assert second["outcome"] == "agreed" and second["next"]
    told = await a.recv_until(lambda m: m["t"] == "rematch" and m.get("next"))
    assert told["next"] == second["next"]
    new = (await alice.game(second["next"]))["state"]
    assert new["status"] == "active" and new["ruleset"] == "common" and new["move_time"] == 600
    ids = {p["id"] for p in new["players"].values()}
    assert ids == {alice.id, bob.id}
    assert (await alice.game(game))["state"]["rematch"]["game"] == second["next"]
    for s in (a, d):
        await s.close()


async def test_the_bot_accepts_a_rematch_at_once(hub: Any) -> None:
    guest = await Player(hub.url).start()
    created = await guest.create_game(opponent="bot", bot_level=2)
    sock = await guest.connect()
    await sock.watch(created["id"])
    await sock.send({"t": "resign", "game": created["id"], "id": "r1"})
    await sock.reply_to("r1")
    await sock.send({"t": "rematch", "game": created["id"], "id": "m1"})
    ack = await sock.recv_until(lambda m: m["t"] == "ack" and m["of"] == "rematch")
    assert ack["outcome"] == "agreed"
    new = (await guest.game(ack["next"]))["state"]
    assert new["opponent"] == "bot" and new["bot_level"] == 2 and new["status"] == "active"
    await sock.close()


# -- repetition, the move limit, verification ------------------------------------------

# Two pieces shuffle out and back: the start position comes round at plies 4 and 8.
SHUFFLE = ["d1-c1", "c4-c5", "c1-d1", "c5-c4"] * 2
THIRD_REPETITION = {
    "nielsen": None,  # a draw
    "federation": "attackers",  # the defenders lose, whoever repeated
    "common": "attackers",  # whose move made it loses: the defenders moved last
    "walker": None,
    "newsome": None,
}


async def test_third_repetition_ends_each_rule_set_its_own_way(hub: Any) -> None:
    for ruleset, winner in THIRD_REPETITION.items():
        game, alice, bob = await friend_game(hub.url, ruleset)
        sockets = await seated(game, alice, bob)
        state = await play(sockets, alice, game, SHUFFLE[:4])
        assert state["repetitions"] == 2  # the warning
        state = await play(sockets, alice, game, SHUFFLE[4:])
        assert state["status"] == "ended", ruleset
        assert state["result"] == {"winner": winner, "reason": "repetition"}, ruleset
        for sock in sockets.values():
            await sock.close()


def long_line(plies: int, ruleset: str) -> list[str]:
    """A line of ``plies`` moves from the start that does not end the game before."""
    for seed in range(100):
        rng = random.Random(seed)
        game = Game(ruleset)
        line: list[str] = []
        while len(line) < plies:
            options = game.legal_moves()
            rng.shuffle(options)
            for move in options:
                game.play(move)
                if game.result is None or len(line) == plies - 1:
                    line.append(str(move))
                    break
                game.pop()
            else:
                break
        if len(line) == plies:
            return line
    raise AssertionError("no line found")


async def test_four_hundred_plies_draw(start_hub: Any) -> None:
    # Two hundred moves a side in a few seconds is beyond the credits a person needs.
    hub = start_hub({"BRANDUBH_CREDITS": "1000"})
    game, alice, bob = await friend_game(hub.url, "walker")
    sockets = await seated(game, alice, bob)
    line = long_line(400, "walker")
    state = await play(sockets, alice, game, line)
    assert state["ply"] == 400
    assert state["result"] == {"winner": None, "reason": "move_limit"}
    for sock in sockets.values():
        await sock.close()


async def test_a_finished_games_record_verifies_and_a_changed_one_does_not(
    hub: Any, tmp_path: Any
) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    await play(sockets, alice, game, quiet_line(6))
    await sockets["defenders"].send({"t": "resign", "game": game, "id": "r"})
    await sockets["defenders"].reply_to("r")
    text = (await alice.http.get(f"/api/games/{game}/record")).text
    assert '[Result "attackers"]' in text and '[Reason "resignation"]' in text

    ok = (await alice.http.post("/api/verify", content=text)).json()
    assert ok["ok"] is True and ok["moves"] == 6
    assert ok["stored"] == {"found": True, "same": True, "differences": []}
    # A consistent record under this game's id that is not the game the service played.
    renamed = re.sub(r'\[Attackers "[^"]*"\]', '[Attackers "Someone Else"]', text)
    assert renamed != text
    other = (await alice.http.post("/api/verify", content=renamed)).json()
    assert other["ok"] is False and other["stored"]["same"] is False
    assert any("attackers" in d for d in other["stored"]["differences"])
    assert other["error"] == "record_not_played"  # a code; the reason is the message
    assert f"not the game this service played as {game}" in other["message"]
    # The resigned game's last move swapped for another legal one: a consistent record,
    # but not this game's, so it does not verify (it did, and linked to the game).
    played = parse_record(text)
    before = Game("nielsen")
    for move in played.moves[:-1]:
        before.play(move)
    swap = next(
        str(m) for m in before.legal_moves() if str(m) != played.moves[-1] and not m.captures
    )
    swapped = format_record(replace(played, moves=(*played.moves[:-1], swap)))
    assert fairplay.verify(parse_record(swapped))  # it holds together on its own
    reply = (await alice.http.post("/api/verify", content=swapped)).json()
    assert reply["ok"] is False and "the moves differ" in reply["message"], reply

    seed_line = next(line for line in text.splitlines() if line.startswith("[Seed "))
    other_seed = "0" * 64
    changed = {
        "a move": (text.replace(" " + quiet_line(6)[2] + " ", " d1-d2 ", 1), "illegal"),
        "the seed": (text.replace(seed_line, f'[Seed "{other_seed}"]'), "commitment"),
        "the side": (
            text.replace('[Creator "attackers"]', '[Creator "defenders"]')
            if '[Creator "attackers"]' in text
            else text.replace('[Creator "defenders"]', '[Creator "attackers"]'),
            "sides do not follow",
        ),
    }
    for label, (bad, needle) in changed.items():
        assert bad != text, label
        reply = (await alice.http.post("/api/verify", content=bad)).json()
        assert reply["ok"] is False and needle in reply["message"], (label, reply)
        assert reply["error"] == "record_invalid", (label, reply)

    # The command line gives the same verdicts.
    good_file, bad_file = tmp_path / "good.txt", tmp_path / "bad.txt"
    good_file.write_text(text)
    bad_file.write_text(changed["the seed"][0])
    import subprocess
    import sys

    run = [sys.executable, "-m", "brandubh", "verify"]
    passed = subprocess.run([*run, str(good_file)], capture_output=True, text=True)
    assert passed.returncode == 0 and passed.stdout.startswith("OK")
    failed = subprocess.run([*run, str(bad_file)], capture_output=True, text=True)
    assert failed.returncode == 1 and "commitment" in failed.stderr
    online = subprocess.run(
        [*run, "--online", hub.url, str(good_file)], capture_output=True, text=True
    )
    assert online.returncode == 0 and "it is the game" in online.stdout, online
    renamed_file = tmp_path / "renamed.txt"
    renamed_file.write_text(renamed)
    online = subprocess.run(
        [*run, "--online", hub.url, str(renamed_file)], capture_output=True, text=True
    )
    assert online.returncode == 1 and "not the game" in online.stderr, online
    for sock in sockets.values():
        await sock.close()
