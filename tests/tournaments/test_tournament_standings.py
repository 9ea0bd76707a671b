"""Points and standings against tables computed by hand (written here as data, not
derived by the code under test): arena streaks, a 6-player round robin, a 16-player
Swiss (its pairings too), forfeits and byes."""

from __future__ import annotations

import pytest

from brandubh.tournaments import (
    Match,
    MatchGame,
    Settings,
    arena_points,
    match_score,
    match_standings,
    next_round,
)


def test_arena_points_and_streaks() -> None:
    """W W W D W W W L W: 2 2 4 2 (a draw on fire: double, ends the streak) 2 2 4 0 2."""
    score = arena_points(["win", "win", "win", "draw", "win", "win", "win", "loss", "win"])
    assert (score.points, score.wins, score.draws, score.losses) == (20, 7, 1, 1)
    assert not score.on_fire
    assert arena_points(["win", "win"]).on_fire  # the next result counts double
    assert arena_points(["draw", "draw", "win", "loss"]).points == 4


def _match(rnd: int, a: str, b: str, a_points: float) -> Match:
    """A two-game match (a attacks in game 1, b in game 2) in which a scores a_points:
    2 = both won, 1.5 = a win and a draw, 1 = two draws, 0.5 = a draw and a loss, 0."""
    g1, g2 = {
        2.0: ("attackers", "defenders"),
        1.5: ("attackers", "draw"),
        1.0: ("draw", "draw"),
        0.5: ("draw", "attackers"),
        0.0: ("defenders", "attackers"),
    }[a_points]
    return Match(rnd, a, b, (MatchGame(a, b, g1), MatchGame(b, a, g2)))  # type: ignore[arg-type]


# The six-player round robin: each match as (a, b, a's game points).
ROUND_ROBIN = [
    ("A", "B", 1.5), ("A", "C", 1.0), ("A", "D", 2.0), ("A", "E", 1.0), ("A", "F", 0.5),
    ("B", "C", 2.0), ("B", "D", 1.0), ("B", "E", 0.0), ("B", "F", 1.5),
    ("C", "D", 1.5), ("C", "E", 1.0), ("C", "F", 2.0),
    ("D", "E", 1.0), ("D", "F", 1.5),
    ("E", "F", 1.0),
]  # fmt: skip
# By hand: (rank, player, match points, game points, Sonneborn-Berger, Buchholz).
# A and E tie on match and game points; A's SB (wins over B 5 and D 4, draws with C 6
# and E 6: 9 + 6) beats E's (win over B 5, draws with A, C, D, F: 5 + 19/2).
ROUND_ROBIN_TABLE = [
    (1, "A", 6, 6.0, 15.0, 24),
    (2, "E", 6, 6.0, 14.5, 24),
    (3, "C", 6, 5.5, 13.0, 24),
    (4, "B", 5, 5.0, 11.0, 25),
    (5, "D", 4, 4.0, 8.5, 26),
    (6, "F", 3, 3.5, 9.0, 27),
]


def test_a_six_player_round_robin_table() -> None:
    matches = [_match(0, a, b, p) for a, b, p in ROUND_ROBIN]
    table = match_standings("round_robin", "ABCDEF", matches)
    got = [
        (s.rank, s.player, s.points, s.tiebreaks["game_points"],
         s.tiebreaks["sonneborn_berger"], s.tiebreaks["buchholz"])
        for s in table
    ]  # fmt: skip
    assert got == ROUND_ROBIN_TABLE
    a = table[0]
    assert (a.games, a.wins, a.draws, a.losses) == (10, 3, 6, 1)


# The 16-player Swiss, players p01..p16 by pairing number (p01 the highest rated).
# Round by round, each match (a, b, a's game points); the pairings are the hand-worked
# Dutch pairings (see test_the_swiss_pairs_as_worked_by_hand).
SWISS = {
    1: [(1, 9, 2.0), (2, 10, 1.5), (3, 11, 1.0), (4, 12, 0.5),
        (5, 13, 2.0), (6, 14, 1.0), (7, 15, 1.5), (8, 16, 0.0)],
    # 2 points: 1 2 5 7 | 12 16 -> 1-7 2-12 5-16; 1 point: 3 6 | 11 14 -> 3-11 met, so
    # 3-14 and 6-11; 0 points: 4 8 9 | 10 13 15 -> 4-10 8-13 9-15.
    2: [(1, 7, 1.0), (2, 12, 2.0), (5, 16, 0.5), (3, 14, 1.5),
        (6, 11, 0.0), (4, 10, 1.0), (8, 13, 2.0), (9, 15, 0.5)],
    # 4: 2 16; 3: 1 3 | 7 11 -> 1-7 met: 1-11, 3-7; 2: 5 8 | 12 15; 1: 4 6 | 10 14 ->
    # 4-10 met: 4-14, 6-10; 0: 9 13.
    3: [(2, 16, 1.0), (1, 11, 2.0), (3, 7, 0.0), (5, 12, 1.5),
        (8, 15, 1.0), (4, 14, 2.0), (6, 10, 0.5), (9, 13, 1.0)],
}  # fmt: skip
# By hand: (rank, player, match points, Buchholz, Sonneborn-Berger, game points).
# Order: match points, Buchholz, SB, game points; p08 p10 p11 p15 are equal in all.
SWISS_TABLE = [
    (1, 16, 5, 12, 9.5, 4.5),
    (2, 7, 5, 11, 8.5, 4.5),
    (3, 2, 5, 10, 7.5, 4.5),
    (4, 1, 5, 9, 6.5, 5.0),
    (5, 5, 4, 8, 3.0, 4.0),
    (6, 8, 3, 9, 2.5, 3.0),
    (6, 10, 3, 9, 2.5, 3.0),
    (6, 11, 3, 9, 2.5, 3.0),
    (6, 15, 3, 9, 2.5, 3.0),
    (10, 3, 3, 9, 2.5, 2.5),
    (11, 4, 3, 6, 2.5, 3.5),
    (12, 12, 2, 12, 3.0, 2.0),
    (13, 9, 1, 9, 0.5, 1.5),
    (14, 13, 1, 8, 0.5, 1.0),
    (15, 6, 1, 7, 0.5, 1.5),
    (15, 14, 1, 7, 0.5, 1.5),
]
NUMBERS = {f"p{i:02d}": i for i in range(1, 17)}


def _swiss(upto: int) -> list[Match]:
    return [
        _match(rnd, f"p{a:02d}", f"p{b:02d}", p)
        for rnd in range(1, upto + 1)
        for a, b, p in SWISS[rnd]
    ]


def test_a_sixteen_player_swiss_table() -> None:
    table = match_standings("swiss", NUMBERS, _swiss(3))
    got = [
        (s.rank, int(s.player[1:]), s.points, s.tiebreaks["buchholz"],
         s.tiebreaks["sonneborn_berger"], s.tiebreaks["game_points"])
        for s in table
    ]  # fmt: skip
    assert got == SWISS_TABLE


@pytest.mark.parametrize("rnd", [1, 2, 3])
def test_the_swiss_pairs_as_worked_by_hand(rnd: int) -> None:
    paired = next_round(NUMBERS, _swiss(rnd - 1))
    want = sorted(tuple(sorted((f"p{a:02d}", f"p{b:02d}"))) for a, b, _ in SWISS[rnd])
    assert sorted(tuple(sorted(pair)) for pair in paired.pairings) == want
    assert paired.bye is None


def test_a_bye_is_a_drawn_match_for_the_lowest_ranked() -> None:
    numbers = {"a": 1, "b": 2, "c": 3}
    first = next_round(numbers, [])
    assert (first.pairings, first.bye) == ([("a", "b")], "c")
    matches = [_match(1, "a", "b", 2.0)]
    table = match_standings("swiss", numbers, matches, byes=["c"])
    assert [(s.player, s.points, s.tiebreaks["game_points"]) for s in table] == [
        ("a", 2, 2.0),
        ("c", 1, 1.0),
        ("b", 0, 0.0),
    ]
    second = next_round(numbers, matches, byes=["c"])
    assert second.bye == "b"  # c has had one: the next lowest
    assert second.pairings == [("a", "c")]


def test_a_withdrawn_player_forfeits_the_remaining_games() -> None:
    half = Match(1, "a", "b", (MatchGame("a", "b", "draw"), MatchGame("b", "a", None)))
    assert match_score(half) is None  # still playing
    score = match_score(half, withdrawn={"a"})
    assert score is not None
    assert score.game_points == {"a": 0.5, "b": 1.5} and score.match_points == {"a": 0, "b": 2}
    unplayed = Match(2, "a", "c")
    score = match_score(unplayed, withdrawn={"a"})
    assert score is not None and score.game_points == {"a": 0.0, "c": 2.0}
    both = match_score(unplayed, withdrawn={"a", "c"})
    assert both is not None and both.match_points == {"a": 0, "c": 0}
    table = match_standings("round_robin", "abc", [half, unplayed], withdrawn={"a"})
    a = next(s for s in table if s.player == "a")
    assert a.withdrawn and (a.wins, a.draws, a.losses) == (0, 1, 3)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "knockout"}, "format"),
        ({"ruleset": "chess"}, "ruleset"),
        ({"move_time": 90}, "move_time"),
        ({"move_time": 7200}, "move_time"),  # an arena is live
        ({"duration_min": None}, "duration_min"),
        ({"rounds": 5}, "rounds"),  # an arena has none
        ({"max_players": 1}, "max_players"),
        ({"name": " "}, "name"),
        ({"starts_at": 0}, "starts_at"),
    ],
)
def test_settings_name_the_wrong_field(change: dict[str, object], field: str) -> None:
    from brandubh.tournaments import InvalidSettings

    good = {"name": "Friday arena", "format": "arena", "ruleset": "nielsen",
            "move_time": 60, "starts_at": 10**12, "duration_min": 60}  # fmt: skip
    assert Settings.parse(good, now_ms=10**12).ends_at == 10**12 + 3_600_000
    with pytest.raises(InvalidSettings) as caught:
        Settings.parse({**good, **change}, now_ms=10**12)
    assert caught.value.field == field


def test_swiss_settings_need_rounds_and_enough_players() -> None:
    base = {"name": "S", "format": "swiss", "ruleset": "nielsen", "move_time": 86400,
            "starts_at": 0, "rounds": 5}  # fmt: skip
    settings = Settings.parse(base)
    assert settings.max_players == 64 and settings.duration_min is None
    assert settings.start_problem(5) == "this swiss needs at least 6 players, it has 5"
    assert settings.start_problem(6) is None
    assert Settings.parse(settings.to_json()) == settings
