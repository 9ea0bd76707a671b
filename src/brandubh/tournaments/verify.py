"""Checking a finished tournament from its export: the seed, every pairing, the standings.

The export (export.py builds it; ``GET /api/tournaments/{id}/export`` serves it) is JSON::

    {"export": "brandubh-tournament/1", "id", "settings": Settings.to_json(),
     "seed": hex, "seed_commitment": hex, "players": [{"id", "name"}],
     "events": [...], "standings": [Standing.to_json(), ...], "ends_at"?: ms}

(``ends_at``: an arena's end when it came before its settings' end, never after.)

Its events are in the order they happened (each with ``at``, ms), one of:

- ``{"t": "join", "player", "rating"}``; ``{"t": "withdraw", "player"}``;
  ``{"t": "pause", "player"}``, ``{"t": "resume", "player"}`` (arena only);
- arena: ``{"t": "pairing", "n", "ratings": {player: rating}, "games": [{"id",
  "attackers", "defenders"}]}``: the n-th pairing (0, 1, ...), taking every free player
  at that moment (joined, not paused nor withdrawn, in no game), at their ratings then;
- round robin, Swiss: ``{"t": "start", "ratings": {player: rating}}`` (the players at
  the start); ``{"t": "round", "round", "pairings": [{"a", "b"}], "bye": player|null}``
  (a round robin's lists every pairing of the schedule, a withdrawn player's too);
  ``{"t": "game", "round", "game", "attackers", "defenders"}`` (a game of one of the
  round's matches, in the match's order);
- ``{"t": "result", "game", "result": "attackers"|"defenders"|"draw"|"aborted"}``;
- ``{"t": "end"}``: no pairing after it; every game has its result before it.

``verify_tournament`` replays the events, recomputing each pairing with the same
functions the service called (``arena.pair_arena`` on ``arena.ArenaTally``,
``roundrobin.round_robin``, ``swiss.next_round``) and the final standings, and returns
the problems found, in words (none: verified).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, TypeVar

from brandubh.fairplay import TIEBREAK_RULESETS
from brandubh.tournaments.arena import RESULTS, ArenaTally, Pairing, Result, pair_arena
from brandubh.tournaments.errors import InvalidExport, PairingImpossible, TournamentError
from brandubh.tournaments.export import EXPORT_VERSION
from brandubh.tournaments.formats import Settings
from brandubh.tournaments.roundrobin import round_robin
from brandubh.tournaments.seed import (
    ARENA_PAIRING,
    ROUND_ROBIN_ORDER,
    SWISS_ORDER,
    rng,
    seed_from_hex,
)
from brandubh.tournaments.standings import (
    Match,
    MatchGame,
    arena_standings,
    match_score,
    match_standings,
)
from brandubh.tournaments.swiss import SwissRound, next_round, pairing_numbers

MAX_GAMES_PER_MATCH: Final = 3  # two, and newsome's tie-breaker
T = TypeVar("T")


def verify_tournament(export: Mapping[str, object]) -> list[str]:
    """The problems of a finished tournament's export, in words; an empty list: verified."""
    try:
        return _Replay(export).run()
    except TournamentError as exc:
        return [str(exc)]


def _get(data: Mapping[str, object], key: str, kind: type[T], where: str) -> T:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise InvalidExport(f"{where}: {key!r} is missing or not {_kind_name(kind)}")
    return value


def _list(data: Mapping[str, object], key: str, where: str) -> list[object]:
    found: list[object] = _get(data, key, list, where)
    return found


def _object(data: Mapping[str, object], key: str, where: str) -> dict[str, object]:
    found: dict[str, object] = _get(data, key, dict, where)
    return found


def _number(data: Mapping[str, object], key: str, where: str) -> float:
    value = data.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise InvalidExport(f"{where}: {key!r} is missing or not {_kind_name((int, float))}")
    return value


def _result(event: Mapping[str, object], where: str) -> Result:
    found = event.get("result")
    for result in RESULTS:
        if found == result:
            return result
    raise InvalidExport(f"{where}: 'result' must be one of {', '.join(RESULTS)}")


def _ratings(event: Mapping[str, object], where: str) -> dict[str, float]:
    """An event's players and their ratings."""
    ratings = _object(event, "ratings", where)
    out: dict[str, float] = {}
    for pid, rating in ratings.items():
        if not isinstance(rating, int | float) or isinstance(rating, bool):
            raise InvalidExport(f"{where}: the rating of {pid} is not a number")
        out[pid] = float(rating)
    return out


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(
        {
            str: "a text",
            int: "a whole number",
            float: "a number",
            list: "a list",
            dict: "an object",
        }.get(k, k.__name__)
        for k in kinds
    )


@dataclass
class _Replay:
    export: Mapping[str, object]
    problems: list[str] = field(default_factory=list)
    joined: dict[str, float] = field(default_factory=dict)
    withdrawn: set[str] = field(default_factory=set)
    paused: set[str] = field(default_factory=set)
    ended: bool = False
    games: dict[str, tuple[str, str]] = field(default_factory=dict)  # (attackers, defenders)
    results: dict[str, Result] = field(default_factory=dict)
    tally: ArenaTally = field(default_factory=ArenaTally)  # arena
    pairings: int = 0
    started: bool = False  # round robin and Swiss
    roster: list[str] = field(default_factory=list)
    rounds: list[SwissRound] = field(default_factory=list)
    match_games: dict[frozenset[str], list[str]] = field(default_factory=dict)
    round_of: dict[frozenset[str], int] = field(default_factory=dict)
    byes: list[str] = field(default_factory=list)
    schedule: list[list[tuple[str, str]]] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)

    def run(self) -> list[str]:
        export = self.export
        if export.get("export") != EXPORT_VERSION:
            raise InvalidExport(f"not a tournament export: 'export' must be {EXPORT_VERSION!r}")
        settings_json = _object(export, "settings", "the export")
        self.settings = Settings.parse(settings_json)
        # An arena ended early (by its creator, or a test's short arena) says when; never
        # later than its settings.
        self.ends_at = self.settings.ends_at or 0
        if export.get("ends_at") is not None:
            ends_at = _get(export, "ends_at", int, "the export")
            if ends_at > self.ends_at:
                self.problems.append(
                    f"the export's ends_at {ends_at} is after the arena's end by its settings"
                )
            self.ends_at = min(self.ends_at, ends_at)
        commitment = _get(export, "seed_commitment", str, "the export")
        seed = export.get("seed")
        if not isinstance(seed, str):
            raise InvalidExport("the export has no seed: it is published when the tournament ends")
        self.seed = seed_from_hex(seed, commitment)
        events = _list(export, "events", "the export")
        last_at = None
        for i, event in enumerate(events):
            if not isinstance(event, dict):
                raise InvalidExport(f"event {i} is not an object")
            where = f"event {i} ({event.get('t')})"
            at = _get(event, "at", int, where)
            if last_at is not None and at < last_at:
                self.problems.append(f"{where} is earlier than the event before it")
            last_at = at
            if self.ended:
                self.problems.append(f"{where} comes after the end")
            self.event(event, where, at)
        if not self.ended:
            self.problems.append("the tournament has not ended: no 'end' event")
        claimed = _list(export, "standings", "the export")
        self.compare_standings(claimed)
        return self.problems

    # -- events ---------------------------------------------------------------------------

    def event(self, event: Mapping[str, object], where: str, at: int) -> None:
        kind = event.get("t")
        arena = self.settings.format == "arena"
        if kind in ("join", "withdraw", "pause", "resume"):
            self.membership(kind, _get(event, "player", str, where), event, where, at)
        elif kind == "result":
            self.result(_get(event, "game", str, where), event, where)
        elif kind == "end":
            self.end(where)
        elif arena and kind == "pairing":
            self.arena_pairing(event, where, at)
        elif not arena and kind == "start":
            self.start(event, where)
        elif not arena and kind == "round":
            self.round(event, where)
        elif not arena and kind == "game":
            self.game(event, where)
        else:
            raise InvalidExport(f"{where}: no such event in a {self.settings.format}")

    def membership(
        self, kind: str, player: str, event: Mapping[str, object], where: str, at: int
    ) -> None:
        arena = self.settings.format == "arena"
        if kind == "join":
            rating = _number(event, "rating", where)
            if player in self.joined and player not in self.withdrawn:
                self.problems.append(f"{where}: {player} joins twice")
            if arena and self.ends_at <= at:
                self.problems.append(f"{where}: {player} joins after the arena's end")
            if not arena and (self.started or at >= self.settings.starts_at):
                self.problems.append(f"{where}: {player} joins after the start")
            self.joined[player] = float(rating)
            self.withdrawn.discard(player)
            return
        if player not in self.joined or player in self.withdrawn:
            self.problems.append(f"{where}: {player} is not in the tournament")
        elif kind == "withdraw":
            self.withdrawn.add(player)
            self.paused.discard(player)
        elif not arena:
            self.problems.append(f"{where}: only an arena's players pause")
        elif kind == "pause":
            self.paused.add(player)
        elif player not in self.paused:
            self.problems.append(f"{where}: {player} resumes without a pause")
        else:
            self.paused.discard(player)

    def end(self, where: str) -> None:
        self.ended = True
        unfinished = sorted(g for g in self.games if g not in self.results)
        if unfinished:
            self.problems.append(f"{where}: games still without a result: {', '.join(unfinished)}")
        due = self.rounds_due()
        if self.settings.format != "arena" and self.started and len(self.rounds) < due:
            try:
                if self.settings.format == "swiss":
                    next_round(self.numbers, self.matches(), self.byes, self.withdrawn)
            except PairingImpossible:
                return  # no further round could be paired: it ends here
            self.problems.append(
                f"{where}: the tournament ends after {len(self.rounds)} rounds of {due}"
            )

    def result(self, game: str, event: Mapping[str, object], where: str) -> None:
        result = _result(event, where)
        if game not in self.games:
            self.problems.append(f"{where}: game {game} was never paired")
            return
        if game in self.results:
            self.problems.append(f"{where}: game {game} ends twice")
            return
        self.results[game] = result
        if self.settings.format == "arena":
            self.tally.finished(game, result)

    # -- arena ----------------------------------------------------------------------------

    def arena_pairing(self, event: Mapping[str, object], where: str, at: int) -> None:
        n = _get(event, "n", int, where)
        ratings = _ratings(event, where)
        games = _list(event, "games", where)
        expected_n = self.pairings
        self.pairings += 1
        if n != expected_n:
            self.problems.append(f"{where}: pairing number {n}, expected {expected_n}")
        if not self.settings.starts_at <= at < self.ends_at:
            self.problems.append(f"{where}: a pairing outside the arena's time")
        free = {
            p
            for p in self.joined
            if p not in self.withdrawn and p not in self.paused and self.tally.busy(p) is None
        }
        if set(ratings) != free:
            self.problems.append(
                f"{where}: the pairing takes {_names(set(ratings))}, the free players were "
                f"{_names(free)}"
            )
        players = []
        for pid in sorted(ratings):
            if self.tally.busy(pid) is None:
                players.append(self.tally.player(pid, ratings[pid]))
        expected = pair_arena(
            players,
            rng(self.seed, ARENA_PAIRING.format(n=n)),
            others_playing=self.tally.anyone_playing(),
        )
        made = []
        for game in games:
            if not isinstance(game, dict):
                raise InvalidExport(f"{where}: a game is not an object")
            gid = _get(game, "id", str, where)
            pairing = Pairing(
                _get(game, "attackers", str, where), _get(game, "defenders", str, where)
            )
            made.append(pairing)
            if gid in self.games:
                self.problems.append(f"{where}: game {gid} was paired before")
                continue
            if any(self.tally.busy(p) for p in pairing.players):
                self.problems.append(f"{where}: game {gid} pairs a player already in a game")
                continue
            self.games[gid] = (pairing.attackers, pairing.defenders)
            self.tally.paired(gid, pairing)
        if sorted(made, key=_sides) != sorted(expected, key=_sides):
            self.problems.append(
                f"{where}: pairing {n} made {_show(made)}; from the seed and the standings "
                f"it is {_show(expected)}"
            )

    # -- round robin and Swiss ------------------------------------------------------------

    def start(self, event: Mapping[str, object], where: str) -> None:
        ratings = _ratings(event, where)
        if self.started:
            self.problems.append(f"{where}: the tournament starts twice")
        self.started = True
        roster = {p for p in self.joined if p not in self.withdrawn}
        if set(ratings) != roster:
            self.problems.append(
                f"{where}: the start takes {_names(set(ratings))}, the registered players "
                f"were {_names(roster)}"
            )
        self.roster = sorted(ratings)
        if self.settings.format == "round_robin":
            self.schedule = round_robin(self.roster, rng(self.seed, ROUND_ROBIN_ORDER))
        else:
            self.numbers = pairing_numbers(ratings, rng(self.seed, SWISS_ORDER))

    def rounds_due(self) -> int:
        if self.settings.format == "round_robin":
            return len(self.schedule)
        return self.settings.rounds or 0

    def matches(self) -> list[Match]:
        """Every match so far with its games and their results."""
        out = []
        for number, rnd in enumerate(self.rounds, 1):
            for a, b in rnd.pairings:
                games = tuple(
                    MatchGame(*self.games[g], self.results.get(g))
                    for g in self.match_games.get(frozenset((a, b)), [])
                )
                out.append(Match(number, a, b, games))
        return out

    def round(self, event: Mapping[str, object], where: str) -> None:
        number = _get(event, "round", int, where)
        raw = _list(event, "pairings", where)
        bye = event.get("bye")
        if not self.started:
            raise InvalidExport(f"{where}: a round before the start")
        if number != len(self.rounds) + 1:
            self.problems.append(f"{where}: round {number}, expected {len(self.rounds) + 1}")
        if number > self.rounds_due():
            self.problems.append(f"{where}: round {number} of {self.rounds_due()}")
        undecided = [m for m in self.matches() if match_score(m, self.withdrawn) is None]
        if undecided:
            self.problems.append(
                f"{where}: paired while round {undecided[0].round} was still being played"
            )
        pairings = []
        for p in raw:
            if not isinstance(p, dict):
                raise InvalidExport(f"{where}: a pairing is not an object")
            pairings.append((_get(p, "a", str, where), _get(p, "b", str, where)))
        made = SwissRound(pairings, bye if isinstance(bye, str) else None)
        expected = self.expected_round(len(self.rounds) + 1)
        if expected is not None and (
            sorted(_pairs(made.pairings)) != sorted(_pairs(expected.pairings))
            or made.bye != expected.bye
        ):
            self.problems.append(
                f"{where}: round {number} paired {_show(made.pairings, made.bye)}; from the "
                f"seed and the standings it is {_show(expected.pairings, expected.bye)}"
            )
        roster = set(self.roster)
        kept = []
        for a, b in made.pairings:
            key = frozenset((a, b))
            if not {a, b} <= roster or a == b:
                self.problems.append(f"{where}: {a}-{b} is not a pairing of two players")
                continue  # kept out of the standings, which count the roster only
            if key in self.round_of:
                self.problems.append(f"{where}: {a} and {b} meet again")
            self.round_of[key] = number
            kept.append((a, b))
        if made.bye and made.bye not in roster:
            self.problems.append(f"{where}: the bye goes to {made.bye}, not a player")
        elif made.bye:
            self.byes.append(made.bye)
        self.rounds.append(SwissRound(kept, made.bye if made.bye in roster else None))

    def expected_round(self, number: int) -> SwissRound | None:
        if self.settings.format == "round_robin":
            if number > len(self.schedule):
                return None
            return SwissRound(self.schedule[number - 1], None)
        try:
            return next_round(self.numbers, self.matches(), self.byes, self.withdrawn)
        except PairingImpossible as exc:
            self.problems.append(f"round {number} was paired, but {exc}")
            return None

    def game(self, event: Mapping[str, object], where: str) -> None:
        number = _get(event, "round", int, where)
        gid = _get(event, "game", str, where)
        sides = (_get(event, "attackers", str, where), _get(event, "defenders", str, where))
        key = frozenset(sides)
        if gid in self.games:
            self.problems.append(f"{where}: game {gid} is listed twice")
            return
        if self.round_of.get(key) != number or number != len(self.rounds):
            self.problems.append(
                f"{where}: {sides[0]} and {sides[1]} have no match in round {number}"
            )
            return
        earlier = self.match_games.setdefault(key, [])
        if len(earlier) == 1 and self.games[earlier[0]] != sides[::-1]:
            self.problems.append(f"{where}: game 2 of a match must swap game 1's sides")
        limit = MAX_GAMES_PER_MATCH if self.settings.ruleset in TIEBREAK_RULESETS else 2
        if len(earlier) >= limit:
            self.problems.append(f"{where}: a {self.settings.ruleset} match has {limit} games")
        earlier.append(gid)
        self.games[gid] = sides

    # -- standings ------------------------------------------------------------------------

    def compare_standings(self, claimed: list[object]) -> None:
        fmt = self.settings.format
        if fmt == "arena":
            expected = arena_standings(self.joined, self.tally, self.withdrawn, self.paused)
        elif self.started:
            expected = match_standings(fmt, self.roster, self.matches(), self.byes, self.withdrawn)
        else:
            expected = []
        rows = [_comparable(s.to_json()) for s in expected]
        given = [_comparable(row) if isinstance(row, dict) else row for row in claimed]
        if len(given) != len(rows):
            self.problems.append(
                f"the standings list {len(given)} players; the tournament had {len(rows)}"
            )
        for mine, theirs in zip(rows, given, strict=False):
            if mine != theirs:
                self.problems.append(f"the standings say {theirs}; recomputed: {mine}")
                break


def _comparable(row: Mapping[str, object]) -> dict[str, object]:
    """A standings row without the player's name (names are not checked)."""
    out = dict(row)
    player = out.get("player")
    if isinstance(player, dict):
        out["player"] = player.get("id")
    return out


def _sides(pairing: Pairing) -> tuple[str, str]:
    return (pairing.attackers, pairing.defenders)


def _pairs(pairings: list[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Matches without their order: who is the match's first player does not matter."""
    return [tuple(sorted(p)) for p in pairings]


def _show(pairings: list[Pairing] | list[tuple[str, str]], bye: str | None = None) -> str:
    parts = [
        f"{p.attackers}-{p.defenders}" if isinstance(p, Pairing) else f"{p[0]}-{p[1]}"
        for p in pairings
    ]
    text = ", ".join(parts) or "no games"
    return text + (f" (bye: {bye})" if bye else "")


def _names(players: set[str]) -> str:
    return ", ".join(sorted(players)) or "nobody"
