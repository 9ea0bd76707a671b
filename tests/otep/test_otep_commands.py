"""The OTEP commands (otep/commands.py): each host command read, each engine line written,
and lines that are not commands refused in words."""

from __future__ import annotations

import pytest

from brandubh.otep.commands import (
    Analyze,
    BadCommand,
    Clock,
    Command,
    Finish,
    Goodbye,
    Hello,
    HostError,
    Ignored,
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

START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("hello\n", Hello()),
        (f"rules dim:7 ks:w start:{START}\n", Rules(f"dim:7 ks:w start:{START}")),
        (f"position {START}", Position(START)),
        ("side defenders", SetSide("defenders")),
        ("clock 300000 299000 0 0 0 ", Clock(300000, False, 299000, False, 0, 0, 0)),
        ("clock 5000* 1200 30 0 3", Clock(5000, True, 1200, False, 30, 0, 3)),
        ("analyze 3 10", Analyze(3, 10.0)),
        ("play attackers", Play("attackers")),
        (f"move {START}", MoveAccepted(START)),
        ("error 2", HostError(2)),
        (f"opponent-move d2-c2 {START}", OpponentMove(("d2-c2",), START)),
        (f"opponent-move a1-a2|a2-a3 {START}", OpponentMove(("a1-a2", "a2-a3"), START)),
        ("finish 3", Finish(3)),
        ("goodbye", Goodbye()),
        ("dump 1", Ignored("dump")),
    ],
)
def test_host_commands_are_read(line: str, command: Command) -> None:
    assert parse_command(line) == command


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("", "empty line"),
        ("launch", "not an OTEP command"),
        ("play white", "'attackers' or 'defenders'"),
        ("rules", "needs an OTN rules string"),
        ("clock 1 2 3", "clock takes"),
        ("clock 1x 2 0 0 0", "milliseconds"),
        ("analyze three 10", "whole number"),
        ("analyze 3 soon", "seconds must be a number"),
        ("finish", "wrong arguments for 'finish'"),
    ],
)
def test_bad_lines_are_refused_in_words(line: str, words: str) -> None:
    with pytest.raises(BadCommand, match=words):
        parse_command(line)


def test_engine_lines_are_written() -> None:
    assert format_move("d1-c1") == "move d1-c1"
    assert format_analysis([("d1-c1", 35), ("d1-e1|e1-e2", -10)]) == (
        "analysis 2 d1-c1 35 d1-e1|e1-e2 -10"
    )
    assert format_error(-1, "cannot\nplay") == "error -1 cannot play"
    assert format_status("thinking  hard") == "status thinking hard"
