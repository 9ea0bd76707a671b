"""Negamax alpha-beta search on the bot's own int positions, bounded by a count of nodes.

Principal-variation search with iterative deepening, a transposition table on the engine's
Zobrist keys (fresh for every ``Searcher``, so no call sees another's), move ordering (table
move, captures, king moves that open a lane, two killers per ply, then blocks of threatened
lanes and history), staged so the quiet moves are generated only when the first ones do not
cut off, null-move pruning, late-move reductions, and a quiescence search over
captures and king threats. A king with an open lane and the move wins; an attacker to move
facing a lane must block it or take the king (an "escape check", searched like check in
chess: only the evasions, one ply deeper); two lanes are proved won by ``_forced``.

Positions are ``bitboards.Position`` tuples: make builds the next one and unmake is keeping
the old, so a node costs a few integer operations instead of the engine's ``Game.push``.
Games end here as the engine ends them (docs/rules.md §Decisions, 7): pieces, then repetition,
then no legal move, then the move limit. Nothing here reads a clock: the budget is nodes,
so a search is a pure function of the position, its history, the limits and the root order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final

from brandubh.bot.bitboards import (
    ALL_BB,
    Z_ATT_MOVE_SIDE,
    Kernel,
    Position,
    SlideKernel,
    kernel_for,
    popcount,
)
from brandubh.bot.evaluation import (
    _RUNS,
    EDGE_INNER,
    KING_REACH_LINES_NO_RETURN,
    KING_REACH_LINES_RETURN,
    LANES,
    MATE_BOUND,
    WIN,
    Weights,
    evaluator_for,
    runs_of,
)
from brandubh.engine import Game
from brandubh.engine.board import Z_SIDE
from brandubh.engine.rulesets import Outcome, RuleSet
from brandubh.engine.squares import CORNERS_BB, NEIGHBOURS_BB, NUM_SQUARES

INF: Final = WIN + 1_000
MAX_PLY: Final = 128

# Transposition-table bound kinds.
EXACT: Final = 0
LOWER: Final = 1  # the score is at least this (a beta cut-off)
UPPER: Final = 2  # the score is at most this (no move raised alpha)


def _woods_keys() -> dict[tuple[int, ...], int]:
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


def table_key(game: Game) -> int:
    """The transposition table's key of the game's position (newsome's adds its woods' ages)."""
    board = game.board
    return board.hash if game.ruleset.slides else board.hash ^ WOODS_KEYS[board.woods]


_EVAL_CACHES: dict[tuple[str, Weights | None], dict[int, int]] = {}


def _eval_cache(ruleset: RuleSet, weights: Weights | None) -> dict[int, int]:
    """Static scores by position key, kept for the process: the evaluation is a pure function
    of the position, so sharing it between searches changes no move, only the time."""
    cache = _EVAL_CACHES.setdefault((ruleset.name, weights), {})
    if len(cache) > 100_000:
        cache.clear()
    return cache


ON_CORNER: Final = tuple(CORNERS_BB >> sq & 1 == 1 for sq in range(NUM_SQUARES))


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


def _outcome_score(outcome: Outcome, side: int, ply: int) -> int:
    """The score, for the side to move, of an ending judged by a rule set's ``outcome``.

    For repetition the mover is the side that just moved; for no legal move the mover of the
    engine's ``_judged`` is also the side that just moved (the stuck side is to move).
    """
    if outcome is Outcome.DRAW:
        return 0
    if outcome is Outcome.DEFENDERS_LOSE:
        return ply - WIN if side else WIN - ply
    if outcome is Outcome.MOVER_LOSES:
        return WIN - ply  # the side to move did not make the repetition
    return ply - WIN  # SIDE_TO_MOVE_LOSES: the side with no move loses


class Searcher:
    """One search of one position: create, ``run``, discard (the table dies with it)."""

    __slots__ = (
        "counts",
        "ecache",
        "evaluate",
        "exact_root",
        "game",
        "history",
        "kernel",
        "killers",
        "limit",
        "max_depth",
        "max_nodes",
        "no_moves",
        "nodes",
        "null_move",
        "plies_left",
        "q_checks",
        "reach_lines",
        "repetition",
        "root",
        "ruleset",
        "slides",
        "tt",
    )

    def __init__(
        self,
        game: Game,
        max_nodes: int,
        max_depth: int = 64,
        q_checks: int = 2,
        exact_root: bool = False,
        null_move: bool = True,
        weights: Weights | None = None,
    ) -> None:
        self.game = game
        rs = game.ruleset
        self.ruleset = rs
        self.kernel: Kernel = kernel_for(rs)
        self.slides = rs.slides
        self.reach_lines = (
            KING_REACH_LINES_RETURN if rs.king_may_return_to_throne else KING_REACH_LINES_NO_RETURN
        )
        self.evaluate = evaluator_for(rs, weights)
        board = game.board
        self.root: Position = (
            board.att,
            board.dfn,
            board.king,
            board.side,
            board.hash,
            board.woods,
        )
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
        self.ecache = _eval_cache(rs, weights)
        # Repetition counts of the game so far; the search adds and removes its own path.
        counts: dict[int, int] = {}
        for h in game.snapshot().recent:
            counts[h] = counts.get(h, 0) + 1
        self.counts = counts
        self.plies_left = rs.move_limit - game.ply  # the move limit, in plies from the root
        self.repetition = rs.third_repetition
        self.no_moves = rs.no_legal_moves

    # -- root --------------------------------------------------------------------------

    def run(self, rng: random.Random) -> SearchResult:
        """Search by iterative deepening until the depth or node limit; ``rng`` breaks ties."""
        game = self.game
        if game.result is not None:
            raise ValueError(f"the game is over ({game.result}): no move to choose")
        pos = self.root
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        kernel = self.kernel
        moves = kernel.gen(att, dfn, king, side)
        if not moves:
            raise ValueError("the side to move has no legal move")
        # Equal moves are tried, and so chosen, in an order drawn from the game's seed.
        rng.shuffle(moves)
        root = [(m, kernel.captures(att, dfn, king, side, m)) for m in moves]
        root.sort(key=lambda mc: popcount(mc[1]), reverse=True)
        children = {m: kernel.make(pos, m, caps) for m, caps in root}
        counts = self.counts
        best_move, best_score, depth_done = root[0][0], -INF, 0
        scores: dict[int, int] = {}
        # The first pass always finishes, so even the smallest budget sees one-move tactics.
        self.limit = 1 << 62
        for depth in range(1, self.max_depth + 1):
            alpha = -INF
            it_best = 0
            it_scores: dict[int, int] = {}
            aborted = False
            try:
                for i, (m, _) in enumerate(root):
                    child = children[m]
                    ch = child[4]
                    counts[ch] = counts.get(ch, 0) + 1
                    try:
                        if self.exact_root:
                            score = -self._search(depth - 1, -INF, INF, 1, child)
                        elif i == 0:
                            score = -self._search(depth - 1, -INF, -alpha, 1, child)
                        else:
                            score = -self._search(depth - 1, -alpha - 1, -alpha, 1, child)
                            if score > alpha:
                                score = -self._search(depth - 1, -INF, -alpha, 1, child)
                    finally:
                        counts[ch] -= 1
                    it_scores[m] = score
                    if score > alpha:
                        alpha, it_best = score, m
            except SearchAborted:
                # A move that beat the first (the previous best) in a full window is better
                # by a deeper look; with exact root scores only a finished pass compares.
                if it_best and not self.exact_root:
                    best_move, best_score = it_best, alpha
                aborted = True
            self.limit = self.max_nodes
            if aborted:
                break
            best_move, best_score, depth_done, scores = it_best, alpha, depth, it_scores
            root.sort(key=lambda mc: it_scores[mc[0]], reverse=True)
            if abs(best_score) >= MATE_BOUND or self.nodes >= self.max_nodes:
                break
        return SearchResult(
            best_move, best_score, depth_done, self.nodes, scores, [m for m, _ in root]
        )

    # -- helpers -----------------------------------------------------------------------

    def _forced(self, pos: Position, ply: int) -> bool:
        """Attackers to move, two lanes open: does every move let the king out next ply?

        Exact as the engine judges: taking the king, a block, or an ending by repetition or
        the move limit all defend. The attackers' moves are counted as nodes.
        """
        att, dfn, king, side, h = pos[0], pos[1], pos[2], pos[3], pos[4]
        kernel = self.kernel
        moves = kernel.gen(att, dfn, king, side)
        self.nodes += len(moves)
        if ply + 1 >= self.plies_left:
            return False
        assert isinstance(kernel, SlideKernel)
        found = kernel.capture_moves(att, dfn, king, side, ALL_BB)
        king_bit = 1 << king
        for caps in found.values():
            if caps & king_bit:
                return False
        # No move blocks both lanes: a move fills one square, the lanes of a square share
        # none, and a capture only takes defenders away. So only a third occurrence of the
        # position after the move can defend; that needs only each child's hash.
        counts = self.counts
        for m in moves:
            taken = found.get(m, 0)
            if (
                counts.get(kernel.make(pos, m, taken)[4] if taken else h ^ Z_ATT_MOVE_SIDE[m], 0)
                >= 2
            ):
                return False  # the third occurrence ends the game
        return True

    def _at_limit(self, pos: Position, ply: int) -> int:
        """The move limit is reached: a draw, unless the side to move has no move at all."""
        if self.kernel.has_move(pos[0], pos[1], pos[2], pos[3]):
            return 0
        return _outcome_score(self.no_moves, pos[3], ply)

    def _eval(self, pos: Position) -> int:
        """The static evaluation, cached by position for this search."""
        key = pos[4] if self.slides else pos[4] ^ WOODS_KEYS[pos[5]]
        found = self.ecache.get(key)
        if found is None:
            found = self.ecache[key] = self.evaluate.score(pos[0], pos[1], pos[2], pos[3], pos[5])
        return found

    # -- the tree ----------------------------------------------------------------------

    def _search(self, depth: int, alpha: int, beta: int, ply: int, pos: Position) -> int:
        self.nodes += 1
        if self.nodes > self.limit:
            raise SearchAborted
        att, dfn, king, side, h, woods = pos
        if self.slides:
            if not att:
                return WIN - ply if side else ply - WIN
            if king < 0:
                return ply - WIN if side else WIN - ply
            if ON_CORNER[king]:
                return WIN - ply if side else ply - WIN
        else:
            won = self.kernel.won(att, dfn, king, side)
            if won:
                return WIN - ply if won > 0 else ply - WIN
        counts = self.counts
        if counts[h] >= 3:
            return _outcome_score(self.repetition, side, ply)
        if ply >= self.plies_left:
            return self._at_limit(pos, ply)
        block = 0  # with a lane open and the attackers to move: the squares that block it
        lanes = 0
        if self.slides and LANES[king]:  # only a king on an edge has lanes
            occ = att | dfn
            for mask in LANES[king]:
                if not occ & mask:
                    lanes += 1
                    block |= mask
            if lanes:
                if side:
                    return WIN - ply - 1
                if lanes >= 2 and self._forced(pos, ply):
                    return ply + 2 - WIN
                if depth > 0:
                    # An escape check: look one ply further rather than let the horizon
                    # hide it (at the horizon the quiescence search answers it exactly).
                    depth += 1
        key = h if self.slides else h ^ WOODS_KEYS[woods]
        if depth <= 0 or ply >= MAX_PLY - 8:
            # The quiescence search from here. It counts this position again as a node of
            # its own (as the frozen search did), but its entry checks are the ones just
            # made, so they are not repeated, nor is a call made when the stand pat cuts off.
            self.nodes += 1
            if self.nodes > self.limit:
                raise SearchAborted
            if lanes:
                if lanes >= 2:
                    self._forced(pos, ply)  # False, as above: it counts its nodes again
                return self._evade(alpha, beta, ply, 0, block, pos)
            ecache = self.ecache
            stand = ecache.get(key)
            if stand is None:
                stand = ecache[key] = self.evaluate.score(att, dfn, king, side, woods)
            if stand >= beta or ply >= MAX_PLY - 2:
                return stand
            return self._quiesce(alpha, beta, ply, 0, pos, stand)
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
            and not block
            and beta < MATE_BOUND
            and self._eval(pos) >= beta
        ):
            # Null move: if passing still fails high, a real move would too (tafl has
            # hardly any zugzwang). The side bit is part of the hash, so flip both.
            reduce = 3 if depth >= 6 else 2
            passed = (att, dfn, king, side ^ 1, h ^ Z_SIDE, woods)
            counts[passed[4]] = counts.get(passed[4], 0) + 1
            score = -self._search(depth - 1 - reduce, -beta, 1 - beta, ply + 1, passed)
            counts[passed[4]] -= 1
            if score >= beta:
                return beta

        killers = self.killers[ply]
        alpha0 = alpha
        best, best_move = -INF, 0
        kernel = self.kernel
        first = 0
        if tt_move:
            # The table's move first, before generating the rest: it often cuts off alone.
            # (The key is the whole position, so the move is legal here.)
            first = tt_move
            caps = kernel.captures(att, dfn, king, side, first)
            child = kernel.make(pos, first, caps)
            ch = child[4]
            counts[ch] = counts.get(ch, 0) + 1
            best = -self._search(depth - 1, -beta, -alpha, ply + 1, child)
            counts[ch] -= 1
            best_move = first
            if best > alpha:
                alpha = best
                if alpha >= beta:
                    if not caps:
                        self._reward(first, depth, killers)
                    self._store(key, depth, best, alpha0, beta, first, ply)
                    return best
        # Moves in two stages, in the order one sort of them all would give: first the few
        # that ordering puts above the rest (captures, the king onto a lane, the killers),
        # found from their squares; the other moves are generated only if none cuts off.
        ordered, capmap, special, every = self._first_moves(pos, first, ply, block)
        i = 1 if first else 0
        cut = False
        for stage in (0, 1):
            if stage:
                ordered = self._other_moves(pos, block, special, every)
            for move in ordered:
                caps = capmap.get(move, 0)
                child = kernel.make(pos, move, caps)
                ch = child[4]
                counts[ch] = counts.get(ch, 0) + 1
                if i == 0:
                    score = -self._search(depth - 1, -beta, -alpha, ply + 1, child)
                else:
                    # Late quiet moves are searched one ply shallower unless they surprise.
                    r = 1 if depth >= 3 and i >= 4 and not caps and move not in killers else 0
                    score = -self._search(depth - 1 - r, -alpha - 1, -alpha, ply + 1, child)
                    if r and score > alpha:
                        score = -self._search(depth - 1, -alpha - 1, -alpha, ply + 1, child)
                    if alpha < score < beta:
                        score = -self._search(depth - 1, -beta, -alpha, ply + 1, child)
                counts[ch] -= 1
                i += 1
                if score > best:
                    best, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not caps:
                                self._reward(move, depth, killers)
                            cut = True
                            break
            if cut:
                break
        if i == 0:
            if block and kernel.has_move(att, dfn, king, side):
                return ply + 2 - WIN  # no block and no capture of the king: he walks out
            return _outcome_score(self.no_moves, side, ply)
        self._store(key, depth, best, alpha0, beta, best_move, ply)
        return best

    def _reward(self, move: int, depth: int, killers: list[int]) -> None:
        """A quiet move cut off: remember it as a killer at this ply and in the history."""
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        self.history[move] += depth * depth

    def _store(
        self, key: int, depth: int, best: int, alpha0: int, beta: int, move: int, ply: int
    ) -> None:
        """Record a node's result; proved results relative to this node, not the root."""
        flag = LOWER if best >= beta else EXACT if best > alpha0 else UPPER
        if best > MATE_BOUND:
            best += ply
        elif best < -MATE_BOUND:
            best -= ply
        self.tt[key] = (depth, flag, best, move)

    def _threat_squares(self, att: int, dfn: int, king: int) -> tuple[int, int]:
        """(squares that see a corner down an open lane, the king's one-move reach)."""
        occ = att | dfn
        runs = _RUNS.get(occ & EDGE_INNER) or runs_of(occ)
        fm, ft, rm, rt = self.reach_lines[king]
        return runs[4], ft[occ & fm] | rt[occ & rm]

    def _first_moves(
        self, pos: Position, tt_move: int, ply: int, block: int
    ) -> tuple[list[int], dict[int, int], dict[int, int], list[int] | None]:
        """The moves ordering puts first, best first: captures (the king's first, then by how
        many they take), king moves onto a lane, the two killers; with the captures of those
        that capture, every move's ordering key (``tt_move`` included, to skip it later) and,
        in newsome, every legal move.

        With ``block`` (a lane open, attackers to move) only the moves that block it or take
        the king. Each is legal: found from its destination square.
        """
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        kernel = self.kernel
        king_bit = 1 << king if king >= 0 else 0
        special: dict[int, int] = {}
        if self.slides and side and king >= 0:
            # The king stepping onto a lane square threatens to escape.
            runs, reach = self._threat_squares(att, dfn, king)
            onto = reach & runs
            while onto:
                low = onto & -onto
                onto ^= low
                special[king | (low.bit_length() - 1) << 6] = 1 << 31
        # Newsome's steps are few: there, generate them all once and pick from the list.
        every = None
        within = block | NEIGHBOURS_BB[king] if block else ALL_BB
        if isinstance(kernel, SlideKernel):
            found = kernel.capture_moves(att, dfn, king, side, within)
        else:
            # Newsome captures by replacement: a step onto an enemy takes him (StepKernel).
            every = kernel.gen(att, dfn, king, side)
            enemy = (att if side else dfn) & within
            found = {m: 1 << (m >> 6) for m in every if enemy >> (m >> 6) & 1}
        if block:
            # An escape check: only the captures that block the lane or take the king.
            capmap = {
                m: caps for m, caps in found.items() if block >> (m >> 6) & 1 or caps & king_bit
            }
        else:
            capmap = found  # every move listed captures
        for m, caps in capmap.items():
            special[m] = (1 << 32) + 1000 * popcount(caps) + (1 << 34 if caps & king_bit else 0)
        k1, k2 = self.killers[ply]
        for k, score in ((k1, 1 << 30), (k2, (1 << 30) - 1)):
            if (
                k
                and k not in special
                and k != tt_move
                and (not block or block >> (k >> 6) & 1)
                and (k in every if every is not None else kernel.is_legal(att, dfn, king, side, k))
            ):
                special[k] = score
        special.pop(tt_move, None)
        keys = [score << 12 | m for m, score in special.items()]
        keys.sort(reverse=True)
        special[tt_move] = 1 << 40
        return [k & 4095 for k in keys], capmap, special, every

    def _other_moves(
        self, pos: Position, block: int, done: dict[int, int], every: list[int] | None
    ) -> list[int]:
        """The legal moves not in ``done``, by history (first the moves that shut a lane the
        king threatens, when the attackers are to move)."""
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        moves = self.kernel.gen(att, dfn, king, side) if every is None else every
        if block:
            # An escape check: everything but a block or taking the king loses at once.
            moves = [m for m in moves if block >> (m >> 6) & 1]
        threatened = 0
        if self.slides and not side and king >= 0:
            runs, reach = self._threat_squares(att, dfn, king)
            if reach & runs:
                # Moves onto the lane squares the king can reach, or onto the squares
                # between him and them, shut his threat.
                threatened = runs | reach
        hist = self.history
        # Sorting plain ints (score above, move below) is much faster than sorting tuples.
        if threatened:
            bonus = 1 << 29
            keys = [
                (hist[m] + (bonus if threatened >> (m >> 6) & 1 else 0)) << 12 | m
                for m in moves
                if m not in done
            ]
        else:
            keys = [hist[m] << 12 | m for m in moves if m not in done]
        keys.sort(reverse=True)
        return [k & 4095 for k in keys]

    def _quiesce(
        self, alpha: int, beta: int, ply: int, qd: int, pos: Position, stand: int | None = None
    ) -> int:
        """Captures and king threats; ``stand``: the main search has made this node's entry
        checks and its stand pat did not cut off (the node is counted already)."""
        att, dfn, king, side, h, woods = pos
        kernel = self.kernel
        counts = self.counts
        if stand is None:
            self.nodes += 1
            if self.nodes > self.limit:
                raise SearchAborted
            if self.slides:
                if not att:
                    return WIN - ply if side else ply - WIN
                if king < 0:
                    return ply - WIN if side else WIN - ply
                if ON_CORNER[king]:
                    return WIN - ply if side else ply - WIN
            else:
                won = kernel.won(att, dfn, king, side)
                if won:
                    return WIN - ply if won > 0 else ply - WIN
            if counts[h] >= 3:
                return _outcome_score(self.repetition, side, ply)
            if ply >= self.plies_left:
                return self._at_limit(pos, ply)
            if self.slides and LANES[king]:  # only a king on an edge has lanes
                occ = att | dfn
                block = 0
                lanes = 0
                for mask in LANES[king]:
                    if not occ & mask:
                        lanes += 1
                        block |= mask
                if lanes:
                    if side:
                        return WIN - ply - 1
                    if lanes >= 2 and self._forced(pos, ply):
                        return ply + 2 - WIN
                    return self._evade(alpha, beta, ply, qd, block, pos)
            key = h if self.slides else h ^ WOODS_KEYS[woods]
            stand = self.ecache.get(key)
            if stand is None:
                stand = self.ecache[key] = self.evaluate.score(att, dfn, king, side, woods)
            if stand >= beta or ply >= MAX_PLY - 2:
                return stand
        if stand > alpha:
            alpha = stand
        best = stand
        cands: list[int] = []
        capmap: dict[int, int] = {}
        king_bit = 1 << king if king >= 0 else 0
        if isinstance(kernel, SlideKernel):
            capmap = kernel.capture_moves(att, dfn, king, side, ALL_BB)
            for m, caps in capmap.items():
                cands.append((popcount(caps) + (8 if caps & king_bit else 0)) << 12 | m)
            if side == 1 and qd < self.q_checks:
                # The king onto a lane square (the captures among these are listed already).
                lane_sq, reach = self._threat_squares(att, dfn, king)
                onto = reach & lane_sq
                while onto:
                    low = onto & -onto
                    onto ^= low
                    m = king | (low.bit_length() - 1) << 6
                    if m not in capmap:
                        cands.append(m)
        else:
            # Newsome captures by replacement: a step onto an enemy takes him (StepKernel).
            enemy = att if side else dfn
            for m in kernel.gen(att, dfn, king, side):
                if enemy >> (m >> 6) & 1:
                    capmap[m] = 1 << (m >> 6)
                    cands.append(1 << 12 | m)
        if not cands:
            return best
        cands.sort(reverse=True)
        for c in cands:
            m = c & 4095
            child = kernel.make(pos, m, capmap.get(m, 0))
            ch = child[4]
            counts[ch] = counts.get(ch, 0) + 1
            score = -self._quiesce(-beta, -alpha, ply + 1, qd + 1, child)
            counts[ch] -= 1
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _evade(self, alpha: int, beta: int, ply: int, qd: int, block: int, pos: Position) -> int:
        """Attackers facing one open lane: only a block or taking the king can save them."""
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        kernel = self.kernel
        near = NEIGHBOURS_BB[king]
        zone = kernel.targets(att, dfn, king, side)
        counts = self.counts
        best = ply + 2 - WIN  # no saving move: the king walks out next ply
        king_bit = 1 << king
        for m in kernel.moves_to(att, dfn, king, side, block | near):
            dest = m >> 6
            caps = kernel.captures(att, dfn, king, side, m) if zone >> dest & 1 else 0
            if not block >> dest & 1 and not caps & king_bit:
                continue
            child = kernel.make(pos, m, caps)
            ch = child[4]
            counts[ch] = counts.get(ch, 0) + 1
            score = -self._quiesce(-beta, -alpha, ply + 1, qd + 1, child)
            counts[ch] -= 1
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best
