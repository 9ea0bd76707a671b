"""Pairing invariants, for any pool: the arena's pairer, the round robin's schedule and
Swiss rounds (no player twice in a round, no repeat, sides kept even), and pairings
recomputed from the seed are the same."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tournament_sim import simulate_arena, simulate_matches

from brandubh.tournaments import (
    ArenaPlayer,
    PairingImpossible,
    SwissPlayer,
    pair_arena,
    pair_swiss,
    rng,
    round_robin,
)


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[ArenaPlayer], bool, int]:
    """Free players with scores, ratings, sides played (kept within one of even, as the
    pairer keeps them) and last opponents among themselves or elsewhere."""
    n = draw(st.integers(0, 24))
    ids = [f"p{i}" for i in range(n)]
    players = []
    for pid in ids:
        played = draw(st.integers(0, 6))
        lean = draw(st.sampled_from([-1, 0, 1])) if played % 2 else 0
        last = draw(st.sampled_from([None, "elsewhere", *ids])) if played else None
        players.append(
            ArenaPlayer(
                pid,
                float(draw(st.integers(1000, 2200))),
                draw(st.integers(0, 12)),
                (played + lean) // 2,
                (played - lean) // 2,
                None if last == pid else last,
            )
        )
    return players, draw(st.booleans()), draw(st.integers(0, 2**32))


def _lean_after(players: list[ArenaPlayer], pairs: list) -> dict[str, int]:  # type: ignore[type-arg]
    lean = {p.id: p.lean for p in players}
    for pairing in pairs:
        lean[pairing.attackers] += 1
        lean[pairing.defenders] -= 1
    return lean


@settings(max_examples=300, deadline=None)
@given(pools())
def test_the_arena_pairer_keeps_its_rules(pool: tuple[list[ArenaPlayer], bool, int]) -> None:
    players, others_playing, chance = pool
    by_id = {p.id: p for p in players}
    pairs = pair_arena(players, random.Random(chance), others_playing=others_playing)
    seen = Counter(pid for pairing in pairs for pid in (pairing.attackers, pairing.defenders))
    assert set(seen) <= set(by_id) and all(n == 1 for n in seen.values())  # once each
    for pairing in pairs:  # never the same two in a row
        a, d = by_id[pairing.attackers], by_id[pairing.defenders]
        assert a.last_opponent != d.id and d.last_opponent != a.id
    lean = _lean_after(players, pairs)
    if others_playing:  # someone can come free: sides stay within one of even
        assert all(abs(v) <= 1 for v in lean.values())
    # Prompt: no two players left waiting could have been paired with each other.
    left = [p for p in players if p.id not in seen]
    for u, v in combinations(left, 2):
        repeat = u.last_opponent == v.id or v.last_opponent == u.id
        same_side = u.lean * v.lean > 0
        assert repeat or (others_playing and same_side), (u, v)
    # The order of the input does not matter.
    shuffled = players[:]
    random.Random(chance + 1).shuffle(shuffled)
    assert pair_arena(shuffled, random.Random(chance), others_playing=others_playing) == pairs


def test_the_arena_pairs_close_players_and_balances_sides() -> None:
    """A fresh pool pairs neighbours by rating; one who attacked more defends."""
    fresh = [ArenaPlayer(f"p{i}", 2000.0 - 10 * i) for i in range(6)]
    pairs = pair_arena(fresh, rng(bytes(32), "t"), others_playing=True)
    assert [sorted(p.players) for p in pairs] == [["p0", "p1"], ["p2", "p3"], ["p4", "p5"]]
    a = ArenaPlayer("a", 1500.0, 4, attacked=2, defended=1, last_opponent="x")
    b = ArenaPlayer("b", 1500.0, 4, attacked=1, defended=1, last_opponent="y")
    (pairing,) = pair_arena([a, b], rng(bytes(32), "t"), others_playing=True)
    assert (pairing.attackers, pairing.defenders) == ("b", "a")
    # Last opponents wait; so do two who both need to defend while others play...
    c = ArenaPlayer("c", 1500.0, 0, attacked=1, defended=0, last_opponent="z")
    assert pair_arena([a, c], rng(bytes(32), "t"), others_playing=True) == []
    assert (
        pair_arena(
            [b, ArenaPlayer("y", 1.0, last_opponent="b")], random.Random(), others_playing=False
        )
        == []
    )
    # ... but meet when nobody else could come free.
    assert len(pair_arena([a, c], rng(bytes(32), "t"), others_playing=False)) == 1


def test_a_twenty_player_arena_pairs_promptly_and_fairly() -> None:
    """The simulated arena of tournament_sim: nobody twice in a pairing, never the same
    two in a row, each player's sides within one of even throughout, median wait 0."""
    run = simulate_arena(players=20)
    last: dict[str, str] = {}
    lean: Counter[str] = Counter()
    for made in run.pairings:
        players = [p for pairing in made for p in (pairing.attackers, pairing.defenders)]
        assert len(players) == len(set(players))
        for pairing in made:
            a, d = pairing.attackers, pairing.defenders
            assert last.get(a) != d and last.get(d) != a
            last[a], last[d] = d, a
            lean[a] += 1
            lean[d] -= 1
            assert abs(lean[a]) <= 1 and abs(lean[d]) <= 1
    waits = sorted(run.waits)
    assert len(run.pairings) > 50
    assert waits[len(waits) // 2] < 2000


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.binary(min_size=32, max_size=32))
def test_a_round_robin_meets_everyone_exactly_once(n: int, seed: bytes) -> None:
    ids = [f"p{i}" for i in range(n)]
    schedule = round_robin(ids, rng(seed, "round_robin/order"))
    assert len(schedule) == (n - 1 if n % 2 == 0 else n)
    for pairs in schedule:
        players = [p for pair in pairs for p in pair]
        assert len(players) == len(set(players)) and len(pairs) == n // 2
    met = Counter(frozenset(pair) for pairs in schedule for pair in pairs)
    assert set(met) == {frozenset(c) for c in combinations(ids, 2)}
    assert set(met.values()) == {1}
    assert schedule == round_robin(list(reversed(ids)), rng(seed, "round_robin/order"))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([15, 16]), st.sampled_from([4, 5]), st.integers(0, 10**6))
def test_swiss_rounds_never_repeat_a_pairing(players: int, rounds: int, chance: int) -> None:
    """16 (or 15, with byes) players, 4-5 rounds of random results: no repeat, nobody
    twice in a round, everyone in every round, a bye never twice to the same player."""
    _, paired = simulate_matches("swiss", players, rounds, chance=chance)
    met: set[frozenset[str]] = set()
    byes = []
    for this in paired:
        ids = [p for pair in this.pairings for p in pair] + ([this.bye] if this.bye else [])
        assert sorted(ids) == sorted(f"p{i:02d}" for i in range(players))
        for pair in this.pairings:
            assert frozenset(pair) not in met
            met.add(frozenset(pair))
        byes += [this.bye] if this.bye else []
    assert len(byes) == len(set(byes)) == (rounds if players % 2 else 0)


def test_swiss_cannot_pair_more_rounds_than_opponents() -> None:
    players = [SwissPlayer(p, 0, i) for i, p in enumerate("abcd", 1)]
    met = {frozenset(pair) for pair in combinations("abcd", 2)}
    with pytest.raises(PairingImpossible, match="too many rounds"):
        pair_swiss(players, met)


@pytest.mark.parametrize(("fmt", "players", "rounds"), [("round_robin", 6, None), ("swiss", 16, 5)])
def test_pairings_recomputed_from_the_seed_match(
    fmt: str, players: int, rounds: int | None
) -> None:
    """Same seed, same results: the same pairings; another seed: another draw."""
    _, first = simulate_matches(fmt, players, rounds, seed=b"\x01" * 32, chance=7)
    _, again = simulate_matches(fmt, players, rounds, seed=b"\x01" * 32, chance=7)
    _, other = simulate_matches(fmt, players, rounds, seed=b"\x02" * 32, chance=7)
    assert first == again
    assert first != other
    arena = simulate_arena(seed=b"\x03" * 32, chance=3).pairings
    assert arena == simulate_arena(seed=b"\x03" * 32, chance=3).pairings
