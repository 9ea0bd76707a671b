"""Challenges as records, and what is decided about them: the terms a challenge asks for,
who may challenge whom, a challenge's status and its JSON, a game as the event stream
shows it, and each stream line's text; pure (docs/protocol.md §2.10)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, cast

import msgpack

from brandubh.hub.errors import Refusal
from brandubh.hub.live import BOT_ID, GameState, check_terms

# The reasons a challenge may be declined with (lichess's, spelled as its Bot API does).
REASONS: Final = (
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "ruleset",
    "noBot",
    "onlyBot",
)
SIDES: Final = ("random", "attackers", "defenders")
TERMS: Final = frozenset({"ruleset", "move_time", "rated", "side"})
DEFAULT_RULESET: Final = "nielsen"
DEFAULT_MOVE_TIME: Final = 300
# The kinds of account notices, each a line type of the event stream.
CHALLENGE: Final = "challenge"
CANCELED: Final = "challengeCanceled"
DECLINED: Final = "challengeDeclined"
ACCEPTED: Final = "challengeAccepted"  # to the sockets only: the stream has its gameStart
GAME_START: Final = "gameStart"
GAME_FINISH: Final = "gameFinish"
GAME_KINDS: Final = frozenset({GAME_START, GAME_FINISH})
CHALLENGE_KINDS: Final = frozenset({CHALLENGE, CANCELED, DECLINED, ACCEPTED})


@dataclass(frozen=True, slots=True)
class Party:
    """One side of a challenge: an account, and whether it is a bot account."""

    id: str
    name: str
    bot: bool = False

    def shown(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "bot": self.bot}


@dataclass(frozen=True, slots=True)
class Terms:
    """What a challenge asks for: its game's terms and the challenger's side."""

    ruleset: str
    move_time: int
    rated: bool
    side: str  # one of SIDES

    @property
    def creator_side(self) -> str:
        """The side the game's seed must seat the challenger on ("" for the seed's own)."""
        return "" if self.side == "random" else self.side


@dataclass(frozen=True, slots=True)
class Extra:
    """What a challenge keeps beside its game (keys.challenge): the challenged account's
    name and bot flag, the challenger's bot flag, the side asked for."""

    to: Party
    from_bot: bool
    side: str

    def pack(self) -> bytes:
        packed = [self.to.id, self.to.name, self.to.bot, self.from_bot, self.side]
        return cast(bytes, msgpack.packb(packed, use_bin_type=True))

    @classmethod
    def unpack(cls, raw: bytes) -> Extra:
        to_id, to_name, to_bot, from_bot, side = msgpack.unpackb(raw, raw=False)
        return cls(Party(str(to_id), str(to_name), bool(to_bot)), bool(from_bot), str(side))


def parse_terms(body: Mapping[str, object]) -> Terms:
    """A challenge's terms from its request (absent fields take their defaults), refused
    with ``bad_field`` naming what is wrong. Rated by default, as lichess's challenges: a
    bot account's rated games are rated as anyone's (its rating shows on the bots' own
    leaderboard)."""
    unknown = set(body) - TERMS
    if unknown:
        raise Refusal(
            "bad_field",
            f"unexpected fields: {', '.join(sorted(unknown))}; fields: {', '.join(sorted(TERMS))}",
        )
    ruleset = body.get("ruleset", DEFAULT_RULESET)
    move_time = body.get("move_time", DEFAULT_MOVE_TIME)
    side = body.get("side", "random")
    rated = body.get("rated", True)
    if not isinstance(ruleset, str):
        raise Refusal("bad_field", "ruleset must be a string")
    if type(move_time) is not int:
        raise Refusal("bad_field", "move_time must be a whole number of seconds")
    check_terms(ruleset, move_time)
    if side not in SIDES:
        raise Refusal("bad_field", f"side must be one of {', '.join(SIDES)}")
    if not isinstance(rated, bool):
        raise Refusal("bad_field", "rated: true for a rated game, false for a casual one")
    return Terms(ruleset, move_time, rated, str(side))


def refusal_to_challenge(challenger: Party, target: Party, target_allows_bots: bool) -> None:
    """Whether ``challenger`` may challenge ``target``: a person anyone; a bot account
    another bot account, or a person whose setting ``bot_challenges`` lets bots; nobody
    themselves. Raises the refusal, else returns."""
    if challenger.id == target.id:
        raise Refusal("bad_field", "you cannot challenge yourself")
    if challenger.bot and not target.bot and not target_allows_bots:
        raise Refusal("challenges_closed", f"{target.name} does not take challenges from bots")


def check_reason(reason: object) -> str:
    """A decline's reason, ``generic`` when absent; ``bad_field`` for another."""
    if reason is None:
        return "generic"
    if not isinstance(reason, str) or reason not in REASONS:
        raise Refusal("bad_field", f"reason must be one of {', '.join(REASONS)}")
    return reason


def status_of(state: GameState) -> str:
    """created (waiting), accepted (started, over or not), declined or canceled."""
    if state.status == "waiting":
        return "created"
    if state.withdrawn():
        return "declined" if state.declined else "canceled"
    return "accepted"


def challenge_view(state: GameState, extra: Extra) -> dict[str, object]:
    """A challenge as every route, line and frame shows it (docs/protocol.md §2.10)."""
    creator = state.creator
    view: dict[str, object] = {
        "id": state.id,
        "url": f"/g/{state.id}",
        "status": status_of(state),
        "from": Party(creator.id, creator.name, extra.from_bot).shown(),
        "to": extra.to.shown(),
        "ruleset": state.ruleset,
        "move_time": state.move_time,
        "rated": state.rated,
        "side": extra.side,
        "created": state.created,
    }
    if state.declined:
        view["declineReason"] = state.declined
    return view


def game_view(state: GameState) -> dict[str, object]:
    """A game as an account notice carries it to every hub: each player's own line is
    made from it there (``game_line``)."""

    def who(pid: str) -> dict[str, object] | None:
        if not pid:
            return None
        if pid == BOT_ID:  # the service's own bot: no account, but a program all the same
            return {"id": BOT_ID, "name": f"Bot (level {state.bot_level})", "bot": True}
        p = state.player(pid)
        return {"id": pid, "name": p.name if p else pid, "bot": pid in state.bots}

    result = state.result
    return {
        "id": state.id,
        "ruleset": state.ruleset,
        "move_time": state.move_time,
        "rated": state.rated,
        "status": state.status,
        "result": {"winner": result.winner, "reason": result.reason} if result else None,
        "players": {"attackers": who(state.attacker), "defenders": who(state.defender)},
    }


def game_line(view: Mapping[str, object], player_id: str) -> dict[str, object] | None:
    """G of the event stream for one of the game's players (None for anyone else)."""
    players = cast(Mapping[str, Mapping[str, object] | None], view.get("players") or {})
    for side, other in (("attackers", "defenders"), ("defenders", "attackers")):
        mine = players.get(side)
        if mine is not None and mine.get("id") == player_id:
            return {
                "id": view["id"],
                "url": f"/g/{view['id']}",
                "ruleset": view["ruleset"],
                "move_time": view["move_time"],
                "rated": view["rated"],
                "side": side,
                "opponent": players.get(other),
                "status": view["status"],
                "result": view["result"],
            }
    return None


def line(kind: str, body: Mapping[str, object], player_id: str) -> bytes | None:
    """An account notice's line of the event stream for one account, or None when the
    stream does not show it (an accepted challenge: its gameStart says it)."""
    if kind in GAME_KINDS:
        game = game_line(body, player_id)
        return None if game is None else _json({"type": kind, "game": game})
    if kind in (CHALLENGE, CANCELED, DECLINED):
        return _json({"type": kind, "challenge": body})
    return None


def _json(item: Mapping[str, object]) -> bytes:
    return json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
