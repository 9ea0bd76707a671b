"""OpenTafl Notation (OTN): positions, moves, rules strings and game records, both ways.

Written from OpenTafl's ``opentafl-notation-spec.txt``. What maps and what is refused:
docs/record-format.md §OpenTafl notation, and the rule-set table in docs/otep.md.
``InvalidOtn``: the text is not OTN; ``OtnUnsupported``: valid OTN our rule sets cannot play.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from brandubh.engine.board import START_POSITION, format_position, parse_position
from brandubh.engine.errors import EngineError, IllegalMove, InvalidPosition
from brandubh.engine.game import Game
from brandubh.engine.notation import Move
from brandubh.engine.record import Record
from brandubh.engine.result import SITE_REASONS, Result, Side
from brandubh.engine.rulesets import RuleSet, get_ruleset
from brandubh.engine.squares import CORNERS, SIZE, SQUARE_NAMES, THRONE

__all__ = [
    "OTN_RULES",
    "InvalidOtn",
    "OtnMove",
    "OtnRules",
    "OtnUnsupported",
    "format_otn_move",
    "format_otn_position",
    "format_otn_record",
    "format_otn_rules",
    "move_from_otn",
    "otn_from_move",
    "parse_otn_move",
    "parse_otn_position",
    "parse_otn_record",
    "parse_otn_rules",
    "replay_otn",
]


class InvalidOtn(EngineError):
    """Text that is not OpenTafl notation: a malformed position, move, rules string or record."""


class OtnUnsupported(EngineError):
    """Valid OpenTafl notation that our rule sets cannot express or play."""


# -- positions ---------------------------------------------------------------------------

_PIECES: Final = "tcnkmgTCNKMG"
_OURS: Final = {"t": "A", "T": "D", "K": "K"}
_THEIRS: Final = {"A": "t", "D": "T", "K": "K"}
_SPECIAL: Final = {
    "c": "an attacking commander",
    "n": "an attacking knight",
    "k": "an attacking king",
    "m": "an attacking mercenary",
    "g": "an attacking guard",
    "C": "a defending commander",
    "N": "a defending knight",
    "M": "a defending mercenary",
    "G": "a defending guard",
}
_ROW_TOKEN: Final = re.compile(r"\d+|.")


def parse_otn_position(text: str, side: Side = "attackers") -> str:
    """Our position string for an OTN position record (rank 1 first) with ``side`` to move."""
    record = text.strip()
    if not (record.startswith("/") and record.endswith("/")) or len(record) < 2:
        raise InvalidOtn(
            f"OTN position {text!r} must start and end with '/', as in "
            "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
        )
    rows = record[1:-1].split("/")
    if len(rows) != SIZE:
        raise OtnUnsupported(
            f"OTN position {text!r} has {len(rows)} rows: we play only on a {SIZE}x{SIZE} board"
        )
    ours = []
    for rank, row in enumerate(rows, start=1):
        out, width, empty = [], 0, 0
        for token in _ROW_TOKEN.findall(row):
            if token.isdigit():
                empty += int(token)  # runs written apart or as "07" join into ours, 1-7
                continue
            if token not in _OURS:
                if token in _SPECIAL:
                    raise OtnUnsupported(
                        f"rank {rank} of {text!r} holds {_SPECIAL[token]} ({token!r}): our rule "
                        "sets have only taflmen (t, T) and the defenders' king (K)"
                    )
                raise InvalidOtn(
                    f"unexpected {token!r} in rank {rank} ({row!r}) of OTN position {text!r}: "
                    f"use {', '.join(_PIECES)} or a count of empty squares"
                )
            out += [str(empty)] if empty else []
            out.append(_OURS[token])
            width += empty + 1
            empty = 0
        width += empty
        if width != SIZE:
            raise OtnUnsupported(
                f"rank {rank} ({row!r}) of OTN position {text!r} covers {width} squares: "
                f"we play only on a {SIZE}x{SIZE} board"
            )
        ours.append("".join(out) + (str(empty) if empty else ""))
    try:
        att, dfn, king, side_bit = parse_position(
            "/".join(reversed(ours)) + (" a" if side == "attackers" else " d")
        )
    except InvalidPosition as exc:
        raise InvalidOtn(f"OTN position {text!r} does not describe a board: {exc}") from exc
    return format_position(att, dfn, king, side_bit)


def format_otn_position(position: str) -> str:
    """The OTN position record of our position string (the side to move is not part of it)."""
    try:
        # Canonical first: ours may split a run of empty squares ("25"), OTN may not.
        board = format_position(*parse_position(position)).split()[0]
    except InvalidPosition as exc:
        raise InvalidOtn(f"{position!r} is not one of our position strings: {exc}") from exc
    rows = ["".join(_THEIRS.get(ch, ch) for ch in rank) for rank in reversed(board.split("/"))]
    return "/" + "/".join(rows) + "/"


def _side_of(position: str) -> Side:
    return "defenders" if position.split()[1] == "d" else "attackers"


# -- moves -------------------------------------------------------------------------------

_SQ: Final = r"[a-z]\d+"
_MOVE_RE: Final = re.compile(
    rf"^(?P<piece>[{_PIECES}])?(?P<origin>{_SQ})(?P<kind>\^=|\^|=|-)(?P<dest>{_SQ})"
    rf"(?:x(?P<caps>[{_PIECES}]?{_SQ}(?:/[{_PIECES}]?{_SQ})*))?(?P<info>\+\+|--|\+|-)?$"
)
_CAPTURE_RE: Final = re.compile(rf"([{_PIECES}]?)({_SQ})")
INFO_SYMBOLS: Final = ("", "+", "-", "++", "--")


@dataclass(frozen=True, slots=True)
class OtnMove:
    """An OTN move record: squares, whether the king moved, the captured squares (with
    ``king_captured``, the king's is the last), and the info symbol ("", "+", "-", "++", "--")."""

    origin: str
    destination: str
    king: bool = False
    captures: tuple[str, ...] = ()
    king_captured: bool = False
    info: str = ""


def _square(name: str, text: str) -> str:
    if name not in SQUARE_NAMES:
        raise OtnUnsupported(
            f"{name!r} in OTN move {text!r} is off our {SIZE}x{SIZE} board (files a-g, ranks 1-7)"
        )
    return name


def parse_otn_move(text: str) -> OtnMove:
    """Read an OTN move record such as ``d2-d4``, ``e5-e3xe2`` or ``Kd4-a4--``."""
    record = text.strip()
    if record == "---":
        raise OtnUnsupported("'---' is a resignation, not a move: it belongs in a game record")
    m = _MOVE_RE.match(record)
    if m is None:
        raise InvalidOtn(
            f"{text!r} is not an OTN move record: write start, '-', end, then any captures, "
            "as in d2-d4 or Ke4-e1xd1/f1"
        )
    piece, kind = m.group("piece"), m.group("kind")
    if kind != "-":
        raise OtnUnsupported(
            f"{text!r} is a jump or berserk move ({kind!r}): our rule sets have neither"
        )
    if piece and piece != "K":
        if piece in "tT":
            piece = ""  # a plain taflman named anyway: allowed, and nothing to keep
        else:
            raise OtnUnsupported(
                f"{text!r} moves {_SPECIAL[piece]} ({piece!r}): our rule sets have none"
            )
    captures: list[str] = []
    king: list[str] = []
    for symbol, square in _CAPTURE_RE.findall(m.group("caps") or ""):
        if symbol and symbol not in "tTK":
            raise OtnUnsupported(
                f"{text!r} captures {_SPECIAL[symbol]} ({symbol!r}): our rule sets have none"
            )
        (king if symbol == "K" else captures).append(_square(square, text))
    if len(king) > 1:
        raise InvalidOtn(f"{text!r} captures the king twice")
    king_captured = bool(king)
    captures += king
    return OtnMove(
        origin=_square(m.group("origin"), text),
        destination=_square(m.group("dest"), text),
        king=piece == "K",
        captures=tuple(captures),
        king_captured=king_captured,
        info=m.group("info") or "",
    )


def format_otn_move(move: OtnMove, *, simple: bool = False) -> str:
    """The OTN move record; ``simple``: only ``start-end``, OTEP's simple move notation."""
    if simple:
        return f"{move.origin}-{move.destination}"
    if move.info not in INFO_SYMBOLS:
        raise InvalidOtn(f"info symbol {move.info!r} is not one of {', '.join(INFO_SYMBOLS)}")
    text = f"{'K' if move.king else ''}{move.origin}-{move.destination}"
    if move.captures:
        # The king is the one special piece we have: named when captured, as the spec asks.
        last = len(move.captures) - 1
        marked = [
            f"K{sq}" if move.king_captured and i == last else sq
            for i, sq in enumerate(move.captures)
        ]
        text += "x" + "/".join(marked)
    return text + move.info


def move_from_otn(move: OtnMove) -> str:
    """Our move text for an OTN move (``K`` for the king; captures checked when replayed)."""
    text = f"{'K' if move.king else ''}{move.origin}-{move.destination}"
    return text + "".join(f"x{sq}" for sq in move.captures)


def otn_from_move(
    move: Move, *, king_square: str | None = None, result: Result | None = None
) -> OtnMove:
    """The OTN move of one of ours; ``king_square``: where the king stood before it (to
    name him if captured); ``result``: the game's result after it, for ``++`` and ``--``."""
    king_captured = king_square is not None and king_square in move.captures
    captures = tuple(sq for sq in move.captures if sq != king_square or not king_captured)
    if king_captured and king_square is not None:
        captures += (king_square,)
    info = ""
    if result is not None and result.reason == "king_captured":
        info = "++"
    elif result is not None and result.reason == "king_escaped":
        info = "--"
    return OtnMove(move.origin, move.destination, move.king, captures, king_captured, info)


# -- rules -------------------------------------------------------------------------------

# Which entries exist, and the default of each (the spec's, as OpenTafl's RulesSerializer).
_DEFAULTS: Final[dict[str, str]] = {
    "name": "",
    "esc": "c",
    "surf": "y",
    "atkf": "y",
    "tfr": "d",
    "ka": "y",
    "ks": "s",
    "kj": "n",
    "nj": "c",
    "cj": "j",
    "mj": "n",
    "gj": "n",
    "spd": "-1",
    "cor": "default",
    "cen": "default",
    "afor": "",
    "dfor": "",
    "corh": "tcnkmTCNKM",
    "cenh": "tcnkm",
    "cenhe": "tcnkmTCNKM",
    "aforh": "TCNKM",
    "dforh": "tcnkm",
    "corp": "K",
    "cenp": "tcnkmTCNKM",
    "aforp": "tcnkmTCNKM",
    "dforp": "TCNKM",
    "cors": "K",
    "cens": "K",
    "afors": "tcnkmTCNKM",
    "dfors": "TCNKM",
    "corre": "tcnkmTCNKM",
    "cenre": "tcnkmTCNKM",
    "aforre": "tcnkmTCNKM",
    "dforre": "tcnkmTCNKM",
    "sw": "n",
    "swf": "y",
    "efe": "n",
    "linc": "n",
    "ber": "n",
}
_CHOICES: Final[dict[str, str]] = {
    "esc": "ce",
    "surf": "yn",
    "atkf": "yn",
    "tfr": "idwl",
    "ka": "ynah",
    "ks": "scmwyn",
    "kj": "nrjc",
    "nj": "nrjc",
    "cj": "nrjc",
    "mj": "nrjc",
    "gj": "nrjc",
    "sw": "nws",
    "swf": "yn",
    "efe": "yn",
    "linc": "yn",
    "ber": "ncm",
}
_SPACE_LISTS: Final = ("cor", "cen", "afor", "dfor")
_PIECE_LISTS: Final = tuple(k for k, v in _DEFAULTS.items() if k.endswith(("h", "p", "s", "re")))
# What each entry that can tell our rule sets apart means, for the refusals.
_MEANING: Final[dict[str, str]] = {
    "esc": "escape: c to a corner, e to any edge square",
    "surf": "y: a side surrounded by the other loses",
    "tfr": "the third repetition: d draw, i ignored, w or l a win for one side",
    "ka": "whether the king takes part in captures",
    "ks": "king strength: s strong, c strong on or beside the throne, m middleweight, w weak",
    "kj": "whether the king jumps",
    "spd": "speed limits",
    "cor": "the corner squares",
    "cen": "the throne square",
    "afor": "attacker fortresses",
    "dfor": "defender fortresses",
    "corh": "pieces the corners are hostile to",
    "cenh": "defenders the occupied throne is hostile to",
    "cenhe": "pieces the empty throne is hostile to",
    "cenp": "pieces that may pass the empty throne",
    "cors": "pieces that may stop on a corner",
    "cens": "pieces that may stop on the throne",
    "cenre": "pieces that may come back through or onto the throne",
    "corre": "whether the king may enter a corner",
    "sw": "shieldwall captures",
    "efe": "edge fort escapes",
    "linc": "Linnaean capture",
    "ber": "berserk moves",
}


@dataclass(frozen=True, slots=True)
class OtnRules:
    """An OTN rules string read into ours: the rule set, the start position (with the side
    to move from ``atkf``), and the entries as written."""

    ruleset: RuleSet
    position: str
    entries: tuple[tuple[str, str], ...]


def _profile(entries: dict[str, str]) -> dict[str, str]:
    """The entries that matter on our board, normalised: defaults filled in, piece lists cut
    to the pieces we have (t, T, K), aliases resolved, space lists as sorted squares."""
    full = {**_DEFAULTS, **entries}
    out: dict[str, str] = {}
    for key in ("esc", "surf", "tfr", "ka", "kj", "sw", "efe", "linc", "ber"):
        out[key] = full[key]
    out["ks"] = {"y": "s", "n": "w"}.get(full["ks"], full["ks"])
    speeds = [int(s) for s in full["spd"].split(",")]
    # A limit of 6 or more is no limit on a 7x7 board.
    out["spd"] = "-1" if all(s < 0 or s >= SIZE - 1 for s in speeds) else full["spd"]
    corners = ",".join(sorted(SQUARE_NAMES[c] for c in CORNERS))
    out["cor"] = corners if full["cor"] == "default" else ",".join(sorted(_spaces(full["cor"])))
    throne = SQUARE_NAMES[THRONE]
    out["cen"] = throne if full["cen"] == "default" else ",".join(sorted(_spaces(full["cen"])))
    out["afor"] = ",".join(sorted(_spaces(full["afor"])))
    out["dfor"] = ",".join(sorted(_spaces(full["dfor"])))

    def pieces(key: str, ours: str) -> str:
        return "".join(p for p in ours if p in full[key])

    for key in ("corh", "cenhe", "cenp", "cors", "cens", "cenre"):
        out[key] = pieces(key, "tTK")
    out["corre"] = pieces("corre", "K")  # soldiers never stop on a corner
    out["cenh"] = pieces("cenh", "T")  # the throne is occupied only by the armed king
    return out


def _spaces(value: str) -> list[str]:
    return [s for s in value.split(",") if s]


def _fixed(**differ: str) -> dict[str, str]:
    base = {
        "esc": "c",
        "surf": "n",
        "tfr": "d",
        "ka": "y",
        "kj": "n",
        "sw": "n",
        "efe": "n",
        "linc": "n",
        "ber": "n",
        "spd": "-1",
        "cor": "a1,a7,g1,g7",
        "cen": "d4",
        "afor": "",
        "dfor": "",
        "corh": "tTK",
        "cenp": "tTK",
        "cors": "K",
        "cenre": "tTK",
        "corre": "K",
        "cenh": "",
    }
    return {**base, **differ}


# Our rule sets OTN can state exactly: the entries we write beyond dim, atkf and start, and
# the profile (_profile) a rules string must have to be read as that rule set.
OTN_RULES: Final[dict[str, str]] = {
    "nielsen": "esc:c surf:n tfr:d ka:y ks:c cens: cenhe:tTK",
    "walker": "esc:c surf:n tfr:d ka:y ks:w cenh: cenhe:",
}
_PROFILES: Final[dict[str, dict[str, str]]] = {
    "nielsen": _fixed(ks="c", cens="", cenhe="tTK"),
    "walker": _fixed(ks="w", cens="K", cenhe=""),
}
# Why the others cannot be written, in words.
_INEXPRESSIBLE: Final[dict[str, str]] = {
    "federation": (
        "a third repetition loses for the defenders whoever repeated, and OTN's tfr can say only "
        "draw, ignore, or a win or loss for the side that repeated"
    ),
    "common": (
        "beside the throne the king is taken by two attackers but on it by four, and OTN's "
        "king strength (ks) has no such mode (ks:c makes him strong beside the throne too)"
    ),
    "newsome": (
        "pieces step one square (princes and barons also two along diagonals) and capture by "
        "moving onto an enemy; OTN describes only sliding tafl with custodial capture"
    ),
}


def format_otn_rules(ruleset: str | RuleSet, position: str = START_POSITION) -> str:
    """The OTN rules string of one of our rule sets from ``position`` (its side to move is
    ``atkf``); OtnUnsupported for the rule sets OTN cannot state."""
    rs = get_ruleset(ruleset)
    entries = OTN_RULES.get(rs.name)
    if entries is None:
        raise OtnUnsupported(
            f"the {rs.name} rule set cannot be written in OTN: {_INEXPRESSIBLE[rs.name]}"
        )
    atkf = "y" if _side_of(position) == "attackers" else "n"
    return f"dim:{SIZE} atkf:{atkf} {entries} start:{format_otn_position(position)}"


def _entry_check(key: str, value: str) -> None:
    if key in _CHOICES:
        if len(value) != 1 or value not in _CHOICES[key]:
            raise InvalidOtn(
                f"OTN rules entry {key}:{value} must be one of {', '.join(_CHOICES[key])}"
            )
    elif key in _PIECE_LISTS:
        bad = [ch for ch in value if ch not in _PIECES]
        if bad:
            raise InvalidOtn(
                f"OTN rules entry {key}:{value} lists {bad[0]!r}: use the piece letters {_PIECES}"
            )
    elif key in _SPACE_LISTS:
        if value != "default" and not all(re.fullmatch(_SQ, s) for s in _spaces(value)):
            raise InvalidOtn(f"OTN rules entry {key}:{value} must list squares, as in a1,g7,")
    elif key == "spd" and not re.fullmatch(r"-?\d+(,-?\d+)*", value):
        raise InvalidOtn(f"OTN rules entry spd:{value} must be numbers separated by commas")


def parse_otn_rules(text: str) -> OtnRules:
    """Read an OTN rules string into one of our rule sets and a start position;
    InvalidOtn if it is malformed, OtnUnsupported (naming the entries) if none matches."""
    tokens = text.split()
    if not tokens or not tokens[0].startswith("dim:"):
        raise InvalidOtn(f"an OTN rules string starts with the board size, as dim:7, not {text!r}")
    if not tokens[-1].startswith(("start:", "starti:")):
        raise InvalidOtn("an OTN rules string ends with the start position, start:/.../")
    dim = tokens[0][4:]
    if not dim.isdigit():
        raise InvalidOtn(f"OTN board size dim:{dim} must be a number")
    if int(dim) != SIZE:
        raise OtnUnsupported(f"dim:{dim}: we play only on a {SIZE}x{SIZE} board (dim:{SIZE})")
    entries: dict[str, str] = {}
    for token in tokens[1:-1]:
        key, colon, value = token.partition(":")
        if not colon:
            raise InvalidOtn(f"OTN rules entry {token!r} needs a colon, as in ks:w")
        if key not in _DEFAULTS:
            raise InvalidOtn(f"OTN rules entry {token!r}: {key!r} is not an OTN rules entry")
        if key in entries:
            raise InvalidOtn(f"OTN rules entry {key!r} is given twice")
        _entry_check(key, value)
        entries[key] = value
    side: Side = "defenders" if entries.get("atkf") == "n" else "attackers"
    key, _, record = tokens[-1].partition(":")
    if key == "starti":
        # The rows top first: reversed, it is an ordinary record.
        inner = record.strip("/").split("/")
        record = "/" + "/".join(reversed(inner)) + "/"
    position = parse_otn_position(record, side)
    profile = _profile(entries)
    for name, wanted in _PROFILES.items():
        if profile == wanted:
            return OtnRules(get_ruleset(name), position, tuple(entries.items()))
    raise OtnUnsupported(_mismatch(profile))


def _mismatch(profile: dict[str, str]) -> str:
    """The refusal of a rules string: what it sets that our nearest rule set does not."""
    best, diff = "", list(profile)
    for name, wanted in _PROFILES.items():
        here = [k for k in wanted if profile[k] != wanted[k]]
        if len(here) < len(diff):
            best, diff = name, here
    said = "; ".join(
        f"{k}:{profile[k]} where {best} needs {k}:{_PROFILES[best][k]} ({_MEANING[k]})"
        for k in diff
    )
    return (
        f"none of our rule sets plays these OTN rules; the nearest, {best}, differs: {said}. "
        f"We play {', '.join(OTN_RULES)} over OTN (docs/otep.md)"
    )


# -- game records ------------------------------------------------------------------------

_TAG_RE: Final = re.compile(r"^\[([a-z][a-z-]*):(.*)\]$")
_TURN_RE: Final = re.compile(r"^(\d+)\.$")
_VARIATION_RE: Final = re.compile(r"^\d+[a-z]\.")
_COMMENT_RE: Final = re.compile(r"\[[^\]]*\]")
_RESULT_TAG: Final[dict[Side | None, str]] = {"attackers": "1", "defenders": "-1", None: "0"}


def format_otn_record(record: Record) -> str:
    """An OTN game record of one of our records: tags, the rules tag, one line a turn."""
    game = Game(record.ruleset, record.position)
    otn_moves = []
    for text in record.moves:
        king = SQUARE_NAMES[game.board.king] if game.board.king >= 0 else None
        try:
            played = game.play(text)
        except IllegalMove as exc:
            raise InvalidOtn(f"the record's move {text!r} does not replay: {exc}") from exc
        otn = otn_from_move(played, king_square=king, result=game.result)
        otn_moves.append(format_otn_move(otn))
    if record.result is not None and record.result.reason == "resignation":
        otn_moves.append("---")
    tags: list[tuple[str, str]] = []
    if record.game_id:
        tags.append(("event", f"Brandubh Live game {record.game_id}"))
    if record.start:
        tags.append(("date", record.start[:10].replace("-", ".")))
    if record.attackers:
        tags.append(("attackers", record.attackers))
    if record.defenders:
        tags.append(("defenders", record.defenders))
    if record.result is not None and record.result.reason != "aborted":
        tags.append(("result", _RESULT_TAG[record.result.winner]))
        tags.append(("termination", str(record.result)))
    tags.append(("variant", record.ruleset))
    tags.append(("rules", format_otn_rules(record.ruleset, record.position)))
    for key, value in tags:
        if "\n" in value or "]" in value:
            raise InvalidOtn(f"OTN tag {key} cannot hold {value!r}: no newlines or ']'")
    lines = [f"[{k}:{v}]" for k, v in tags]
    lines.append("")
    # A turn is both sides' moves; a start with the defenders to move begins with theirs.
    for n, i in enumerate(range(0, len(otn_moves), 2), start=1):
        lines.append(f"{n}. {' '.join(otn_moves[i : i + 2])}")
    return "\n".join(lines) + "\n"


def _reason_from(termination: str, winner: Side | None, resigned: bool) -> str:
    """Our reason for an ending the moves do not decide, from OTN's words about it."""
    if resigned:
        return "resignation"
    words = termination.lower()
    m = re.search(r"\((\w+)\)$", words)
    if m and m.group(1) in SITE_REASONS:
        return m.group(1)  # one of our own exports
    if winner is None:
        return "draw_agreed"
    if "time" in words or "clock" in words:
        return "timeout"
    if "abandon" in words or "left" in words:
        return "abandoned"
    return "resignation"


def parse_otn_record(text: str) -> Record:
    """Read an OTN game record into our Record, replayed with our engine: InvalidOtn for
    malformed text or a move that does not replay (named by turn), OtnUnsupported for rules
    we cannot play. Variations are left out: only the principal line is read."""
    tags: dict[str, str] = {}
    move_lines: list[tuple[int, int, list[str]]] = []  # (line number, turn, move records)
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        m = _TAG_RE.match(line)
        if m and not move_lines:
            tags[m.group(1)] = m.group(2)
            continue
        if _VARIATION_RE.match(line):
            continue
        tokens = _COMMENT_RE.sub(" ", line).split()
        if not tokens and move_lines:
            # The turn's commentary on its own line, as OpenTafl writes each turn's clocks
            # ([291 10/3 0i |283 10/3 0i ]): the spec's <first-half-commentary>|<more>.
            continue
        if not tokens or not _TURN_RE.match(tokens[0]):
            raise InvalidOtn(f"line {lineno} ({line!r}) is neither a [tag:value] nor a turn")
        turn = int(tokens[0][:-1])
        if turn != len(move_lines) + 1:
            raise InvalidOtn(f"line {lineno}: turn {turn} follows turn {len(move_lines)}")
        move_lines.append((lineno, turn, tokens[1:]))
    if "rules" not in tags:
        raise InvalidOtn("an OTN game record needs a [rules:...] tag")
    try:
        rules = parse_otn_rules(tags["rules"])
    except (InvalidOtn, OtnUnsupported) as exc:
        raise type(exc)(f"the [rules:...] tag: {exc}") from exc
    position = rules.position
    if "position" in tags:
        position = parse_otn_position(tags["position"], _side_of(position))
    game = Game(rules.ruleset, position)
    resigned_side: Side | None = None
    for lineno, turn, records in move_lines:
        where = f"line {lineno}, turn {turn}"  # so that a person finds it in what they pasted
        for record in records:
            if resigned_side is not None:
                raise InvalidOtn(f"{where}: {record!r} comes after a resignation")
            mover = game.side_to_move
            if record == "---":
                resigned_side = mover
                continue
            try:
                move = parse_otn_move(record)
            except (InvalidOtn, OtnUnsupported) as exc:
                raise type(exc)(f"{where}: {exc}") from exc
            try:
                game.play(move_from_otn(move))
            except IllegalMove as exc:
                raise InvalidOtn(
                    f"{where}, the {mover}' move {record} does not replay: {exc}"
                ) from exc
    result = game.result
    said = tags.get("result", "?").strip()
    if said not in ("1", "-1", "0", "?"):
        raise InvalidOtn(f"[result:{said}] must be 1, -1, 0 or ?")
    winner: Side | None = "attackers" if said == "1" else "defenders" if said == "-1" else None
    if resigned_side is not None:
        if result is not None:
            raise InvalidOtn(f"a resignation after the game ended ({result})")
        winner = "defenders" if resigned_side == "attackers" else "attackers"
        result = Result(winner, "resignation")
    elif result is not None:
        if said != "?" and _RESULT_TAG[result.winner] != said:
            raise InvalidOtn(f"[result:{said}] but the moves give {result}")
    elif said != "?":
        reason = _reason_from(tags.get("termination", ""), winner, False)
        result = Result(winner, reason)
    moves = tuple(str(m) for m in game.moves)
    return Record(
        ruleset=rules.ruleset.name,
        moves=moves,
        result=result,
        position=position,
        attackers=tags.get("attackers") or None,
        defenders=tags.get("defenders") or None,
    )


def replay_otn(text: str) -> Game:
    """An OTN game record replayed into a Game with our engine (as ``parse_otn_record``)."""
    try:
        return parse_otn_record(text).replay()
    except EngineError as exc:
        if isinstance(exc, (InvalidOtn, OtnUnsupported)):
            raise
        raise InvalidOtn(f"the OTN record does not replay: {exc}") from exc
