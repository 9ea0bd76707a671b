"""The board: pieces as bitboards, the side to move, and an incremental Zobrist hash.

``Board`` is the fast, mutable core that games, perft and the bot share: moves are ints
(``origin | destination << 6``), ``push`` applies one with its captures and returns what
``pop`` needs to take it back. ``Game`` wraps it with history, repetitions and results.
"""

from __future__ import annotations

import random
from typing import Final

from brandubh.engine.errors import InvalidPosition
from brandubh.engine.newsome import StepRules
from brandubh.engine.rules import Position, Rules
from brandubh.engine.rulesets import RuleSet
from brandubh.engine.slide import SlideRules
from brandubh.engine.squares import CORNERS, NUM_SQUARES, SIZE, squares_of

ATTACKERS: Final = 0
DEFENDERS: Final = 1
SIDE_NAMES: Final = ("attackers", "defenders")

START_POSITION: Final = "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a"

# Fixed seed: hashes must agree between processes (repetition counts, the bot's tables).
_rng = random.Random(0xB4A2D0B1)
Z_ATTACKER: Final = tuple(_rng.getrandbits(64) for _ in range(NUM_SQUARES))
Z_DEFENDER: Final = tuple(_rng.getrandbits(64) for _ in range(NUM_SQUARES))
Z_KING: Final = tuple(_rng.getrandbits(64) for _ in range(NUM_SQUARES))
Z_SIDE: Final = _rng.getrandbits(64)
del _rng

# A prince (newsome) standing on a corner at the end of this many plies is lost in the woods.
WOODS_PLIES: Final = 3


def rules_for(ruleset: RuleSet) -> Rules:
    """The movement and capture module of a rule set."""
    return SlideRules(ruleset) if ruleset.slides else StepRules(ruleset)


# What push returns and pop restores: every field of the board before the move.
Undo = tuple[int, int, int, int, int, tuple[int, int, int, int]]


class Board(Position):
    """Pieces, side to move and hash of one position under one rule set."""

    __slots__ = ("hash", "rules", "ruleset", "woods")  # and Position's

    def __init__(self, ruleset: RuleSet, position: str = START_POSITION) -> None:
        self.ruleset = ruleset
        self.rules = rules_for(ruleset)
        self.att, self.dfn, self.king, self.side = parse_position(position)
        # Plies each corner's prince has ended there (newsome only; 0 when no prince).
        a1, a7, g1, g7 = (1 if not ruleset.slides and self.dfn >> c & 1 else 0 for c in CORNERS)
        self.woods = (a1, a7, g1, g7)
        self.hash = self._compute_hash()

    def _compute_hash(self) -> int:
        h = Z_SIDE if self.side else 0
        for sq in squares_of(self.att):
            h ^= Z_ATTACKER[sq]
        for sq in squares_of(self.dfn):
            h ^= Z_DEFENDER[sq]
        if self.king >= 0:
            h ^= Z_KING[self.king]
        return h

    def copy(self) -> Board:
        new = Board.__new__(Board)
        new.ruleset, new.rules = self.ruleset, self.rules
        new.att, new.dfn, new.king, new.side = self.att, self.dfn, self.king, self.side
        new.woods, new.hash = self.woods, self.hash
        return new

    @property
    def position(self) -> str:
        """The position string, e.g. ``"3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a"``."""
        return format_position(self.att, self.dfn, self.king, self.side)

    @property
    def king_bb(self) -> int:
        return 1 << self.king if self.king >= 0 else 0

    @property
    def occupied(self) -> int:
        return self.att | self.dfn | self.king_bb

    @property
    def own(self) -> int:
        """The side to move's pieces, the king included."""
        return self.dfn | self.king_bb if self.side else self.att

    @property
    def enemy(self) -> int:
        """The other side's pieces, the king included."""
        return self.att if self.side else self.dfn | self.king_bb

    def legal_moves(self) -> list[int]:
        return self.rules.moves(self)

    def has_legal_move(self) -> bool:
        return self.rules.has_move(self)

    def captures(self, move: int) -> list[int]:
        return self.rules.captures(self, move)

    def push(self, move: int, captures: list[int] | None = None) -> Undo:
        """Apply a legal move (captures computed unless given); return what ``pop`` needs."""
        undo: Undo = (self.att, self.dfn, self.king, self.side, self.hash, self.woods)
        if captures is None:
            captures = self.rules.captures(self, move)
        origin, dest = move & 63, move >> 6
        h = self.hash ^ Z_SIDE
        if self.side:
            if origin == self.king:
                self.king = dest
                h ^= Z_KING[origin] ^ Z_KING[dest]
            else:
                self.dfn ^= 1 << origin | 1 << dest
                h ^= Z_DEFENDER[origin] ^ Z_DEFENDER[dest]
            for sq in captures:
                self.att ^= 1 << sq
                h ^= Z_ATTACKER[sq]
        else:
            # A replacement capture (newsome) lands on the captured square: remove it first.
            for sq in captures:
                if sq == self.king:
                    self.king = -1
                    h ^= Z_KING[sq]
                else:
                    self.dfn ^= 1 << sq
                    h ^= Z_DEFENDER[sq]
            self.att ^= 1 << origin | 1 << dest
            h ^= Z_ATTACKER[origin] ^ Z_ATTACKER[dest]
        self.side ^= 1
        self.hash = h
        if not self.ruleset.slides:
            self._age_woods(dest)
        return undo

    def _age_woods(self, dest: int) -> None:
        """Count plies for princes on corners; remove one at the end of his third."""
        ages = []
        for i, c in enumerate(CORNERS):
            if not self.dfn >> c & 1:
                ages.append(0)
            elif c == dest:
                ages.append(1)
            elif self.woods[i] + 1 >= WOODS_PLIES:
                self.dfn ^= 1 << c
                self.hash ^= Z_DEFENDER[c]
                ages.append(0)
            else:
                ages.append(self.woods[i] + 1)
        self.woods = (ages[0], ages[1], ages[2], ages[3])

    def pop(self, undo: Undo) -> None:
        """Take back the move whose ``push`` returned ``undo``."""
        self.att, self.dfn, self.king, self.side, self.hash, self.woods = undo

    def __repr__(self) -> str:
        return f"Board({self.ruleset.name!r}, {self.position!r})"


def parse_position(text: str) -> tuple[int, int, int, int]:
    """Read a position string into (attackers, defenders, king square or -1, side)."""
    parts = text.split()
    if len(parts) != 2:
        raise InvalidPosition(
            f"position {text!r} needs the board and the side to move, e.g. {START_POSITION!r}"
        )
    board_text, side_text = parts
    if side_text not in ("a", "d"):
        raise InvalidPosition(f"side to move must be 'a' or 'd', not {side_text!r}")
    ranks = board_text.split("/")
    if len(ranks) != SIZE:
        raise InvalidPosition(f"position needs {SIZE} ranks separated by '/', found {len(ranks)}")
    att = dfn = 0
    king = -1
    for i, rank_text in enumerate(ranks):
        rank = SIZE - 1 - i
        file = 0
        for ch in rank_text:
            if ch in "1234567":
                file += int(ch)
                continue
            if file >= SIZE:
                raise InvalidPosition(f"rank {rank + 1} ({rank_text!r}) has more than {SIZE} files")
            sq = rank * SIZE + file
            if ch == "A":
                att |= 1 << sq
            elif ch == "D":
                dfn |= 1 << sq
            elif ch == "K":
                if king >= 0:
                    raise InvalidPosition("position has more than one king")
                king = sq
            else:
                raise InvalidPosition(
                    f"unexpected {ch!r} in rank {rank + 1}: use A, D, K or a digit 1-7"
                )
            file += 1
        if file != SIZE:
            raise InvalidPosition(f"rank {rank + 1} ({rank_text!r}) does not cover {SIZE} files")
    side = ATTACKERS if side_text == "a" else DEFENDERS
    return att, dfn, king, side


def _format_rank(att: int, dfn: int, king_file: int) -> str:
    out = []
    empty = 0
    for f in range(SIZE):
        ch = "A" if att >> f & 1 else "D" if dfn >> f & 1 else "K" if f == king_file else ""
        if ch:
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(ch)
        else:
            empty += 1
    if empty:
        out.append(str(empty))
    return "".join(out)


# Ranks seen so far, by (attackers, defenders, king file): a game meets few distinct ones.
_RANKS: Final[dict[tuple[int, int, int], str]] = {}
_ROW: Final = (1 << SIZE) - 1


def format_position(att: int, dfn: int, king: int, side: int) -> str:
    """Write a position string from bitboards, king square (or -1) and side."""
    ranks = []
    for start in range(NUM_SQUARES - SIZE, -1, -SIZE):
        key = (
            att >> start & _ROW,
            dfn >> start & _ROW,
            king - start if 0 <= king - start < SIZE else -1,
        )
        text = _RANKS.get(key)
        if text is None:
            text = _RANKS[key] = _format_rank(*key)
        ranks.append(text)
    return "/".join(ranks) + (" d" if side else " a")
