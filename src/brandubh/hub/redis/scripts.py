"""The Lua scripts, loaded from ``lua/`` beside this module and registered once per client."""

from __future__ import annotations

from dataclasses import dataclass, fields
from importlib import resources
from typing import Final

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

# The scripts that publish about a game: lua/publish.lua's ``publish`` goes before each.
PUBLISHING: Final = frozenset(
    {"commit", "watchers", "presence", "rematch", "rematch_decline", "notice", "chat"}
)
# The scripts that take seeks off the lobby: lua/seek_remove.lua's ``remove_seek`` goes first.
SEEK_REMOVING: Final = frozenset({"seek_add", "seek_take"})
# The scripts that check a personal API token's request: lua/token_check.lua's
# ``token_check`` goes first (one copy for a request's own call and a Bot API move's commit).
TOKEN_CHECKING: Final = frozenset({"api_request", "commit"})


def _read(name: str) -> str:
    return resources.files("brandubh.hub.redis").joinpath(f"lua/{name}.lua").read_text()


def _source(name: str) -> str:
    before = "".join(_read(prelude) for prelude, users in PRELUDES.items() if name in users)
    return before + _read(name)


def lua_source(name: str) -> str:
    """A script's source, for a client that registers it itself (the analysis worker's
    synchronous one)."""
    return _source(name)


@dataclass(frozen=True)
class TournamentScripts:
    """lua/tournament_<change>.lua, one per change of a tournament (hub/tournaments/changes.py)."""

    create: AsyncScript
    join: AsyncScript
    withdraw: AsyncScript
    pause: AsyncScript
    resume: AsyncScript
    start: AsyncScript
    wave: AsyncScript
    made: AsyncScript
    result: AsyncScript
    round: AsyncScript
    game: AsyncScript
    mresult: AsyncScript
    finish: AsyncScript
    end: AsyncScript
    kept: AsyncScript
    snapshot: AsyncScript  # a read with the version, not a change

    @classmethod
    def register(cls, redis: Redis) -> TournamentScripts:
        return cls(
            **{f.name: redis.register_script(_source(f"tournament_{f.name}")) for f in fields(cls)}
        )


# The files that are functions put before scripts, not scripts of their own.
PRELUDES: Final = {
    "publish": PUBLISHING,
    "seek_remove": SEEK_REMOVING,
    "token_check": TOKEN_CHECKING,
    "tournament_prelude": frozenset(f"tournament_{f.name}" for f in fields(TournamentScripts)),
}


@dataclass(frozen=True)
class Scripts:
    """One registered script per file; each call runs EVALSHA (EVAL once if not cached)."""

    commit: AsyncScript
    create: AsyncScript
    claim: AsyncScript
    watchers: AsyncScript
    presence: AsyncScript
    heartbeat: AsyncScript
    rematch: AsyncScript
    rematch_decline: AsyncScript
    seek_add: AsyncScript
    seek_take: AsyncScript
    quick: AsyncScript
    pool_leave: AsyncScript
    login_limit: AsyncScript
    windows: AsyncScript
    api_request: AsyncScript
    mark: AsyncScript
    mail: AsyncScript
    token: AsyncScript
    notice: AsyncScript
    member: AsyncScript
    read: AsyncScript
    chat: AsyncScript
    conditional: AsyncScript
    analysis: AsyncScript
    tournament: TournamentScripts
    run_limit: AsyncScript
    puzzle: AsyncScript

    @classmethod
    def register(cls, redis: Redis) -> Scripts:
        """Each field's script, from the file of its name (every file of ``lua/`` but the
        ``PRELUDES``); the tournament's changes, each from ``tournament_<change>``."""
        scripts = {
            f.name: redis.register_script(_source(f.name))
            for f in fields(cls)
            if f.name != "tournament"
        }
        return cls(tournament=TournamentScripts.register(redis), **scripts)
