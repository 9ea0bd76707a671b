"""The ``tournament_delta`` frame's body (hub/tournaments/delta.py): applying the delta
between two views to the older gives the newer, and applying it again changes nothing:
on views hypothesis makes up and on real ones (tournaments run through the hub's state
and pairing in memory: tournament_views.py). The client applies the same deltas from
the fixture written here (client/src/logic/tournamentdelta.test.ts)."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import tournament_views
from hypothesis import given, settings
from hypothesis import strategies as st

from brandubh.hub.tournaments.delta import apply, diff

PIDS = st.sampled_from([f"p{n}" for n in range(8)])
LEAF = st.none() | st.integers(-3, 40) | st.text(max_size=3) | st.booleans()


def rows(key: st.SearchStrategy[Any], make: Any) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Lists of rows with distinct keys, each row's fields drawn anew."""
    return st.lists(key, unique=True, max_size=6).flatmap(
        lambda ks: st.tuples(*(make(k) for k in ks)).map(list)
    )


def standing(pid: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"rank": st.integers(1, 8), "player": st.just({"id": pid, "name": pid}), "points": LEAF},
        optional={"streak": st.booleans()},
    )


def game(gid: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"id": st.just(gid), "attackers": PIDS, "defenders": PIDS, "result": LEAF}
    )


def round_(r: int) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"round": st.just(r), "pairings": st.lists(LEAF, max_size=3), "rests": st.just([])}
    )


VIEWS = st.fixed_dictionaries(
    {"id": st.just("tHypothes"), "standings": rows(PIDS, standing)},
    optional={
        "status": st.sampled_from(["upcoming", "running", "finished"]),
        "now": st.integers(0, 10),
        "seed": LEAF,
        "players": LEAF,
        "games": rows(st.sampled_from([f"g{n}" for n in range(8)]), game),
        "rounds": rows(st.integers(1, 6), round_) | LEAF,
        "game_counts": st.dictionaries(PIDS, st.integers(0, 9)),
        "recent_games": LEAF,
    },
)


def check(old: dict[str, Any], new: dict[str, Any]) -> None:
    kept = copy.deepcopy(old)
    d = diff(old, new)
    assert apply(old, d) == new
    assert old == kept  # applying makes a new view
    assert apply(new, d) == new  # idempotent: the delta again changes nothing
    assert apply(apply(old, d), d) == new
    assert json.loads(json.dumps(d)) == d  # it goes on the wire as it is
    if old == new:
        assert d == {}


@settings(max_examples=400, deadline=None)
@given(VIEWS, VIEWS)
def test_a_delta_between_any_two_views_turns_one_into_the_other(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    check(old, new)


@settings(max_examples=200, deadline=None)
@given(VIEWS, st.data())
def test_a_view_changed_a_little_takes_a_small_delta(old: dict[str, Any], data: Any) -> None:
    """A row changed, one added, one gone: the delta names those rows only."""
    new = copy.deepcopy(old)
    standings = new["standings"]
    if standings:
        standings[0] = {**standings[0], "points": 999}
    new["standings"] = [r for r in standings if r["player"]["id"] != "p7"]
    check(old, new)
    d = diff(old, new)
    changed = [r["player"]["id"] for r in d.get("standings", {}).get("changed", [])]
    assert len(changed) <= 1
    assert set(d) <= {"standings"}


def test_real_views_each_delta_gives_the_next_and_is_idempotent() -> None:
    runs = [
        tournament_views.arena(24, 120, seed=7),
        tournament_views.rounds("round_robin", 7, seed=8),
        tournament_views.rounds("swiss", 12, seed=9, swiss_rounds=4),
    ]
    for views in runs:
        for old, new in itertools.pairwise(views):
            check(old, new)
        for i in range(0, len(views), 7):  # deltas over several changes too
            check(views[i], views[-1])


def test_an_arenas_delta_is_a_small_part_of_its_frame() -> None:
    """After a result, the frame's rows that changed go, not the whole view."""
    views = tournament_views.arena(60, 80, seed=11)
    pairs = list(zip(views[-41:-1], views[-40:], strict=True))
    whole = sum(len(json.dumps(new)) for _, new in pairs)
    sent = sum(len(json.dumps(diff(old, new))) for old, new in pairs)
    assert sent < whole / 3, (sent, whole)


def test_the_clients_fixture_is_what_the_views_make_now() -> None:
    """client/src/logic/tournamentdelta.cases.json: rewrite it with
    ``python tests/hub/tournament_views.py`` after a change to the views or the deltas."""
    assert tournament_views.FIXTURE.read_text() == tournament_views.fixture_text()
    for run in json.loads(tournament_views.FIXTURE.read_text())["runs"]:
        views = run["views"]
        for step in run["steps"]:
            assert apply(views[step["from"]], step["delta"]) == views[step["to"]]


async def test_a_hub_holds_the_view_every_hubs_frames_give() -> None:
    """Runner.observe: a whole frame held, a delta from the version held applied to it, a
    late frame left out, a gap forgetting the view (the next frame from here goes whole)."""
    from brandubh.hub.tournaments.runner import Runner

    runner = Runner(None, None, None, None, None, lambda: 0, 1.0)  # type: ignore[arg-type]
    views = tournament_views.arena(6, 12, seed=5)
    wire = {"tournament": "tArenaSim"}
    runner.observe({**views[0], **wire, "t": "tournament", "version": 3})
    runner.observe(
        {**diff(views[0], views[1]), **wire, "t": "tournament_delta", "version": 4, "base": 3}
    )
    assert runner._views["tArenaSim"] == (4, views[1])
    runner.observe({**views[0], **wire, "t": "tournament", "version": 2})  # late
    runner.observe(
        {**diff(views[0], views[1]), **wire, "t": "tournament_delta", "version": 4, "base": 3}
    )
    assert runner._views["tArenaSim"] == (4, views[1])
    runner.observe(
        {**diff(views[2], views[3]), **wire, "t": "tournament_delta", "version": 6, "base": 5}
    )
    assert "tArenaSim" not in runner._views  # a version missed
    runner.observe({**views[-1], **wire, "t": "tournament", "version": 9})
    assert "tArenaSim" not in runner._views  # finished: no change comes
