"""A tournament's export: its events, each built by one function here, and the whole.

The service appends each event as it happens (``join``, ``pairing``, ``result``...; each
with ``at``, ms by the service's clock) and, when asked, wraps them with the settings,
the seed and the standings (``export``). ``verify.verify_tournament`` reads exactly this;
verify.py's docstring lists what each event means.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final, Literal, NotRequired, TypeAlias, TypedDict

from brandubh.tournaments.arena import Pairing, Result
from brandubh.tournaments.formats import Settings
from brandubh.tournaments.standings import Standing
from brandubh.tournaments.swiss import SwissRound

EXPORT_VERSION: Final = "brandubh-tournament/1"
# An event as the log holds it: one of the shapes below, or one read back (unchecked: that
# is verify_tournament's job).
ExportEvent: TypeAlias = Mapping[str, object]


class JoinEvent(TypedDict):
    t: Literal["join"]
    at: int
    player: str
    rating: float


class PlayerEvent(TypedDict):
    """A withdrawal, a pause or a resumption."""

    t: Literal["withdraw", "pause", "resume"]
    at: int
    player: str


class PairedGame(TypedDict):
    id: str
    attackers: str
    defenders: str


class PairingEvent(TypedDict):
    t: Literal["pairing"]
    at: int
    n: int
    ratings: dict[str, float]
    games: list[PairedGame]


class StartEvent(TypedDict):
    t: Literal["start"]
    at: int
    ratings: dict[str, float]


class RoundPair(TypedDict):
    a: str
    b: str


class RoundEvent(TypedDict):
    t: Literal["round"]
    at: int
    round: int
    pairings: list[RoundPair]
    bye: str | None


class GameEvent(TypedDict):
    t: Literal["game"]
    at: int
    round: int
    game: str
    attackers: str
    defenders: str


class ResultEvent(TypedDict):
    t: Literal["result"]
    at: int
    game: str
    result: Result


class EndEvent(TypedDict):
    t: Literal["end"]
    at: int


class ExportPlayer(TypedDict):
    id: str
    name: str


class TournamentExport(TypedDict):
    """The export (docs/protocol.md §2.5, ``GET /api/tournaments/{id}/export``)."""

    export: str
    id: str
    settings: dict[str, object]  # Settings.to_json
    seed: str | None  # hex, None until revealed
    seed_commitment: str
    players: list[ExportPlayer]
    events: list[ExportEvent]
    standings: list[dict[str, object]]  # Standing.to_json's rows
    ends_at: NotRequired[int | None]
    status: NotRequired[str]  # the service's (hub/tournaments/state.py)


def join(at: int, player: str, rating: float) -> JoinEvent:
    return {"t": "join", "at": at, "player": player, "rating": rating}


def withdraw(at: int, player: str) -> PlayerEvent:
    return {"t": "withdraw", "at": at, "player": player}


def pause(at: int, player: str) -> PlayerEvent:
    return {"t": "pause", "at": at, "player": player}


def resume(at: int, player: str) -> PlayerEvent:
    return {"t": "resume", "at": at, "player": player}


def pairing(
    at: int, n: int, ratings: Mapping[str, float], games: Iterable[tuple[str, Pairing]]
) -> PairingEvent:
    """An arena's n-th pairing: the free players' ratings, and each game's id and sides."""
    return {
        "t": "pairing",
        "at": at,
        "n": n,
        "ratings": dict(ratings),
        "games": [
            {"id": gid, "attackers": p.attackers, "defenders": p.defenders} for gid, p in games
        ],
    }


def start(at: int, ratings: Mapping[str, float]) -> StartEvent:
    """A round robin's or a Swiss's start: its players and their ratings then."""
    return {"t": "start", "at": at, "ratings": dict(ratings)}


def round_paired(at: int, number: int, paired: SwissRound) -> RoundEvent:
    return {
        "t": "round",
        "at": at,
        "round": number,
        "pairings": [{"a": a, "b": b} for a, b in paired.pairings],
        "bye": paired.bye,
    }


def game(at: int, number: int, game_id: str, attackers: str, defenders: str) -> GameEvent:
    """A game of a match of round ``number`` was created."""
    return {
        "t": "game",
        "at": at,
        "round": number,
        "game": game_id,
        "attackers": attackers,
        "defenders": defenders,
    }


def result(at: int, game_id: str, outcome: Result) -> ResultEvent:
    return {"t": "result", "at": at, "game": game_id, "result": outcome}


def end(at: int) -> EndEvent:
    return {"t": "end", "at": at}


def export(
    tournament_id: str,
    settings: Settings,
    seed: bytes,
    commitment: str,
    names: Mapping[str, str],
    events: Sequence[ExportEvent],
    standings: Sequence[Standing],
    ends_at: int | None = None,
) -> TournamentExport:
    """The whole export of a finished tournament (its seed published); ``ends_at``: an
    arena's end, when it came before its settings' end."""
    out: TournamentExport = {
        "export": EXPORT_VERSION,
        "id": tournament_id,
        "settings": settings.to_json(),
        "seed": seed.hex(),
        "seed_commitment": commitment,
        "players": [{"id": pid, "name": name} for pid, name in names.items()],
        "events": list(events),
        "standings": [row.to_json(names) for row in standings],
    }
    if ends_at is not None:
        out["ends_at"] = ends_at
    return out


def is_tournament_export(data: object) -> bool:
    """Whether a parsed JSON document claims to be a tournament export."""
    return isinstance(data, dict) and data.get("export") == EXPORT_VERSION
