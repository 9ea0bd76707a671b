"""A game's analysis by the bot's search: an evaluation per position, each move judged.

Deterministic: every position is searched with the same node budget (``NODES_PER_PLY``) and
a random generator seeded with a constant, and the search reads no clock, so the same game
gives the same analysis, to the last field, on any machine (docs/analysis.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from brandubh.analysis.board import play_move, start_game
from brandubh.analysis.judge import Judgment, SideSummary, judge, move_accuracy, summarise
from brandubh.analysis.winchance import win_chance
from brandubh.bot import MATE_BOUND, WIN, Searcher, table_key
from brandubh.engine import Game, Side, make_move, opponent

# Bumped whenever a change would give a stored analysis different numbers.
ANALYSIS_VERSION: Final = 1
# Nodes per position of a game analysis, and for one position of the analysis board
# (docs/analysis.md, "Determinism and budget": about 0.3 s and 0.2 s compiled).
NODES_PER_PLY: Final = 250_000
BOARD_NODES: Final = 150_000
# The preferred line shown with a judged move, in plies.
LINE_PLIES: Final = 6
# A forced win's line is followed to its end, up to this many plies.
FORCED_PLIES: Final = 40
# Nodes of the small searches that finish a forced line where the table has no move.
_FINISH_NODES: Final = 2_000
_SEED: Final = 31  # every search's tie-breaking order: any constant, the same everywhere

_TEXTS: Final[dict[str, str]] = {
    "king_escaped": "the king escapes in {n}",
    "king_captured": "the king is captured in {n}",
    "attackers_eliminated": "the attackers are all taken in {n}",
    "defenders_eliminated": "the defenders are all taken in {n}",
    "no_legal_moves": "the {winner} win in {n}, no move left",
    "repetition": "the {winner} win in {n} by repetition",
}


@dataclass(frozen=True, slots=True)
class Forced:
    """A win the search proved: who wins, in how many plies, and a sentence saying how."""

    winner: Side
    plies: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "in": self.plies, "text": self.text}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Forced:
        return cls(data["winner"], int(data["in"]), data["text"])


@dataclass(frozen=True, slots=True)
class PositionEval:
    """A position's evaluation: score and chance in the defenders' view, a proved win if
    any, and the best line from it (canonical move texts)."""

    score: int
    chance: float
    forced: Forced | None = None
    pv: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "chance": self.chance,
            "forced": None if self.forced is None else self.forced.to_dict(),
            "pv": list(self.pv),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PositionEval:
        forced = data.get("forced")
        return cls(
            int(data["score"]),
            float(data["chance"]),
            None if forced is None else Forced.from_dict(forced),
            tuple(data.get("pv", ())),
        )


@dataclass(frozen=True, slots=True)
class PlyAnalysis:
    """One move: who played it, the position after it, its judgment, accuracy, and the
    search's preferred move and line from the position before it (None, () if it was that)."""

    ply: int
    move: str
    side: Side
    eval: PositionEval
    judgment: Judgment | None
    accuracy: float
    best: str | None
    line: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.move,
            "side": self.side,
            **self.eval.to_dict(),
            "judgment": self.judgment,
            "accuracy": self.accuracy,
            "best": self.best,
            "line": list(self.line),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlyAnalysis:
        return cls(
            int(data["ply"]),
            data["move"],
            data["side"],
            PositionEval.from_dict(data),
            data.get("judgment"),
            float(data["accuracy"]),
            data.get("best"),
            tuple(data.get("line", ())),
        )


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """A whole game's analysis (the JSON of docs/analysis.md through ``to_dict``)."""

    ruleset: str
    nodes: int
    start: PositionEval
    plies: tuple[PlyAnalysis, ...]
    sides: dict[Side, SideSummary] = field(default_factory=dict)
    version: int = ANALYSIS_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "ruleset": self.ruleset,
            "nodes": self.nodes,
            "start": self.start.to_dict(),
            "plies": [p.to_dict() for p in self.plies],
            "sides": {side: summary.to_dict() for side, summary in self.sides.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameAnalysis:
        return cls(
            ruleset=data["ruleset"],
            nodes=int(data["nodes"]),
            start=PositionEval.from_dict(data["start"]),
            plies=tuple(PlyAnalysis.from_dict(p) for p in data["plies"]),
            sides={side: SideSummary.from_dict(s) for side, s in data["sides"].items()},
            version=int(data["version"]),
        )


@dataclass(frozen=True, slots=True)
class _Searched:
    """A position's evaluation and the search's first move there (None once the game is over)."""

    eval: PositionEval
    best: str | None
    nodes: int = 0  # the nodes the search spent (0: not searched, the game was over)


def _move_text(game: Game, code: int) -> str:
    board = game.board
    return str(make_move(code, bool(board.side) and code & 63 == board.king, board.captures(code)))


def _line(game: Game, searcher: Searcher, first: int, plies: int, finish: bool) -> list[str]:
    """The search's line from ``game``: its move, then the table's moves while they last;
    with ``finish`` (a proved win) small searches fill what the table lacks, to the end."""
    work = Game.from_snapshot(game.snapshot())
    line: list[str] = []
    code = first
    while len(line) < plies and work.result is None:
        if not code or code not in work.board.legal_moves():
            if not finish:
                break
            code = Searcher(Game.from_snapshot(work.snapshot()), _FINISH_NODES).run(_rng()).move
        line.append(_move_text(work, code))
        work.push(code)
        entry = searcher.tt.get(table_key(work))
        code = entry[3] if entry is not None else 0
    return line


def _forced(mover: Side, score: int, game: Game, pv: list[str]) -> Forced | None:
    """The proved win behind a score past ``MATE_BOUND`` (side to move's view), if any."""
    if abs(score) < MATE_BOUND:
        return None
    winner = mover if score > 0 else opponent(mover)
    plies = WIN - abs(score)
    reason = None
    if len(pv) == plies:
        end = Game.from_snapshot(game.snapshot())
        for text in pv:
            end.play(text)
        if end.result is not None and end.result.winner == winner:
            reason = end.result.reason
    moves = (plies + 1) // 2 if winner == mover else plies // 2
    n = f"{moves} move" if moves == 1 else f"{moves} moves"
    text = _TEXTS.get(reason or "", "the {winner} win in {n}")
    return Forced(winner, plies, text.format(n=n, winner=winner))


def _rng() -> random.Random:
    return random.Random(_SEED)


def _ended(game: Game) -> PositionEval:
    """A finished game's last position: certain."""
    assert game.result is not None
    winner = game.result.winner
    if winner is None:
        return PositionEval(0, 0.5)
    won = winner == "defenders"
    return PositionEval(WIN if won else -WIN, 1.0 if won else 0.0)


def _search(game: Game, nodes: int) -> _Searched:
    """Search the game's position with ``nodes``; the evaluation in the defenders' view."""
    if game.result is not None:
        return _Searched(_ended(game), None)
    searcher = Searcher(Game.from_snapshot(game.snapshot()), nodes)
    found = searcher.run(_rng())
    mover = game.side_to_move
    proved = abs(found.score) >= MATE_BOUND
    plies = min(WIN - abs(found.score), FORCED_PLIES) if proved else LINE_PLIES
    pv = _line(game, searcher, found.move, plies, proved)
    score = found.score if mover == "defenders" else -found.score
    forced = _forced(mover, found.score, game, pv)
    # Rounded so that the last bits of exp() on another platform cannot show.
    chance = round(win_chance(game.ruleset.name, score), 4)
    return _Searched(
        PositionEval(score, chance, forced, tuple(pv)), pv[0] if pv else None, found.nodes
    )


def search_game(game: Game, nodes: int) -> tuple[PositionEval, int]:
    """The evaluation of the game's position, searched with its repetition history as a
    game's analysis searches it, and the nodes spent (0 for a game that is over)."""
    searched = _search(game, nodes)
    return searched.eval, searched.nodes


def evaluate_position(ruleset: str, position: str, *, nodes: int = BOARD_NODES) -> PositionEval:
    """The evaluation of one position (no history before it) with the board's budget.

    Raises the engine's UnknownRuleSet or InvalidPosition for a bad rule set or position.
    """
    return _search(Game(ruleset, position), nodes).eval


def _mover_chance(side: Side, chance: float) -> float:
    return chance if side == "defenders" else 1.0 - chance


def analyse_game(
    ruleset: str,
    moves: Sequence[str],
    *,
    position: str | None = None,
    nodes: int = NODES_PER_PLY,
    on_ply: Callable[[int, int], None] | None = None,
) -> GameAnalysis:
    """Analyse a game's moves from ``position`` (the standard start if None).

    ``on_ply(done, of)`` is called after each ply. Raises board.IllegalLineMove for a
    move that cannot be played, and the engine's errors for a bad rule set or position.
    """
    game = start_game(ruleset, position)
    total = len(moves)
    previous = _search(game, nodes)
    start = previous.eval
    plies: list[PlyAnalysis] = []
    by_side: dict[Side, list[tuple[Judgment | None, float]]] = {"attackers": [], "defenders": []}
    for index, text in enumerate(moves):
        side = game.side_to_move
        played = play_move(game, index, text)
        current = _search(game, nodes)
        before = _mover_chance(side, previous.eval.chance)
        after = _mover_chance(side, current.eval.chance)
        judgment: Judgment | None = None
        best: str | None = None
        line: tuple[str, ...] = ()
        accuracy = 100.0
        # The search's own choice is no error by its standard, whatever the next search
        # (a ply deeper into the game) makes of it: only another move is judged.
        if played != previous.best:
            judgment = judge(before, after)
            accuracy = round(move_accuracy(before, after), 1)
            best, line = previous.best, previous.eval.pv[:LINE_PLIES]
        plies.append(
            PlyAnalysis(index + 1, played, side, current.eval, judgment, accuracy, best, line)
        )
        by_side[side].append((judgment, accuracy))
        previous = current
        if on_ply is not None:
            on_ply(index + 1, total)
    return GameAnalysis(
        ruleset=game.ruleset.name,
        nodes=nodes,
        start=start,
        plies=tuple(plies),
        sides={side: summarise(judged) for side, judged in by_side.items()},
    )
