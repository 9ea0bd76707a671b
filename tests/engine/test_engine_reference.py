"""A second, deliberately naive implementation of docs/rules.md, and the engine checked against it.

``Reference`` below is written from the rule table and the numbered decisions alone: a dict of
squares, plain loops, no bitboards and nothing imported from the engine but ``Game``, which it
is compared with. Random games and random positions of every rule set are played in both, and
after every ply the position, the set of legal moves (with captures), the repetition count and
the result must agree. It also recomputes the pinned perft figures to depth 3.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brandubh.engine import Game, perft

FILES = "abcdefg"
START = "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a"
Square = tuple[int, int]  # (file, rank), a1 = (0, 0)
THRONE: Square = (3, 3)
CORNERS: frozenset[Square] = frozenset({(0, 0), (0, 6), (6, 0), (6, 6)})
ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
MOVE_LIMIT = 400

RefMove = tuple[str, str, bool, tuple[str, ...]]  # origin, destination, king, captures
RefResult = tuple[str | None, str]  # winner, reason


@dataclass(frozen=True)
class Column:
    """One column of the rule table (docs/rules.md §Rule table)."""

    slide: bool
    king_may_stop_on_throne: bool
    empty_throne_hostile_to_soldiers: bool
    attackers_beside_throne: int  # 3: his other three sides; 2: in a line like anywhere
    attackers_on_throne: int  # 4: every side; 2: in a line
    no_legal_moves: str  # "draw" or "side_to_move_loses"
    repetition: str  # "draw", "defenders_lose" or "mover_loses"


TABLE: dict[str, Column] = {
    "nielsen": Column(True, False, True, 3, 4, "draw", "draw"),
    "federation": Column(True, False, True, 3, 4, "side_to_move_loses", "defenders_lose"),
    "common": Column(True, True, True, 2, 4, "side_to_move_loses", "mover_loses"),
    "walker": Column(True, True, False, 2, 2, "draw", "draw"),
    "newsome": Column(False, True, False, 0, 0, "draw", "draw"),
}
RULESET_NAMES = list(TABLE)


def name(sq: Square) -> str:
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def square(text: str) -> Square:
    return FILES.index(text[0]), int(text[1]) - 1


def on_board(sq: Square) -> bool:
    return 0 <= sq[0] < 7 and 0 <= sq[1] < 7


def plus(sq: Square, d: tuple[int, int], times: int = 1) -> Square:
    return sq[0] + d[0] * times, sq[1] + d[1] * times


def neighbours(sq: Square) -> list[Square]:
    return [n for d in ORTHOGONAL if on_board(n := plus(sq, d))]


def is_white(sq: Square) -> bool:
    return (sq[0] + sq[1]) % 2 == 0


def write_position(pieces: dict[Square, str], side: str) -> str:
    """The canonical position string (docs/rules.md §Position strings), written independently."""
    rows = []
    for rank in range(6, -1, -1):
        row, empty = "", 0
        for file in range(7):
            piece = pieces.get((file, rank))
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" a" if side == "attackers" else " d")


def other(side: str) -> str:
    return "defenders" if side == "attackers" else "attackers"


class Reference:
    """A game under one rule set, kept as a dict from square to "A", "D" or "K"."""

    def __init__(self, ruleset: str, position: str) -> None:
        self.ruleset = ruleset
        self.rules = TABLE[ruleset]
        board, side = position.split()
        self.pieces: dict[Square, str] = {}
        for i, row in enumerate(board.split("/")):
            file = 0
            for ch in row:
                if ch.isdigit():
                    file += int(ch)
                else:
                    self.pieces[(file, 6 - i)] = ch
                    file += 1
        self.side = "attackers" if side == "a" else "defenders"
        self.ply = 0
        self.seen: Counter[tuple[frozenset[tuple[Square, str]], str]] = Counter([self.key()])
        # newsome: the ply a prince on a corner arrived on (a prince given in the position has
        # "arrived" on ply 0, so he has ended one ply there already).
        self.arrived: dict[Square, int] = {
            c: 0 for c in CORNERS if not self.rules.slide and self.pieces.get(c) == "D"
        }
        self.result: RefResult | None = self.initial_result()

    # -- state -----------------------------------------------------------------------------

    def key(self) -> tuple[frozenset[tuple[Square, str]], str]:
        return frozenset(self.pieces.items()), self.side

    def position(self) -> str:
        return write_position(self.pieces, self.side)

    def clone(self) -> Reference:
        new = Reference.__new__(Reference)
        new.ruleset, new.rules, new.side, new.ply = self.ruleset, self.rules, self.side, self.ply
        new.pieces, new.arrived = dict(self.pieces), dict(self.arrived)
        new.seen, new.result = Counter(self.seen), self.result
        return new

    def owns(self, piece: str | None, side: str) -> bool:
        return piece == "A" if side == "attackers" else piece in ("D", "K")

    # -- moves -----------------------------------------------------------------------------

    def moves(self) -> set[RefMove]:
        if self.result is not None:
            return set()
        out: set[RefMove] = set()
        for origin, piece in self.pieces.items():
            if not self.owns(piece, self.side):
                continue
            targets = (
                self.slide_targets(origin, piece)
                if self.rules.slide
                else self.step_targets(origin, piece)
            )
            for dest in targets:
                caps = sorted(self.captures(origin, dest))  # (file, rank) tuples: file first
                out.add((name(origin), name(dest), piece == "K", tuple(name(c) for c in caps)))
        return out

    def slide_targets(self, origin: Square, piece: str) -> list[Square]:
        """Rook moves: stop on corners only the king; on the throne only a king allowed home."""
        out = []
        for d in ORTHOGONAL:
            sq = plus(origin, d)
            while on_board(sq) and sq not in self.pieces:
                if sq in CORNERS and piece != "K":
                    pass
                elif sq == THRONE and not (piece == "K" and self.rules.king_may_stop_on_throne):
                    pass  # passing over the empty throne is allowed to everyone
                else:
                    out.append(sq)
                sq = plus(sq, d)
        return out

    def step_targets(self, origin: Square, piece: str) -> list[Square]:
        """newsome (decision 5): one step, diagonals from white squares, jumps, replacement."""
        enemy = "D" if self.side == "attackers" else "A"  # the king is never captured
        out = []
        steps = [(d, True) for d in ORTHOGONAL]
        if is_white(origin):
            steps += [(d, False) for d in DIAGONAL]
        for d, orthogonal in steps:
            sq = plus(origin, d)
            if not on_board(sq) or (sq == THRONE and piece != "K"):
                continue
            held = self.pieces.get(sq)
            if held is None or (held == enemy and (orthogonal or piece != "K")):
                out.append(sq)
        if piece != "K" and is_white(origin):
            for d in DIAGONAL:
                mid, end = plus(origin, d), plus(origin, d, 2)
                if (
                    on_board(end)
                    and THRONE not in (mid, end)
                    and mid not in self.pieces
                    and end not in self.pieces
                ):
                    out.append(end)
        return out

    def captures(self, origin: Square, dest: Square) -> list[Square]:
        if not self.rules.slide:
            return [dest] if dest in self.pieces else []
        after = dict(self.pieces)
        mover = after.pop(origin)
        after[dest] = mover
        out = []
        for d in ORTHOGONAL:
            victim_sq, far = plus(dest, d), plus(dest, d, 2)
            victim = after.get(victim_sq)
            if victim is None or self.owns(victim, self.side) or not on_board(far):
                continue  # nothing to take, or only the board edge beyond: no capture
            if victim == "K":
                if self.king_taken(victim_sq, far, after):
                    out.append(victim_sq)
            elif (
                self.owns(after.get(far), self.side)
                or far in CORNERS
                or (
                    far == THRONE
                    and far not in after
                    and self.rules.empty_throne_hostile_to_soldiers
                )
            ):
                out.append(victim_sq)
        return out

    def king_taken(self, king: Square, far: Square, after: dict[Square, str]) -> bool:
        around = neighbours(king)
        if king == THRONE:
            if self.rules.attackers_on_throne == 4:
                return all(after.get(n) == "A" for n in around)
            return after.get(far) == "A"
        if THRONE in around:
            if self.rules.attackers_beside_throne == 3:
                return all(after.get(n) == "A" for n in around if n != THRONE)
            return after.get(far) == "A"  # the throne never helps against the king here
        return after.get(far) == "A" or far in CORNERS

    # -- playing and judging ---------------------------------------------------------------

    def play(self, move: RefMove) -> None:
        origin, dest = square(move[0]), square(move[1])
        piece = self.pieces.pop(origin)
        for cap in move[3]:
            del self.pieces[square(cap)]
        self.pieces[dest] = piece
        self.ply += 1
        mover = self.side
        self.side = other(self.side)
        if not self.rules.slide:
            self.lose_in_the_woods(dest)
        self.seen[self.key()] += 1
        self.result = self.judge(mover)

    def lose_in_the_woods(self, dest: Square) -> None:
        for corner in CORNERS:
            if self.pieces.get(corner) != "D":
                self.arrived.pop(corner, None)
                continue
            if corner == dest:
                self.arrived[corner] = self.ply
            if self.ply - self.arrived[corner] + 1 >= 3:
                del self.pieces[corner]
                del self.arrived[corner]

    def count(self, piece: str) -> int:
        return sum(1 for p in self.pieces.values() if p == piece)

    def judge(self, mover: str) -> RefResult | None:
        """Decision 7: pieces gone, king captured or escaped, repetition, stuck, 400 plies."""
        if self.rules.slide:
            if self.count("A") == 0:
                return "defenders", "attackers_eliminated"
            if self.count("K") == 0:
                return "attackers", "king_captured"
            if any(self.pieces.get(c) == "K" for c in CORNERS):
                return "defenders", "king_escaped"
        else:
            enemy, own = ("D", "A") if mover == "attackers" else ("A", "D")
            if self.count(enemy) == 0:
                return mover, f"{other(mover)}_eliminated"
            if self.count(own) == 0:
                return other(mover), f"{mover}_eliminated"
        if self.seen[self.key()] >= 3:
            rule = self.rules.repetition
            if rule == "draw":
                return None, "repetition"
            if rule == "defenders_lose":
                return "attackers", "repetition"
            return other(mover), "repetition"
        if not self.moves_exist():
            if self.rules.no_legal_moves == "draw":
                return None, "no_legal_moves"
            return mover, "no_legal_moves"
        if self.ply >= MOVE_LIMIT:
            return None, "move_limit"
        return None

    def initial_result(self) -> RefResult | None:
        self.result = None
        if self.rules.slide:
            if self.count("A") == 0:
                return "defenders", "attackers_eliminated"
            if self.count("K") == 0:
                return "attackers", "king_captured"
            if any(self.pieces.get(c) == "K" for c in CORNERS):
                return "defenders", "king_escaped"
        else:
            if self.count("D") == 0:
                return "attackers", "defenders_eliminated"
            if self.count("A") == 0:
                return "defenders", "attackers_eliminated"
        if not self.moves_exist():
            if self.rules.no_legal_moves == "draw":
                return None, "no_legal_moves"
            return other(self.side), "no_legal_moves"
        return None

    def moves_exist(self) -> bool:
        saved, self.result = self.result, None
        found = bool(self.moves())
        self.result = saved
        return found


def ref_perft(ref: Reference, depth: int) -> int:
    if depth == 0:
        return 1
    moves = ref.moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = ref.clone()
        child.play(move)
        total += ref_perft(child, depth - 1)
    return total


# -- comparing the engine with the reference ---------------------------------------------------


def engine_moves(game: Game) -> set[RefMove]:
    return {(m.origin, m.destination, m.king, m.captures) for m in game.legal_moves()}


def engine_result(game: Game) -> RefResult | None:
    return None if game.result is None else (game.result.winner, game.result.reason)


def assert_agree(game: Game, ref: Reference) -> None:
    assert game.position == ref.position()
    assert engine_result(game) == ref.result
    assert game.repetitions == ref.seen[ref.key()]
    assert engine_moves(game) == ref.moves()


def play_both(game: Game, ref: Reference, choices: list[int]) -> None:
    """Play a random line in both, comparing everything after every ply."""
    assert_agree(game, ref)
    for choice in choices:
        moves = sorted(ref.moves())
        if not moves:
            break
        move = moves[choice % len(moves)]
        played = game.play(f"{move[0]}-{move[1]}")
        assert (played.origin, played.destination, played.king, played.captures) == move
        ref.play(move)
        assert_agree(game, ref)


ALL_SQUARES = [(f, r) for r in range(7) for f in range(7)]
NEAR_THRONE = [THRONE, *neighbours(THRONE)]


@st.composite
def random_positions(draw: st.DrawFn, ruleset: str) -> str:
    """A position with 1-8 attackers, 0-4 defenders and a king, on squares they may hold."""
    slide = TABLE[ruleset].slide
    king_squares = [sq for sq in ALL_SQUARES if not (slide and sq in CORNERS)]
    king = draw(st.one_of(st.sampled_from(NEAR_THRONE), st.sampled_from(king_squares)))
    soldier_squares = [
        sq for sq in ALL_SQUARES if sq not in (king, THRONE) and not (slide and sq in CORNERS)
    ]
    attackers = draw(st.integers(1, 8))
    defenders = draw(st.integers(0, 4))
    # Crowd the king now and then, so that king captures are reached often.
    near_king = [sq for sq in soldier_squares if abs(sq[0] - king[0]) + abs(sq[1] - king[1]) <= 2]
    first = draw(st.lists(st.sampled_from(near_king), max_size=4, unique=True))
    rest = draw(st.permutations([sq for sq in soldier_squares if sq not in first]))
    chosen = (first + rest)[: attackers + defenders]
    pieces = {king: "K"}
    for i, sq in enumerate(chosen):
        pieces[sq] = "A" if i % 2 == 0 or i >= 2 * defenders else "D"
    return write_position(pieces, draw(st.sampled_from(["attackers", "defenders"])))


# -- tests -------------------------------------------------------------------------------------


# Through depth 3 from the start the king is still on the throne (he is walled in until a
# defender has moved), so the four slide rule sets run the same rules; one of them suffices.
@pytest.mark.parametrize("ruleset", ["nielsen", "newsome"])
def test_reference_perft_matches_the_pinned_start_figures(ruleset: str) -> None:
    """Independent check of the pinned perft figures (depths 1-3) from the start position."""
    expected = [36, 560, 19548] if ruleset == "newsome" else [40, 960, 39512]
    ref = Reference(ruleset, START)
    assert [ref_perft(ref, d) for d in (1, 2, 3)] == expected


@pytest.mark.parametrize("ruleset", ["nielsen", "common", "walker"])  # federation = nielsen
def test_reference_perft_matches_the_engine_beside_the_throne(ruleset: str) -> None:
    """Independent check of perft where the slide rule sets differ (king beside the throne)."""
    position = "7/5DA/2AK3/4A2/1A4D/7/7 d"
    game = Game.from_position(position, ruleset)
    ref = Reference(ruleset, position)
    assert [ref_perft(ref, d) for d in (1, 2, 3)] == [perft(game, d) for d in (1, 2, 3)]


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 10_000), min_size=1, max_size=80))
def test_random_games_from_the_start_agree_with_the_reference(
    ruleset: str, choices: list[int]
) -> None:
    """Every rule of the table, compared ply by ply in random games from the start."""
    play_both(Game(ruleset), Reference(ruleset, START), choices)


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_positions_agree_with_the_reference(ruleset: str, data: st.DataObject) -> None:
    """Captures near the throne, corners and edges, compared from random crowded positions."""
    position = data.draw(random_positions(ruleset), label="position")
    choices = data.draw(st.lists(st.integers(0, 10_000), max_size=12), label="choices")
    play_both(Game.from_position(position, ruleset), Reference(ruleset, position), choices)
