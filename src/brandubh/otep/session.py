"""One OTEP session as a state machine: host lines in, engine lines out.

Pure: the search comes in as two callables (``choose``, ``analyse``), so tests drive a
session with any move picker; ``brandubh.otep.loop`` runs it on stdin and stdout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from brandubh.engine import (
    EngineError,
    Game,
    Move,
    RuleSet,
    Side,
    format_otn_move,
    move_from_otn,
    opponent,
    otn_from_move,
    parse_otn_move,
    parse_otn_position,
    parse_otn_rules,
)
from brandubh.otep.commands import (
    Analyze,
    BadCommand,
    Clock,
    Command,
    Finish,
    Goodbye,
    HostError,
    MoveAccepted,
    OpponentMove,
    Play,
    Position,
    Rules,
    SetSide,
    format_analysis,
    format_error,
    format_move,
    format_status,
    parse_command,
)

__all__ = ["Analyser", "Chooser", "Reply", "Session", "budget_seconds"]

# The move for the side to move, searched for about this many seconds.
Chooser = Callable[[Game, float], Move]
# Up to n moves with their evaluations (side to move's view), in about this many seconds.
Analyser = Callable[[Game, int, float], list[tuple[Move, int]]]

# Seconds a move when the host sends no clock.
UNTIMED_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class Reply:
    """Lines to send; ``await_clock``: a play waits for the clock that follows it (the loop
    calls ``Session.go`` if none comes soon); ``done``: the host said goodbye."""

    lines: tuple[str, ...] = ()
    await_clock: bool = False
    done: bool = False


def budget_seconds(clock: Clock | None, side: Side) -> float:
    """Seconds to spend on a move: a twentieth of main time plus most of an overtime period,
    or half of what is left of the current period once in overtime."""
    if clock is None:
        return UNTIMED_SECONDS
    if side == "attackers":
        ms, in_overtime, periods = (
            clock.attacker_ms,
            clock.attacker_overtime,
            clock.attacker_overtimes,
        )
    else:
        ms, in_overtime, periods = (
            clock.defender_ms,
            clock.defender_overtime,
            clock.defender_overtimes,
        )
    if in_overtime:
        return max(0.05, ms / 2000)
    spare = 0.6 * clock.overtime_seconds if periods > 0 else 0.0
    return max(0.05, ms / 20_000 + spare)


class Session:
    """What the engine knows of the host's game: the rules, our game, the clock (and whether
    it came for this turn), our move waiting for the host's word, and a play waiting for its
    clock."""

    def __init__(self, choose: Chooser, analyse: Analyser) -> None:
        self.choose = choose
        self.analyse = analyse
        self.ruleset: RuleSet | None = None
        self.refusal = "no rules yet: the host sends 'rules' first"
        self.game: Game | None = None
        self.clock: Clock | None = None
        # A clock since the last move: OpenTafl's host sends it just before play, so that
        # play need not wait for one after it (the spec's order).
        self.clock_fresh = False
        self.sent: Move | None = None  # our move, until the host accepts or refuses it
        self.to_play: Side | None = None  # a play command waiting for its clock

    @staticmethod
    def hello() -> tuple[str, ...]:
        """What the engine says on starting."""
        return ("hello",)

    def handle(self, line: str) -> Reply:
        """One line from the host; the engine's answer."""
        try:
            command: Command | None = parse_command(line)
        except BadCommand as exc:
            command, error = None, format_error(0, str(exc))
        before: tuple[str, ...] = ()
        if self.to_play is not None:
            if isinstance(command, Clock):
                self.clock = command
                return Reply(self.go())
            before = self.go()  # no clock came: play with the one we have
        if command is None:
            return Reply((*before, error))
        reply = self._dispatch(command)
        return Reply(before + reply.lines, reply.await_clock, reply.done)

    def go(self) -> tuple[str, ...]:
        """Play the waiting ``play`` command now, with the clock as it is."""
        side, self.to_play = self.to_play, None
        return self._play(side) if side is not None else ()

    def _dispatch(self, command: Command) -> Reply:
        if isinstance(command, Rules):
            return Reply(self._rules(command.text))
        if isinstance(command, Position):
            return Reply(self._position(command.record))
        if isinstance(command, SetSide):
            return Reply(self._side(command.side))
        if isinstance(command, Clock):
            self.clock, self.clock_fresh = command, True
            return Reply()
        if isinstance(command, Analyze):
            return Reply(self._analyze(command))
        if isinstance(command, Play):
            if self.clock_fresh:
                return Reply(self._play(command.side))
            self.to_play = command.side
            return Reply(await_clock=True)
        if isinstance(command, MoveAccepted):
            self.sent, self.clock_fresh = None, False
            return Reply(self._sync(command.record, "after our move"))
        if isinstance(command, HostError):
            return Reply(self._refused(command.code))
        if isinstance(command, OpponentMove):
            return Reply(self._opponent(command))
        if isinstance(command, Finish):
            self.sent, self.to_play, self.clock_fresh = None, None, False
            return Reply()
        if isinstance(command, Goodbye):
            return Reply(done=True)
        return Reply()  # hello, and what needs nothing done

    # -- commands ----------------------------------------------------------------------

    def _rules(self, text: str) -> tuple[str, ...]:
        self.sent, self.to_play, self.clock, self.clock_fresh = None, None, None, False
        try:
            rules = parse_otn_rules(text)
        except EngineError as exc:
            self.ruleset, self.game = None, None
            self.refusal = f"cannot play these rules: {exc}"
            return (format_error(0, self.refusal),)
        self.ruleset = rules.ruleset
        self.game = Game(rules.ruleset, rules.position)
        return (format_status(f"playing {rules.ruleset.title} ({rules.ruleset.name})"),)

    def _position(self, record: str) -> tuple[str, ...]:
        if self.game is None:
            return (format_error(0, self.refusal),)
        return self._sync(record, "from the host's position", self.game.side_to_move)

    def _side(self, side: Side) -> tuple[str, ...]:
        game = self.game
        if game is None:
            return (format_error(0, self.refusal),)
        if game.side_to_move != side:
            self._restart(game.position[:-1] + ("a" if side == "attackers" else "d"))
        return ()

    def _analyze(self, command: Analyze) -> tuple[str, ...]:
        game = self._playable()
        if game is None:
            return (format_error(0, f"cannot analyse: {self._why_not()}"),)
        lines = self.analyse(game, max(1, command.number), command.seconds)
        return (
            format_analysis(
                [(format_otn_move(otn_from_move(m), simple=True), e) for m, e in lines]
            ),
        )

    def _play(self, side: Side) -> tuple[str, ...]:
        self.clock_fresh = False  # this turn's clock is spent
        if self.game is None:
            return (format_error(-1, self.refusal),)
        notes: tuple[str, ...] = ()
        if self.game.side_to_move != side:
            notes = (format_status(f"the host says the {side} move: so be it"),)
            self._side(side)
        game = self._playable()
        if game is None:
            return (*notes, format_error(-1, f"cannot move: {self._why_not()}"))
        move = self.choose(game, budget_seconds(self.clock, side))
        self.sent = game.play(move)
        return (*notes, format_move(format_otn_move(otn_from_move(self.sent), simple=True)))

    def _refused(self, code: int) -> tuple[str, ...]:
        sent, self.sent = self.sent, None
        if sent is None or self.game is None:
            return ()
        self.game.pop()
        return (format_status(f"the host refused {sent} (error {code})"),)

    def _opponent(self, command: OpponentMove) -> tuple[str, ...]:
        game = self.game
        if game is None:
            return (format_error(0, self.refusal),)
        self.sent, self.clock_fresh = None, False
        mover = game.side_to_move
        try:
            board = parse_otn_position(command.record, opponent(mover)).split()[0]
        except EngineError as exc:
            return (format_error(0, f"opponent-move: {exc}"),)
        if board == game.position.split()[0]:
            return ()  # the move we have already: sent again after an error of ours
        try:
            for text in command.moves:
                game.play(move_from_otn(parse_otn_move(text)))
        except EngineError as exc:
            note = f"the opponent's {'|'.join(command.moves)} does not replay here ({exc})"
            return self._sync(command.record, note, opponent(mover))
        return self._sync(command.record, "after the opponent's move", game.side_to_move)

    # -- keeping in step ---------------------------------------------------------------

    def _sync(self, record: str, when: str, side: Side | None = None) -> tuple[str, ...]:
        """Check our board against the host's; take the host's if they differ."""
        game = self.game
        if game is None:
            return ()
        side = side or game.side_to_move
        try:
            position = parse_otn_position(record, side)
        except EngineError as exc:
            return (format_error(0, f"{when}: {exc}"),)
        if position == game.position:
            return ()
        self._restart(position)
        return (format_status(f"took the host's board {when}"),)

    def _restart(self, position: str) -> None:
        """Our game from ``position``: the moves before it, and their repetitions, are gone."""
        if self.ruleset is not None:
            self.game = Game(self.ruleset, position)

    def _playable(self) -> Game | None:
        """Our game, restarted from its position if our rules ended it but the host plays on
        (the move limit, a repetition or a stalemate judged differently): None if no move."""
        game = self.game
        if game is None:
            return None
        if game.result is not None and self.ruleset is not None:
            self.game = game = Game(self.ruleset, game.position)
        return game if game.result is None else None

    def _why_not(self) -> str:
        if self.game is None:
            return self.refusal
        return f"the game is over here ({self.game.result})"
