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


def _read(name: str) -> str:
    return resources.files("brandubh.hub.redis").joinpath(f"lua/{name}.lua").read_text()


def _source(name: str) -> str:
    if name in PUBLISHING:
        return _read("publish") + _read(name)
    if name.startswith("tournament_"):  # lua/tournament_prelude.lua goes before each
        return _read("tournament_prelude") + _read(name)
    return _read(name)


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

    @classmethod
    def register(cls, redis: Redis) -> TournamentScripts:
        return cls(
            **{f.name: redis.register_script(_source(f"tournament_{f.name}")) for f in fields(cls)}
        )


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

    @classmethod
    def register(cls, redis: Redis) -> Scripts:
        return cls(
            commit=redis.register_script(_source("commit")),
            create=redis.register_script(_source("create")),
            claim=redis.register_script(_source("claim")),
            watchers=redis.register_script(_source("watchers")),
            presence=redis.register_script(_source("presence")),
            heartbeat=redis.register_script(_source("heartbeat")),
            rematch=redis.register_script(_source("rematch")),
            rematch_decline=redis.register_script(_source("rematch_decline")),
            seek_add=redis.register_script(_source("seek_add")),
            seek_take=redis.register_script(_source("seek_take")),
            quick=redis.register_script(_source("quick")),
            pool_leave=redis.register_script(_source("pool_leave")),
            login_limit=redis.register_script(_source("login_limit")),
            windows=redis.register_script(_source("windows")),
            mark=redis.register_script(_source("mark")),
            mail=redis.register_script(_source("mail")),
            token=redis.register_script(_source("token")),
            notice=redis.register_script(_source("notice")),
            member=redis.register_script(_source("member")),
            read=redis.register_script(_source("read")),
            chat=redis.register_script(_source("chat")),
            conditional=redis.register_script(_source("conditional")),
            analysis=redis.register_script(_source("analysis")),
            tournament=TournamentScripts.register(redis),
            run_limit=redis.register_script(_source("run_limit")),
        )
