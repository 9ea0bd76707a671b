"""The service's lines the bridge reads, as typed records: a challenge and a game of the
account's event stream (docs/protocol.md, the event stream), read leniently from JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BadLine", "Challenge", "GameInfo", "Who", "challenge_of", "game_info_of"]


class BadLine(ValueError):
    """A line of the service that lacks a field the bridge needs."""


@dataclass(frozen=True, slots=True)
class Who:
    """An account as a line names it."""

    id: str
    name: str
    bot: bool


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge to or from the bridge's account."""

    id: str
    status: str
    challenger: Who
    target: Who
    ruleset: str
    move_time: int
    rated: bool


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game of the account, as ``gameStart`` and ``gameFinish`` give it."""

    id: str
    ruleset: str
    move_time: int
    side: str
    status: str


def _who(value: Any, what: str) -> Who:
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        raise BadLine(f"the challenge's {what!r} is not an account: {value!r}")
    return Who(value["id"], str(value.get("name") or value["id"]), bool(value.get("bot")))


def _field(data: dict[str, Any], key: str, kind: type, what: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise BadLine(f"the {what}'s {key!r} is {value!r}, not a {kind.__name__}")
    return value


def challenge_of(data: Any) -> Challenge:
    """The challenge of an event line's ``challenge``; BadLine if it is not one."""
    if not isinstance(data, dict):
        raise BadLine(f"a challenge is an object, not {data!r}")
    return Challenge(
        id=_field(data, "id", str, "challenge"),
        status=str(data.get("status") or "created"),
        challenger=_who(data.get("from"), "from"),
        target=_who(data.get("to"), "to"),
        ruleset=_field(data, "ruleset", str, "challenge"),
        move_time=_field(data, "move_time", int, "challenge"),
        rated=_field(data, "rated", bool, "challenge"),
    )


def game_info_of(data: Any) -> GameInfo:
    """The game of a ``gameStart`` or ``gameFinish`` line; BadLine if it is not one."""
    if not isinstance(data, dict):
        raise BadLine(f"a game is an object, not {data!r}")
    return GameInfo(
        id=_field(data, "id", str, "game"),
        ruleset=str(data.get("ruleset") or ""),
        move_time=int(data.get("move_time") or 0),
        side=str(data.get("side") or ""),
        status=str(data.get("status") or ""),
    )
