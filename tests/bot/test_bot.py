"""The bot (issue #6): legal moves everywhere, wins taken, escapes stopped, forks recognised,
the same move for the same seed and position in any process, and the hub's entry points."""

from __future__ import annotations

import json
import multiprocessing
import random
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import pytest

from brandubh.bot import (
    LEVELS,
    WIN,
    Searcher,
    choose_code,
    choose_move,
    evaluate,
    forced_escape,
    level_for,
    open_lanes,
    rng_for,
    think,
)
from brandubh.bot.evaluation import MATE_BOUND
from brandubh.engine import RULESETS, Game, Snapshot
from positions import put

SLIDE = ["nielsen", "federation", "common", "walker"]
ALL = [*SLIDE, "newsome"]
SEED = b"\x01" * 16


def random_games(ruleset: str, count: int, seed: int) -> list[Game]:
    """Running games reached by random play from the start, of varied lengths."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        game = Game(ruleset)
        for _ in range(rng.randrange(0, 60)):
            if game.result is not None:
                break
            moves = game.board.legal_moves()
            game.push(moves[rng.randrange(len(moves))])
        if game.result is None:
            out.append(game)
    return out


# -- legality ---------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ALL)
def test_never_an_illegal_move_at_low_levels(ruleset: str) -> None:
    for i, game in enumerate(random_games(ruleset, 12, seed=len(ruleset))):
        level = 1 + i % 3
        before = game.position, game.ply, game.result
        move = choose_move(game, rng_for(SEED, f"legal-{i}", game.ply), level)
        assert (game.position, game.ply, game.result) == before, "the game was changed"
        assert move in game.legal_moves(), f"{move} is not legal in {game.position}"
        game.play(str(move))  # the text round-trips, captures included


@pytest.mark.parametrize("ruleset", ALL)
def test_never_an_illegal_move_with_tiny_budgets(ruleset: str) -> None:
    tiny = replace(level_for(5), nodes=300, depth=4)
    noisy = replace(level_for(1), nodes=300)  # the level with root noise and blunders
    for i, game in enumerate(random_games(ruleset, 30, seed=100 + len(ruleset))):
        level = tiny if i % 2 else noisy
        code = choose_code(game, rng_for(SEED, f"tiny-{i}", game.ply), level)
        assert code in game.board.legal_moves()


@pytest.mark.parametrize("ruleset", ALL)
def test_level_five_plays_legal_moves(ruleset: str) -> None:
    (game,) = random_games(ruleset, 1, seed=7)
    move = choose_move(game, rng_for(SEED, "five", game.ply), 5)
    assert move in game.legal_moves()


def test_unknown_level_and_finished_game_are_refused() -> None:
    with pytest.raises(ValueError, match="1 to 5"):
        choose_move(Game(), random.Random(0), 6)
    game = Game("nielsen", put("Ka1 Ac3 Dd5", "a"))
    assert game.result is not None
    with pytest.raises(ValueError, match="over"):
        choose_move(game, random.Random(0), 1)


# -- tactics ----------------------------------------------------------------------------


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("ruleset", SLIDE)
def test_takes_an_immediate_escape(ruleset: str, level: int) -> None:
    # The king on c1 sees a1 past an empty b1 (the attacker on e1 shuts g1).
    game = Game(ruleset, put("Kc1 Ae1 Ab3 Af5 Ad6 Dd4", "d"))
    move = choose_move(game, rng_for(SEED, "escape", 0), level)
    assert str(move) == "Kc1-a1"


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_takes_an_immediate_king_capture(level: int) -> None:
    # Walker: two in a line take the king anywhere, beside the throne too: e6-e3 with c3.
    game = Game("walker", put("Kd3 Ac3 Ae6 Ab6 Dg4", "a"))
    move = choose_move(game, rng_for(SEED, "capture", 0), level)
    assert str(move) == "e6-e3xd3"


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_takes_the_last_attacker(level: int) -> None:
    game = Game("nielsen", put("Kd4 Dc6 Ab6 Da2", "d"))
    move = choose_move(game, rng_for(SEED, "last", 0), level)
    game.play(str(move))
    assert game.result is not None
    assert game.result.winner == "defenders"


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize(
    ("position", "winner"),
    [
        # a baron takes the last prince by stepping onto him
        (put("Kg7 Dc4 Ab4 Af1 Aa7", "a"), "attackers"),
        # a prince takes the last baron by replacement
        (put("Ka7 Dc4 Dg2 Ac5", "d"), "defenders"),
    ],
)
def test_newsome_takes_the_last_piece(level: int, position: str, winner: str) -> None:
    game = Game("newsome", position)
    move = choose_move(game, rng_for(SEED, "newsome", 0), level)
    game.play(str(move))
    assert game.result is not None
    assert game.result.winner == winner


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("ruleset", SLIDE)
def test_stops_a_one_move_escape(ruleset: str, level: int) -> None:
    # The king on a3 would walk to a1 past a2; the attacker on c2 can shut a2.
    game = Game(ruleset, put("Ka3 Aa5 Ac2 Ae6 Af4 Dd5 Dd3", "a"))
    assert open_lanes(game.board) == 1
    for ply_seed in range(3):
        move = choose_move(game, rng_for(SEED, f"block-{ply_seed}", 0), level)
        assert move.destination == "a2", f"level {level} played {move}"


def test_stops_an_escape_by_taking_the_king() -> None:
    # The king on b1 sees a1 and g1; c3-c1 takes him against the hostile corner a1.
    game = Game("walker", put("Kb1 Ac3 Ae6 Dd5", "a"))
    move = choose_move(game, rng_for(SEED, "take", 0), 3)
    assert str(move) == "c3-c1xb1"


# -- forced escapes ---------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_two_open_lanes_are_scored_as_won(ruleset: str) -> None:
    # The king on a4 sees a1 and a7; no attacker can reach him to take him.
    game = Game(ruleset, put("Ka4 Ae5 Ad2 Af6 Dc4 Dd5", "a"))
    assert open_lanes(game.board) == 2
    assert forced_escape(game)
    assert evaluate(game) == -(WIN - 2)  # lost for the attackers to move
    found = Searcher(game, 5_000).run(random.Random(0))
    assert found.score <= -MATE_BOUND
    # With the move, one open lane is already won for the defenders.
    game_d = Game(ruleset, put("Kc1 Ae5 Ad2 Af6 Dc4 Dd5", "d"))
    assert evaluate(game_d) >= MATE_BOUND


@pytest.mark.parametrize("ruleset", SLIDE)
def test_two_lanes_are_not_won_when_the_king_can_be_taken(ruleset: str) -> None:
    game = Game(ruleset, put("Kb1 Ac2 Ae6 Dc4", "a"))
    assert open_lanes(game.board) == 2
    assert not forced_escape(game)  # c2-c1 takes him against the corner a1
    assert evaluate(game) > -MATE_BOUND


# -- determinism ------------------------------------------------------------------------


def _think_in_fresh_process(snapshot: Snapshot, level: int) -> str:
    code = (
        "import json, sys\n"
        "from brandubh.bot import think\n"
        "from brandubh.engine import Snapshot\n"
        "d = json.loads(sys.stdin.read())\n"
        "snap = Snapshot(d['ruleset'], d['start'], d['position'], d['ply'], tuple(d['woods']),"
        " tuple(d['recent']))\n"
        "print(think(snap, bytes.fromhex(d['seed']), d['game_id'], d['level']))\n"
    )
    payload = {
        "ruleset": snapshot.ruleset,
        "start": snapshot.start_position,
        "position": snapshot.position,
        "ply": snapshot.ply,
        "woods": list(snapshot.woods),
        "recent": list(snapshot.recent),
        "seed": SEED.hex(),
        "game_id": "det",
        "level": level,
    }
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return out.stdout.strip()


@pytest.mark.parametrize("ruleset", ALL)
def test_same_seed_and_position_give_the_same_move(ruleset: str) -> None:
    games = random_games(ruleset, 3, seed=42)
    for level in (1, 2, 4):
        for game in games:
            snap = game.snapshot()
            first = think(snap, SEED, "det", level)
            # An unrelated search in between must not change anything (fresh table per call).
            think(games[0].snapshot(), b"other", "x", level)
            assert think(snap, SEED, "det", level) == first
            assert str(choose_move(game, rng_for(SEED, "det", game.ply), level)) == first


def test_same_move_in_a_fresh_process() -> None:
    game = random_games("nielsen", 1, seed=3)[0]
    snap = game.snapshot()
    for level in (1, 3):
        assert _think_in_fresh_process(snap, level) == think(snap, SEED, "det", level)


def test_think_runs_in_a_process_pool() -> None:
    # The hub's way: plain, picklable arguments into a fresh ("spawn") worker, text back.
    games = random_games("walker", 2, seed=9) + random_games("newsome", 1, seed=9)
    snaps = [g.snapshot() for g in games]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        remote = [pool.submit(think, snap, SEED, "pool", 2).result(timeout=60) for snap in snaps]
    assert remote == [think(snap, SEED, "pool", 2) for snap in snaps]
    for game, text in zip(games, remote, strict=True):
        game.play(text)


def test_seeds_vary_the_play() -> None:
    # Level 1 is meant to vary: different game seeds give different openings.
    game = Game("nielsen")
    moves = {str(choose_move(game, rng_for(bytes([i]) * 8, "g", 0), 1)) for i in range(12)}
    assert len(moves) > 2


def test_budget_is_nodes_not_seconds() -> None:
    game = random_games("common", 1, seed=11)[0]
    a = Searcher(Game.from_snapshot(game.snapshot()), 3_000).run(random.Random(5))
    b = Searcher(Game.from_snapshot(game.snapshot()), 3_000).run(random.Random(5))
    assert (a.move, a.score, a.depth, a.nodes) == (b.move, b.score, b.depth, b.nodes)
    assert a.nodes <= 3_000 + 64


def test_levels_grow() -> None:
    nodes = [LEVELS[n].nodes for n in sorted(LEVELS)]
    assert nodes == sorted(nodes)
    assert set(LEVELS) == {1, 2, 3, 4, 5}
    assert all(r in RULESETS for r in ALL)
