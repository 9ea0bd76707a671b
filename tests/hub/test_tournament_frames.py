"""An arena's ``tournament`` frame carries each player's latest games only (state.frame_view):
pure, on views built by hand."""

from __future__ import annotations

from typing import Any

from brandubh.hub.tournaments.state import RECENT_GAMES, frame_view


def game(n: int, a: str, d: str, result: str | None = "attackers") -> dict[str, Any]:
    return {
        "id": f"tAAAAAAAA-{n}",
        "wave": n,
        "attackers": {"id": a, "name": a.upper()},
        "defenders": {"id": d, "name": d.upper()},
        "result": result,
    }


def test_a_long_arenas_frame_keeps_each_players_latest_games_and_counts_them_all() -> None:
    # Ann and Bob play each other 25 times; Cid plays Dan once, early; then Ann plays Cid
    # (in progress).
    games = [game(1, "c", "d")]
    games += [game(n, "a", "b") if n % 2 else game(n, "b", "a") for n in range(2, 27)]
    games.append(game(27, "a", "c", None))
    view = {"format": "arena", "standings": [], "games": games}
    out = frame_view(view)
    assert out["game_counts"] == {"a": 26, "b": 25, "c": 2, "d": 1}
    assert out["recent_games"] == RECENT_GAMES
    # Each game as its id, its players' ids (their names are in the standings), its result.
    assert out["games"][-1] == {
        "id": "tAAAAAAAA-27",
        "attackers": "a",
        "defenders": "c",
        "result": None,
    }
    kept = [g["id"] for g in out["games"]]
    assert kept == sorted(kept, key=lambda i: int(i.rsplit("-", 1)[1]))  # still in order
    for pid in "abcd":
        mine = [g for g in games if pid in (g["attackers"]["id"], g["defenders"]["id"])]
        latest = {g["id"] for g in mine[-RECENT_GAMES:]}
        assert latest <= set(kept), pid  # the game in play included
    # Nothing else: a game none of whose players has it among their latest is left out.
    assert len(kept) == len({g["id"] for g in games[-RECENT_GAMES - 1 :]} | {games[0]["id"]})
    assert view["games"] is games and len(games) == 27  # the view itself is untouched


def test_a_view_without_arena_games_goes_as_it_is() -> None:
    rounds = {"format": "round_robin", "standings": [], "rounds": []}
    assert frame_view(rounds) is rounds
    empty = {"format": "arena", "standings": [], "games": []}
    assert frame_view(empty) is empty
