"""The commit path's parts that need no Redis: the cache of recent games, the event frame
and its deadline, commit.lua's arguments, what its reply means, and the lists' upkeep."""

from __future__ import annotations

import asyncio
import gc
import types
from typing import Any, cast

import msgpack
import pytest
from redis.asyncio import Redis

from brandubh.engine import Game
from brandubh.hub.errors import Refusal
from brandubh.hub.live import changes, events, listings
from brandubh.hub.live.cache import GameCache
from brandubh.hub.live.changes import Change
from brandubh.hub.live.commit import (
    ARCHIVE_GRACE_MS,
    STAMP_MAX_AGE_MS,
    Committed,
    Committer,
    arguments,
)
from brandubh.hub.live.state import GameState
from brandubh.hub.redis import Scripts, keys
from states import ALLOWANCE, A, D, running

SEED = bytes(range(32))


def moved() -> tuple[GameState, Change]:
    state = running()
    text = state.game().legal_texts()[0]
    return state, changes.move(state, A.id, 0, text, "m1", ALLOWANCE, state.game())


def started() -> tuple[GameState, Change]:
    waiting = running(status="waiting", joiner=None, attacker="", defender="", turn="")
    return waiting, changes.start(waiting, D, A, D, ALLOWANCE)


def resigned() -> tuple[GameState, Change]:
    state = running()
    return state, changes.resign(state, A.id, "r1")


def unpack(frame: bytes) -> dict[str, Any]:
    return cast(dict[str, Any], msgpack.unpackb(frame, raw=False))


# -- the cache -------------------------------------------------------------------------------


def test_the_cache_keeps_the_most_recent_games() -> None:
    cache = GameCache(size=2)
    one, two, three = (running(id=f"g{i}") for i in range(3))
    cache.remember(one)
    cache.remember(two)
    cache.remember(one)  # used again: now the most recent
    cache.remember(three)
    assert (cache.get("g0"), cache.get("g1"), cache.get("g2")) == (one, None, three)


def tracked_reachable(*roots: object) -> int:
    """How many objects the garbage collector tracks among those reachable from ``roots``
    (what its full collections scan for them), classes, modules and functions aside: they
    are shared by every game, and through them the walk would reach the whole process."""
    shared = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, shared):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return len(seen)


def test_a_cached_game_is_a_few_objects_for_the_collector_whatever_its_length() -> None:
    """The cache keeps states (the position packed as bytes), never the engine's Game with
    its per-ply stacks (about 80 tracked objects a game of 40 plies): the collector's full
    collections scan a few objects a live game."""
    cache = GameCache()
    state, change = moved()
    for _ in range(30):  # a longer game: what is cached must not grow with it
        now = change.new
        mover = now.player_of(now.game().side_to_move)
        change = changes.move(now, mover, now.ply, now.game().legal_texts()[0], "m", ALLOWANCE)
        if change.new.status != "active":
            break
    cache.remember(state)
    cache.remember(change.new)
    # A collection untracks the tuples and dicts that hold only untracked things; the
    # count is what the next full collection scans, whenever the last one ran.
    gc.collect()
    per_game = tracked_reachable(*cache._states.values()) / 2
    assert not any(isinstance(o, Game) for o in gc.get_referents(*cache._states.values()))
    print(f"tracked objects a cached game: {per_game}")
    assert per_game <= 8, per_game


def test_a_newer_event_or_a_refusal_forgets_a_cached_state() -> None:
    cache = GameCache()
    state = cache.remember(running())
    cache.observe(state.id, state.seq)  # the cached state's own event
    assert cache.get(state.id) is state
    cache.observe(state.id, state.seq + 1)
    assert cache.get(state.id) is None
    cache.remember(state)
    cache.forget(state.id)
    assert cache.get(state.id) is None


# -- the event frame -------------------------------------------------------------------------


def test_a_new_deadline_is_a_placeholder_until_the_script_sets_it() -> None:
    _, change = moved()
    sent = events.frame(change, b"")
    assert events.PLACEHOLDER in sent
    assert unpack(sent)["state"]["deadline"] == events.DEADLINE_PLACEHOLDER
    kept = events.stored(sent, change, 1_234_567)
    assert events.PLACEHOLDER not in kept
    event = unpack(kept)
    assert event["state"]["deadline"] == 1_234_567
    assert (event["t"], event["n"], event["kind"]) == ("event", change.new.seq, "move")


def test_the_final_event_reveals_the_seed_and_no_deadline() -> None:
    _, change = resigned()
    sent = events.frame(change, SEED)
    assert events.stored(sent, change, 99) == sent
    state = unpack(sent)["state"]
    assert state["seed"] == SEED.hex() and state["deadline"] is None
    assert state["result"] == {"winner": "defenders", "reason": "resignation"}


# -- commit.lua's arguments ------------------------------------------------------------------


def test_a_moves_arguments_carry_its_checks_its_stamp_and_the_placeholder() -> None:
    old, change = moved()
    frame = events.frame(change, b"")
    keys_, (packed, sent) = arguments(old, change, frame, A.id, "m1", "fp", "hub", 7, None)
    bucket = keys.bucket(old.id)  # KEYS in the order of commit.lua's header
    games = [of(old.id) for of in (keys.game, keys.events, keys.acks)]
    buckets = [of(bucket) for of in (keys.bot_jobs, keys.deadlines, keys.finished)]
    stores = [of(old.id) for of in (keys.moves, keys.repetitions)]
    trees = [keys.conditional(old.id, p) for p in (old.attacker, old.defender)]
    cond = [*trees, keys.conditional_jobs(bucket)]
    claims = [keys.presence(old.id), keys.gone(old.id)]  # read by a claim only
    assert keys_ == [*games, *buckets, keys.game_hubs(old.id), *stores, *cond, *claims]
    assert sent == frame
    params = msgpack.unpackb(packed, raw=True)
    assert params[b"seq"] == old.seq and params[b"ply"] == 0 and params[b"turn"] is True
    assert (params[b"stamp"], params[b"max_age"]) == (7, STAMP_MAX_AGE_MS)
    assert params[b"placeholder"] == events.PLACEHOLDER
    assert (params[b"change"], params[b"ms"], params[b"hub"]) == (b"set", ALLOWANCE, b"hub")
    assert params[b"fields"][::2] == [name.encode() for name in change.write]
    assert b"safe" not in params and b"archive_after" not in params
    # The move alone is appended and its position counted; nothing of the earlier moves.
    played = change.played
    assert played is not None and played.text == change.new.moves[-1]
    assert params[b"append"] == played.text.encode() + b" "
    assert params[b"rep"] == str(change.new.recent[-1]).encode()
    assert params[b"rep_reset"] is False
    assert b"moves_all" not in params and b"reps_all" not in params


def long_game(plies: int) -> list[tuple[GameState, Change]]:
    """Moves of one game that captures nothing and does not end, for ``plies`` plies: each
    the first legal move to a position seen least often."""
    state = running()
    game = state.game()
    seen: dict[int, int] = {}
    out = []
    for ply in range(plies):
        options = []
        for text in game.legal_texts():
            game.play(text)
            if "x" not in text and game.result is None:
                options.append((seen.get(game.board.hash, 0), text))
            game.pop()
        pick = min(options)[1]
        mover = state.turn
        change = changes.move(state, mover, ply, pick, f"m{ply}", ALLOWANCE, state.game())
        out.append((state, change))
        state = change.new
        game = state.game()
        seen[game.board.hash] = seen.get(game.board.hash, 0) + 1
    return out


def test_a_commit_does_not_grow_with_the_game() -> None:
    played = long_game(390)
    sizes = []
    for old, change in (played[0], played[-1]):
        assert change.new.result is None
        frame = events.frame(change, b"")
        _, args = arguments(old, change, frame, old.turn, "m", "fp", "hub", 7, None)
        sizes.append(len(args[0]))
    first, last = sizes
    assert last <= first * 1.2, sizes


def test_a_game_stored_before_the_move_and_count_keys_moves_them_there() -> None:
    old, change = moved()
    old = old.evolve(legacy=True, moves=("a4-a5", "c4-c3"), recent=(5, 7, 5))
    _, (packed, _) = arguments(old, change, b"", A.id, "m1", "fp", "hub")
    params = msgpack.unpackb(packed, raw=True)
    assert params[b"moves_all"] == b"a4-a5 c4-c3 "
    counts = params[b"reps_all"]
    assert sorted(zip(counts[::2], counts[1::2], strict=True)) == [(b"5", b"2"), (b"7", b"1")]


def test_an_ending_timeouts_arguments_carry_the_safe_time_and_the_archive_grace() -> None:
    old = running(deadline=1)
    change = changes.expiry(old, [])
    _, (packed, _) = arguments(old, change, b"", "scheduler", "", "", "", safe=5)
    params = msgpack.unpackb(packed, raw=True)
    assert (params[b"safe"], params[b"archive_after"]) == (5, ARCHIVE_GRACE_MS)
    assert b"stamp" not in params and b"placeholder" not in params


# -- what the reply means --------------------------------------------------------------------


def committer() -> tuple[Committer, list[tuple[Change, int, bytes]]]:
    told: list[tuple[Change, int, bytes]] = []
    done = Committer(
        cast(Redis, None),
        cast(Scripts, None),
        GameCache(),
        on_commit=lambda change, n, frame: told.append((change, n, frame)),
    )
    return done, told


def test_a_commit_is_remembered_and_told_with_the_frame_as_stored() -> None:
    done, told = committer()
    _, change = moved()
    sent = events.frame(change, b"")
    assert done.settle([b"ok", change.new.seq, b"5000"], change, sent) == Committed(change.new.seq)
    assert told == [(change, change.new.seq, events.stored(sent, change, 5000))]
    cached = done.cache.get(change.new.id)
    assert cached is not None and cached.deadline == 5000
    assert cached.snap == change.new.snap  # the position, packed: no engine game kept


def test_a_resend_a_race_and_a_refusal_tell_no_hook() -> None:
    done, told = committer()
    state, change = moved()
    done.cache.remember(state)
    assert done.settle([b"dup", b"3"], change, b"") == Committed(3, duplicate=True)
    assert done.settle([b"retry"], change, b"") is None
    with pytest.raises(Refusal) as refused:
        done.settle([b"err", b"stale_ply", b"4"], change, b"")
    assert refused.value.code == "stale_ply"
    assert done.cache.get(state.id) is None  # Redis said otherwise: not believed again
    assert told == []


# -- the lists to browse ---------------------------------------------------------------------


class Pipe:
    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self.log = log

    def zadd(self, key: str, mapping: dict[str, float]) -> None:
        self.log.append(("zadd", key, sorted(mapping)))

    def zrem(self, key: str, *members: str) -> None:
        self.log.append(("zrem", key, sorted(members)))

    async def execute(self) -> list[Any]:
        self.log.append(("execute",))
        return []


class Lists:
    """What listings.py asks of Redis."""

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []

    def pipeline(self, transaction: bool = True) -> Pipe:
        return Pipe(self.log)


async def test_games_that_start_or_end_in_one_turn_are_listed_in_one_round_trip() -> None:
    redis = Lists()
    upkeep = listings.Listings(cast(Redis, redis))
    _, move = moved()
    upkeep.on_commit(move, 2, b"")
    await asyncio.sleep(0)
    assert redis.log == []  # a move neither starts nor ends its game
    _, start = started()
    _, end = resigned()
    ended = end.new.evolve(id="game0002")
    upkeep.on_commit(start, 1, b"")
    upkeep.on_commit(Change(ended, end.event, end.write), 9, b"")
    for _ in range(3):
        await asyncio.sleep(0)
    assert redis.log == [
        ("zadd", keys.player_active(A.id), [start.new.id]),
        ("zadd", keys.player_active(D.id), [start.new.id]),
        ("zrem", keys.player_active(A.id), [ended.id]),
        ("zrem", keys.player_active(D.id), [ended.id]),
        ("zadd", keys.live_games(), [start.new.id]),
        ("zrem", keys.live_games(), [ended.id]),
        ("execute",),
    ]
    await upkeep.stop()
