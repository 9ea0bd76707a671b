"""Verifying a finished tournament's export: simulated tournaments verify, and each kind
of change to their exports is named; ``brandubh verify`` takes an export too."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from tournament_sim import simulate_arena, simulate_matches

from brandubh.run.cli import main
from brandubh.tournaments import verify_tournament


@pytest.fixture(scope="module")
def arena() -> dict[str, Any]:
    return simulate_arena(players=12, minutes=10).export


@pytest.fixture(scope="module")
def swiss() -> dict[str, Any]:
    return simulate_matches("swiss", 15, 4, chance=3, withdraw=("p04", 2))[0]


@pytest.mark.parametrize(
    ("fmt", "players", "rounds", "withdraw"),
    [("round_robin", 6, None, None), ("round_robin", 7, None, ("p02", 3)),
     ("swiss", 16, 5, None), ("swiss", 15, 4, ("p04", 2))],
)  # fmt: skip
def test_simulated_tournaments_verify(
    fmt: str, players: int, rounds: int | None, withdraw: tuple[str, int] | None
) -> None:
    data, _ = simulate_matches(fmt, players, rounds, withdraw=withdraw)
    assert verify_tournament(data) == []


def test_a_simulated_arena_verifies(arena: dict[str, Any]) -> None:
    assert verify_tournament(arena) == []


def _events(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in data["events"] if e["t"] == kind]


def test_changed_arena_exports_are_named(arena: dict[str, Any]) -> None:
    swapped = copy.deepcopy(arena)
    game = _events(swapped, "pairing")[3]["games"][0]
    game["attackers"], game["defenders"] = game["defenders"], game["attackers"]
    assert any("pairing 3 made" in p for p in verify_tournament(swapped))

    flipped = copy.deepcopy(arena)
    result = _events(flipped, "result")[0]
    result["result"] = "defenders" if result["result"] != "defenders" else "attackers"
    assert any(p.startswith("the standings say") for p in verify_tournament(flipped))

    hidden = copy.deepcopy(arena)
    pairing = _events(hidden, "pairing")[0]
    dropped = sorted(pairing["ratings"])[0]
    del pairing["ratings"][dropped]
    assert any("the free players were" in p for p in verify_tournament(hidden))

    reseeded = copy.deepcopy(arena)
    reseeded["seed"] = "00" * 32
    assert verify_tournament(reseeded) == [
        "the seed does not match the commitment: SHA-256 of the seed is "
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925, the commitment "
        + arena["seed_commitment"]
    ]


def test_changed_swiss_exports_are_named(swiss: dict[str, Any]) -> None:
    moved = copy.deepcopy(swiss)
    third = _events(moved, "round")[2]
    (a, b), (c, d) = ((p["a"], p["b"]) for p in third["pairings"][:2])
    third["pairings"][0], third["pairings"][1] = {"a": a, "b": c}, {"a": b, "b": d}
    assert any("round 3 paired" in p for p in verify_tournament(moved))

    stranger = copy.deepcopy(swiss)
    _events(stranger, "round")[1]["pairings"][0]["b"] = "nobody"
    assert any("is not a pairing of two players" in p for p in verify_tournament(stranger))

    stayed = copy.deepcopy(swiss)
    stayed["events"] = [
        e for e in stayed["events"] if not (e["t"] == "withdraw" and e["player"] == "p04")
    ]
    assert verify_tournament(stayed)  # p04 was paired no more: that no longer follows

    unfinished = copy.deepcopy(swiss)
    unfinished["events"] = unfinished["events"][:-1]
    assert "the tournament has not ended: no 'end' event" in verify_tournament(unfinished)

    ranked = copy.deepcopy(swiss)
    ranked["standings"][0]["tiebreaks"]["buchholz"] += 1
    assert any(p.startswith("the standings say") for p in verify_tournament(ranked))

    no_seed = copy.deepcopy(swiss)
    del no_seed["seed"]
    assert verify_tournament(no_seed) == [
        "the export has no seed: it is published when the tournament ends"
    ]


def test_brandubh_verify_takes_an_export(swiss: dict[str, Any], tmp_path: Path) -> None:
    good = tmp_path / "swiss.json"
    good.write_text(json.dumps(swiss))
    result = CliRunner().invoke(main, ["verify", str(good)])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output and "swiss, 15 players" in result.output
    bad = copy.deepcopy(swiss)
    bad["standings"][0]["points"] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 1
    assert "FAILED: the standings say" in result.output
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    result = CliRunner().invoke(main, ["verify", str(other)])
    assert result.exit_code == 1 and "not a tournament export" in result.output


def test_an_arena_ended_early_says_when(arena: dict[str, Any]) -> None:
    """An export's ``ends_at`` may bring the end forward, never past the settings' end;
    no pairing may follow it."""
    pairings = _events(arena, "pairing")
    early = copy.deepcopy(arena)
    early["ends_at"] = pairings[-1]["at"] + 1
    assert verify_tournament(early) == []
    earlier = copy.deepcopy(arena)
    earlier["ends_at"] = pairings[-1]["at"]
    assert any("outside the arena's time" in p for p in verify_tournament(earlier))
    late = copy.deepcopy(arena)
    late["ends_at"] = 2**53
    assert any("after the arena's end" in p for p in verify_tournament(late))


def test_a_swiss_that_cannot_pair_its_last_rounds_ends_early() -> None:
    """Eight players, seven rounds: some results leave no round 6 or 7 without a repeat
    (the verifier agrees that it could end there); ending early otherwise is named."""
    short = []
    for chance in range(40):
        data, paired = simulate_matches("swiss", 8, 7, chance=chance)
        if len(paired) < 7:
            short.append(data)
            assert verify_tournament(data) == []
    assert short  # some did end early
    full = next(c for c in range(40) if len(simulate_matches("swiss", 8, 7, chance=c)[1]) == 7)
    cut, _ = simulate_matches("swiss", 8, 7, chance=full)
    last_round = max(i for i, e in enumerate(cut["events"]) if e["t"] == "round")
    cut["events"] = [*cut["events"][:last_round], cut["events"][-1]]
    assert any("ends after 6 rounds of 7" in p for p in verify_tournament(cut))


JUNK = [None, 0, -5, 1.5, True, "x", "p01", "attackers", "draw", [], ["x"], {}, {"a": 1}]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["arena", "swiss", "round_robin"]), st.randoms(use_true_random=False))
def test_any_damaged_export_is_answered_in_words(fmt: str, r: random.Random) -> None:
    """Fields dropped or given junk: the verifier answers in words, it never crashes (some
    changes, such as a join's rating in an arena, change nothing it checks)."""
    data = copy.deepcopy(_BASES[fmt])
    for _ in range(r.randint(1, 4)):
        event = r.choice(data["events"])
        key = r.choice(sorted(event))
        inner = event[key]
        if isinstance(inner, list | dict) and inner and r.random() < 0.5:
            if isinstance(inner, dict):
                inner[r.choice(sorted(inner))] = r.choice(JUNK)
            else:
                inner[r.randrange(len(inner))] = r.choice(JUNK)
        elif r.random() < 0.2:
            del event[key]
        else:
            event[key] = r.choice(JUNK)
    problems = verify_tournament(data)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)


_BASES = {
    "arena": simulate_arena(players=8, minutes=5).export,
    "swiss": simulate_matches("swiss", 7, 3, withdraw=("p01", 2))[0],
    "round_robin": simulate_matches("round_robin", 5)[0],
}
