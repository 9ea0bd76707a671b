"""Static evaluation for the bot: tafl features for the slide rule sets, material for newsome.

Every evaluator takes a ``Board`` and returns centipawn-like points from the point of view of
the side to move. Weights live in one frozen ``Weights`` per rule set (``WEIGHTS``). The
king's lanes to the corners are exact tactics, not guesses: ``open_lanes`` counts the corners
the king could reach this move and ``forced_escape`` proves the two-lane fork won.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from brandubh.engine import Game
from brandubh.engine.board import Board
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
)

# Scores: a won game is worth WIN less the plies to get there; anything beyond MATE_BOUND
# is a forced result the search proved, never a heuristic.
WIN: Final = 100_000
MATE_BOUND: Final = WIN - 1_000

Evaluator = Callable[[Board], int]


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


def _reach_tables(throne_stop: bool) -> tuple[tuple[tuple[int, dict[int, int]], ...], ...]:
    """Per square and ray: (ray mask, {occupancy of the ray: squares the king can stop on})."""
    tables = []
    for sq in range(NUM_SQUARES):
        per_ray = []
        for ray in RAYS[sq]:
            if not ray:
                continue
            mask = sum(1 << s for s in ray)
            table: dict[int, int] = {}
            for occ in range(1 << len(ray)):
                bits = sum(1 << ray[i] for i in range(len(ray)) if occ >> i & 1)
                reach = 0
                for s in ray:
                    if bits >> s & 1:
                        break
                    if s != THRONE or throne_stop:
                        reach |= 1 << s
                table[bits] = reach
            per_ray.append((mask, table))
        tables.append(tuple(per_ray))
    return tuple(tables)


KING_REACH_RETURN: Final = _reach_tables(throne_stop=True)
KING_REACH_NO_RETURN: Final = _reach_tables(throne_stop=False)


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


def slide_evaluator(board: Board) -> Evaluator:
    """The evaluator for a rook-slide rule set (the board's own), weights bound as locals."""
    rs = board.ruleset
    w = WEIGHTS[rs.name]
    reach_tables = KING_REACH_RETURN if rs.king_may_return_to_throne else KING_REACH_NO_RETURN
    hostile_throne = rs.throne_hostile_to_king
    w_att, w_dfn = w.attacker, w.defender
    w_mob, w_dist = w.king_mobility, w.king_corner_distance
    w_route, w_fork, w_fork_move = w.king_route, w.king_fork, w.king_fork_to_move
    w_adj, w_hostile = w.king_adjacent_attacker, w.king_hostile_neighbour
    w_near = w.defender_near_king
    w_guard, w_guard2 = w.corner_guard, w.corner_guard_second
    guards = CORNER_GUARDS
    lanes_of, edge, dist, nbb = LANES, EDGE_BB, CORNER_DIST, NEIGHBOURS_BB
    hostile_near = tuple(
        sum(1 for n in NEIGHBOURS[sq] if n in CORNERS or (hostile_throne and n == THRONE))
        for sq in range(NUM_SQUARES)
    )

    def evaluate(board: Board) -> int:
        att, dfn, king = board.att, board.dfn, board.king
        score = w_dfn * dfn.bit_count() - w_att * att.bit_count()
        if king >= 0:
            occ = att | dfn
            reach = 0
            for mask, table in reach_tables[king]:
                reach |= table[occ & mask]
            score += w_mob * reach.bit_count() - w_dist * dist[king]
            # Routes: edge squares the king reaches in one move with one open lane (a tempo
            # each), or two (a fork: won if he gets there unharmed); a corner in reach is
            # scored exactly by the search.
            single = double = 0
            edges = reach & edge
            while edges:
                low = edges & -edges
                edges ^= low
                n = 0
                for mask in lanes_of[low.bit_length() - 1]:
                    if not occ & mask:
                        n += 1
                if n == 1:
                    single += 1
                elif n:
                    double += 1
            if board.side:
                score += w_route * single + w_fork_move * double
            else:
                score += w_route * single + w_fork * double
            near = nbb[king]
            score -= w_adj * (att & near).bit_count() + w_hostile * hostile_near[king]
            score += w_near * (dfn & near).bit_count()
        for g in guards:
            n = (att & g).bit_count()
            if n:
                score -= w_guard if n == 1 else w_guard + w_guard2
        return score if board.side else -score

    return evaluate


def newsome_evaluator(board: Board) -> Evaluator:
    """The evaluator for newsome: material that grows dear as a side runs out, and the woods."""
    w = WEIGHTS["newsome"]
    w_prince, w_baron = w.prince, w.baron
    last, second = w.last_piece, w.second_last_piece
    w_woods, w_contact, w_centre = w.woods_age, w.king_baron_contact, w.king_centre
    nbb = NEIGHBOURS_BB
    centre = tuple(6 - abs(file_of(sq) - 3) - abs(rank_of(sq) - 3) for sq in range(NUM_SQUARES))
    scarcity = (0, last, second) + (0,) * 20

    def evaluate(board: Board) -> int:
        att, dfn, king = board.att, board.dfn, board.king
        nd, na = dfn.bit_count(), att.bit_count()
        score = w_prince * nd - w_baron * na - scarcity[nd] + scarcity[na]
        woods = board.woods
        # A prince on a corner has an age of 1 or more (the engine counts from his arrival).
        for age in woods:
            if age:
                score -= w_woods * age
        if king >= 0:
            score += w_contact * (att & nbb[king]).bit_count() + w_centre * centre[king]
        return score if board.side else -score

    return evaluate


def evaluator_for(board: Board) -> Evaluator:
    """The evaluator suited to the board's rule set."""
    if board.ruleset.slides:
        return slide_evaluator(board)
    return newsome_evaluator(board)


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
    return evaluator_for(board)(board)
