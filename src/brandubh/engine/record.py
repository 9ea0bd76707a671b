"""Game records: a plain-text format for a whole game, written and read back exactly.

See docs/record-format.md. In short: ``[Name "value"]`` header lines, a blank line, then the
numbered moves in our notation (``1. d1-c1 d3-c3 2. ...``), each optionally followed by a
``{comment}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Final

from brandubh.engine.board import START_POSITION
from brandubh.engine.errors import EngineError, IllegalMove, InvalidRecord, InvalidResult
from brandubh.engine.game import Game
from brandubh.engine.result import SITE_REASONS, Result
from brandubh.engine.rulesets import DEFAULT_RULESET, get_ruleset

# Headers with a field of their own, in the order they are written.
_KNOWN: Final = (
    "Game",
    "Ruleset",
    "Attackers",
    "Defenders",
    "Start",
    "Commitment",
    "Seed",
    "Position",
    "Result",
    "Reason",
)
_HEADER_RE: Final = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*) "((?:[^"\\]|\\.)*)"\]$')
_NUMBER_RE: Final = re.compile(r"^(\d+)\.(\.\.)?$")
# A comment {...}, an unclosed {, a stray }, or a token of moves and numbers.
_TOKEN_RE: Final = re.compile(r"\{([^{}]*)\}|\{|\}|[^\s{}]+")
_LINE_WIDTH: Final = 80


@dataclass(frozen=True, slots=True)
class Record:
    """A whole game: who played which side, its seed, its moves and how it ended."""

    ruleset: str = DEFAULT_RULESET.name
    moves: tuple[str, ...] = ()
    result: Result | None = None
    position: str = START_POSITION
    game_id: str | None = None
    attackers: str | None = None
    defenders: str | None = None
    start: str | None = None  # ISO 8601 UTC, e.g. 2026-11-30T16:39:03Z
    commitment: str | None = None  # SHA-256 of the seed, hex
    seed: str | None = None  # hex, once revealed at the end
    extra: tuple[tuple[str, str], ...] = field(default=())
    # (ply, text): after the ply-th move (0: before the first), in order of ply, one a ply.
    comments: tuple[tuple[int, str], ...] = field(default=())

    @classmethod
    def from_game(cls, game: Game, **fields: str | None) -> Record:
        """The record of a game so far; ``fields`` fill the headers (attackers=..., seed=...)."""
        return cls(
            ruleset=game.ruleset.name,
            moves=tuple(str(m) for m in game.moves),
            result=game.result,
            position=game.start_position,
            **fields,  # type: ignore[arg-type]
        )

    def replay(self) -> Game:
        """Play the record's moves from its start position; the result must follow.

        Raises InvalidRecord naming the first move or header that does not hold.
        """
        try:
            game = Game(self.ruleset, self.position)
        except EngineError as exc:
            raise InvalidRecord(f"the record's start does not load: {exc}") from exc
        for i, text in enumerate(self.moves):
            try:
                game.play(text)
            except IllegalMove as exc:
                raise InvalidRecord(f"{_move_label(game, i, text)} is illegal: {exc}") from exc
        if self.result is not None and self.result.reason in SITE_REASONS:
            if game.result is not None:
                raise InvalidRecord(
                    f"the record says {self.result}, but the moves already ended the game: "
                    f"{game.result}"
                )
            game.finish(self.result.winner, self.result.reason)
        elif game.result != self.result:
            said = self.result or "no result (game in progress)"
            real = game.result or "no result (the game goes on)"
            raise InvalidRecord(f"the record says {said}, but the moves give {real}")
        return game

    def with_result(self, result: Result | None) -> Record:
        return replace(self, result=result)


def _move_label(game: Game, index: int, text: str) -> str:
    return f"ply {index + 1} ({_move_number(game, index)}{text})"


def _move_number(game: Game, index: int) -> str:
    first_defends = game.start_position.endswith(" d")
    n, defenders = divmod(index + first_defends, 2)
    return f"{n + 1}. " if not defenders else f"{n + 1}... "


def _escape(value: str) -> str:
    if any(ord(ch) < 32 for ch in value):
        raise InvalidRecord(f"header value {value!r} contains a control character")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def format_record(record: Record) -> str:
    """The record as text (canonical form: headers in fixed order, moves wrapped at 80)."""
    result = record.result
    values: dict[str, str | None] = {
        "Game": record.game_id,
        "Ruleset": record.ruleset,
        "Attackers": record.attackers,
        "Defenders": record.defenders,
        "Start": record.start,
        "Commitment": record.commitment,
        "Seed": record.seed,
        "Position": record.position if record.position != START_POSITION else None,
        "Result": "*" if result is None else (result.winner or "draw"),
        "Reason": None if result is None else result.reason,
    }
    lines = [f'[{k} "{_escape(v)}"]' for k, v in values.items() if v is not None]
    lines += [f'[{k} "{_escape(v)}"]' for k, v in record.extra]
    lines.append("")
    lines.extend(_wrap(_move_tokens(record)))
    return "\n".join(lines) + "\n"


def _move_tokens(record: Record) -> list[str]:
    comments = _checked_comments(record)
    tokens = _comment_tokens(comments.get(0))
    defenders = record.position.endswith(" d")
    number = 1
    numbered = True  # a defenders' move after a comment (or first) carries its "N..."
    for i, text in enumerate(record.moves):
        if not defenders:
            tokens.append(f"{number}. {text}")
        elif numbered:
            tokens.append(f"{number}... {text}")
        else:
            tokens[-1] += f" {text}"
        if defenders:
            number += 1
        defenders = not defenders
        comment = _comment_tokens(comments.get(i + 1))
        tokens += comment
        numbered = bool(comment)
    return tokens


def _comment_tokens(comment: str | None) -> list[str]:
    """A comment as tokens the wrapping may break between: ``{first``, words, ``last}``."""
    if comment is None:
        return []
    words = comment.split(" ")
    words[0] = "{" + words[0]
    words[-1] += "}"
    return words


def _checked_comments(record: Record) -> dict[int, str]:
    """The record's comments by ply; InvalidRecord for one that would not read back as is."""
    found: dict[int, str] = {}
    last = -1
    for ply, text in record.comments:
        if not last < ply <= len(record.moves):
            raise InvalidRecord(
                f"comment at ply {ply}: comments go in order of ply, one a ply, "
                f"from 0 to {len(record.moves)} (the number of moves)"
            )
        if not text or " ".join(text.split()) != text or "{" in text or "}" in text:
            raise InvalidRecord(
                f"comment at ply {ply} ({text!r}): words separated by single spaces, without braces"
            )
        found[ply] = text
        last = ply
    return found


def _wrap(tokens: list[str]) -> list[str]:
    lines: list[str] = []
    for token in tokens:
        if lines and len(lines[-1]) + 1 + len(token) <= _LINE_WIDTH:
            lines[-1] += " " + token
        else:
            lines.append(token)
    return lines


def parse_record(text: str) -> Record:
    """Read a record written by ``format_record`` (headers in any order; moves lenient)."""
    headers: dict[str, str] = {}
    extra: list[tuple[str, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines) and lines[i].strip():
        line = lines[i].strip()
        m = _HEADER_RE.match(line)
        if m is None:
            raise InvalidRecord(f'line {i + 1}: expected a header such as [Ruleset "nielsen"]')
        name, value = m.group(1), _unescape(m.group(2))
        if name in headers or any(name == k for k, _ in extra):
            raise InvalidRecord(f"line {i + 1}: header {name} appears twice")
        if name in _KNOWN:
            headers[name] = value
        else:
            extra.append((name, value))
        i += 1
    ruleset = headers.get("Ruleset", DEFAULT_RULESET.name)
    try:
        get_ruleset(ruleset)
    except EngineError as exc:
        raise InvalidRecord(f"Ruleset header: {exc}") from exc
    moves, comments = _parse_moves(" ".join(lines[i:]))
    return Record(
        ruleset=ruleset,
        moves=moves,
        result=_parse_result(headers.get("Result", "*"), headers.get("Reason")),
        position=headers.get("Position", START_POSITION),
        game_id=headers.get("Game"),
        attackers=headers.get("Attackers"),
        defenders=headers.get("Defenders"),
        start=headers.get("Start"),
        commitment=headers.get("Commitment"),
        seed=headers.get("Seed"),
        extra=tuple(extra),
        comments=comments,
    )


def _parse_moves(text: str) -> tuple[tuple[str, ...], tuple[tuple[int, str], ...]]:
    """The moves and the comments; comments after one move are joined, white space folded."""
    moves: list[str] = []
    comments: dict[int, str] = {}
    for match in _TOKEN_RE.finditer(text):
        token = match.group(0)
        if token.startswith("{"):
            if match.group(1) is None:
                raise InvalidRecord(f"a comment opened after move {len(moves)} is not closed by }}")
            words = " ".join(match.group(1).split())
            if words:
                ply = len(moves)
                comments[ply] = f"{comments[ply]} {words}" if ply in comments else words
            continue
        if token == "}":
            raise InvalidRecord(f"a }} after move {len(moves)} closes no comment")
        if _NUMBER_RE.match(token):
            continue
        # Tolerate "1.d1-c1" written without the space.
        m = re.match(r"^\d+\.(?:\.\.)?(.+)$", token)
        moves.append(m.group(1) if m else token)
    return tuple(moves), tuple(comments.items())


def _parse_result(value: str, reason: str | None) -> Result | None:
    if value == "*":
        if reason is not None:
            raise InvalidRecord('a Reason header needs a Result other than "*"')
        return None
    if value not in ("attackers", "defenders", "draw"):
        raise InvalidRecord(f'Result header {value!r}: use "attackers", "defenders", "draw" or "*"')
    if reason is None:
        raise InvalidRecord(f'Result "{value}" needs a Reason header, such as "king_captured"')
    try:
        return Result(None if value == "draw" else value, reason)  # type: ignore[arg-type]
    except InvalidResult as exc:
        raise InvalidRecord(f"Reason header: {exc}") from exc
