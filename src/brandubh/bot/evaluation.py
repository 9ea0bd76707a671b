"""Static evaluation for the bot: tafl features for the slide rule sets, material for newsome.

Every evaluator takes a ``Board`` and returns centipawn-like points from the point of view of
the side to move. Weights live in one frozen ``Weights`` per rule set (``WEIGHTS``). The
king's lanes to the corners are exact tactics, not guesses: ``open_lanes`` counts the corners
the king could reach this move and ``forced_escape`` proves the two-lane fork won.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from brandubh.bot.bitboards import line_tables, popcount, ray_tables
from brandubh.engine import Game
from brandubh.engine.board import Board
from brandubh.engine.rulesets import RuleSet
from brandubh.engine.squares import (
    CORNERS,
    NEIGHBOURS,
    NEIGHBOURS_BB,
    NUM_SQUARES,
    RAYS,
    SIZE,
    THRONE,
    file_of,
    rank_of,
    squares_of,
)

# Scores: a won game is worth WIN less the plies to get there; anything beyond MATE_BOUND
# is a forced result the search proved, never a heuristic.
WIN: Final = 100_000
MATE_BOUND: Final = WIN - 1_000


def _lanes(sq: int) -> tuple[int, ...]:
    """Masks of the squares between ``sq`` and each corner it sees along an edge line."""
    out = []
    for ray in RAYS[sq]:
        if ray and ray[-1] in CORNERS:
            out.append(sum(1 << s for s in ray[:-1]))
    return tuple(out)


# LANES[sq]: one mask per corner the king on sq would reach along the edge if it is empty.
LANES: Final[tuple[tuple[int, ...], ...]] = tuple(_lanes(sq) for sq in range(NUM_SQUARES))
# Union of the lane squares of each square (where an attacker must stand to block).
# The lanes of one square never share a square, so their sum is their union.
LANE_UNION: Final[tuple[int, ...]] = tuple(sum(LANES[sq]) for sq in range(NUM_SQUARES))
EDGE_BB: Final = sum(
    1 << sq
    for sq in range(NUM_SQUARES)
    if file_of(sq) in (0, SIZE - 1) or rank_of(sq) in (0, SIZE - 1)
)
CORNERS_BB: Final = sum(1 << c for c in CORNERS)
ALL: Final = (1 << NUM_SQUARES) - 1
NOT_A: Final = ALL & ~sum(1 << (r * SIZE) for r in range(SIZE))  # shifting east wraps here
NOT_G: Final = ALL & ~sum(1 << (r * SIZE + SIZE - 1) for r in range(SIZE))
# Manhattan distance from each square to its nearest corner.
CORNER_DIST: Final[tuple[int, ...]] = tuple(
    min(abs(file_of(sq) - file_of(c)) + abs(rank_of(sq) - rank_of(c)) for c in CORNERS)
    for sq in range(NUM_SQUARES)
)
# The three squares that shut each corner's approach (a2, b1, b2 for a1, and so on).
CORNER_GUARDS: Final[tuple[int, ...]] = tuple(
    sum(
        1 << sq
        for sq in range(NUM_SQUARES)
        if sq != c and abs(file_of(sq) - file_of(c)) <= 1 and abs(rank_of(sq) - rank_of(c)) <= 1
    )
    for c in CORNERS
)
CORNER_GUARDS_ALL: Final = sum(CORNER_GUARDS)  # the guards of different corners never meet


def _reach(throne_stop: bool) -> Callable[[tuple[int, ...], int], int]:
    """For ray_tables: the squares the king can stop on along a ray, before the first man."""

    def reach(ray: tuple[int, ...], bits: int) -> int:
        out = 0
        for s in ray:
            if bits >> s & 1:
                break
            if s != THRONE or throne_stop:
                out |= 1 << s
        return out

    return reach


KING_REACH_RETURN: Final = ray_tables(_reach(throne_stop=True))
KING_REACH_NO_RETURN: Final = ray_tables(_reach(throne_stop=False))
# The same by line: two look-ups for the king's reach instead of one per ray.
KING_REACH_LINES_RETURN: Final = line_tables(_reach(throne_stop=True))
KING_REACH_LINES_NO_RETURN: Final = line_tables(_reach(throne_stop=False))


def open_lanes(board: Board) -> int:
    """How many corners the king could step onto this move (slide rule sets; 0 without him)."""
    king = board.king
    if king < 0:
        return 0
    occ = board.att | board.dfn
    return sum(1 for mask in LANES[king] if not occ & mask)


def forced_escape(game: Game, moves: list[int] | None = None) -> bool:
    """True when the attackers are to move and every move of theirs lets the king escape next.

    Exact: each attacker move (``moves``, the legal ones if not given) is played and judged
    by the engine, so taking the king, a block, or an ending by repetition or the move limit
    all count as a defence.
    """
    board = game.board
    if not board.ruleset.slides or board.side != 0 or game.result is not None:
        return False
    if open_lanes(board) < 2:
        return False  # one lane can be blocked: not a fork
    if moves is None:
        moves = board.legal_moves()
    # Cheap refutation first: a move that takes the king (it lands beside him).
    near = NEIGHBOURS_BB[board.king]
    for move in moves:
        if near >> (move >> 6) & 1 and board.king in board.captures(move):
            return False
    for move in moves:
        game.push(move)
        saved = game.result is None and open_lanes(board) > 0
        game.pop()
        if not saved:
            return False
    return True


def _soldier_reach() -> tuple[tuple[tuple[int, dict[int, int]], ...], ...]:
    """Per square and ray: (mask, {occupancy: squares a soldier can stop on}); no corner."""
    return tuple(
        tuple((mask, {occ: r & ~CORNERS_BB for occ, r in table.items()}) for mask, table in rays)
        for rays in KING_REACH_NO_RETURN
    )


SOLDIER_REACH: Final = _soldier_reach()


def _corner_edges() -> tuple[tuple[tuple[int, dict[int, int]], ...], ...]:
    """Per corner, its two edges: (mask of the five squares, {occupancy: the empty run}).

    The run is the empty squares from the corner's neighbour outward up to the first piece:
    a king on any of them sees that corner down an open lane.
    """
    out = []
    for c in CORNERS:
        edges = []
        for ray in RAYS[c]:
            if not ray:
                continue
            line = ray[:-1]  # the far end is the next corner
            mask = sum(1 << s for s in line)
            table: dict[int, int] = {}
            for occ in range(1 << len(line)):
                occ_bits = sum(1 << line[i] for i in range(len(line)) if occ >> i & 1)
                run = 0
                for s in line:
                    if occ_bits >> s & 1:
                        break
                    run |= 1 << s
                table[occ_bits] = run
            edges.append((mask, table))
        out.append(tuple(edges))
    return tuple(out)


CORNER_EDGES: Final = _corner_edges()


def lane_runs(occ: int) -> tuple[int, int, int, int]:
    """Per corner (a1, g1, a7, g7), the squares from which it is seen down an open lane.

    ``occ`` is every piece but the king.
    """
    (m0, t0), (m1, t1) = CORNER_EDGES[0]
    (m2, t2), (m3, t3) = CORNER_EDGES[1]
    (m4, t4), (m5, t5) = CORNER_EDGES[2]
    (m6, t6), (m7, t7) = CORNER_EDGES[3]
    return (
        t0[occ & m0] | t1[occ & m1],
        t2[occ & m2] | t3[occ & m3],
        t4[occ & m4] | t5[occ & m5],
        t6[occ & m6] | t7[occ & m7],
    )


# Every edge square but the corners: the lane runs depend on these alone.
EDGE_INNER: Final = EDGE_BB & ~CORNERS_BB
_RUNS: dict[int, tuple[int, int, int, int, int, int]] = {}


def runs_of(occ: int) -> tuple[int, int, int, int, int, int]:
    """``lane_runs`` of a position, their union and the squares in two runs (a fork), cached
    by the edge occupancy (few distinct ones occur)."""
    edge = occ & EDGE_INNER
    found = _RUNS.get(edge)
    if found is None:
        if len(_RUNS) > 20_000:
            _RUNS.clear()
        r0, r1, r2, r3 = lane_runs(edge)
        found = _RUNS[edge] = (r0, r1, r2, r3, r0 | r1 | r2 | r3, (r0 | r3) & (r1 | r2))
    return found


def king_reach(king: int, occ: int, may_return: bool) -> int:
    """Squares the king on ``king`` can move to (``occ``: every other piece)."""
    reach = 0
    for mask, table in (KING_REACH_RETURN if may_return else KING_REACH_NO_RETURN)[king]:
        reach |= table[occ & mask]
    return reach


def attacker_reach(att: int, occ: int) -> int:
    """Squares some attacker can move to in one move (``occ``: every piece)."""
    reach = 0
    tables = SOLDIER_REACH
    while att:
        low = att & -att
        att ^= low
        for mask, table in tables[low.bit_length() - 1]:
            reach |= table[occ & mask]
    return reach


@dataclass(frozen=True, slots=True)
class EscapeThreats:
    """The king's ways out, per corner (a1, g1, a7, g7), for tests and the docs.

    ``distance``: king moves to a square that sees the corner down an open lane (0 if he
    sees it now, 1, 2, or 3 for farther); ``closable``: whether an attacker can move onto
    the lane squares of that corner in one move.
    """

    distance: tuple[int, int, int, int]
    closable: tuple[bool, bool, bool, bool]


def escape_threats(board: Board) -> EscapeThreats:
    """Per corner, how far the king is from an open lane and whether it can be shut."""
    att, dfn, king = board.att, board.dfn, board.king
    if king < 0 or not board.ruleset.slides:
        return EscapeThreats((3, 3, 3, 3), (True, True, True, True))
    may_return = board.ruleset.king_may_return_to_throne
    occ = att | dfn
    runs = lane_runs(occ)
    reach = king_reach(king, occ, may_return)
    reach2 = 0
    for sq in squares_of(reach):
        reach2 |= king_reach(sq, occ, may_return)
    ar = attacker_reach(att, occ | 1 << king)
    distance = tuple(
        0 if run >> king & 1 else 1 if reach & run else 2 if reach2 & run else 3 for run in runs
    )
    closable = tuple(bool(ar & run) for run in runs)
    return EscapeThreats(
        (distance[0], distance[1], distance[2], distance[3]),
        (closable[0], closable[1], closable[2], closable[3]),
    )


@dataclass(frozen=True, slots=True)
class Weights:
    """Evaluation weights of one rule set (points; a soldier is worth about 100)."""

    attacker: int = 100
    defender: int = 130
    king_mobility: int = 4  # per square the king can move to
    king_corner_distance: int = 10  # per step from the nearest corner (Manhattan)
    king_route: int = 40  # per square the king reaches in one move that has an open lane
    king_fork: int = 150  # per square in reach with two open lanes, attackers to move
    king_fork_to_move: int = 500  # the same with the defenders to move (he goes there)
    # Escape threats: a corner whose open lane the king reaches in one move and no attacker
    # can shut in one move (he goes there next, or the attackers must stop him now).
    unstoppable: int = 250  # per such corner, attackers to move
    unstoppable_pair: int = 400  # extra for a second such corner, attackers to move
    unstoppable_to_move: int = 600  # defenders to move: he walks there and out
    corner_two_moves: int = 14  # per corner with an open lane two king moves away
    king_adjacent_attacker: int = 20  # per attacker touching the king
    king_hostile_neighbour: int = 15  # per corner or hostile throne touching the king
    corner_guard: int = 12  # per corner with at least one attacker on its approach squares
    corner_guard_second: int = 6  # per corner with two or more
    defender_near_king: int = 6  # per defender touching the king
    # newsome only
    prince: int = 170
    baron: int = 100
    last_piece: int = 220  # a side down to its last piece is close to losing
    second_last_piece: int = 70
    woods_age: int = 60  # per ply a prince has stood on a corner (he dies at three)
    king_baron_contact: int = 25  # per baron the king attacks orthogonally
    king_centre: int = 4  # per step closer to the throne


WEIGHTS: Final[dict[str, Weights]] = {
    # The king is hard to take beside and on the throne: he can play boldly.
    "nielsen": Weights(),
    "federation": Weights(),
    # Two attackers take the king beside the throne: keep him guarded and mobile.
    "common": Weights(king_adjacent_attacker=30, defender_near_king=10),
    # Two take him anywhere, even on the throne, and only the corners are hostile.
    "walker": Weights(king_adjacent_attacker=40, defender_near_king=12),
    "newsome": Weights(),
}


class Evaluator:
    """Scores a position of the search's plain ints (attackers, defenders, king, side, woods
    ages) for the side to move; one subclass per family of rule sets, weights bound at
    creation. A class, not a closure, so that the compiled search calls it natively."""

    def score(self, att: int, dfn: int, king: int, side: int, woods: tuple[int, ...]) -> int:
        """The position's score for the side to move."""
        raise NotImplementedError

    def __call__(self, att: int, dfn: int, king: int, side: int, woods: tuple[int, ...]) -> int:
        return self.score(att, dfn, king, side, woods)


class SlideEvaluator(Evaluator):
    """The evaluator for a rook-slide rule set."""

    def __init__(self, ruleset: RuleSet, weights: Weights | None = None) -> None:
        w = weights or WEIGHTS[ruleset.name]
        self.reach_lines = (
            KING_REACH_LINES_RETURN
            if ruleset.king_may_return_to_throne
            else KING_REACH_LINES_NO_RETURN
        )
        self.w_att, self.w_dfn = w.attacker, w.defender
        self.w_mob = w.king_mobility
        self.w_route, self.w_fork, self.w_fork_move = w.king_route, w.king_fork, w.king_fork_to_move
        self.w_unstop, self.w_pair = w.unstoppable, w.unstoppable_pair
        self.w_unstop_move = w.unstoppable_to_move
        self.w_two = w.corner_two_moves
        self.w_adj, self.w_near = w.king_adjacent_attacker, w.defender_near_king
        self.w_guard, self.w_guard2 = w.corner_guard, w.corner_guard_second
        self.guard_cache: dict[int, int] = {}  # at most 2**12 entries: the guard squares
        hostile_throne = ruleset.throne_hostile_to_king
        hostile_near = tuple(
            sum(1 for n in NEIGHBOURS[sq] if n in CORNERS or (hostile_throne and n == THRONE))
            for sq in range(NUM_SQUARES)
        )
        # What the king's square alone is worth: his distance from the corners, hostile squares.
        self.king_square = tuple(
            -w.king_corner_distance * CORNER_DIST[sq] - w.king_hostile_neighbour * hostile_near[sq]
            for sq in range(NUM_SQUARES)
        )

    def score(self, att: int, dfn: int, king: int, side: int, woods: tuple[int, ...]) -> int:
        """The position's score for the side to move."""
        score = self.w_dfn * popcount(dfn) - self.w_att * popcount(att)
        if king >= 0:
            occ = att | dfn
            fm, ft, rm, rt = self.reach_lines[king]
            reach = ft[occ & fm] | rt[occ & rm]
            score += self.w_mob * popcount(reach) + self.king_square[king]
            # Per corner, the squares that see it down an open lane.
            runs = _RUNS.get(occ & EDGE_INNER)
            if runs is None:
                runs = runs_of(occ)
            r0, r1, r2, r3, r_all, r_two = runs
            threats = reach & r_all
            if threats:
                # Routes: squares in reach that see one corner (a tempo each) or two (a fork:
                # won if he gets there unharmed).
                double = threats & r_two
                single = popcount(threats ^ double)
                if side:
                    score += self.w_route * single + self.w_fork_move * popcount(double)
                else:
                    score += self.w_route * single + self.w_fork * popcount(double)
                # Can an attacker shut each threatened corner's lane in one move? Only a
                # slide south or west reaches a1's lanes (rank 1, file a), and so on: flood
                # the attackers along the directions a threatened corner needs (an occluded
                # fill, three steps per direction).
                # (The fills keep the attackers' own squares: no run square holds one.)
                empty = ALL & ~(occ | 1 << king)
                t0, t1, t2, t3 = reach & r0, reach & r1, reach & r2, reach & r3
                south = west = north = east = 0
                if t0 or t1:
                    pro = empty
                    g = att | pro & (att >> 7)
                    pro &= pro >> 7
                    g |= pro & (g >> 14)
                    south = g | pro & pro >> 14 & (g >> 28)
                if t2 or t3:
                    pro = empty
                    g = att | pro & (att << 7)
                    pro &= pro << 7
                    g |= pro & (g << 14)
                    north = g | pro & pro << 14 & (g << 28)
                if t0 or t2:
                    pro = empty & NOT_G
                    g = att | pro & (att >> 1)
                    pro &= pro >> 1
                    g |= pro & (g >> 2)
                    west = g | pro & pro >> 2 & (g >> 4)
                if t1 or t3:
                    pro = empty & NOT_A
                    g = att | pro & (att << 1)
                    pro &= pro << 1
                    g |= pro & (g << 2)
                    east = g | pro & pro << 2 & (g << 4)
                open_ = (
                    (t0 and not (south | west) & r0)
                    + (t1 and not (south | east) & r1)
                    + (t2 and not (north | west) & r2)
                    + (t3 and not (north | east) & r3)
                )
                if open_:
                    if side:
                        score += self.w_unstop_move
                    else:
                        score += self.w_unstop * open_ + (self.w_pair if open_ > 1 else 0)
            else:
                # No lane one move away: count the corners two king moves away.
                empty = ALL & ~occ
                reach2 = 0
                y = reach
                east = empty & NOT_A
                while y:
                    y = (y << 1) & east
                    reach2 |= y
                y = reach
                west = empty & NOT_G
                while y:
                    y = (y >> 1) & west
                    reach2 |= y
                y = reach
                while y:
                    y = (y << 7) & empty
                    reach2 |= y
                y = reach
                while y:
                    y = (y >> 7) & empty
                    reach2 |= y
                if reach2:
                    score += self.w_two * (
                        (reach2 & r0 != 0)
                        + (reach2 & r1 != 0)
                        + (reach2 & r2 != 0)
                        + (reach2 & r3 != 0)
                    )
            near = NEIGHBOURS_BB[king]
            score -= self.w_adj * popcount(att & near)
            score += self.w_near * popcount(dfn & near)
        guard = self.guard_cache.get(att & CORNER_GUARDS_ALL)
        if guard is None:
            guard = 0
            for guards in CORNER_GUARDS:
                g = att & guards
                if g:
                    guard += self.w_guard if g & (g - 1) == 0 else self.w_guard + self.w_guard2
            self.guard_cache[att & CORNER_GUARDS_ALL] = guard
        score -= guard
        return score if side else -score


class NewsomeEvaluator(Evaluator):
    """The evaluator for newsome: material that grows dear as a side runs out, and the woods."""

    def __init__(self, ruleset: RuleSet, weights: Weights | None = None) -> None:
        w = weights or WEIGHTS["newsome"]
        self.w_prince, self.w_baron = w.prince, w.baron
        self.w_woods, self.w_contact, self.w_centre = (
            w.woods_age,
            w.king_baron_contact,
            w.king_centre,
        )
        self.centre = tuple(
            6 - abs(file_of(sq) - 3) - abs(rank_of(sq) - 3) for sq in range(NUM_SQUARES)
        )
        self.scarcity = (0, w.last_piece, w.second_last_piece) + (0,) * 20

    def score(self, att: int, dfn: int, king: int, side: int, woods: tuple[int, ...]) -> int:
        """The position's score for the side to move."""
        nd, na = popcount(dfn), popcount(att)
        score = self.w_prince * nd - self.w_baron * na - self.scarcity[nd] + self.scarcity[na]
        # A prince on a corner has an age of 1 or more (the engine counts from his arrival).
        for age in woods:
            if age:
                score -= self.w_woods * age
        if king >= 0:
            score += (
                self.w_contact * popcount(att & NEIGHBOURS_BB[king])
                + self.w_centre * self.centre[king]
            )
        return score if side else -score


@functools.lru_cache(maxsize=16)
def evaluator_for(ruleset: RuleSet, weights: Weights | None = None) -> Evaluator:
    """The evaluator suited to a rule set (its own weights unless given); one per process,
    so its caches (pure functions of the position) serve every search."""
    if ruleset.slides:
        return SlideEvaluator(ruleset, weights)
    return NewsomeEvaluator(ruleset, weights)


def evaluate(game: Game) -> int:
    """The score of a game's position for the side to move, forced results included.

    A finished game scores ``±WIN`` (0 for a draw); in the slide rule sets a king with an open
    lane and the move, or a proven two-lane fork (``forced_escape``), scores as won.
    """
    board = game.board
    result = game.result
    if result is not None:
        if result.winner is None:
            return 0
        return WIN if (result.winner == "defenders") == bool(board.side) else -WIN
    if board.ruleset.slides:
        if board.side and open_lanes(board):
            return WIN - 1
        if forced_escape(game):
            return -(WIN - 2)
    return evaluator_for(board.ruleset)(board.att, board.dfn, board.king, board.side, board.woods)
