"""A player's finished games for tools: one request streams them all from the archive, as
NDJSON or as record texts, a batch at a time (memory independent of their number), limited
per address (docs/protocol.md §2, "Exporting games")."""

from brandubh.hub.exports.lines import FORMATS, ExportFormat, content_type, line
from brandubh.hub.exports.query import MAX_GAMES, ExportQuery, parse_query
from brandubh.hub.exports.service import Exports

__all__ = [
    "FORMATS",
    "MAX_GAMES",
    "ExportFormat",
    "ExportQuery",
    "Exports",
    "content_type",
    "line",
    "parse_query",
]
