"""What a tournament's keys hold, one typed record each with its one reader: a player
(``Entrant``), an arena game (``ArenaGame``), a round's match (``RoundMatch``), a log
entry (``LogEntry``), the roster; and the states they are in (``Status``, ``EntrantState``).

The scripts (lua/tournament_*.lua) write them as msgpack; each reader also takes the JSON
the previous version wrote, so a tournament running through a deploy reads on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

import msgpack

from brandubh.tournaments import ExportEvent

__all__ = [
    "ArenaGame",
    "Entrant",
    "EntrantState",
    "LogEntry",
    "RoundMatch",
    "Status",
    "arena_game",
    "entrant",
    "log_entry",
    "pack",
    "roster",
    "round_match",
]


class Status(StrEnum):
    """A tournament's status (its hash's ``status``); ``finishing``: an arena past its
    time whose games in progress finish."""

    UPCOMING = "upcoming"
    RUNNING = "running"
    FINISHING = "finishing"
    FINISHED = "finished"


class EntrantState(StrEnum):
    """A player's standing in a tournament."""

    JOINED = "joined"
    PAUSED = "paused"
    WITHDRAWN = "withdrawn"


def pack(value: object) -> bytes:
    """msgpack that the scripts' cmsgpack reads (strings as str, never bin)."""
    packed: bytes = msgpack.packb(value, use_bin_type=False)
    return packed


def _decode(raw: bytes) -> object:
    """A record: msgpack, or the JSON object of the previous version."""
    if raw[:1] == b"{":
        return json.loads(raw)
    return msgpack.unpackb(raw, raw=False)


def _map(raw: bytes) -> Mapping[str, object]:
    found = _decode(raw)
    if not isinstance(found, dict):
        raise ValueError(f"a tournament record is not a map: {raw[:40]!r}")
    return found


def _str_map(value: object) -> dict[str, object]:
    """A map the scripts may have written as an empty list (cjson and cmsgpack both
    write an empty Lua table as one)."""
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float | str) else 0


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float | str) else 0.0


@dataclass(frozen=True)
class Entrant:
    """One player of a tournament."""

    id: str
    name: str
    rating: float  # at their first join (a player who comes back keeps it)
    state: EntrantState
    game: str  # the game (arena) or match (rounds) they play now, "" for none
    free: int  # when they were last free (ms)
    n: int  # join order, from 1

    @property
    def active(self) -> bool:
        return self.state != EntrantState.WITHDRAWN

    def public(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


def entrant(player_id: str, raw: bytes) -> Entrant:
    p = _map(raw)
    return Entrant(
        player_id,
        str(p["name"]),
        _float(p["rating"]),
        EntrantState(str(p["state"])),
        str(p.get("game") or ""),
        _int(p.get("free")),
        _int(p.get("n")),
    )


@dataclass(frozen=True)
class ArenaGame:
    """An arena game as its wave made it, and its result once over."""

    id: str
    n: int  # its number in the arena, from 1
    wave: int
    attackers: str
    defenders: str
    result: str  # attackers | defenders | draw | aborted, "" while in play
    made: bool  # created among the games (a hub that died first leaves it to another)
    at: int  # when its wave was committed (ms)


def arena_game(game_id: str, raw: bytes) -> ArenaGame:
    g = _map(raw)
    return ArenaGame(
        game_id,
        _int(g["n"]),
        _int(g["wave"]),
        str(g["attackers"]),
        str(g["defenders"]),
        str(g.get("result") or ""),
        _int(g.get("made")) == 1,
        _int(g.get("at")),
    )


@dataclass(frozen=True)
class RoundMatch:
    """A round's match (``b`` "" for a Swiss bye): its games so far, each game's sides
    and the results of those over."""

    id: str
    round: int
    a: str
    b: str
    games: tuple[str, ...]
    sides: dict[str, tuple[str, str]]  # game id -> (attackers, defenders)
    results: dict[str, str]  # game id -> attackers | defenders | draw | aborted
    done: bool  # decided (a withdrawn player's is decided without a game)
    made: bool
    at: int

    @property
    def board(self) -> int:
        return int(self.id.rsplit("-", 1)[1])


def round_match(match_id: str, raw: bytes) -> RoundMatch:
    m = _map(raw)
    games = m.get("games")
    sides = {
        gid: (str(pair[0]), str(pair[1]))
        for gid, pair in _str_map(m.get("sides")).items()
        if isinstance(pair, list) and len(pair) == 2
    }
    return RoundMatch(
        match_id,
        _int(m["round"]),
        str(m["a"]),
        str(m.get("b") or ""),
        tuple(str(g) for g in games) if isinstance(games, list) else (),
        sides,
        {gid: str(r) for gid, r in _str_map(m.get("results")).items()},
        _int(m.get("done")) == 1,
        _int(m.get("made")) == 1,
        _int(m.get("at")),
    )


@dataclass(frozen=True)
class LogEntry:
    """One event of the log: built by the core (``brandubh.tournaments.export``) when the
    change was decided, stamped by the script with the instant it was committed."""

    at: int
    event: ExportEvent

    def exported(self) -> ExportEvent:
        """The event as the export carries it, ``at`` the commit's instant."""
        return {**self.event, "at": self.at}


def log_entry(raw: bytes) -> LogEntry:
    """An entry: ``[at, event]`` in msgpack, or the previous version's JSON event."""
    found = _decode(raw)
    if isinstance(found, dict):
        return LogEntry(_int(found.get("at")), {str(k): v for k, v in found.items()})
    if isinstance(found, list) and len(found) == 2 and isinstance(found[1], dict):
        return LogEntry(_int(found[0]), {str(k): v for k, v in found[1].items()})
    raise ValueError(f"a tournament log entry is neither: {raw[:40]!r}")


def roster(raw: bytes | None) -> dict[str, float]:
    """A round robin's or Swiss's players at its start, with their ratings then."""
    if not raw:
        return {}
    return {pid: _float(r) for pid, r in _str_map(_decode(raw)).items()}
