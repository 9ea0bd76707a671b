"""The bridge's settings: a TOML file, command-line options over it, the token from
``BRANDUBH_TOKEN`` or a file; every wrong value refused naming it (docs/bridge.md)."""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from brandubh.bridge.policy import AcceptRules
from brandubh.engine import EngineError, format_otn_rules

__all__ = ["TOKEN_ENV", "BridgeConfig", "ConfigError", "load_config"]

TOKEN_ENV: Final = "BRANDUBH_TOKEN"
# The service's bounds on seconds per move (whole minutes, one minute to one week).
MOVE_TIME_RANGE: Final = (60, 7 * 24 * 3600)
_TOP: Final = frozenset({"url", "token_file", "engine", "engine_dir", "accept", "transport"})
TRANSPORTS: Final = ("http", "socket")
_ACCEPT: Final = frozenset(AcceptRules.__dataclass_fields__)


class ConfigError(ValueError):
    """A setting that is missing or wrong; the message names it."""


@dataclass(frozen=True, slots=True)
class BridgeConfig:
    """Where the site is, who the bridge is there (the token), the engine's command line
    and folder, and the accept rules."""

    url: str
    token: str = field(repr=False)
    engine: tuple[str, ...]
    engine_dir: Path | None = None
    accept: AcceptRules = field(default_factory=AcceptRules)
    # How a game is followed and played: "http" (the game stream and a POST a move) or
    # "socket" (the bot socket, docs/protocol.md §2.9.1: a move at a person's cost).
    transport: str = "http"


def _accept(table: Mapping[str, Any], rules: AcceptRules) -> AcceptRules:
    unknown = sorted(set(table) - _ACCEPT)
    if unknown:
        raise ConfigError(
            f"[accept] has no setting {unknown[0]!r}: use {', '.join(sorted(_ACCEPT))}"
        )
    values: dict[str, Any] = {}
    for key, value in table.items():
        default = getattr(rules, key)
        if key == "rulesets":
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"accept rulesets must be a list of rule set names: {value!r}")
            value = tuple(value)
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"accept {key} must be true or false, not {value!r}")
        elif not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"accept {key} must be a whole number, not {value!r}")
        values[key] = value
    return replace(rules, **values)


def _check(rules: AcceptRules) -> None:
    if not rules.rulesets:
        raise ConfigError("accept rulesets is empty: name at least one (nielsen, walker)")
    for name in rules.rulesets:
        try:
            format_otn_rules(name)
        except EngineError as exc:
            raise ConfigError(
                f"accept rulesets: {name!r}: an OTEP engine cannot play it ({exc})"
            ) from None
    low, high = MOVE_TIME_RANGE
    for key in ("min_move_time", "max_move_time"):
        value = getattr(rules, key)
        if not low <= value <= high:
            raise ConfigError(f"accept {key} is {value}: seconds from {low} to {high}")
    if rules.min_move_time > rules.max_move_time:
        raise ConfigError(
            f"accept min_move_time ({rules.min_move_time}) is over max_move_time "
            f"({rules.max_move_time})"
        )
    if not (rules.rated or rules.casual):
        raise ConfigError("accept rated and casual are both false: no game could be accepted")
    if not (rules.bots or rules.people):
        raise ConfigError("accept bots and people are both false: no one could be accepted")
    if not 1 <= rules.max_games <= 64:
        raise ConfigError(f"accept max_games is {rules.max_games}: from 1 to 64")


def _engine(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as exc:
            raise ConfigError(f"engine {value!r} is not a command line: {exc}") from None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"engine must be a command line, a string or a list: {value!r}")
    if not value:
        raise ConfigError("engine is empty: give the command that starts the OTEP engine")
    return tuple(value)


def _token(env: Mapping[str, str], path: Path | None) -> str:
    token = env.get(TOKEN_ENV, "").strip()
    if not token and path is not None:
        try:
            token = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"token_file {str(path)!r} cannot be read: {exc.strerror}") from None
        if not token:
            raise ConfigError(f"token_file {str(path)!r} is empty")
    if not token:
        raise ConfigError(
            f"no token: set {TOKEN_ENV} or token_file to a personal API token with the "
            "scopes bot:play and challenge:write (docs/api.md)"
        )
    if not token.startswith("bdl_"):
        raise ConfigError("the token does not start with 'bdl_': is it a personal API token?")
    return token


def load_config(
    path: Path | None,
    options: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
) -> BridgeConfig:
    """The settings of the TOML file at ``path`` (if any) with ``options`` over them (the
    command line's; None for one not given); ConfigError names the first wrong one."""
    data: dict[str, Any] = {}
    base = Path.cwd()
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(
                f"the config file {str(path)!r} cannot be read: {exc.strerror}"
            ) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"the config file {str(path)!r} is not TOML: {exc}") from None
        base = path.resolve().parent
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise ConfigError(
            f"the config has no setting {unknown[0]!r}: use {', '.join(sorted(_TOP))}"
        )
    accept_table = data.get("accept", {})
    if not isinstance(accept_table, dict):
        raise ConfigError("accept must be a table: [accept]")
    given = {k: v for k, v in options.items() if v is not None}
    rules = _accept(accept_table, AcceptRules())
    rules = _accept({k: v for k, v in given.items() if k in _ACCEPT}, rules)
    _check(rules)
    url = str(given.get("url") or data.get("url") or "").rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"url must be the site's address, http:// or https://, not {url!r}")
    engine = given.get("engine") or data.get("engine")
    if engine is None:
        raise ConfigError("no engine: give the command that starts the OTEP engine")
    # A path on the command line is from here; one in the file, from the file's folder.
    token_file = _path(given, data, "token_file", base)
    engine_dir = _path(given, data, "engine_dir", base)
    transport = str(given.get("transport") or data.get("transport") or "http")
    if transport not in TRANSPORTS:
        raise ConfigError(f"transport must be http or socket, not {transport!r}")
    return BridgeConfig(
        url=url,
        token=_token(os.environ if env is None else env, token_file),
        engine=_engine(engine),
        engine_dir=engine_dir,
        accept=rules,
        transport=transport,
    )


def _path(given: Mapping[str, Any], data: Mapping[str, Any], key: str, base: Path) -> Path | None:
    if given.get(key):
        return Path(str(given[key])).expanduser().resolve()
    if data.get(key):
        return (base / Path(str(data[key])).expanduser()).resolve()
    return None
