"""Standings: each player's points and tie-breaks, ranked in the documented order.

Arena: points (``arena.arena_points``), then fewer games (the same points in fewer games
rank higher). Round robin and Swiss count matches: a two-game match (or three, with
newsome's tie-breaker) is won by the player with more game points in it (a win 1, a draw
0.5), which gives match points 2 / 1 / 0 for a won / drawn / lost match. Ties then go by,
in order (``TIEBREAKS``):

- round robin: game points, then Sonneborn-Berger;
- Swiss: Buchholz, then Sonneborn-Berger, then game points;

where Buchholz is the sum of the final match points of every opponent met, and
Sonneborn-Berger that of the opponents beaten plus half that of the opponents drawn
(by match). A Swiss bye counts as a drawn match (1 match point, 1 game point) with no
opponent. A withdrawn player forfeits the games of theirs not played: each counts as won
by the opponent (both withdrawn: lost by both). Players equal in everything share a rank.
docs/tournaments.md §Standings says the same in words.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from brandubh.tournaments.arena import ArenaTally

GAMES_PER_MATCH: Final = 2
BYE_MATCH_POINTS: Final = 1
BYE_GAME_POINTS: Final = 1.0
MatchResult = Literal["attackers", "defenders", "draw", "aborted"]
TIEBREAKS: Final[dict[str, tuple[str, ...]]] = {
    "arena": ("fewer_games",),
    "round_robin": ("game_points", "sonneborn_berger"),
    "swiss": ("buchholz", "sonneborn_berger", "game_points"),
}


@dataclass(frozen=True)
class MatchGame:
    """One game of a match: who had which side, and its result (None: still playing).
    An aborted game counts as drawn, as the match itself counts it (live/matches.py)."""

    attackers: str
    defenders: str
    result: MatchResult | None = None

    def points(self, player: str) -> float:
        """The player's game points from this finished game."""
        if self.result in ("draw", "aborted"):
            return 0.5
        won = self.attackers if self.result == "attackers" else self.defenders
        return 1.0 if won == player else 0.0


@dataclass(frozen=True)
class Match:
    """A pairing of a round robin or a Swiss round and its games so far."""

    round: int
    a: str
    b: str
    games: tuple[MatchGame, ...] = ()


@dataclass(frozen=True)
class MatchScore:
    """A decided match's score: game points and match points of each player."""

    game_points: dict[str, float]
    match_points: dict[str, int]
    forfeits: dict[str, int]  # games each player forfeited


def match_score(match: Match, withdrawn: Collection[str] = ()) -> MatchScore | None:
    """The match's score once decided (None while a game is still to play); a withdrawn
    player's games not finished are forfeited to the opponent."""
    a, b = match.a, match.b
    done = [g for g in match.games if g.result is not None]
    # Games not finished: those in progress, and those of the two not yet begun.
    forfeited = max(GAMES_PER_MATCH, len(match.games)) - len(done)
    out = [p for p in (a, b) if p in withdrawn]
    if not out and forfeited:
        return None
    gp = {a: sum(g.points(a) for g in done), b: sum(g.points(b) for g in done)}
    forfeits = {a: 0, b: 0}
    if out:
        for p in out:
            forfeits[p] = forfeited
        if len(out) == 1:
            winner = b if out[0] == a else a
            gp[winner] += forfeited
    if gp[a] > gp[b]:
        mp = {a: 2, b: 0}
    elif gp[b] > gp[a]:
        mp = {a: 0, b: 2}
    else:
        mp = {a: 1, b: 1}
    if len(out) == 2:
        mp = {a: 0, b: 0}
    return MatchScore(gp, mp, forfeits)


@dataclass(frozen=True)
class Standing:
    """One row of the standings."""

    rank: int
    player: str
    points: float  # arena points, or match points
    games: int
    wins: int
    draws: int
    losses: int
    withdrawn: bool = False
    paused: bool = False
    streak: bool | None = None  # arena: on a streak (the next results count double)
    tiebreaks: dict[str, float] = field(default_factory=dict)

    def to_json(self, names: Mapping[str, str] | None = None) -> dict[str, object]:
        """The row as the tournament's page and its export give it."""
        out: dict[str, object] = {
            "rank": self.rank,
            "player": {"id": self.player, "name": (names or {}).get(self.player, self.player)},
            "points": self.points,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "withdrawn": self.withdrawn,
            "paused": self.paused,
        }
        if self.streak is not None:
            out["streak"] = self.streak
        if self.tiebreaks:
            out["tiebreaks"] = dict(self.tiebreaks)
        return out


def arena_standings(
    players: Iterable[str],
    tally: ArenaTally,
    withdrawn: Collection[str] = (),
    paused: Collection[str] = (),
) -> list[Standing]:
    """An arena's standings: by points, then fewer games; equal in both share a rank."""
    rows = []
    for pid in players:
        s = tally.score(pid)
        rows.append(
            Standing(
                0,
                pid,
                s.points,
                s.games,
                s.wins,
                s.draws,
                s.losses,
                pid in withdrawn,
                pid in paused,
                s.on_fire,
            )
        )
    return _ranked(rows, lambda r: (-r.points, r.games))


def match_standings(
    format: Literal["round_robin", "swiss"],
    players: Iterable[str],
    matches: Iterable[Match],
    byes: Iterable[str] = (),
    withdrawn: Collection[str] = (),
) -> list[Standing]:
    """A round robin's or a Swiss's standings from its matches (decided ones count) and
    byes (one entry per bye had)."""
    ids = list(players)
    mp = dict.fromkeys(ids, 0)
    gp = dict.fromkeys(ids, 0.0)
    wins, draws, losses = dict.fromkeys(ids, 0), dict.fromkeys(ids, 0), dict.fromkeys(ids, 0)
    met: dict[str, list[tuple[str, int]]] = {pid: [] for pid in ids}  # (opponent, my mp)
    for match in matches:
        score = match_score(match, withdrawn)
        if score is None:
            continue
        for me, other in ((match.a, match.b), (match.b, match.a)):
            mp[me] += score.match_points[me]
            gp[me] += score.game_points[me]
            met[me].append((other, score.match_points[me]))
            for game in match.games:
                if game.result is None:
                    continue
                p = game.points(me)
                wins[me] += p == 1.0
                draws[me] += p == 0.5
                losses[me] += p == 0.0
            wins[me] += score.forfeits[other] if me not in withdrawn else 0
            losses[me] += score.forfeits[me]
    for pid in byes:
        mp[pid] += BYE_MATCH_POINTS
        gp[pid] += BYE_GAME_POINTS
    rows = []
    for pid in ids:
        buchholz = float(sum(mp[o] for o, _ in met[pid]))
        sb = sum(mp[o] * mine / 2 for o, mine in met[pid])
        tiebreaks = {"game_points": gp[pid], "buchholz": buchholz, "sonneborn_berger": sb}
        rows.append(
            Standing(
                0,
                pid,
                float(mp[pid]),
                wins[pid] + draws[pid] + losses[pid],
                wins[pid],
                draws[pid],
                losses[pid],
                pid in withdrawn,
                tiebreaks=tiebreaks,
            )
        )
    order = TIEBREAKS[format]
    return _ranked(rows, lambda r: (-r.points, *(-r.tiebreaks[t] for t in order)))


def _ranked(
    rows: Sequence[Standing], key: Callable[[Standing], tuple[float, ...]]
) -> list[Standing]:
    """Sorted by the key, then player id; equal keys share the rank of the first."""
    ordered = sorted(rows, key=lambda r: (key(r), r.player))
    out: list[Standing] = []
    for i, row in enumerate(ordered):
        rank = out[-1].rank if out and key(out[-1]) == key(row) else i + 1
        out.append(replace(row, rank=rank))
    return out
