"""The search's own position: plain ints, and per rule set the moves, captures and make on them.

A position is ``(att, dfn, king, side, hash, woods)``: attacker and defender bitboards, the
king's square (-1 once taken), the side to move (0 attackers, 1 defenders), the engine's
Zobrist hash and newsome's woods ages (``()`` in the slide rule sets). ``make`` returns the
next position and never changes its arguments, so taking a move back is keeping the old
ints: the search's make/unmake costs a few integer operations and no allocation but a
tuple. Captures are bitboards. Everything here agrees with ``brandubh.engine`` exactly
(tests/bot/test_bitboards.py checks moves, captures and hashes against it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from brandubh.engine.board import WOODS_PLIES, Z_ATTACKER, Z_DEFENDER, Z_KING, Z_SIDE
from brandubh.engine.rulesets import KingCapture, RuleSet
from brandubh.engine.slide import KING_TABLES_NO_RETURN, KING_TABLES_RETURN, SOLDIER_TABLES
from brandubh.engine.squares import (
    CAPTURE_LINES,
    CORNERS,
    CORNERS_BB,
    DIAGONAL_JUMPS,
    DIAGONAL_NEIGHBOURS,
    NEIGHBOURS,
    NEIGHBOURS_BB,
    NUM_SQUARES,
    RAYS,
    SIZE,
    THRONE,
    THRONE_BB,
    is_light,
    squares_of,
)

Position = tuple[int, int, int, int, int, tuple[int, ...]]

ALL_BB: Final = (1 << NUM_SQUARES) - 1
FILE_A: Final = sum(1 << (r * SIZE) for r in range(SIZE))
FILE_G: Final = FILE_A << (SIZE - 1)
NOT_A: Final = ALL_BB & ~FILE_A
NOT_G: Final = ALL_BB & ~FILE_G
NOT_AG: Final = NOT_A & NOT_G  # squares with a neighbour on each side along the rank

# Per move int (origin | dest << 6): both squares' bits, and each piece kind's hash change.


def popcount(bb: int) -> int:
    """The number of squares of a bitboard (49 bits or fewer, never negative).

    ``int.bit_count`` is a method call to compiled code (mypyc has no native form of it);
    these few shifts and masks compile to machine arithmetic.
    """
    bb -= (bb >> 1) & 0x55555555555555
    bb = (bb & 0x33333333333333) + ((bb >> 2) & 0x33333333333333)
    bb = (bb + (bb >> 4)) & 0x0F0F0F0F0F0F0F
    bb += bb >> 8
    bb += bb >> 16
    bb += bb >> 32
    return bb & 0x7F


MOVE_BITS: Final = tuple(1 << (m & 63) | 1 << (m >> 6) for m in range(4096))
Z_ATT_MOVE: Final = tuple(
    Z_ATTACKER[m & 63] ^ Z_ATTACKER[m >> 6] if max(m & 63, m >> 6) < NUM_SQUARES else 0
    for m in range(4096)
)
Z_DFN_MOVE: Final = tuple(
    Z_DEFENDER[m & 63] ^ Z_DEFENDER[m >> 6] if max(m & 63, m >> 6) < NUM_SQUARES else 0
    for m in range(4096)
)
Z_KING_MOVE: Final = tuple(
    Z_KING[m & 63] ^ Z_KING[m >> 6] if max(m & 63, m >> 6) < NUM_SQUARES else 0 for m in range(4096)
)


# The same with the side to move's key folded in: make changes the hash once per piece.
Z_ATT_MOVE_SIDE: Final = tuple(z ^ Z_SIDE for z in Z_ATT_MOVE)
Z_DFN_MOVE_SIDE: Final = tuple(z ^ Z_SIDE for z in Z_DFN_MOVE)
Z_KING_MOVE_SIDE: Final = tuple(z ^ Z_SIDE for z in Z_KING_MOVE)


def _paths() -> tuple[int, ...]:
    """Per move int: the squares strictly between its origin and destination when they share
    a line, else -1 (no slide goes there)."""
    out = [-1] * 4096
    for sq in range(NUM_SQUARES):
        for ray in RAYS[sq]:
            for i, dest in enumerate(ray):
                out[sq | dest << 6] = sum(1 << s for s in ray[:i])
    return tuple(out)


SLIDE_PATHS: Final = _paths()


def full_hash(att: int, dfn: int, king: int, side: int) -> int:
    """The engine's Zobrist hash of a position, computed from scratch (for checks)."""
    h = Z_SIDE if side else 0
    for sq in squares_of(att):
        h ^= Z_ATTACKER[sq]
    for sq in squares_of(dfn):
        h ^= Z_DEFENDER[sq]
    if king >= 0:
        h ^= Z_KING[king]
    return h


RayTables = tuple[tuple[tuple[int, dict[int, int]], ...], ...]


def ray_tables(value: Callable[[tuple[int, ...], int], int]) -> RayTables:
    """Per square and ray: (ray mask, {occupancy of the ray: value(ray, occupancy)})."""
    out = []
    for sq in range(NUM_SQUARES):
        per_ray = []
        for ray in RAYS[sq]:
            if not ray:
                continue
            mask = sum(1 << s for s in ray)
            table: dict[int, int] = {}
            for occ in range(1 << len(ray)):
                bits = sum(1 << ray[i] for i in range(len(ray)) if occ >> i & 1)
                table[bits] = value(ray, bits)
            per_ray.append((mask, table))
        out.append(tuple(per_ray))
    return tuple(out)


LineTables = tuple[tuple[int, dict[int, int], int, dict[int, int]], ...]


def line_tables(value: Callable[[tuple[int, ...], int], int]) -> LineTables:
    """Per square: (file mask, {occupancy: value}, rank mask, {occupancy: value}), each
    value the union of ``value(ray, occupancy)`` over the line's two rays: two look-ups
    per square instead of one per ray."""

    def line(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, dict[int, int]]:
        squares = a + b
        table: dict[int, int] = {}
        for occ in range(1 << len(squares)):
            bits = sum(1 << squares[i] for i in range(len(squares)) if occ >> i & 1)
            table[bits] = (value(a, bits) if a else 0) | (value(b, bits) if b else 0)
        return sum(1 << s for s in squares), table

    out = []
    for sq in range(NUM_SQUARES):
        north, east, south, west = RAYS[sq]
        out.append(line(north, south) + line(east, west))
    return tuple(out)


def _first_hit(ray: tuple[int, ...], bits: int) -> int:
    """The bit of the first occupied square along the ray, or 0."""
    return next((1 << s for s in ray if bits >> s & 1), 0)


# The first piece each way along a square's file and rank (who could move onto it).
FIRST_HIT_LINES: Final = line_tables(_first_hit)
NO_SOLDIER: Final = CORNERS_BB | THRONE_BB  # squares no soldier stops on


# King capture kinds per square, for the slide rule sets.
K_PAIR: Final = 0  # two in a line, or an attacker and a hostile square
K_SURROUND: Final = 1  # every square of a mask held by attackers
K_NEVER: Final = 2


class Kernel:
    """What the search asks of a rule set's moves, on plain ints; one subclass per family of
    rule sets (a base class, not a union, so compiled calls dispatch through its table)."""

    def gen(self, att: int, dfn: int, king: int, side: int) -> list[int]:
        """Every legal move of the side to move, as the engine lists them."""
        raise NotImplementedError

    def moves_to(self, att: int, dfn: int, king: int, side: int, dests: int) -> list[int]:
        """The legal moves of the side to move that end on a square of ``dests``."""
        raise NotImplementedError

    def is_legal(self, att: int, dfn: int, king: int, side: int, move: int) -> bool:
        """Whether ``move`` is legal here."""
        raise NotImplementedError

    def has_move(self, att: int, dfn: int, king: int, side: int) -> bool:
        """Whether the side to move has any legal move."""
        raise NotImplementedError

    def targets(self, att: int, dfn: int, king: int, side: int) -> int:
        """Squares a move must land on to capture (a superset; ``captures`` decides)."""
        raise NotImplementedError

    def captures(self, att: int, dfn: int, king: int, side: int, move: int) -> int:
        """What ``move`` takes, as a bitboard."""
        raise NotImplementedError

    def make(self, pos: Position, move: int, caps: int) -> Position:
        """The position after ``move``, which takes ``caps``."""
        raise NotImplementedError

    def won(self, att: int, dfn: int, king: int, side: int) -> int:
        """+1 if the side to move has won, -1 if it has lost, 0 if neither (by the pieces)."""
        raise NotImplementedError


class SlideKernel(Kernel):
    """Moves, captures and make for one rook-slide rule set, on plain ints."""

    slides = True

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self.king_tables = (
            KING_TABLES_RETURN if ruleset.king_may_return_to_throne else KING_TABLES_NO_RETURN
        )
        self.throne_hostile = ruleset.throne_hostile_to_soldiers
        self.king_may_stop = ALL_BB & ~(0 if ruleset.king_may_return_to_throne else THRONE_BB)
        # Squares against which an attacker beside the king takes him (with K_PAIR).
        self.king_anvil = CORNERS_BB | (THRONE_BB if ruleset.throne_hostile_to_king else 0)
        rules: list[tuple[int, int]] = []
        throne_near = set(NEIGHBOURS[THRONE])
        for sq in range(NUM_SQUARES):
            if sq == THRONE:
                rule = ruleset.king_on_throne
            elif sq in throne_near:
                rule = ruleset.king_beside_throne
            else:
                rule = KingCapture.LIKE_ANYWHERE
            if rule is KingCapture.ON_THRONE_FOUR:
                rules.append((K_SURROUND, NEIGHBOURS_BB[sq]))
            elif rule is KingCapture.BESIDE_THREE:
                rules.append((K_SURROUND, NEIGHBOURS_BB[sq] & ~THRONE_BB))
            elif rule is KingCapture.NEVER:
                rules.append((K_NEVER, 0))
            else:
                rules.append((K_PAIR, 0))
        self.king_rules: Final = tuple(rules)

    def gen(self, att: int, dfn: int, king: int, side: int) -> list[int]:
        """Every legal move of the side to move, as the engine lists them."""
        occ = att | dfn
        out: list[int] = []
        if king >= 0:
            occ |= 1 << king
        if side:
            if king >= 0:
                for mask, table in self.king_tables[king]:
                    out += table[occ & mask]
            own = dfn
        else:
            own = att
        tables = SOLDIER_TABLES
        while own:
            low = own & -own
            own ^= low
            for mask, table in tables[low.bit_length() - 1]:
                out += table[occ & mask]
        return out

    def moves_to(self, att: int, dfn: int, king: int, side: int, dests: int) -> list[int]:
        """The legal moves of the side to move that end on a square of ``dests``."""
        occ = att | dfn
        king_bit = 0
        if king >= 0:
            king_bit = 1 << king
            occ |= king_bit
        dests &= ~occ
        own = dfn if side else att
        king_may_stop = self.king_may_stop
        hits = FIRST_HIT_LINES
        out: list[int] = []
        while dests:
            low = dests & -dests
            dests ^= low
            sq = low.bit_length() - 1
            fm, ft, rm, rt = hits[sq]
            seen = ft[occ & fm] | rt[occ & rm]
            if side and seen & king_bit and king_may_stop >> sq & 1:
                out.append(king | sq << 6)
            if not NO_SOLDIER >> sq & 1:
                movers = seen & own
                while movers:
                    m = movers & -movers
                    movers ^= m
                    out.append((m.bit_length() - 1) | sq << 6)
        return out

    def is_legal(self, att: int, dfn: int, king: int, side: int, move: int) -> bool:
        """Whether ``move`` (from any position, say a killer) is legal here: exactly when
        ``moves_to`` to its destination would list it, without listing the others."""
        path = SLIDE_PATHS[move]
        if path < 0:
            return False
        occ = att | dfn
        if king >= 0:
            occ |= 1 << king
        dest = move >> 6
        if path & occ or occ >> dest & 1:
            return False
        origin = move & 63
        if side and origin == king:
            return bool(self.king_may_stop >> dest & 1)
        return bool((dfn if side else att) >> origin & 1) and not NO_SOLDIER >> dest & 1

    def has_move(self, att: int, dfn: int, king: int, side: int) -> bool:
        occ = att | dfn
        if king >= 0:
            occ |= 1 << king
        if side:
            if king >= 0:
                for mask, table in self.king_tables[king]:
                    if table[occ & mask]:
                        return True
            own = dfn
        else:
            own = att
        for sq in squares_of(own):
            for mask, table in SOLDIER_TABLES[sq]:
                if table[occ & mask]:
                    return True
        return False

    def anvil(self, att: int, dfn: int, king: int, side: int) -> int:
        """Squares that close a capture for the side to move: its pieces and hostile squares.

        The square a capture closes against is never the mover's origin (the mover would have
        passed the captured piece), so the pieces before the move serve.
        """
        hostile = CORNERS_BB
        if self.throne_hostile and king != THRONE:
            hostile |= THRONE_BB
        if side:
            return dfn | hostile | (1 << king if king >= 0 else 0)
        return att | hostile

    def targets(self, att: int, dfn: int, king: int, side: int) -> int:
        """Squares a move must land on to capture (a superset; ``captures`` decides)."""
        hostile = CORNERS_BB
        if self.throne_hostile and king != THRONE:
            hostile |= THRONE_BB
        king_bit = 1 << king if king >= 0 else 0
        empty = ALL_BB & ~(att | dfn | king_bit)
        if side:
            enemy, anvil = att, dfn | hostile | king_bit
        else:
            enemy, anvil = dfn, att | hostile
        # Enemies with an anvil on one side: the square on the other side takes them.
        out = ((enemy & (anvil << 1) & NOT_A) << 1) & NOT_A
        out |= ((enemy & (anvil >> 1) & NOT_G) >> 1) & NOT_G
        out |= (enemy & (anvil << 7)) << 7
        out |= (enemy & (anvil >> 7)) >> 7
        if not side and king >= 0:
            kind, mask = self.king_rules[king]
            if kind == K_PAIR:
                k_anvil = att | self.king_anvil
                out |= ((king_bit & (k_anvil << 1) & NOT_A) << 1) & NOT_A
                out |= ((king_bit & (k_anvil >> 1) & NOT_G) >> 1) & NOT_G
                out |= (king_bit & (k_anvil << 7)) << 7
                out |= (king_bit & (k_anvil >> 7)) >> 7
            elif kind == K_SURROUND:
                missing = mask & ~att
                if missing & (missing - 1) == 0:
                    out |= missing  # the last square of the ring
        return out & empty

    def capture_moves(
        self, att: int, dfn: int, king: int, side: int, within: int
    ) -> dict[int, int]:
        """Every legal move of the side to move onto a square of ``within`` that captures,
        with what it captures: ``targets``, ``moves_to`` and ``captures`` in one pass.

        What a move captures depends on its destination alone (the anvil is never the
        mover's origin, and no slide goes from one square beside the king to another), so
        it is found once per destination.
        """
        king_bit = 1 << king if king >= 0 else 0
        occ = att | dfn | king_bit
        hostile = CORNERS_BB
        if self.throne_hostile and king != THRONE:
            hostile |= THRONE_BB
        if side:
            enemy, own, anvil = att, dfn, dfn | hostile | king_bit
        else:
            enemy, own, anvil = dfn, att, att | hostile
        # Enemies with an anvil on one side: the square on the other side takes them (along
        # a rank only an enemy on files b to f, with squares on both sides).
        inner = enemy & NOT_AG
        dests = (
            (inner & (anvil << 1)) << 1
            | (inner & (anvil >> 1)) >> 1
            | (enemy & (anvil << 7)) << 7
            | (enemy & (anvil >> 7)) >> 7
        )
        kind = K_NEVER
        mask = 0
        if not side and king >= 0:
            kind, mask = self.king_rules[king]
            if kind == K_PAIR:
                k_anvil = att | self.king_anvil
                inner = king_bit & NOT_AG
                dests |= (
                    (inner & (k_anvil << 1)) << 1
                    | (inner & (k_anvil >> 1)) >> 1
                    | (king_bit & (k_anvil << 7)) << 7
                    | (king_bit & (k_anvil >> 7)) >> 7
                )
            elif kind == K_SURROUND:
                missing = mask & ~att
                if missing & (missing - 1) == 0:
                    dests |= missing  # the last square of the ring
        dests &= within & ALL_BB & ~occ
        out: dict[int, int] = {}
        if not dests:
            return out
        hits = FIRST_HIT_LINES
        king_may_stop = self.king_may_stop
        k_anvil = att | self.king_anvil
        while dests:
            low = dests & -dests
            dests ^= low
            sq = low.bit_length() - 1
            fm, ft, rm, rt = hits[sq]
            seen = ft[occ & fm] | rt[occ & rm]
            movers = 0 if NO_SOLDIER & low else seen & own
            king_moves = side and seen & king_bit and king_may_stop & low
            if not (movers or king_moves):
                continue
            caps = 0
            for n, f in CAPTURE_LINES[sq]:
                if enemy >> n & 1:
                    if anvil >> f & 1:
                        caps |= 1 << n
                elif n == king and not side:
                    if kind == K_PAIR:
                        if k_anvil >> f & 1:
                            caps |= king_bit
                    elif kind == K_SURROUND and (att | low) & mask == mask:
                        caps |= king_bit
            if not caps:
                continue
            to = sq << 6
            if king_moves:
                out[king | to] = caps
            while movers:
                m = movers & -movers
                movers ^= m
                out[(m.bit_length() - 1) | to] = caps
        return out

    def captures(self, att: int, dfn: int, king: int, side: int, move: int) -> int:
        """The bitboard of what ``move`` captures (the king's bit included).

        The square a capture closes against is never the mover's origin (the mover would have
        passed the captured piece), so the pieces before the move serve as the anvil.
        """
        dest = move >> 6
        hostile = CORNERS_BB
        if self.throne_hostile and king != THRONE:
            hostile |= THRONE_BB
        out = 0
        if side:
            anvil = dfn | hostile | (1 << king if king >= 0 else 0)
            for n, f in CAPTURE_LINES[dest]:
                if att >> n & 1 and anvil >> f & 1:
                    out |= 1 << n
            return out
        anvil = att | hostile
        for n, f in CAPTURE_LINES[dest]:
            if n == king:
                kind, mask = self.king_rules[king]
                if kind == K_PAIR:
                    if (att | self.king_anvil) >> f & 1:
                        out |= 1 << n
                elif kind == K_SURROUND:
                    after = att ^ MOVE_BITS[move]
                    if after & mask == mask:
                        out |= 1 << n
            elif dfn >> n & 1 and anvil >> f & 1:
                out |= 1 << n
        return out

    def make(self, pos: Position, move: int, caps: int) -> Position:
        """The position after ``move`` with its captures ``caps``; ``pos`` is not changed."""
        att, dfn, king, side, h, woods = pos
        if side:
            if move & 63 == king:
                king = move >> 6
                h ^= Z_KING_MOVE_SIDE[move]
            else:
                dfn ^= MOVE_BITS[move]
                h ^= Z_DFN_MOVE_SIDE[move]
            if caps:
                att ^= caps
                while caps:  # one square most often: no list, no call
                    low = caps & -caps
                    h ^= Z_ATTACKER[low.bit_length() - 1]
                    caps ^= low
            return att, dfn, king, 0, h, woods
        att ^= MOVE_BITS[move]
        h ^= Z_ATT_MOVE_SIDE[move]
        if caps:
            if king >= 0 and caps >> king & 1:
                h ^= Z_KING[king]
                caps ^= 1 << king
                king = -1
            dfn ^= caps
            while caps:
                low = caps & -caps
                h ^= Z_DEFENDER[low.bit_length() - 1]
                caps ^= low
        return att, dfn, king, 1, h, woods

    def won(self, att: int, dfn: int, king: int, side: int) -> int:
        """+1 if the side to move has won, -1 if it has lost, 0 if neither (by the pieces)."""
        if not att:
            return 1 if side else -1
        if king < 0:
            return -1 if side else 1
        if CORNERS_BB >> king & 1:
            return 1 if side else -1
        return 0


_LIGHT: Final = tuple(is_light(sq) for sq in range(NUM_SQUARES))
_STEP_DIAG: Final = tuple(
    tuple(n for n in DIAGONAL_NEIGHBOURS[sq] if n != THRONE) if _LIGHT[sq] else ()
    for sq in range(NUM_SQUARES)
)
_KING_DIAG: Final = tuple(
    DIAGONAL_NEIGHBOURS[sq] if _LIGHT[sq] else () for sq in range(NUM_SQUARES)
)
_STEP_ORTH: Final = tuple(
    tuple(n for n in NEIGHBOURS[sq] if n != THRONE) for sq in range(NUM_SQUARES)
)
_JUMPS: Final = tuple(
    tuple((mid, end) for mid, end in DIAGONAL_JUMPS[sq] if THRONE not in (mid, end))
    if _LIGHT[sq]
    else ()
    for sq in range(NUM_SQUARES)
)


# Per square, the precomputed (squares, move) pairs of the step moves in the engine's order:
# a step needs its square open (empty, or an enemy to take), a king's diagonal step an
# empty square, a jump both squares empty.
_STEPS: Final = tuple(
    tuple((1 << n, sq | n << 6) for n in _STEP_ORTH[sq] + _STEP_DIAG[sq])
    for sq in range(NUM_SQUARES)
)
_JUMP_MOVES: Final = tuple(
    tuple((1 << mid | 1 << end, sq | end << 6) for mid, end in _JUMPS[sq])
    for sq in range(NUM_SQUARES)
)
_KING_STEPS: Final = tuple(
    tuple((1 << n, sq | n << 6) for n in NEIGHBOURS[sq]) for sq in range(NUM_SQUARES)
)
_KING_DIAG_STEPS: Final = tuple(
    tuple((1 << n, sq | n << 6) for n in _KING_DIAG[sq]) for sq in range(NUM_SQUARES)
)


class StepKernel(Kernel):
    """Moves, captures and make for newsome (one step, capture by replacement, the woods)."""

    slides = False

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset

    def gen(self, att: int, dfn: int, king: int, side: int) -> list[int]:
        """Every legal move of the side to move, in the engine's order."""
        out: list[int] = []
        if side:
            own, enemy = dfn, att
        else:
            own, enemy = att, dfn
        occ = att | dfn | (1 << king if king >= 0 else 0)
        open_ = ~occ | enemy
        if side and king >= 0:
            for bit, m in _KING_STEPS[king]:
                if open_ & bit:
                    out.append(m)
            for bit, m in _KING_DIAG_STEPS[king]:
                if not occ & bit:
                    out.append(m)
        steps, jumps = _STEPS, _JUMP_MOVES
        while own:
            low = own & -own
            own ^= low
            sq = low.bit_length() - 1
            for bit, m in steps[sq]:
                if open_ & bit:
                    out.append(m)
            for both, m in jumps[sq]:
                if not occ & both:
                    out.append(m)
        return out

    def has_move(self, att: int, dfn: int, king: int, side: int) -> bool:
        return bool(self.gen(att, dfn, king, side))

    def is_legal(self, att: int, dfn: int, king: int, side: int, move: int) -> bool:
        """Whether ``move`` (from any position, say a killer) is legal here."""
        return move in self.gen(att, dfn, king, side)

    def moves_to(self, att: int, dfn: int, king: int, side: int, dests: int) -> list[int]:
        """The legal moves of the side to move that end on a square of ``dests``."""
        return [m for m in self.gen(att, dfn, king, side) if dests >> (m >> 6) & 1]

    def targets(self, att: int, dfn: int, king: int, side: int) -> int:
        return att if side else dfn

    def captures(self, att: int, dfn: int, king: int, side: int, move: int) -> int:
        dest = move >> 6
        return 1 << dest if (att if side else dfn) >> dest & 1 else 0

    def make(self, pos: Position, move: int, caps: int) -> Position:
        """The position after ``move``, the princes on corners aged as the engine does."""
        att, dfn, king, side, h, woods = pos
        h ^= Z_SIDE
        dest = move >> 6
        if side:
            if move & 63 == king:
                king = dest
                h ^= Z_KING_MOVE[move]
            else:
                dfn ^= MOVE_BITS[move]
                h ^= Z_DFN_MOVE[move]
            if caps:
                att ^= caps
                h ^= Z_ATTACKER[dest]
        else:
            if caps:
                dfn ^= caps
                h ^= Z_DEFENDER[dest]
            att ^= MOVE_BITS[move]
            h ^= Z_ATT_MOVE[move]
        if dfn & CORNERS_BB or woods != (0, 0, 0, 0):
            ages = []
            for i, c in enumerate(CORNERS):
                if not dfn >> c & 1:
                    ages.append(0)
                elif c == dest:
                    ages.append(1)
                elif woods[i] + 1 >= WOODS_PLIES:
                    dfn ^= 1 << c
                    h ^= Z_DEFENDER[c]
                    ages.append(0)
                else:
                    ages.append(woods[i] + 1)
            woods = (ages[0], ages[1], ages[2], ages[3])
        return att, dfn, king, side ^ 1, h, woods

    def won(self, att: int, dfn: int, king: int, side: int) -> int:
        """+1 if the side to move has won, -1 if lost: the mover's enemy is judged first."""
        mine, theirs = (dfn, att) if side else (att, dfn)
        if not mine:
            return -1
        if not theirs:
            return 1
        return 0


def kernel_for(ruleset: RuleSet) -> Kernel:
    """The kernel of a rule set."""
    return SlideKernel(ruleset) if ruleset.slides else StepKernel(ruleset)
