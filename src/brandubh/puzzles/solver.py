"""Proof by complete search: does the side to move force a win within N of its own moves?

An AND/OR search on the bot's bitboard kernel (``brandubh.bot.kernel_for``, checked against
the engine move for move by tests/bot/test_bitboards.py): OR over the solver's moves, AND
over every reply. Every node's answer is exact (a boolean for its remaining depth), so
stopping at the first winning move or the first refuting reply loses nothing, and the
transposition table keeps proved bounds only. docs/puzzles.md, "Proof", states the rules.

Games end as the engine ends them (docs/rules.md, order of judgement): pieces first (no
attacker left, the king taken, the king on a corner), then a third repetition, then a side
with no legal move. A third repetition needs eight plies from a start without history, and a
proof of depth N spans 2N - 1 plies, so with ``MAX_DEPTH`` = 4 it never arises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from brandubh.bot import Kernel, SlideKernel, kernel_for
from brandubh.engine import Board, Game, RuleSet, format_position, get_ruleset

MAX_DEPTH: Final = 4  # 7 plies: no position can come round a third time (module docstring)
# The rule sets whose position text is their whole state. newsome's woods (how long a prince
# has stood on a corner) are not in the text, so a newsome position is not a whole puzzle.
SUPPORTED: Final = ("nielsen", "federation", "common", "walker")

Pos = tuple[int, int, int, int, int, tuple[int, ...]]
WinTheme = Literal["escape", "capture"]

_WIN: Final = 1  # what a move's position means for the side that made it
_LOSS: Final = -1
_DRAW: Final = 0
_ON: Final = 2

_ALL: Final = (1 << 49) - 1
_CORNERS: Final = 1 | 1 << 6 | 1 << 42 | 1 << 48
_THRONE: Final = 1 << 24
_NO_SOLDIER: Final = _CORNERS | _THRONE


def _neighbours(sq: int) -> int:
    rank, file = divmod(sq, 7)
    out = 0
    for r, f in ((rank + 1, file), (rank - 1, file), (rank, file + 1), (rank, file - 1)):
        if 0 <= r < 7 and 0 <= f < 7:
            out |= 1 << (r * 7 + f)
    return out


_NEIGHBOURS: Final = tuple(_neighbours(sq) for sq in range(49))
_TABLE_LIMIT: Final = 2_000_000  # entries per table before it is cleared (memory, not answers)


class UnsupportedRuleSet(ValueError):
    """A rule set the solver does not prove under (its positions are not its whole state)."""


@dataclass(frozen=True, slots=True)
class Win:
    """A proved puzzle of the escape or capture theme: the one line and its depth."""

    theme: WinTheme
    depth: int
    line: tuple[str, ...]
    moves: int  # the solver's legal moves at the start (for the rating estimate)
    reason: str  # how the engine ends the line: king_escaped, king_captured, no_legal_moves, ...


@dataclass(frozen=True, slots=True)
class Hold:
    """A proved puzzle of the defend theme: the one move that holds for ``horizon`` of the
    opponent's moves while every other loses within it; ``threat`` the opponent's shortest
    win were the side to move to pass."""

    move: str
    horizon: int
    threat: int
    moves: int


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the solver found at a position: a unique win (``win``), a win that is not unique
    or whose line is not (``ambiguous``), or neither within the depth (``win_depth`` None)."""

    win_depth: int | None
    win: Win | None
    ambiguous: bool


def supported(ruleset: str | RuleSet) -> bool:
    """Whether the solver proves positions under this rule set."""
    return get_ruleset(ruleset).name in SUPPORTED


def _pos_of(board: Board) -> Pos:
    return (board.att, board.dfn, board.king, board.side, board.hash, board.woods)


class Solver:
    """Exact AND/OR proofs under one rule set; its tables live as long as it does."""

    def __init__(self, ruleset: str | RuleSet) -> None:
        rs = get_ruleset(ruleset)
        if rs.name not in SUPPORTED:
            raise UnsupportedRuleSet(
                f"the solver does not prove {rs.name} puzzles (its woods are not in the "
                f"position text): choose one of {', '.join(SUPPORTED)}"
            )
        self.ruleset = rs
        kernel: Kernel = kernel_for(rs)
        assert isinstance(kernel, SlideKernel)
        self.kernel: SlideKernel = kernel
        # The ending when the side to move has none, for the mover (side that just moved),
        # indexed by the mover's side: engine.game._judged's table.
        self.stuck = tuple(_stuck(rs.no_legal_moves.value, mover) for mover in (0, 1))
        self.nodes = 0
        # Proved bounds by position hash: (least depth proved true, most depth proved false).
        self.win_table: dict[int, tuple[int, int]] = {}  # the side to move wins within n
        self.loss_table: dict[int, tuple[int, int]] = {}  # the side to move loses within n
        self.killers: list[int] = [0] * (2 * MAX_DEPTH + 2)

    # -- the position after a move -------------------------------------------------------

    def _after(self, pos: Pos) -> int:
        """The game's state after a move, for the side that made it: won, lost, drawn, on."""
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        won = self.kernel.won(att, dfn, king, side)  # for the side to move
        if won:
            return -won
        if not self.kernel.has_move(att, dfn, king, side):
            return self.stuck[side ^ 1]
        return _ON

    def _children(self, pos: Pos) -> list[tuple[int, Pos]]:
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        k = self.kernel
        out = []
        for m in k.gen(att, dfn, king, side):
            out.append((m, k.make(pos, m, k.captures(att, dfn, king, side, m))))
        self.nodes += len(out)
        return out

    # -- wins in one ---------------------------------------------------------------------

    def _win_now(self, pos: Pos) -> bool:
        """Whether some move of the side to move wins at once (exactly ``_after`` == won)."""
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        k = self.kernel
        self.nodes += 1
        if side:
            if king >= 0:
                for m in k.moves_to(att, dfn, king, 1, _CORNERS):
                    if m & 63 == king:
                        return True
            # A move takes at most three (it arrives from its fourth side): the last ones.
            if att.bit_count() <= 3:
                for caps in k.capture_moves(att, dfn, king, 1, _ALL).values():
                    if caps == att:
                        return True
        elif king >= 0:
            for caps in k.capture_moves(att, dfn, king, 0, _NEIGHBOURS[king]).values():
                if caps >> king & 1:
                    return True
        if self.stuck[side] == _WIN and self._may_stall(pos):
            for _, child in self._children(pos):
                if self._after(child) == _WIN:
                    return True
        return False

    def _may_stall(self, pos: Pos) -> bool:
        """False when no move can leave the other side without a move: it has four pieces
        with two empty squares beside them to stop on, and one move fills one square and
        takes at most three pieces."""
        att, dfn, king, side = pos[0], pos[1], pos[2], pos[3]
        occ = att | dfn | (1 << king if king >= 0 else 0)
        empty = _ALL & ~occ
        free = 0
        stop = empty & ~_NO_SOLDIER
        for sq in _squares(att if side else dfn):
            if (_NEIGHBOURS[sq] & stop).bit_count() >= 2:
                free += 1
                if free >= 4:
                    return False
        king_room = _NEIGHBOURS[king] & empty & self.kernel.king_may_stop if king >= 0 else 0
        if not side and king_room.bit_count() >= 2:
            free += 1
        return free < 4

    # -- the AND/OR search ---------------------------------------------------------------

    def wins(self, pos: Pos, n: int) -> bool:
        """Whether the side to move forces a win within ``n`` of its moves (n >= 1)."""
        if n == 1:
            return self._win_now(pos)
        h = pos[4]
        bound = self.win_table.get(h, (MAX_DEPTH + 1, 0))
        if bound[0] <= n:
            return True
        if bound[1] >= n:
            return False
        result = self._wins(pos, n)
        self._store(self.win_table, h, n, result)
        return result

    def _wins(self, pos: Pos, n: int) -> bool:
        children = []
        for m, child in self._children(pos):
            after = self._after(child)
            if after == _WIN:
                return True
            if after == _ON:
                children.append((m, child))
        children.sort(key=self._attack_order(pos, 2 * n))
        for m, child in children:
            if self.loses(child, n - 1):
                self.killers[2 * n] = m
                return True
        return False

    def loses(self, pos: Pos, n: int) -> bool:
        """Whether the side to move loses within ``n`` of the other side's moves: every
        reply loses at once or lets the other side win within ``n``."""
        h = pos[4]
        bound = self.loss_table.get(h, (MAX_DEPTH + 1, 0))
        if bound[0] <= n:
            return True
        if bound[1] >= n:
            return False
        result = self._loses(pos, n)
        self._store(self.loss_table, h, n, result)
        return result

    def _loses(self, pos: Pos, n: int) -> bool:
        children = []
        for m, child in self._children(pos):
            after = self._after(child)
            if after in (_WIN, _DRAW):
                return False
            if after == _ON:
                children.append((m, child))
        children.sort(key=self._defence_order(pos, 2 * n + 1))
        for m, child in children:
            if not self.wins(child, n):
                self.killers[2 * n + 1] = m
                return False
        return True

    def _store(self, table: dict[int, tuple[int, int]], h: int, n: int, result: bool) -> None:
        if len(table) >= _TABLE_LIMIT:
            table.clear()
        low, high = table.get(h, (MAX_DEPTH + 1, 0))
        table[h] = (min(low, n), high) if result else (low, max(high, n))

    def _attack_order(self, pos: Pos, slot: int) -> _Order:
        """Order for the solver's moves: the last winning move at this depth, the king's
        moves and moves beside the king first (only the order; every move is tried)."""
        return _Order(self.killers[slot], pos[2], _NEIGHBOURS[pos[2]] if pos[2] >= 0 else 0)

    def _defence_order(self, pos: Pos, slot: int) -> _Order:
        return _Order(self.killers[slot], pos[2], _king_lines(pos[2]))

    # -- what the generator and the tests ask --------------------------------------------

    def win_depth(self, position: str, max_depth: int) -> int | None:
        """The least N within which the side to move forces a win (None: not within)."""
        pos = self._root(position)
        for n in range(1, max_depth + 1):
            if self.wins(pos, n):
                return n
        return None

    def winning_moves(self, position: str, n: int) -> list[str]:
        """Every move of the side to move that wins within ``n`` of its moves, as text."""
        game = Game.from_position(position, self.ruleset)
        return [text for code, text in _texts(game) if self._move_wins(game, code, n)]

    def _move_wins(self, game: Game, code: int, n: int) -> bool:
        pos = _pos_of(game.board)
        k = self.kernel
        child = k.make(pos, code, k.captures(pos[0], pos[1], pos[2], pos[3], code))
        self.nodes += 1
        after = self._after(child)
        return after == _WIN or (after == _ON and n > 1 and self.loses(child, n - 1))

    def solve(self, position: str, max_depth: int) -> Verdict:
        """The shortest forced win within ``max_depth`` and whether it is a puzzle: one
        winning move at each of the solver's moves of the line, the defence resisting
        longest (ties: the first reply by move text)."""
        _check_depth(max_depth)
        game = Game.from_position(position, self.ruleset)
        if game.result is not None:
            return Verdict(None, None, False)
        depth = self.win_depth(position, max_depth)
        if depth is None:
            return Verdict(None, None, False)
        solver_side = game.board.side
        moves = len(game.legal_texts())
        line: list[str] = []
        remaining = depth
        while True:
            winners = [
                (code, text)
                for code, text in _texts(game)
                if self._move_wins(game, code, remaining)
            ]
            if len(winners) != 1:
                return Verdict(depth, None, True)
            code, text = winners[0]
            line.append(text)
            game.push(code)
            if game.result is not None:
                break
            reply = self._longest_reply(game, remaining - 1)
            line.append(reply[1])
            game.push(reply[0])
            remaining = reply[2]
        # The engine judges the line's end: the proof's win must be its result.
        winner = game.result.winner if game.result else None
        side_name = "defenders" if solver_side else "attackers"
        if winner != side_name:
            raise AssertionError(f"solver and engine disagree at {position!r}: {game.result}")
        theme: WinTheme = "escape" if solver_side else "capture"
        reason = game.result.reason if game.result else ""
        return Verdict(depth, Win(theme, depth, tuple(line), moves, reason), False)

    def _longest_reply(self, game: Game, n: int) -> tuple[int, str, int]:
        """The reply after which the solver's win is longest (each loses within ``n``):
        (code, text, the solver's least depth after it); ties go to the first by text."""
        best: tuple[int, str, int] | None = None
        for code, text in sorted(_texts(game), key=lambda ct: ct[1]):
            pos = _pos_of(game.board)
            k = self.kernel
            child = k.make(pos, code, k.captures(pos[0], pos[1], pos[2], pos[3], code))
            if self._after(child) != _ON:
                continue  # loses at once: resists least
            last = next(j for j in range(1, n + 1) if self.wins(child, j))
            if best is None or last > best[2]:
                best = (code, text, last)
        if best is None:
            raise AssertionError("every reply ends the game: the solver's move was a win")
        return best

    def defend(self, position: str, horizon: int) -> Hold | None:
        """The one move that keeps the side to move from losing within ``horizon`` of the
        opponent's moves, when every other loses within it and the opponent threatens a
        win (were the side to move to pass); None otherwise. The caller has proved the side
        to move has no win of its own within ``horizon``."""
        _check_depth(horizon)
        game = Game.from_position(position, self.ruleset)
        if game.result is not None:
            return None
        board = game.board
        # Were the side to move to pass: how soon would the opponent win? (A filter only.)
        passed = Board(
            self.ruleset, format_position(board.att, board.dfn, board.king, board.side ^ 1)
        )
        passed_pos = _pos_of(passed)
        if self._after(passed_pos) != _ON:
            return None
        threat = next((j for j in range(1, horizon + 1) if self.wins(passed_pos, j)), None)
        if threat is None:
            return None
        texts = _texts(game)
        if len(texts) < 3:
            return None
        pos = _pos_of(board)
        k = self.kernel
        holder: str | None = None
        for code, text in texts:
            child = k.make(pos, code, k.captures(pos[0], pos[1], pos[2], pos[3], code))
            after = self._after(child)
            if after == _WIN:
                return None  # a win of its own: not a defence
            holds = after == _DRAW or (after == _ON and not self.wins(child, horizon))
            if holds:
                if holder is not None:
                    return None
                holder = text
        if holder is None:
            return None
        return Hold(holder, horizon, threat, len(texts))

    def _root(self, position: str) -> Pos:
        return _pos_of(Board(self.ruleset, position))


class _Order:
    """Sort key for moves: the killer first, then king moves, then moves into ``near``."""

    __slots__ = ("killer", "king", "near")

    def __init__(self, killer: int, king: int, near: int) -> None:
        self.killer, self.king, self.near = killer, king, near

    def __call__(self, mc: tuple[int, Pos]) -> int:
        m = mc[0]
        if m == self.killer:
            return 0
        if m & 63 == self.king:
            return 1
        return 2 if self.near >> (m >> 6) & 1 else 3


def _king_lines(king: int) -> int:
    """The king's rank and file and the edges: where a block of his way out lands."""
    if king < 0:
        return 0
    rank, file = divmod(king, 7)
    out = 0
    for i in range(7):
        out |= 1 << (rank * 7 + i) | 1 << (i * 7 + file)
        out |= 1 << i | 1 << (42 + i) | 1 << (i * 7) | 1 << (i * 7 + 6)
    return out


def _squares(bb: int) -> list[int]:
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


def _texts(game: Game) -> list[tuple[int, str]]:
    """(engine int, canonical text) of every legal move, in the engine's order."""
    return [(m.code, m.text) for m in game.legal_moves()]


def _stuck(outcome: str, mover: int) -> int:
    """A rule set's ending for a side with no move (engine.rulesets.Outcome's value), for
    the side that just moved (``mover``, 0 attackers)."""
    if outcome == "draw":
        return _DRAW
    if outcome == "side_to_move_loses":
        return _WIN
    if outcome == "mover_loses":
        return _LOSS
    if outcome == "defenders_lose":
        return _WIN if mover == 0 else _LOSS
    raise ValueError(f"unknown outcome {outcome!r}")


def _check_depth(depth: int) -> None:
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1 to {MAX_DEPTH}, not {depth}")
