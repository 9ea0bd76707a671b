"""A tournament's settings, validated once: the format and what it takes.

``Settings.parse(data, now_ms)`` reads the JSON a creator sends (POST /api/tournaments)
and refuses the first wrong field with ``InvalidSettings`` naming it; ``to_json`` is what
the export and the tournament's page show. The bounds are the constants below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Final, Literal

from brandubh.engine import RULESETS
from brandubh.tournaments.errors import InvalidSettings

Format = Literal["arena", "round_robin", "swiss"]
FORMATS: Final[tuple[Format, ...]] = ("arena", "round_robin", "swiss")

NAME_MAX: Final = 60
MIN_MOVE_TIME: Final = 60  # seconds, whole minutes (the games' own bounds: live/terms.py)
MAX_MOVE_TIME: Final = 7 * 24 * 3600
LIVE_UNDER_S: Final = 3600  # an arena's games are live; round robins and Swiss are not
DURATION_MIN: Final = (1, 720)  # an arena's length in minutes
ROUNDS: Final = (1, 20)  # a Swiss's rounds
START_AHEAD_MS: Final = 90 * 24 * 3600 * 1000  # how far ahead a start may be set
START_SLACK_MS: Final = 60_000  # a start this far in the past is taken as "now"
# (least, most, default) players by format; a round robin pairs everyone with everyone.
PLAYERS: Final[dict[str, tuple[int, int, int]]] = {
    "arena": (2, 1000, 1000),
    "round_robin": (3, 12, 12),
    "swiss": (4, 256, 64),
}


@dataclass(frozen=True)
class Settings:
    """What a tournament is: its name, format, games' terms, start and length."""

    name: str
    format: Format
    ruleset: str
    move_time: int  # seconds per move
    starts_at: int  # ms since the epoch
    duration_min: int | None = None  # arena only
    rounds: int | None = None  # swiss only (a round robin has players - 1, or players)
    max_players: int = 0  # 0: the format's default, filled in by parse

    @property
    def ends_at(self) -> int | None:
        """When an arena stops pairing (ms); None for the other formats."""
        if self.duration_min is None:
            return None
        return self.starts_at + self.duration_min * 60_000

    @classmethod
    def parse(cls, data: Mapping[str, object], now_ms: int | None = None) -> Settings:
        """Validated settings; with ``now_ms``, the start must also lie ahead (within
        ``START_AHEAD_MS``). Raises ``InvalidSettings`` naming the first wrong field."""
        name = _text(data, "name")
        fmt = data.get("format")
        if fmt not in FORMATS:
            raise InvalidSettings("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
        ruleset = data.get("ruleset")
        if ruleset not in RULESETS:
            raise InvalidSettings(
                "ruleset", f"unknown rule set {ruleset!r}: one of {', '.join(RULESETS)}"
            )
        move_time = _int(data, "move_time")
        if not MIN_MOVE_TIME <= move_time <= MAX_MOVE_TIME or move_time % 60:
            raise InvalidSettings(
                "move_time",
                f"seconds per move in whole minutes, {MIN_MOVE_TIME} to {MAX_MOVE_TIME}",
            )
        if fmt == "arena" and move_time >= LIVE_UNDER_S:
            raise InvalidSettings(
                "move_time", f"an arena is for live games: under {LIVE_UNDER_S} seconds a move"
            )
        if fmt != "arena" and move_time < LIVE_UNDER_S:
            raise InvalidSettings(
                "move_time",
                f"a {fmt} is for correspondence: at least {LIVE_UNDER_S} seconds a move "
                f"(live games play in an arena)",
            )
        starts_at = _int(data, "starts_at")
        if now_ms is not None and not (
            now_ms - START_SLACK_MS <= starts_at <= now_ms + START_AHEAD_MS
        ):
            raise InvalidSettings(
                "starts_at", "must be a time (ms since the epoch) from now to 90 days ahead"
            )
        duration = _only(data, "duration_min", fmt == "arena", fmt)
        if duration is not None and not DURATION_MIN[0] <= duration <= DURATION_MIN[1]:
            raise InvalidSettings(
                "duration_min", f"minutes from {DURATION_MIN[0]} to {DURATION_MIN[1]}"
            )
        rounds = _only(data, "rounds", fmt == "swiss", fmt)
        if rounds is not None and not ROUNDS[0] <= rounds <= ROUNDS[1]:
            raise InvalidSettings("rounds", f"from {ROUNDS[0]} to {ROUNDS[1]}")
        least, most, default = PLAYERS[fmt]
        max_players = default if data.get("max_players") is None else _int(data, "max_players")
        if not least <= max_players <= most:
            raise InvalidSettings("max_players", f"a {fmt} takes {least} to {most} players")
        if rounds is not None and rounds >= max_players:
            raise InvalidSettings(
                "rounds", f"{rounds} rounds need more than {max_players} players (max_players)"
            )
        return cls(name, fmt, ruleset, move_time, starts_at, duration, rounds, max_players)

    def to_json(self) -> dict[str, object]:
        """The settings as the export and the page show them (``parse`` reads them back)."""
        return asdict(self)

    def start_problem(self, players: int) -> str | None:
        """Why the tournament cannot start with this many players (None: it can)."""
        least = PLAYERS[self.format][0]
        if self.format == "swiss" and self.rounds is not None:
            least = max(least, self.rounds + 1)
        if players < least:
            return f"this {self.format} needs at least {least} players, it has {players}"
        return None


def _text(data: Mapping[str, object], field: str) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidSettings(field, "must be a non-empty text")
    value = value.strip()
    if len(value) > NAME_MAX or not value.isprintable():
        raise InvalidSettings(field, f"at most {NAME_MAX} printable characters")
    return value


def _int(data: Mapping[str, object], field: str) -> int:
    value = data.get(field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidSettings(field, f"must be a whole number, not {value!r}")
    return value


def _only(data: Mapping[str, object], field: str, wanted: bool, fmt: str) -> int | None:
    """A field only one format takes: required there, absent (or null) elsewhere."""
    if not wanted:
        if data.get(field) is not None:
            raise InvalidSettings(field, f"a {fmt} does not take {field}")
        return None
    return _int(data, field)
