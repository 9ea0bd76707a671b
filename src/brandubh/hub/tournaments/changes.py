"""Every change of a tournament, one function each: the event the export will carry,
built here with the core's functions (``brandubh.tournaments.export``), and the change's
own script (lua/tournament_<change>.lua), which checks the state it changes and appends
the event as it is, stamped with the instant of the commit (records.LogEntry).

Each returns the script's reply: ``ok`` and what the script says, ``err`` and a
refusal's code, or ``race`` (the state moved on: read it again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from redis.commands.core import AsyncScript

from brandubh.hub.redis import Scripts, keys
from brandubh.hub.tournaments.records import pack
from brandubh.tournaments import ExportEvent, Pairing, Result, SwissRound, export

__all__ = [
    "PlayerChange",
    "Reply",
    "create",
    "end",
    "finish",
    "game",
    "join",
    "kept",
    "made",
    "match_result",
    "player_change",
    "result",
    "round_paired",
    "start",
    "tournament_keys",
    "wave",
]

Reply = list[bytes]
PlayerChange = Literal["withdraw", "pause", "resume"]


def tournament_keys(tournament_id: str) -> list[str]:
    """The keys every tournament script takes, in its order (lua/tournament_prelude.lua)."""
    return [
        keys.tournament(tournament_id),
        keys.tournament_players(tournament_id),
        keys.tournament_games(tournament_id),
        keys.tournament_log(tournament_id),
    ]


async def _run(script: AsyncScript, tid: str, *args: str | bytes | int | float) -> Reply:
    reply: Reply = await script(keys=tournament_keys(tid), args=list(args))
    return reply


def _event(event: ExportEvent) -> bytes:
    return pack(event)


async def create(scripts: Scripts, tid: str, fields: Mapping[str, str], ttl_ms: int) -> Reply:
    """A new tournament's hash, kept ``ttl_ms`` until its creator's limit takes it."""
    pairs = (x for kv in fields.items() for x in kv)
    return await _run(scripts.tournament.create, tid, ttl_ms, *pairs)


async def join(
    scripts: Scripts, tid: str, player_id: str, name: str, rating: float, at: int
) -> Reply:
    """``rating``: theirs now, or the one they joined with first if they come back."""
    event = export.join(at, player_id, rating)
    return await _run(scripts.tournament.join, tid, player_id, name, repr(rating), _event(event))


async def player_change(
    scripts: Scripts, tid: str, change: PlayerChange, player_id: str, at: int
) -> Reply:
    """A player withdraws, pauses or resumes; the reply names their game or match."""
    if change == "withdraw":
        return await _run(
            scripts.tournament.withdraw, tid, player_id, _event(export.withdraw(at, player_id))
        )
    if change == "pause":
        return await _run(
            scripts.tournament.pause, tid, player_id, _event(export.pause(at, player_id))
        )
    return await _run(
        scripts.tournament.resume, tid, player_id, _event(export.resume(at, player_id))
    )


async def start(scripts: Scripts, tid: str, roster: Mapping[str, float] | None, at: int) -> Reply:
    """The start; ``roster``: a round robin's or Swiss's players not withdrawn, with
    their ratings (None for an arena, whose players come and go)."""
    if roster is None:
        return await _run(scripts.tournament.start, tid, pack([]), pack({}), "")
    players = sorted(roster)
    event = export.start(at, roster)
    return await _run(
        scripts.tournament.start, tid, pack(players), pack(dict(roster)), _event(event)
    )


async def wave(
    scripts: Scripts,
    tid: str,
    number: int,
    free: Mapping[str, float],
    games: Sequence[tuple[str, Pairing]],
    at: int,
) -> Reply:
    """An arena's ``number``-th wave (from 1) of every free player (with their ratings);
    ``games``: each game's id and sides. The reply names the games."""
    event = export.pairing(at, number - 1, free, games)  # the log counts from 0
    args = [x for gid, p in games for x in (gid, p.attackers, p.defenders)]
    return await _run(
        scripts.tournament.wave, tid, str(number), pack(sorted(free)), _event(event), *args
    )


async def made(scripts: Scripts, tid: str, entry_id: str) -> Reply:
    """An arena game's (or a match's first) game was created."""
    return await _run(scripts.tournament.made, tid, entry_id)


async def result(scripts: Scripts, tid: str, game_id: str, outcome: Result, at: int) -> Reply:
    """An arena game's result; the reply says recorded or dup, and the games in play."""
    event = export.result(at, game_id, outcome)
    return await _run(scripts.tournament.result, tid, game_id, outcome, _event(event))


async def round_paired(
    scripts: Scripts,
    tid: str,
    number: int,
    paired: SwissRound,
    decided: Sequence[bool],
    at: int,
) -> Reply:
    """A round and its pairings, each ``decided`` without a game or not (a withdrawn
    player's); the reply names the matches."""
    event = export.round_paired(at, number, paired)
    args = [
        x
        for (a, b), done in zip(paired.pairings, decided, strict=True)
        for x in (a, b, "1" if done else "")
    ]
    return await _run(
        scripts.tournament.round, tid, str(number), paired.bye or "", _event(event), *args
    )


async def game(
    scripts: Scripts, tid: str, match_id: str, game_id: str, sides: Pairing, at: int
) -> Reply:
    """A game of a match was created (its round is in the match's id)."""
    number = int(match_id.rsplit("-", 2)[1].removeprefix("r"))
    event = export.game(at, number, game_id, sides.attackers, sides.defenders)
    return await _run(
        scripts.tournament.game,
        tid,
        match_id,
        game_id,
        sides.attackers,
        sides.defenders,
        _event(event),
    )


async def match_result(
    scripts: Scripts,
    tid: str,
    match_id: str,
    game_id: str,
    outcome: Result,
    decided: bool,
    at: int,
) -> Reply:
    """A match game's result, the match ``decided`` with it or not."""
    event = export.result(at, game_id, outcome)
    return await _run(
        scripts.tournament.mresult,
        tid,
        match_id,
        game_id,
        outcome,
        "1" if decided else "",
        _event(event),
    )


async def finish(scripts: Scripts, tid: str) -> Reply:
    return await _run(scripts.tournament.finish, tid)


async def end(scripts: Scripts, tid: str, seed: str, at: int) -> Reply:
    """The end, its seed revealed (hex)."""
    return await _run(scripts.tournament.end, tid, seed, _event(export.end(at)))


async def kept(scripts: Scripts, tid: str, grace_ms: int) -> Reply:
    return await _run(scripts.tournament.kept, tid, grace_ms)
