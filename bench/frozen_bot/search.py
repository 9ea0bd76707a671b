"""Negamax alpha-beta search on the engine's int fast path, bounded by a count of nodes.

Principal-variation search with iterative deepening, a transposition table on the engine's
Zobrist keys (fresh for every ``Searcher``, so no call sees another's), move ordering (table
move, captures, king moves that open a lane, two killers per ply, history), null-move
pruning, late-move reductions, and a quiescence search over captures and king threats. A
king with an open lane and the move wins; an attacker to move facing a lane must block it or
take the king (an "escape check", searched like check in chess, and extended one ply); two
lanes are proved won by ``forced_escape``.

Nothing here reads a clock: the budget is nodes, so a search is a pure function of the
position, its repetition history, the limits and the order of the root moves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final

from brandubh.engine import Game, Result
from brandubh.engine.board import Z_SIDE
from brandubh.engine.squares import (
    CORNERS_BB,
    NEIGHBOURS_BB,
    NUM_SQUARES,
    RAYS,
    THRONE,
    THRONE_BB,
)
from frozen_bot.evaluation import LANES, MATE_BOUND, WIN, evaluator_for, forced_escape

INF: Final = WIN + 1_000
MAX_PLY: Final = 128

# Transposition-table bound kinds.
EXACT: Final = 0
LOWER: Final = 1  # the score is at least this (a beta cut-off)
UPPER: Final = 2  # the score is at most this (no move raised alpha)

_EMPTY: Final[list[int]] = []  # captures of a quiet move; never mutated


def _woods_keys() -> dict[tuple[int, int, int, int], int]:
    """Newsome's woods ages are not in the engine's hash: give each combination a key."""
    rng = random.Random(0x5EED_B07)
    return {
        (a, b, c, d): rng.getrandbits(64) if (a, b, c, d) != (0, 0, 0, 0) else 0
        for a in range(3)
        for b in range(3)
        for c in range(3)
        for d in range(3)
    }


WOODS_KEYS: Final = _woods_keys()


class SearchAborted(Exception):
    """Raised inside the tree when the node budget runs out; caught at the root."""


@dataclass(slots=True)
class SearchResult:
    """What a search found: the best move and its score (side to move's view), how deep it
    looked, how many nodes it spent, and each root move's score from the deepest full pass."""

    move: int
    score: int
    depth: int
    nodes: int
    scores: dict[int, int] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)


class Searcher:
    """One search of one position: create, ``run``, discard (the table dies with it)."""

    def __init__(
        self,
        game: Game,
        max_nodes: int,
        max_depth: int = 64,
        q_checks: int = 2,
        exact_root: bool = False,
        null_move: bool = True,
    ) -> None:
        self.game = game
        self.board = game.board
        self.rules = game.board.rules
        self.slides = game.ruleset.slides
        self.evaluate = evaluator_for(game.board)
        rs = game.ruleset
        # Squares hostile to soldiers: the corners, and the throne when empty if it is.
        self.hostile_occupied = CORNERS_BB
        self.hostile = CORNERS_BB | (THRONE_BB if rs.throne_hostile_to_soldiers else 0)
        self.max_nodes = max_nodes
        self.max_depth = max(1, min(max_depth, MAX_PLY - 8))
        self.q_checks = q_checks
        self.null_move = null_move
        self.exact_root = exact_root  # full window for every root move: exact scores for all
        self.nodes = 0
        self.limit = max_nodes
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_PLY)]
        self.history: list[int] = [0] * 4096

    # -- root --------------------------------------------------------------------------

    def run(self, rng: random.Random) -> SearchResult:
        """Search by iterative deepening until the depth or node limit; ``rng`` breaks ties."""
        game, board = self.game, self.board
        if game.result is not None:
            raise ValueError(f"the game is over ({game.result}): no move to choose")
        moves = board.legal_moves()
        if not moves:
            raise ValueError("the side to move has no legal move")
        # Equal moves are tried, and so chosen, in an order drawn from the game's seed.
        rng.shuffle(moves)
        root = [(m, self._captures(m)) for m in moves]
        root.sort(key=lambda mc: len(mc[1]), reverse=True)
        root_ply = game.ply
        best_move, best_score, depth_done = root[0][0], -INF, 0
        scores: dict[int, int] = {}
        # The first pass always finishes, so even the smallest budget sees one-move tactics.
        self.limit = 1 << 62
        for depth in range(1, self.max_depth + 1):
            alpha = -INF
            it_best = 0
            it_scores: dict[int, int] = {}
            try:
                for i, (m, caps) in enumerate(root):
                    game.push(m, caps)
                    if self.exact_root:
                        score = -self._search(depth - 1, -INF, INF, 1)
                    elif i == 0:
                        score = -self._search(depth - 1, -INF, -alpha, 1)
                    else:
                        score = -self._search(depth - 1, -alpha - 1, -alpha, 1)
                        if score > alpha:
                            score = -self._search(depth - 1, -INF, -alpha, 1)
                    game.pop()
                    it_scores[m] = score
                    if score > alpha:
                        alpha, it_best = score, m
            except SearchAborted:
                while game.ply > root_ply:
                    game.pop()
                # A move that beat the first (the previous best) in a full window is better
                # by a deeper look; with exact root scores only a finished pass compares.
                if it_best and not self.exact_root:
                    best_move, best_score = it_best, alpha
                break
            finally:
                self.limit = self.max_nodes
            best_move, best_score, depth_done, scores = it_best, alpha, depth, it_scores
            root.sort(key=lambda mc: it_scores[mc[0]], reverse=True)
            if abs(best_score) >= MATE_BOUND or self.nodes >= self.max_nodes:
                break
        return SearchResult(
            best_move, best_score, depth_done, self.nodes, scores, [m for m, _ in root]
        )

    # -- helpers -----------------------------------------------------------------------

    def _captures(self, move: int) -> list[int]:
        board = self.board
        if self.rules.capture_zone(board) >> (move >> 6) & 1:
            return self.rules.captures(board, move)
        return _EMPTY

    def _terminal(self, result: Result, ply: int) -> int:
        """A finished game's score for the side to move, sooner wins scoring higher."""
        if result.winner is None:
            return 0
        if (result.winner == "defenders") == bool(self.board.side):
            return WIN - ply
        return ply - WIN

    def _forced(self) -> bool:
        """``forced_escape``, its attacker moves counted as nodes."""
        moves = self.board.legal_moves()
        self.nodes += len(moves)
        return forced_escape(self.game, moves)

    # -- the tree ----------------------------------------------------------------------

    def _search(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes > self.limit:
            raise SearchAborted
        game, board = self.game, self.board
        result = game.result
        if result is not None:
            return self._terminal(result, ply)
        king = board.king
        lanes = 0
        if self.slides and king >= 0:
            occ = board.att | board.dfn
            for mask in LANES[king]:
                if not occ & mask:
                    lanes += 1
            if lanes:
                if board.side:
                    return WIN - ply - 1
                if lanes >= 2 and self._forced():
                    return ply + 2 - WIN
                if depth > 0:
                    # An escape check: look one ply further rather than let the horizon
                    # hide it (at the horizon the quiescence search answers it exactly).
                    depth += 1
        if depth <= 0 or ply >= MAX_PLY - 8:
            return self._quiesce(alpha, beta, ply, 0)
        key = board.hash
        if not self.slides:
            key ^= WOODS_KEYS[board.woods]
        tt_move = 0
        entry = self.tt.get(key)
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth:
                if e_score > MATE_BOUND:
                    e_score -= ply
                elif e_score < -MATE_BOUND:
                    e_score += ply
                if e_flag == EXACT:
                    return e_score
                if e_flag == LOWER:
                    if e_score >= beta:
                        return e_score
                elif e_score <= alpha:
                    return e_score
        if (
            self.null_move
            and depth >= 3
            and not lanes
            and beta < MATE_BOUND
            and self.evaluate(board) >= beta
        ):
            # Null move: if passing still fails high, a real move would too (tafl has
            # hardly any zugzwang). The side bit is part of the hash, so flip both.
            reduce = 3 if depth >= 6 else 2
            here = game.ply
            board.side ^= 1
            board.hash ^= Z_SIDE
            try:
                score = -self._search(depth - 1 - reduce, -beta, 1 - beta, ply + 1)
            except SearchAborted:
                # Take back the moves above first: the game's pops key on the board's hash.
                while game.ply > here:
                    game.pop()
                board.side ^= 1
                board.hash ^= Z_SIDE
                raise
            board.side ^= 1
            board.hash ^= Z_SIDE
            if score >= beta:
                return beta

        ordered, capmap = self._order(tt_move, ply)
        if not ordered:
            return 0
        killers = self.killers[ply]
        alpha0 = alpha
        best, best_move = -INF, 0
        push, pop, search = game.push, game.pop, self._search
        for i, move in enumerate(ordered):
            caps = capmap.get(move, _EMPTY)
            push(move, caps)
            if i == 0:
                score = -search(depth - 1, -beta, -alpha, ply + 1)
            else:
                # Late quiet moves are searched one ply shallower unless they surprise.
                r = 1 if depth >= 3 and i >= 4 and not caps and move not in killers else 0
                score = -search(depth - 1 - r, -alpha - 1, -alpha, ply + 1)
                if r and score > alpha:
                    score = -search(depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -search(depth - 1, -beta, -alpha, ply + 1)
            pop()
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not caps:
                            if killers[0] != move:
                                killers[1] = killers[0]
                                killers[0] = move
                            self.history[move] += depth * depth
                        break
        flag = LOWER if best >= beta else EXACT if best > alpha0 else UPPER
        stored = best
        if stored > MATE_BOUND:
            stored += ply
        elif stored < -MATE_BOUND:
            stored -= ply
        self.tt[key] = (depth, flag, stored, best_move)
        return best

    def _targets(self) -> int:
        """Squares a move must land on to capture (a superset; ``captures`` decides).

        Cheaper than asking ``captures`` of every move beside an enemy: a soldier can only be
        taken from the side opposite a friend or a hostile square, and the king only by a
        piece landing beside him.
        """
        board = self.board
        if not self.slides:
            return board.att if board.side else board.dfn
        king = board.king
        king_bb = 1 << king if king >= 0 else 0
        occ = board.att | board.dfn | king_bb
        hostile = self.hostile if king != THRONE else self.hostile_occupied
        if board.side:
            enemies = board.att
            anvil = board.dfn | king_bb | hostile
        else:
            enemies = board.dfn
            anvil = board.att | hostile
        axes = _AXES
        out = 0
        while enemies:
            low = enemies & -enemies
            enemies ^= low
            for a, b in axes[low.bit_length() - 1]:
                if anvil >> b & 1 and not occ >> a & 1:
                    out |= 1 << a
        if not board.side and king >= 0:
            out |= NEIGHBOURS_BB[king] & ~occ
        return out

    def _order(self, tt_move: int, ply: int) -> tuple[list[int], dict[int, list[int]]]:
        """Legal moves best first, and the captures of those that capture: table move,
        captures (the king's first), king moves that open a lane, killers, then history."""
        board = self.board
        moves = board.legal_moves()
        targets = self._targets()
        captures = self.rules.captures
        k1, k2 = self.killers[ply]
        hist = self.history
        king = board.king
        lane_king = self.slides and board.side == 1 and king >= 0
        occ_nk = board.att | board.dfn
        capmap: dict[int, list[int]] = {}
        keys: list[int] = []
        for m in moves:
            if targets >> (m >> 6) & 1:
                caps = captures(board, m)
                if caps:
                    capmap[m] = caps
                    s = (1 << 32) + 1000 * len(caps) + (1 << 34 if king in caps else 0)
                    if m == tt_move:
                        s = 1 << 40
                    keys.append(s << 12 | m)
                    continue
            if m == tt_move:
                s = 1 << 40
            elif lane_king and m & 63 == king and _opens_lane(m >> 6, occ_nk):
                s = 1 << 31
            elif m == k1:
                s = 1 << 30
            elif m == k2:
                s = (1 << 30) - 1
            else:
                s = hist[m]
            keys.append(s << 12 | m)
        # Sorting plain ints (score above, move below) is much faster than sorting tuples.
        keys.sort(reverse=True)
        return [k & 4095 for k in keys], capmap

    def _quiesce(self, alpha: int, beta: int, ply: int, qd: int) -> int:
        self.nodes += 1
        if self.nodes > self.limit:
            raise SearchAborted
        game, board = self.game, self.board
        result = game.result
        if result is not None:
            return self._terminal(result, ply)
        rules = self.rules
        king = board.king
        if self.slides and king >= 0:
            occ = board.att | board.dfn
            block = 0
            lanes = 0
            for mask in LANES[king]:
                if not occ & mask:
                    lanes += 1
                    block |= mask
            if lanes:
                if board.side:
                    return WIN - ply - 1
                if lanes >= 2 and self._forced():
                    return ply + 2 - WIN
                return self._evade(alpha, beta, ply, qd, block)
        stand = self.evaluate(board)
        if stand >= beta or ply >= MAX_PLY - 2:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        zone = self._targets()
        captures = rules.captures
        checks = self.slides and board.side == 1 and king >= 0 and qd < self.q_checks
        occ_nk = board.att | board.dfn
        cands: list[tuple[int, int, list[int]]] = []
        for m in board.legal_moves():
            dest = m >> 6
            if zone >> dest & 1:
                caps = captures(board, m)
                if caps:
                    cands.append((len(caps) + (8 if king in caps else 0), m, caps))
                    continue
            if checks and m & 63 == king and _opens_lane(dest, occ_nk):
                cands.append((0, m, _EMPTY))
        if not cands:
            return best
        cands.sort(key=_first, reverse=True)
        push, pop = game.push, game.pop
        for _, m, caps in cands:
            push(m, caps)
            score = -self._quiesce(-beta, -alpha, ply + 1, qd + 1)
            pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _evade(self, alpha: int, beta: int, ply: int, qd: int, block: int) -> int:
        """Attackers facing one open lane: only a block or taking the king can save them."""
        game, board = self.game, self.board
        rules = self.rules
        king = board.king
        near = NEIGHBOURS_BB[king]
        zone = self._targets()
        best = ply + 2 - WIN  # no saving move: the king walks out next ply
        push, pop = game.push, game.pop
        for m in board.legal_moves():
            dest = m >> 6
            caps = _EMPTY
            if near >> dest & 1:
                caps = rules.captures(board, m)
                if king not in caps and not block >> dest & 1:
                    continue
            elif not block >> dest & 1:
                continue
            elif zone >> dest & 1:
                caps = rules.captures(board, m)
            push(m, caps)
            score = -self._quiesce(-beta, -alpha, ply + 1, qd + 1)
            pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best


def _axes(sq: int) -> tuple[tuple[int, int], ...]:
    """(landing square, anvil square) on either side of ``sq`` along each line through it."""
    out = []
    for i, j in ((0, 2), (1, 3), (2, 0), (3, 1)):
        ray_a, ray_b = RAYS[sq][i], RAYS[sq][j]
        if ray_a and ray_b:
            out.append((ray_a[0], ray_b[0]))
    return tuple(out)


_AXES: Final = tuple(_axes(sq) for sq in range(NUM_SQUARES))


def _first(item: tuple[int, int, list[int]]) -> int:
    return item[0]


def _opens_lane(sq: int, occ_without_king: int) -> bool:
    """Whether the king standing on ``sq`` would see a corner down an empty lane."""
    return any(not occ_without_king & mask for mask in LANES[sq])
