"""Movement and capture for the four rook-slide rule sets: nielsen, federation, common, walker.

A move is an int ``origin | destination << 6``. Destinations come from lookup tables keyed by
the occupancy of each ray, built once at import, so generating a piece's moves is four dict
look-ups rather than a walk along each line.
"""

from __future__ import annotations

from typing import Final

from brandubh.engine.rules import Position, Rules
from brandubh.engine.rulesets import KingCapture, RuleSet
from brandubh.engine.squares import (
    CAPTURE_LINES,
    CORNERS,
    CORNERS_BB,
    NEIGHBOURS,
    NEIGHBOURS_BB,
    NUM_SQUARES,
    RAYS,
    THRONE,
    THRONE_BB,
    squares_of,
)

# One table per ray: (mask of the ray, {occupancy & mask: tuple of move ints}).
RayTable = tuple[int, dict[int, tuple[int, ...]]]

THRONE_NEIGHBOURS: Final = frozenset(NEIGHBOURS[THRONE])
# SANDWICHES[n]: (where a piece must arrive, the square beyond n) for each line that could
# capture a piece on n: CAPTURE_LINES read the other way round.
SANDWICHES: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple((dest, f) for dest in range(NUM_SQUARES) for n, f in CAPTURE_LINES[dest] if n == sq)
    for sq in range(NUM_SQUARES)
)


def _ray_table(origin: int, ray: tuple[int, ...], forbidden: int) -> RayTable:
    mask = sum(1 << sq for sq in ray)
    table: dict[int, tuple[int, ...]] = {}
    for occ in range(1 << len(ray)):
        bits = sum(1 << ray[i] for i in range(len(ray)) if occ >> i & 1)
        dests = []
        for sq in ray:
            if bits >> sq & 1:
                break
            if not forbidden >> sq & 1:
                dests.append(origin | sq << 6)
        table[bits] = tuple(dests)
    return mask, table


def _tables(forbidden: int) -> tuple[tuple[RayTable, ...], ...]:
    return tuple(
        tuple(_ray_table(sq, ray, forbidden) for ray in RAYS[sq] if ray)
        for sq in range(NUM_SQUARES)
    )


# Soldiers never stop on the throne or a corner; the king may stop on a corner, and on the
# throne only in rule sets that let him return.
SOLDIER_TABLES: Final = _tables(THRONE_BB | CORNERS_BB)
KING_TABLES_RETURN: Final = _tables(0)
KING_TABLES_NO_RETURN: Final = _tables(THRONE_BB)


class SlideRules(Rules):
    """Move generation and capture for a rook-slide rule set."""

    __slots__ = ("king_tables", "ruleset")

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self.king_tables = (
            KING_TABLES_RETURN if ruleset.king_may_return_to_throne else KING_TABLES_NO_RETURN
        )

    def moves(self, board: Position) -> list[int]:
        """Every legal move of the side to move."""
        occ = board.att | board.dfn
        out: list[int] = []
        if board.king >= 0:
            occ |= 1 << board.king
        if board.side:
            if board.king >= 0:
                for mask, table in self.king_tables[board.king]:
                    out.extend(table[occ & mask])
            own = board.dfn
        else:
            own = board.att
        for sq in squares_of(own):
            for mask, table in SOLDIER_TABLES[sq]:
                out.extend(table[occ & mask])
        return out

    def has_move(self, board: Position) -> bool:
        """Whether the side to move has any legal move."""
        occ = board.att | board.dfn
        if board.king >= 0:
            occ |= 1 << board.king
        if board.side:
            if board.king >= 0:
                for mask, table in self.king_tables[board.king]:
                    if table[occ & mask]:
                        return True
            own = board.dfn
        else:
            own = board.att
        for sq in squares_of(own):
            for mask, table in SOLDIER_TABLES[sq]:
                if table[occ & mask]:
                    return True
        return False

    def capture_zone(self, board: Position) -> int:
        """Squares a move may end on to capture anything: beside an enemy soldier with a
        friend or a hostile square beyond it (before the move: a superset), or beside the
        king when attackers move."""
        zone = 0
        if board.side:
            enemies = board.att
            friends = board.dfn | (1 << board.king if board.king >= 0 else 0)
        else:
            enemies = board.dfn
            friends = board.att
            if board.king >= 0:
                zone = NEIGHBOURS_BB[board.king]
        hostile = friends | CORNERS_BB
        if self.ruleset.throne_hostile_to_soldiers:
            hostile |= THRONE_BB
        for sq in squares_of(enemies):
            for dest, beyond in SANDWICHES[sq]:
                if hostile >> beyond & 1:
                    zone |= 1 << dest
        return zone

    def captures(self, board: Position, move: int) -> list[int]:
        """The squares the move captures on, ascending; the board is the one before the move."""
        origin, dest = move & 63, move >> 6
        rs = self.ruleset
        king = board.king
        if king == origin:
            king = dest
        throne_empty = king != THRONE
        out: list[int] = []
        if board.side:  # defenders (king included) capture attackers
            enemy = board.att
            friends = (board.dfn & ~(1 << origin)) | (1 << dest)
            if king >= 0:
                friends |= 1 << king
            for n, f in CAPTURE_LINES[dest]:
                if enemy >> n & 1 and (
                    friends >> f & 1
                    or f in CORNERS
                    or (f == THRONE and throne_empty and rs.throne_hostile_to_soldiers)
                ):
                    out.append(n)
        else:  # attackers capture defenders and the king
            enemy = board.dfn
            friends = (board.att & ~(1 << origin)) | (1 << dest)
            for n, f in CAPTURE_LINES[dest]:
                if n == king:
                    if self._king_taken(king, f, friends):
                        out.append(n)
                elif enemy >> n & 1 and (
                    friends >> f & 1
                    or f in CORNERS
                    or (f == THRONE and throne_empty and rs.throne_hostile_to_soldiers)
                ):
                    out.append(n)
        out.sort()
        return out

    def _king_taken(self, king: int, beyond: int, attackers: int) -> bool:
        """Whether an attacker that just arrived beside the king (opposite ``beyond``) takes him."""
        rs = self.ruleset
        if king == THRONE:
            rule = rs.king_on_throne
        elif king in THRONE_NEIGHBOURS:
            rule = rs.king_beside_throne
        else:
            rule = KingCapture.LIKE_ANYWHERE
        if rule is KingCapture.ON_THRONE_FOUR:
            return all(attackers >> n & 1 for n in NEIGHBOURS[king])
        if rule is KingCapture.BESIDE_THREE:
            return all(attackers >> n & 1 for n in NEIGHBOURS[king] if n != THRONE)
        if rule is KingCapture.NEVER:
            return False
        return bool(
            attackers >> beyond & 1
            or beyond in CORNERS
            or (beyond == THRONE and rs.throne_hostile_to_king)
        )
