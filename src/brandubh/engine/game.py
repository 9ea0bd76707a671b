"""A game: a board under one rule set, its moves, repetition counts and result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from brandubh.engine.board import (
    DEFENDERS,
    SIDE_NAMES,
    START_POSITION,
    Board,
    Undo,
)
from brandubh.engine.errors import GameOver, InvalidResult, MoveNotLegal
from brandubh.engine.notation import (
    PLAIN_TEXTS,
    Move,
    MoveText,
    make_move,
    move_text,
    parse_move,
)
from brandubh.engine.result import SITE_REASONS, Result, Side
from brandubh.engine.rulesets import DEFAULT_RULESET, Outcome, RuleSet, get_ruleset
from brandubh.engine.squares import (
    CORNERS,
    DIAGONAL_JUMPS,
    DIAGONAL_NEIGHBOURS,
    NEIGHBOURS,
    RAYS,
    SQUARE_NAMES,
    THRONE,
    is_light,
)

_CORNER_SET: Final = frozenset(CORNERS)


class Game:
    """A game of Brandubh from a start position, under one rule set.

    ``Game()`` is the start position of ``nielsen`` with the attackers to move.
    """

    def __init__(
        self, ruleset: str | RuleSet = DEFAULT_RULESET, position: str = START_POSITION
    ) -> None:
        self.ruleset: RuleSet = get_ruleset(ruleset)
        self.board = Board(self.ruleset, position)
        self.start_position: str = self.board.position
        self._counts: dict[int, int] = {self.board.hash: 1}
        # One entry per ply: what pop restores, the result before, the move and its captures.
        self._stack: list[tuple[Undo, Result | None, int, list[int]]] = []
        # Per ply, where the run of positions with as many pieces as the one after it
        # begins (a stack index), and the hash before the move: snapshot() then needs no
        # walk back through the game, only a slice.
        self._run_start: list[int] = []
        self._before: list[int] = []
        # The legal moves of this position (engine ints, then their text), once asked for:
        # the service reads them several times a move; push and pop forget them.
        self._legal: list[int] | None = None
        self._legal_text: list[str] | None = None
        self._position: str | None = None
        # Set by from_snapshot: plies and repeatable positions from before this object.
        self._base_ply = 0
        self._base_recent: tuple[int, ...] = ()
        self.result: Result | None = self._judge(True)

    @classmethod
    def from_position(cls, position: str, ruleset: str | RuleSet = DEFAULT_RULESET) -> Game:
        """A game that starts from a position string."""
        return cls(ruleset, position)

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> Game:
        """Resume a game from ``snapshot()``: same position, ply, repetition counts and result.

        The moves before the snapshot are not part of it: ``moves`` lists only later ones.
        """
        game = cls(snapshot.ruleset, snapshot.position)
        game.board.woods = snapshot.woods
        game._base_ply = snapshot.ply
        game._base_recent = snapshot.recent[:-1]
        game.start_position = snapshot.start_position
        counts: dict[int, int] = {}
        for h in snapshot.recent:
            counts[h] = counts.get(h, 0) + 1
        game._counts = counts
        game.result = snapshot.result
        return game

    def snapshot(self) -> Snapshot:
        """What ``from_snapshot`` needs to resume this game: compact and plain."""
        board = self.board
        stack = self._stack
        start = self._run_start[-1] if stack else 0
        # The positions since the piece count last changed: only those can repeat.
        recent = (self._base_recent if start == 0 else ()) + (*self._before[start:], board.hash)
        return Snapshot(
            ruleset=self.ruleset.name,
            start_position=self.start_position,
            position=self.position,
            ply=self.ply,
            woods=board.woods,
            recent=recent,
            result=self.result,
        )

    # -- state -------------------------------------------------------------------------

    @property
    def position(self) -> str:
        """The current position string."""
        position = self._position
        if position is None:
            position = self._position = self.board.position
        return position

    @property
    def side_to_move(self) -> Side:
        return "defenders" if self.board.side else "attackers"

    @property
    def ply(self) -> int:
        """How many moves have been played in this game."""
        return self._base_ply + len(self._stack)

    @property
    def repetitions(self) -> int:
        """How many times the current position (board and side to move) has occurred."""
        return self._counts.get(self.board.hash, 0)

    @property
    def moves(self) -> list[Move]:
        """The moves played so far, in order, with their captures."""
        return [
            make_move(code, undo[3] == DEFENDERS and undo[2] == code & 63, captures)
            for undo, _, code, captures in self._stack
        ]

    @property
    def is_over(self) -> bool:
        return self.result is not None

    # -- moves -------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move, with its captures; none once the game ended."""
        if self.result is not None:
            return []
        board = self.board
        rules = board.rules
        king = board.king if board.side else -1
        zone = rules.capture_zone(board)
        return [
            make_move(m, m & 63 == king, rules.captures(board, m) if zone >> (m >> 6) & 1 else [])
            for m in self._legal_codes()
        ]

    def legal_texts(self) -> list[str]:
        """The canonical text of every legal move, as ``legal_moves`` would give it (a new
        list each call, built once per position)."""
        if self.result is not None:
            return []
        texts = self._legal_text
        if texts is None:
            board = self.board
            rules = board.rules
            king = board.king if board.side else -1
            zone = rules.capture_zone(board)
            texts = []
            for m in self._legal_codes():
                caps = rules.captures(board, m) if zone >> (m >> 6) & 1 else None
                if caps:
                    texts.append(move_text(m, m & 63 == king, caps))
                else:
                    texts.append(PLAIN_TEXTS[m | (m & 63 == king) << 12])
            self._legal_text = texts
        return texts.copy()

    def _legal_codes(self) -> list[int]:
        codes = self._legal
        if codes is None:
            codes = self._legal = self.board.legal_moves()
        return codes

    def play(self, move: str | Move) -> Move:
        """Play a move given as text or a Move; return the Move as played, with captures.

        Raises an IllegalMove naming the problem (InvalidMoveText, MoveNotLegal or GameOver)
        and leaves the game unchanged.
        """
        if self.result is not None:
            raise GameOver(f"the game is over ({self.result}): no more moves")
        parsed = parse_move(move if isinstance(move, str) else str(move))
        code = parsed.origin | parsed.destination << 6
        board = self.board
        # A K written before any piece but the king does not match it (docs/rules.md §Move text).
        if code not in self._legal_codes() or (parsed.king and parsed.origin != board.king):
            raise MoveNotLegal(explain_illegal(board, parsed))
        captures = board.captures(code)
        if parsed.captures is not None and sorted(parsed.captures) != captures:
            raise MoveNotLegal(_capture_mismatch(parsed, captures))
        played = make_move(code, board.side == DEFENDERS and parsed.origin == board.king, captures)
        self.push(code, captures)
        return played

    def push(self, code: int, captures: list[int] | None = None) -> None:
        """Apply a legal move given as the engine's int (no checks); the fast path."""
        if captures is None:
            captures = self.board.captures(code)
        board = self.board
        undo = board.push(code, captures)
        stack = self._stack
        if _pieces(undo[0], undo[1], undo[2]) == _pieces(board.att, board.dfn, board.king):
            self._run_start.append(self._run_start[-1] if stack else 0)
        else:
            self._run_start.append(len(stack) + 1)
        stack.append((undo, self.result, code, captures))
        self._before.append(undo[4])
        self._legal = self._legal_text = self._position = None
        h = self.board.hash
        self._counts[h] = self._counts.get(h, 0) + 1
        self.result = self._judge(False)

    def pop(self) -> None:
        """Take back the last move pushed or played."""
        undo, result, _, _ = self._stack.pop()
        self._run_start.pop()
        self._before.pop()
        self._legal = self._legal_text = self._position = None
        h = self.board.hash
        n = self._counts[h] - 1
        if n:
            self._counts[h] = n
        else:
            del self._counts[h]
        self.board.pop(undo)
        self.result = result

    def finish(self, winner: Side | None, reason: str) -> Result:
        """End a running game for a reason the service decides: timeout, resignation,
        draw_agreed, aborted or abandoned. Raises GameOver or InvalidResult and changes nothing."""
        if self.result is not None:
            raise GameOver(f"the game is over ({self.result}): it cannot end again")
        if reason not in SITE_REASONS:
            raise InvalidResult(
                f"{reason!r} is not an ending the service decides: "
                f"use one of {', '.join(sorted(SITE_REASONS))}"
            )
        self.result = Result(winner, reason)
        return self.result

    # -- results -----------------------------------------------------------------------

    def _judge(self, start: bool) -> Result | None:
        """The result after a move, in the order of docs/rules.md §Order of judgement; with
        ``start``, of a start position, which can already be over (tests and fixtures)."""
        board, rs = self.board, self.ruleset
        mover: Side = "attackers" if board.side else "defenders"
        if rs.slides:
            if board.att == 0:
                return Result("defenders", "attackers_eliminated")
            if board.king < 0:
                return Result("attackers", "king_captured")
            if board.king in _CORNER_SET:
                return Result("defenders", "king_escaped")
        else:
            # The enemy's pieces first, then the mover's own (a prince lost in the woods); a
            # start position has no mover: the defenders' first.
            for side in (
                ("defenders", "attackers")
                if start or mover == "attackers"
                else ("attackers", "defenders")
            ):
                if (board.dfn if side == "defenders" else board.att) == 0:
                    winner: Side = "attackers" if side == "defenders" else "defenders"
                    return Result(winner, f"{side}_eliminated")
        if self._counts[board.hash] >= 3:
            return _judged(rs.third_repetition, "repetition", mover)
        if not board.has_legal_move():
            return _judged(rs.no_legal_moves, "no_legal_moves", mover)
        if self._base_ply + len(self._stack) >= rs.move_limit:
            return Result(None, "move_limit")
        return None

    def __repr__(self) -> str:
        return f"Game(ruleset={self.ruleset.name!r}, position={self.position!r})"


def _pieces(att: int, dfn: int, king: int) -> int:
    return att.bit_count() + dfn.bit_count() + (king >= 0)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game in progress as plain values: enough to resume it exactly.

    ``recent`` holds the Zobrist hashes of the positions since the last capture (the only
    ones that can come round again), oldest first, the current one last.
    """

    ruleset: str
    start_position: str
    position: str
    ply: int
    woods: tuple[int, int, int, int]
    recent: tuple[int, ...]
    result: Result | None = None

    def __reduce__(self) -> tuple[type[Snapshot], tuple[object, ...]]:
        # Pickled by its fields: compiled (mypyc), the default would set them on a frozen instance.
        return Snapshot, (
            self.ruleset,
            self.start_position,
            self.position,
            self.ply,
            self.woods,
            self.recent,
            self.result,
        )


def _judged(outcome: Outcome, reason: str, mover: Side) -> Result:
    if outcome is Outcome.DRAW:
        return Result(None, reason)
    if outcome is Outcome.DEFENDERS_LOSE:
        return Result("attackers", reason)
    if outcome is Outcome.MOVER_LOSES:
        return Result("defenders" if mover == "attackers" else "attackers", reason)
    return Result(mover, reason)  # SIDE_TO_MOVE_LOSES: the mover wins


def _capture_mismatch(parsed: MoveText, captures: list[int]) -> str:
    base = f"{SQUARE_NAMES[parsed.origin]}-{SQUARE_NAMES[parsed.destination]}"
    given = ", ".join(SQUARE_NAMES[sq] for sq in parsed.captures or ())
    # In the order of move text: ascending by file, then rank.
    ordered = sorted(captures, key=lambda sq: (sq % 7, sq // 7))
    real = ", ".join(SQUARE_NAMES[sq] for sq in ordered) or "nothing"
    return f"{base} captures {real}, not {given}: leave the x-suffix out or correct it"


# -- explaining an illegal move ------------------------------------------------------


def _piece_name(board: Board, sq: int) -> str:
    if sq == board.king:
        return "the king"
    if board.att >> sq & 1:
        return "a baron" if not board.ruleset.slides else "an attacker"
    if board.dfn >> sq & 1:
        return "a prince" if not board.ruleset.slides else "a defender"
    return "nothing"


def explain_illegal(board: Board, parsed: MoveText) -> str:
    """A sentence saying why a move that is not in the legal list is illegal."""
    o, d = parsed.origin, parsed.destination
    on, dn = SQUARE_NAMES[o], SQUARE_NAMES[d]
    side = SIDE_NAMES[board.side]
    if not board.own >> o & 1:
        held = _piece_name(board, o)
        return f"{on} holds no piece of the side to move ({side} to move; {on} holds {held})"
    is_king = o == board.king
    if parsed.king and not is_king:
        return f"{on} holds {_piece_name(board, o)}, not the king: drop the K"
    if o == d:
        return f"{on}-{dn} does not move the piece"
    if board.ruleset.slides:
        return _explain_slide(board, o, d, is_king)
    return _explain_step(board, o, d, is_king)


def _explain_slide(board: Board, o: int, d: int, is_king: bool) -> str:
    on, dn = SQUARE_NAMES[o], SQUARE_NAMES[d]
    ray = next((r for r in RAYS[o] if d in r), None)
    if ray is None:
        return f"{on}-{dn} is not along a rank or file: pieces move in straight lines"
    if d == THRONE:
        if not is_king:
            return f"{dn} is the throne: no piece may stop there"
        if not board.ruleset.king_may_return_to_throne:
            return f"{dn} is the throne: no piece may stop there, the king once he has left it"
    if d in _CORNER_SET and not is_king:
        return f"{dn} is a corner: only the king may stop there"
    occ = board.occupied
    for sq in ray:
        if occ >> sq & 1:
            return f"the path from {on} to {dn} is blocked at {SQUARE_NAMES[sq]}"
        if sq == d:
            break
    return f"{on}-{dn} is not a legal move here"


def _explain_step(board: Board, o: int, d: int, is_king: bool) -> str:
    on, dn = SQUARE_NAMES[o], SQUARE_NAMES[d]
    orthogonal = d in NEIGHBOURS[o]
    diagonal = d in DIAGONAL_NEIGHBOURS[o]
    jump = next((mid for mid, end in DIAGONAL_JUMPS[o] if end == d), None)
    if not (orthogonal or diagonal or jump is not None):
        return f"{on}-{dn} is too far: a piece steps one square, or two along the white diagonals"
    if (diagonal or jump is not None) and not is_light(o):
        return f"{on} is not a white square: diagonal moves start only from white squares"
    if jump is not None and is_king:
        return "the king steps one square only"
    if d == THRONE and not is_king:
        return f"{dn} is the throne: only the king may stop there"
    if d == board.king:
        return f"{dn} holds the king, who can never be captured"
    enemy = board.enemy
    if board.own >> d & 1:
        return f"{dn} holds a piece of your own"
    if jump is not None:
        if jump == THRONE:
            return f"only the king may pass over the throne {SQUARE_NAMES[THRONE]}"
        if enemy >> d & 1:
            return f"{on}-{dn}: a two-square move may not capture"
        return f"the path from {on} to {dn} is blocked at {SQUARE_NAMES[jump]}"
    if diagonal and is_king and enemy >> d & 1:
        return "the king captures only orthogonally"
    return f"{on}-{dn} is not a legal move here"
