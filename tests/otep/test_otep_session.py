"""The OTEP session (otep/session.py) driven by command sequences, with a plain move picker
in place of the bot: rules, play and its clock, the opponent's moves, the host's refusals,
analysis, and staying in step with the host's board."""

from __future__ import annotations

from brandubh.engine import (
    Game,
    Move,
    format_otn_position,
    format_otn_rules,
)
from brandubh.otep import Session, budget_seconds
from brandubh.otep.commands import Clock

START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
SEEN: list[float] = []


def first(game: Game, seconds: float) -> Move:
    """The first legal move in text order; remembers the seconds it was given."""
    SEEN.append(seconds)
    return sorted(game.legal_moves(), key=str)[0]


def top(game: Game, number: int, seconds: float) -> list[tuple[Move, int]]:
    return [(m, -i) for i, m in enumerate(sorted(game.legal_moves(), key=str)[:number])]


def session(ruleset: str = "nielsen") -> Session:
    s = Session(first, top)
    assert s.handle(f"rules {format_otn_rules(ruleset)}").lines[0].startswith("status playing")
    return s


def test_the_engine_says_hello_first() -> None:
    assert Session.hello() == ("hello",)


def ours(game: Game) -> str:
    """The move line ``first`` gives in ``game``."""
    return f"move {sorted(game.legal_moves(), key=str)[0]}"


def test_play_waits_for_its_clock_then_moves() -> None:
    s = session()
    waiting = s.handle("play attackers")
    assert waiting.lines == () and waiting.await_clock
    reply = s.handle("clock 60000 60000 0 0 0")
    assert reply.lines == (ours(Game()),)
    assert SEEN[-1] == 3.0  # a twentieth of 60 s
    assert s.game is not None and f"move {s.game.moves[-1]}" == reply.lines[0]


def test_a_clock_just_before_play_is_used_at_once() -> None:
    """OpenTafl's host sends ``clock`` then ``play`` (ExternalEngineHost.playForCurrentSide):
    play moves at once with that clock, without waiting for one after it."""
    s = session()
    assert s.handle("clock 40000 60000 0 0 0 ").lines == ()  # OpenTafl ends it with a space
    reply = s.handle("play attackers")
    assert reply.lines == (ours(Game()),) and not reply.await_clock
    assert SEEN[-1] == 2.0  # a twentieth of the attackers' 40 s
    # A clock sent again after play (the spec's place) is kept and plays nothing.
    assert s.handle("clock 40000 60000 0 0 0").lines == ()
    mirror = Game()
    mirror.play(reply.lines[0].split()[1])
    assert s.handle(f"move {format_otn_position(mirror.position)}").lines == ()
    answer = sorted(mirror.legal_moves(), key=str)[0]
    mirror.play(answer)
    line = (
        f"opponent-move {answer.origin}-{answer.destination} {format_otn_position(mirror.position)}"
    )
    assert s.handle(line).lines == ()
    # The clock of the last turn is no longer this turn's: play waits for one again.
    waiting = s.handle("play attackers")
    assert waiting.lines == () and waiting.await_clock
    assert s.handle("clock 20000 60000 0 0 0").lines == (ours(mirror),)
    assert SEEN[-1] == 1.0


def test_a_whole_exchange_stays_in_step() -> None:
    s = session()
    mirror = Game()
    s.handle("play attackers")
    (line,) = s.go()  # no clock came
    mirror.play(line.split()[1])
    assert s.handle(f"move {format_otn_position(mirror.position)}").lines == ()
    reply = sorted(mirror.legal_moves(), key=str)[-1]
    mirror.play(reply)
    text = f"{reply.origin}-{reply.destination}"  # simple notation
    assert s.handle(f"opponent-move {text} {format_otn_position(mirror.position)}").lines == ()
    assert s.game is not None and s.game.position == mirror.position
    s.handle("play attackers")
    moved = s.handle("side attackers")  # not a clock: the play goes first
    assert moved.lines == (ours(mirror),)


def test_a_play_for_the_other_side_is_followed() -> None:
    s = session()
    s.handle("play defenders")
    lines = s.go()
    assert lines[0] == "status the host says the defenders move: so be it"
    assert lines[1] == ours(Game("nielsen", Game().position[:-1] + "d"))


def test_a_host_board_that_differs_is_taken() -> None:
    s = session()
    other = "/t6/7/7/3K3/7/7/6T/"
    reply = s.handle(f"opponent-move d2-c2 {other}")
    assert reply.lines == ("status took the host's board after the opponent's move",)
    assert s.game is not None and format_otn_position(s.game.position) == other
    assert s.game.side_to_move == "defenders"


def test_a_refused_move_is_taken_back_and_played_again() -> None:
    s = session()
    s.handle("play attackers")
    assert s.go() == (ours(Game()),)
    sent = ours(Game()).split()[1]
    assert s.handle("error 2").lines == (f"status the host refused {sent} (error 2)",)
    assert s.game is not None and s.game.ply == 0
    # The host then sends the prior move again with the board as it is, and play.
    assert s.handle(f"opponent-move d2-c2 {START}").lines == ()
    s.handle("play attackers")
    assert s.go() == (ours(Game()),)


def test_rules_we_cannot_play_are_refused_then_play_is_critical() -> None:
    s = Session(first, top)
    reply = s.handle(f"rules dim:7 ks:n cenhe: cenh: start:{START}")
    assert reply.lines[0].startswith("error 0 cannot play these rules")
    assert "surf:y" in reply.lines[0]
    s.handle("play attackers")
    (line,) = s.go()
    assert line.startswith("error -1 cannot play these rules")


def test_analysis_lists_moves_with_evaluations() -> None:
    s = session("walker")
    assert s.handle(f"position {START}").lines == ()
    assert s.handle("side defenders").lines == ()
    (line,) = s.handle("analyze 2 1").lines
    best = sorted(Game("walker", Game().position[:-1] + "d").legal_moves(), key=str)[:2]
    assert line == f"analysis 2 {best[0]} 0 {best[1]} -1"


def test_analysis_before_rules_is_an_error() -> None:
    (line,) = Session(first, top).handle("analyze 3 5").lines
    assert line.startswith("error 0 cannot analyse")


def test_finish_and_goodbye() -> None:
    s = session()
    assert s.handle("finish 1").lines == ()
    assert s.handle("goodbye").done


def test_budgets_follow_the_clock() -> None:
    assert budget_seconds(None, "attackers") == 2.0
    clock = Clock(100_000, False, 10_000, True, 30, 2, 1)
    assert budget_seconds(clock, "attackers") == 100_000 / 20_000 + 0.6 * 30
    assert budget_seconds(clock, "defenders") == 5.0  # half the overtime period left
    low = Clock(0, False, 500, False, 0, 0, 0)
    assert budget_seconds(low, "attackers") == 0.05
