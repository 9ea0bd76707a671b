"""One exported game as the bytes it takes in the stream, by format. Pure."""

from __future__ import annotations

import json
from typing import Final, Literal

from brandubh.engine import format_otn_record, parse_record
from brandubh.store import ExportedGame

ExportFormat = Literal["ndjson", "record", "otn"]
FORMATS: Final[tuple[ExportFormat, ...]] = ("ndjson", "record", "otn")

_TYPES: Final[dict[ExportFormat, str]] = {
    "ndjson": "application/x-ndjson",
    "record": "text/plain; charset=utf-8",
    "otn": "text/plain; charset=utf-8",
}


def content_type(fmt: ExportFormat) -> str:
    return _TYPES[fmt]


def line(game: ExportedGame, fmt: ExportFormat) -> bytes:
    """NDJSON: the game's summary (as ``GET /api/players/<id>/games`` lists it) with its
    ``moves`` and ``record``, one line; record: the record's text, then a blank line; otn:
    its OpenTafl game record (engine/otn.py; the query took only rule sets OTN can say),
    then a blank line."""
    if fmt == "record":
        return game.record.rstrip("\n").encode() + b"\n\n"
    if fmt == "otn":
        return format_otn_record(parse_record(game.record)).rstrip("\n").encode() + b"\n\n"
    body = {**game.summary, "moves": game.moves, "record": game.record}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
