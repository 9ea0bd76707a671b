"""The route that reads OpenTafl notation for the analysis board: a game record, a rules
string or a position, answered as our rule set, start and move texts (docs/protocol.md §2.3).

The one converter is the engine's (engine/otn.py): the client sends the text as pasted and
walks what comes back, so OTN is read the same way here as everywhere else.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.engine import (
    RULESETS,
    START_POSITION,
    InvalidOtn,
    OtnUnsupported,
    parse_otn_position,
    parse_otn_record,
    parse_otn_rules,
)
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import check_cross_site, read_body, services

MAX_OTN: Final = 64 * 1024  # a game record of every move a rule set allows, with its tags


def _imported(ruleset: str, position: str, moves: tuple[str, ...]) -> dict[str, object]:
    return {
        "ruleset": ruleset,
        # The rule set's own start is left out, as in the analysis board's address.
        "position": None if position == START_POSITION else position,
        "moves": list(moves),
        "result": None,
        "attackers": None,
        "defenders": None,
    }


def read_otn(text: str, ruleset: str | None) -> dict[str, object]:
    """What the analysis board loads for ``text``: a game record (it has a ``[rules:...]``
    tag), a rules string (``dim:7 ... start:/.../``) or a bare position (under ``ruleset``)."""
    stripped = text.strip()
    if not stripped:
        raise Refusal("otn_invalid", "paste an OTN game record, rules string or position")
    if stripped.startswith("/"):
        if ruleset is None or ruleset not in RULESETS:
            raise Refusal(
                "bad_field",
                "an OTN position says nothing of the rules: give ruleset, one of "
                + ", ".join(sorted(RULESETS)),
            )
        return _imported(ruleset, parse_otn_position(stripped), ())
    if stripped.startswith("dim:"):
        rules = parse_otn_rules(stripped)
        return _imported(rules.ruleset.name, rules.position, ())
    record = parse_otn_record(stripped)
    out = _imported(record.ruleset, record.position, record.moves)
    if record.result is not None:
        out["result"] = {"winner": record.result.winner, "reason": record.result.reason}
    out["attackers"], out["defenders"] = record.attackers, record.defenders
    return out


async def import_otn(request: Request) -> Response:
    web = services(request)
    check_cross_site(request, web.settings)
    body = await read_body(request, MAX_OTN)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal("otn_invalid", "the text is not UTF-8") from None
    try:
        return JSONResponse(read_otn(text, request.query_params.get("ruleset")))
    except InvalidOtn as exc:
        raise Refusal("otn_invalid", str(exc)) from exc
    except OtnUnsupported as exc:
        raise Refusal("otn_unsupported", str(exc)) from exc


ROUTES: Final = (Route("/api/otn/import", import_otn, methods=["POST"]),)
