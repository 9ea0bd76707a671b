"""The courses: one per rule set, each an ordered list of stages (docs/learn.md).

Where the rule sets differ, a stage differs with them and says the difference in words.
Positions are written as pieces on squares ("Ac2 Kf5") and become the engine's position
text; tests/lessons/ proves every stage solvable within its moves.
"""

from __future__ import annotations

from typing import Final

from brandubh.engine import RULESETS, Result, Side, format_position
from brandubh.lessons.stages import Course, Goal, GoalKind, Stage

FIRST_GAME_LEVEL: Final = 1


def at(pieces: str, to_move: str) -> str:
    """The engine's position text for pieces such as ``"Ac2 Dc3 Kf5"`` (A attacker,
    D defender, K king) with ``to_move`` ("a" or "d") to move."""
    att = dfn = 0
    king = -1
    for piece in pieces.split():
        sq = (int(piece[2]) - 1) * 7 + "abcdefg".index(piece[1])
        if piece[0] == "A":
            att |= 1 << sq
        elif piece[0] == "D":
            dfn |= 1 << sq
        else:
            king = sq
    return format_position(att, dfn, king, 1 if to_move == "d" else 0)


def _reach(square: str, moves: int = 1, king: bool = False) -> Goal:
    return Goal(GoalKind.REACH, moves, squares=(square,), king=king)


def _capture(*squares: str, moves: int = 1) -> Goal:
    return Goal(GoalKind.CAPTURE, moves, squares=squares)


def _result(winner: Side | None, reason: str, moves: int = 1) -> Goal:
    return Goal(GoalKind.RESULT, moves, result=Result(winner, reason))


# -- the slide rule sets ---------------------------------------------------------------

MOVING: Final = Stage(
    id="moving",
    title="Moving",
    position=at("Ad2 Af7 Kb6 Db5", "a"),
    goal=_reach("d6"),
    task="You play the attackers: move the attacker on d2 to d6.",
    explanation=(
        "Every piece moves like a rook in chess: any number of empty squares along its row "
        "or column, never diagonally, never over another piece. A soldier may cross the empty "
        "throne (d4) but never stop on it or on a corner."
    ),
    hint="Slide straight up the d file, over the empty throne.",
    success="Well done: a piece slides as far as it likes along a straight, empty line.",
)

KING_NO_RETURN: Final = Stage(
    id="king",
    title="The king",
    position=at("Kd2 Dc2 Ab1 Af1", "d"),
    goal=_reach("d6", king=True),
    task="You play the defenders: move the king from d2 to d6.",
    explanation=(
        "The king moves like every other piece. Once he has left the throne (d4) he may "
        "cross it but never stop on it again in these rules; only he may stop on a corner."
    ),
    hint="The king slides up the d file, straight over the empty throne.",
    success="Right: the king crossed the empty throne, where he may no longer stop.",
)

KING_GOES_HOME: Final = Stage(
    id="king",
    title="The king",
    position=at("Kb4 Dc2 Ab6 Ab2", "d"),
    goal=_reach("d4", king=True),
    task="You play the defenders: bring the king home to the throne on d4.",
    explanation=(
        "The king moves like every other piece, and in these rules he may go back to the "
        "throne (d4) whenever he likes; no soldier may stop there, and only he may stop on "
        "a corner."
    ),
    hint="Slide the king along the fourth row to the middle square.",
    success="Right: here the king may go home to the throne, where he is safest.",
)

CAPTURE: Final = Stage(
    id="capture",
    title="Capturing between two",
    position=at("Ac2 Ac6 Dc3 Kf5 Df4", "a"),
    goal=_capture("c3"),
    task="Capture the defender on c3.",
    explanation=(
        "A soldier is captured when an enemy moves next to it and another enemy already "
        "stands on the far side, in a straight line. Only the piece that moves captures: "
        "a piece may safely step between two enemies."
    ),
    hint="The attacker on c2 is already below the defender: close the trap from above.",
    success="Captured: the defender was trapped between two attackers in a line.",
)

KING_FIGHTS: Final = Stage(
    id="king-fights",
    title="The king fights",
    position=at("Ke3 Dc5 Ac4 Af6", "d"),
    goal=_capture("c4"),
    task="You play the defenders: capture the attacker on c4 with the king.",
    explanation=(
        "The king is armed: he captures attackers as a defender does, as the piece that "
        "moves in or as the piece on the far side."
    ),
    hint="The defender on c5 waits above c4: bring the king to c3.",
    success="The king took an attacker: he fights like his defenders.",
)

CORNERS: Final = Stage(
    id="corners",
    title="The corners help",
    position=at("Db7 Ac2 Kf3 De3", "a"),
    goal=_capture("b7"),
    task="Capture the defender on b7 with a single attacker.",
    explanation=(
        "A corner is hostile: it stands in for an enemy on the far side of a piece, for "
        "both sides and even for the king. One attacker beside a piece next to a corner "
        "captures it."
    ),
    hint="a7 is a corner: an attacker on c7 closes the trap.",
    success="Captured against the corner: corners count as an enemy piece.",
)

THRONE_HOSTILE: Final = Stage(
    id="throne",
    title="The empty throne helps",
    position=at("Dd5 Af6 Ag2 Kb2 Db3", "a"),
    goal=_capture("d5"),
    task="Capture the defender on d5 with a single attacker.",
    explanation=(
        "Once the king has left it, the empty throne (d4) is hostile to every soldier, like "
        "a corner: a piece beside it is captured by one enemy on its other side."
    ),
    hint="d4 is the empty throne, below the defender: close the trap from d6.",
    success="Captured against the empty throne.",
)

THRONE_NEUTRAL: Final = Stage(
    id="throne",
    title="The empty throne is no help",
    position=at("Dd5 Ac5 Af6 Ae1 Kb2 Db3", "a"),
    goal=_capture("d5"),
    task="Capture the defender on d5.",
    explanation=(
        "In Walker's rules the empty throne (d4) is hostile to nobody: an attacker on d6 "
        "would capture nothing. Only the corners help; beside the throne, two attackers in "
        "a line are needed."
    ),
    hint="The attacker on c5 is on one side of d5: bring another to e5.",
    success="Captured by two in a line: the empty throne helps nobody in these rules.",
)

ESCAPE: Final = Stage(
    id="escape",
    title="The king escapes",
    position=at("Kc3 Dd5 Ad6 Ae4 Ab5", "d"),
    goal=_result("defenders", "king_escaped", moves=2),
    task="Get the king to a corner in 2 moves, whatever the attackers do.",
    explanation=(
        "The defenders win when the king stops on a corner. An attacker can block one "
        "path at a time: threaten two corners at once and he cannot stop both."
    ),
    hint="Move the king to an edge square from which two corners are open.",
    success="Escaped: the king reached a corner and the defenders win.",
)

KING_BY_TWO: Final = Stage(
    id="king-two",
    title="Capturing the king",
    position=at("Ke6 Ad6 Af2 Dc2", "a"),
    goal=_result("attackers", "king_captured"),
    task="Capture the king.",
    explanation=(
        "Away from the throne the king is captured like a soldier: two attackers on "
        "opposite sides in a line, or one attacker with a corner on the other side. The "
        "attackers win at once."
    ),
    hint="An attacker stands on d6, left of the king: close in from the right.",
    success="The king is captured: the attackers win.",
)

KING_BESIDE_THREE: Final = Stage(
    id="king-beside-throne",
    title="The king beside the throne",
    position=at("Kc4 Ac5 Ac3 Ab1 Df6", "a"),
    goal=_result("attackers", "king_captured"),
    task="Capture the king beside the throne.",
    explanation=(
        "Beside the throne the king needs three attackers, on the three sides that are not "
        "the throne (in Common rules two in a line are enough)."
    ),
    hint="c5 and c3 are taken: the third side is b4.",
    success="Three attackers and the throne: the king is captured.",
)

KING_BESIDE_TWO: Final = Stage(
    id="king-beside-throne",
    title="The king beside the throne",
    position=at("Kc4 Ac5 Ag3 Df6", "a"),
    goal=_result("attackers", "king_captured"),
    task="Capture the king beside the throne.",
    explanation=(
        "In these rules the throne never works against the king: beside it he is captured "
        "by two attackers in a line, as anywhere (in Nielsen's rules it takes three)."
    ),
    hint="c5 is above the king: close in from c3.",
    success="Two in a line: the king is captured, even beside the throne.",
)

KING_ON_THRONE_FOUR: Final = Stage(
    id="king-on-throne",
    title="The king on the throne",
    position=at("Kd4 Ad5 Ad3 Ac4 Ae7 Db6", "a"),
    goal=_result("attackers", "king_captured"),
    task="Capture the king on his throne.",
    explanation=(
        "On the throne the king is captured only by attackers on all four sides (in "
        "Walker's rules two in a line are enough)."
    ),
    hint="Three sides are taken: the fourth is e4.",
    success="Surrounded on four sides: the king is captured.",
)

KING_ON_THRONE_TWO: Final = Stage(
    id="king-on-throne",
    title="The king on the throne",
    position=at("Kd4 Ad5 Aa3 Db6", "a"),
    goal=_result("attackers", "king_captured"),
    task="Capture the king on his throne.",
    explanation=(
        "In Walker's rules the king is taken by two attackers in a line everywhere, on the "
        "throne too (in the other rule sets it takes four there)."
    ),
    hint="d5 is above the king: close in from d3.",
    success="Two in a line: the king is captured on his throne.",
)

# The position before the prelude; the prelude shuttles the king and an attacker twice, so
# that the learner's move can bring the start position round a third time.
_REPEAT_AT: Final = at("Ke6 Dc2 Dg2 Ab3 Ag5 Af2", "a")
_REPEAT_PRELUDE: Final = ("b3-b2", "Ke6-f6", "b2-b3", "Kf6-e6", "b3-b2", "Ke6-f6", "b2-b3")


def _repetition(winner: Side | None, task: str, explanation: str, success: str) -> Stage:
    return Stage(
        id="repetition",
        title="Repetition",
        position=_REPEAT_AT,
        prelude=_REPEAT_PRELUDE,
        goal=_result(winner, "repetition"),
        task=task,
        explanation=explanation,
        hint="Move the king back to e6, where he stood twice before with the same board.",
        success=success,
    )


REPETITION_DRAW: Final = _repetition(
    None,
    "The position has come round twice: make it come round a third time, for a draw.",
    "When a position (the same pieces on the same squares, the same side to move) comes "
    "round a third time, the game is a draw in these rules.",
    "A third repetition: the game is drawn.",
)

# federation: the learner attacks, so the prelude starts with the defenders.
REPETITION_ATTACKERS: Final = Stage(
    id="repetition",
    title="Repetition",
    position=at("Kf6 Dc2 Dg2 Ab2 Ag5 Af2", "d"),
    prelude=("Kf6-e6", "b2-b3", "Ke6-f6", "b3-b2", "Kf6-e6", "b2-b3", "Ke6-f6"),
    goal=_result("attackers", "repetition"),
    task="You play the attackers: make the position come round a third time, and win.",
    explanation=(
        "In the Federation's rules a third repetition loses for the defenders, whichever "
        "side repeated: the defenders must find something new."
    ),
    hint="Move the attacker on b3 back to b2.",
    success="A third repetition: the attackers win.",
)

REPETITION_LOSES: Final = Stage(
    id="repetition",
    title="Repetition",
    position=_REPEAT_AT,
    prelude=_REPEAT_PRELUDE,
    goal=_capture("f2"),
    task="Capture the attacker on f2, without repeating the position a third time.",
    explanation=(
        "In Common rules the player whose move brings a position round the third time "
        "loses: Kf6-e6 would repeat it for the third time and lose at once."
    ),
    hint="The defender on g2 waits beside f2: close the trap from e2.",
    success="Captured, and no third repetition: you stepped off the loop in time.",
)

_BLOCKED_AT: Final = at("Ad1 Dc1 De1 Dg2 Kf5", "d")


def _blocked(winner: Side | None, explanation: str, success: str) -> Stage:
    return Stage(
        id="blocked",
        title="The blocked side",
        position=_BLOCKED_AT,
        goal=_result(winner, "no_legal_moves"),
        task="You play the defenders: leave the attackers without a legal move.",
        explanation=explanation,
        hint="The attacker on d1 can only go up the d file: block d2 from g2.",
        success=success,
    )


BLOCKED_DRAW: Final = _blocked(
    None,
    "A side that cannot move when its turn comes does not lose in these rules: the game "
    "is a draw. Blocking is a way out of a lost game, not a win.",
    "The attackers cannot move: the game is drawn.",
)

BLOCKED_WINS: Final = _blocked(
    "defenders",
    "A side that cannot move when its turn comes loses in these rules: block the last "
    "attacker and the defenders win.",
    "The attackers cannot move, and lose.",
)


def _first_game(explanation: str) -> Stage:
    return Stage(
        id="first-game",
        title="Your first game",
        position="",
        goal=Goal(GoalKind.GAME, 0),
        task="Play a whole game against the bot at level 1.",
        explanation=explanation,
        hint="As the defenders, look for two open paths to the corners at once.",
        success="",
        bot_level=FIRST_GAME_LEVEL,
    )


FIRST_GAME: Final = _first_game(
    "You know every rule now: play a game against the gentlest bot. Who attacks is drawn by lot."
)


def _slide(
    name: str,
    king: Stage,
    throne: Stage,
    beside: Stage,
    on_throne: Stage,
    repetition: Stage,
    blocked: Stage,
) -> Course:
    stages = (
        MOVING,
        king,
        CAPTURE,
        KING_FIGHTS,
        CORNERS,
        throne,
        ESCAPE,
        KING_BY_TWO,
        beside,
        on_throne,
        repetition,
        blocked,
        FIRST_GAME,
    )
    return Course(name, RULESETS[name].title, stages)


# -- newsome ---------------------------------------------------------------------------

N_MOVING: Final = Stage(
    id="moving",
    title="Moving",
    position=at("Aa3 Ag1 Kd4 De7", "a"),
    goal=_reach("c5"),
    task="You play the barons: move the baron on a3 to c5 in one move.",
    explanation=(
        "In Newsome's game every piece steps one square along its row or column. From a "
        "white square (a1, c1, b2, ... where file and rank add up to an even number) it may "
        "also step diagonally, and princes and barons may jump two squares diagonally over "
        "an empty square."
    ),
    hint="a3 is a white square: jump diagonally over b4.",
    success="A two-square diagonal jump: only from a white square, over an empty one.",
)

N_CAPTURE: Final = Stage(
    id="capture",
    title="Capturing by replacement",
    position=at("Ab2 Dc3 Dg7 Kd4 Ag1", "a"),
    goal=_capture("c3"),
    task="Capture the prince on c3.",
    explanation=(
        "A piece captures by moving onto an enemy one step away, along a line or, from a "
        "white square, diagonally. One move captures one piece; a two-square jump never "
        "captures."
    ),
    hint="b2 is a white square and c3 is one step away diagonally.",
    success="Captured by replacement: the baron took the prince's square.",
)

N_KING: Final = Stage(
    id="king",
    title="The king",
    position=at("Kd4 De7 Ad5 Ag1 Aa1", "d"),
    goal=_capture("d5"),
    task="You play the princes: capture the baron on d5 with the king.",
    explanation=(
        "The king steps one square and captures orthogonally only. He can never be "
        "captured: no piece may move onto him, and he wins nothing by reaching a corner."
    ),
    hint="The baron is right above the king.",
    success="The king took a baron; nobody can ever take him.",
)

N_WIN: Final = Stage(
    id="win",
    title="Winning",
    position=at("Ac3 Dd3 Kf6 Ag7", "a"),
    goal=_result("attackers", "defenders_eliminated"),
    task="You play the barons: capture the last prince and win.",
    explanation=(
        "The barons win by capturing every prince (the king does not count), the princes by "
        "capturing every baron."
    ),
    hint="The prince is one step to the right of your baron on c3.",
    success="No prince is left: the barons win.",
)

N_WOODS: Final = Stage(
    id="woods",
    title="Lost in the woods",
    position=at("Da1 Ad4 Kf6 Ag7", "d"),
    goal=_reach("b1"),
    task="You play the princes: take the prince on a1 out of the corner to b1.",
    explanation=(
        "A prince who ends three plies in a row on a corner is lost in the woods and "
        "removed: his side must move him off the corner at its next turn."
    ),
    hint="One step to the right.",
    success="Out of the woods.",
)

N_FIRST_GAME: Final = _first_game(
    "Play a whole game against the gentlest bot. In Newsome's game the barons are much "
    "stronger; a fair match is two games, each side once."
)

COURSES: Final[dict[str, Course]] = {
    "nielsen": _slide(
        "nielsen",
        KING_NO_RETURN,
        THRONE_HOSTILE,
        KING_BESIDE_THREE,
        KING_ON_THRONE_FOUR,
        REPETITION_DRAW,
        BLOCKED_DRAW,
    ),
    "federation": _slide(
        "federation",
        KING_NO_RETURN,
        THRONE_HOSTILE,
        KING_BESIDE_THREE,
        KING_ON_THRONE_FOUR,
        REPETITION_ATTACKERS,
        BLOCKED_WINS,
    ),
    "common": _slide(
        "common",
        KING_GOES_HOME,
        THRONE_HOSTILE,
        KING_BESIDE_TWO,
        KING_ON_THRONE_FOUR,
        REPETITION_LOSES,
        BLOCKED_WINS,
    ),
    "walker": _slide(
        "walker",
        KING_GOES_HOME,
        THRONE_NEUTRAL,
        KING_BESIDE_TWO,
        KING_ON_THRONE_TWO,
        REPETITION_DRAW,
        BLOCKED_DRAW,
    ),
    "newsome": Course(
        "newsome",
        RULESETS["newsome"].title,
        (N_MOVING, N_CAPTURE, N_KING, N_WIN, N_WOODS, N_FIRST_GAME),
    ),
}
DEFAULT_COURSE: Final = "nielsen"
