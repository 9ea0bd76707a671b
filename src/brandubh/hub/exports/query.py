"""An export's query string read once into a typed query, or refused naming the parameter
that is wrong. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from brandubh.engine import OTN_RULES, RULESETS
from brandubh.hub.errors import Refusal
from brandubh.hub.exports.lines import FORMATS, ExportFormat
from brandubh.store import GamesQuery

# The most games one request gives; the newest first, so ``until`` pages back past it.
MAX_GAMES: Final = 100_000
PARAMS: Final = ("ruleset", "since", "until", "max", "format")


@dataclass(frozen=True)
class ExportQuery:
    """Which games, and in which format."""

    games: GamesQuery
    format: ExportFormat


def _ms(params: Mapping[str, str], name: str) -> int | None:
    raw = params.get(name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 15:
        raise Refusal("bad_field", f"{name} must be a time in milliseconds since 1970, not {raw!r}")
    return int(raw)


def parse_query(params: Mapping[str, str]) -> ExportQuery:
    """The query of ``GET /api/games/export/<player>``; ``bad_field`` naming what is wrong."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise Refusal(
            "bad_field",
            f"unknown parameter {unknown[0]!r}: an export takes {', '.join(PARAMS)}",
        )
    ruleset = params.get("ruleset")
    if ruleset is not None and ruleset not in RULESETS:
        raise Refusal("bad_field", f"ruleset must be one of {', '.join(RULESETS)}, not {ruleset!r}")
    since, until = _ms(params, "since"), _ms(params, "until")
    if since is not None and until is not None and since > until:
        raise Refusal("bad_field", "since must not be later than until")
    raw_max = params.get("max", str(MAX_GAMES))
    if not (raw_max.isascii() and raw_max.isdigit()) or not 1 <= int(raw_max) <= MAX_GAMES:
        raise Refusal("bad_field", f"max must be a whole number from 1 to {MAX_GAMES}")
    fmt = params.get("format", "ndjson")
    if fmt not in FORMATS:
        raise Refusal("bad_field", f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    rulesets: tuple[str, ...] | None = (ruleset,) if ruleset else None
    if fmt == "otn":
        # OTN can say two of the rule sets: the others' games are left out, or refused when
        # asked for by name.
        if ruleset is not None and ruleset not in OTN_RULES:
            raise Refusal("no_otn", f"OpenTafl notation cannot say {ruleset}'s rules")
        rulesets = rulesets or tuple(OTN_RULES)
    return ExportQuery(GamesQuery(rulesets, since, until, int(raw_max)), fmt)
