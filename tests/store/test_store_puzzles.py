"""Puzzles in PostgreSQL: a set added once (missing ids only), a player's next puzzle near
their rating and not one they tried while others are left, a first attempt rated once
(player and puzzle, Glicko-2 as a game), a retry and a streak's attempt unrated, guests'
attempts kept without an account, the best streak kept as the greater."""

from __future__ import annotations

import random

import pytest

from brandubh.ratings import Rating, rate_game
from brandubh.store import Store
from handmade_puzzles import handmade


async def test_a_set_is_added_once_and_read_back(store: Store) -> None:
    puzzles = handmade()
    assert await store.add_puzzles(puzzles) == len(puzzles)
    assert await store.add_puzzles(puzzles) == 0  # idempotent: the ids are there
    assert await store.add_puzzles([*puzzles[:1], *puzzles[:1]]) == 0
    assert await store.puzzle_count() == len(puzzles)
    kept = await store.puzzle(puzzles[1].id)
    assert kept is not None
    assert kept.solution == puzzles[1].solution and kept.theme == "escape"
    assert kept.rating.rating == 1400.0 and kept.plays == 0 and kept.depth == 2
    assert await store.puzzle("0000000000") is None
    assert await store.puzzle_ids() == sorted(p.id for p in puzzles)


async def test_the_next_puzzle_is_near_the_rating_and_not_one_tried(store: Store) -> None:
    puzzles = handmade()
    await store.add_puzzles(puzzles)
    rng = random.Random(1)
    # CHOICES is larger than the set: every pick is among all; ordering shows in filters.
    found = await store.pick_puzzle("p1", near=2200, theme="capture", rng=rng)
    assert found is not None and found.id == puzzles[3].id
    assert await store.pick_puzzle("p1", near=1500, theme="defend") is None
    assert await store.pick_puzzle("p1", near=1500, ruleset="common") is None
    above = await store.pick_puzzle("p1", near=1500, above=1500, exclude=[puzzles[2].id], rng=rng)
    assert above is not None and above.id == puzzles[3].id
    # Tried ones come last: once all are tried, the one tried longest ago.
    for p in puzzles:
        await store.finish_attempt("p1", p.id, True, rated=True, guest=Rating())
    again = await store.pick_puzzle("p1", near=1500)
    assert again is not None and again.id == puzzles[0].id
    untried = {(await store.pick_puzzle("p2", near=1000, rng=rng)).id for _ in range(5)}  # type: ignore[union-attr]
    assert untried <= {p.id for p in puzzles}


async def test_a_first_attempt_is_rated_once_for_an_account(store: Store) -> None:
    await store.create_account("u_p", "p@example.org", "Pia", "h")
    puzzle = handmade()[1]
    await store.add_puzzles([puzzle])
    outcome = await store.finish_attempt("u_p", puzzle.id, False, rated=True)
    want_player, want_puzzle = rate_game(Rating(), Rating(1400.0), 0.0)
    assert outcome.rated
    assert outcome.player_after == want_player and outcome.puzzle_after == want_puzzle
    standing = await store.puzzle_standing("u_p")
    assert standing.rating == want_player and standing.attempts == 1
    kept = await store.puzzle(puzzle.id)
    assert kept is not None and kept.rating == want_puzzle and kept.plays == 1
    # A retry, solved this time, rates nothing.
    retry = await store.finish_attempt("u_p", puzzle.id, True, rated=True)
    assert not retry.rated and retry.player_after == retry.player_before == want_player
    assert (await store.puzzle_standing("u_p")).attempts == 1
    assert (await store.puzzle(puzzle.id)).plays == 1  # type: ignore[union-attr]


async def test_a_guest_is_rated_from_the_rating_given(store: Store) -> None:
    puzzle = handmade()[0]
    await store.add_puzzles([puzzle])
    mine = Rating(1300.0, 120.0, 0.06)
    outcome = await store.finish_attempt("g_guest", puzzle.id, True, rated=True, guest=mine)
    assert outcome.rated and outcome.player_before == mine
    assert outcome.player_after == rate_game(mine, Rating(1000.0), 1.0)[0]
    # A guest has no row of its own: its rating is the caller's to keep.
    assert (await store.puzzle_standing("g_guest")).attempts == 0


async def test_a_streak_attempt_is_unrated_and_the_best_streak_kept(store: Store) -> None:
    await store.create_account("u_s", "s@example.org", "Sam", "h")
    puzzle = handmade()[2]
    await store.add_puzzles([puzzle])
    outcome = await store.finish_attempt("u_s", puzzle.id, True, rated=False)
    assert not outcome.rated and outcome.puzzle_after == outcome.puzzle_before
    assert (await store.puzzle(puzzle.id)).plays == 0  # type: ignore[union-attr]
    assert await store.keep_streak("u_s", 4) == 4
    assert await store.keep_streak("u_s", 2) == 4
    assert (await store.puzzle_standing("u_s")).best_streak == 4


async def test_an_unknown_puzzle_changes_nothing(store: Store) -> None:
    with pytest.raises(LookupError):
        await store.finish_attempt("p1", "ffffffffff", True, rated=True, guest=Rating())
    assert await store.pick_puzzle("p1", near=1500) is None
