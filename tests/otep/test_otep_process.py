"""``python -m brandubh engine`` over real pipes: a tiny OTEP host in the test runs a whole
game between two engine processes, as OpenTafl would, checking every move with our engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brandubh.engine import (
    Game,
    format_otn_position,
    format_otn_rules,
    move_from_otn,
    parse_otn_move,
)

SRC = Path(__file__).resolve().parents[2] / "src"
FINISH = {"attackers": 2, "defenders": 3, None: 1}


class Engine:
    """One engine process and the lines it sends."""

    def __init__(self) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brandubh", "engine", "--level", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="ascii",
            bufsize=1,
            env=env,
        )
        self.seen: list[str] = []

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, word: str) -> str:
        """The next line that is not a status line; it must start with ``word``."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline().rstrip("\n")
            assert line, f"the engine closed its output; it said {self.seen}"
            self.seen.append(line)
            if not line.startswith("status "):
                break
        assert line.split()[0] == word, f"expected {word!r}, got {line!r}"
        return line


@pytest.mark.parametrize("ruleset", ["nielsen", "walker"])
def test_two_engines_play_a_whole_game_over_pipes(ruleset: str) -> None:
    engines = {"attackers": Engine(), "defenders": Engine()}
    try:
        for engine in engines.values():
            assert engine.expect("hello") == "hello"
            engine.send(f"rules {format_otn_rules(ruleset)}")
        game = Game(ruleset)
        last: str | None = None
        while game.result is None:  # every game ends: the move limit at the latest
            side = game.side_to_move
            engine = engines[side]
            if last is not None:
                engine.send(f"opponent-move {last} {format_otn_position(game.position)}")
            engine.send(f"play {side}")
            engine.send("clock 4000 4000 0 0 0")
            text = engine.expect("move").split()[1]
            otn = parse_otn_move(text)
            game.play(move_from_otn(otn))  # raises if the engine's move is not legal here
            engine.send(f"move {format_otn_position(game.position)}")
            last = text
        assert game.result is not None
        for engine in engines.values():
            engine.send(f"finish {FINISH[game.result.winner]}")
            engine.send("goodbye")
        for name, done in engines.items():
            assert done.proc.wait(timeout=30) == 0
            assert not any(line.startswith("error") for line in done.seen), (name, done.seen)
    finally:
        for engine in engines.values():
            if engine.proc.poll() is None:
                engine.proc.kill()
                engine.proc.wait()


def test_hello_comes_before_the_search_is_even_imported() -> None:
    """OpenTafl gives an engine five seconds to say hello, and the search's imports take
    seconds on a loaded machine: the command says hello first. Here the search cannot be
    imported at all, and hello has still been said, once."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    code = (
        "import sys; sys.modules['brandubh.otep'] = None; "
        "from brandubh.run.cli import main; main(['engine', '--level', '1'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input="goodbye\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.stdout == "hello\n"
    assert "brandubh.otep" in done.stderr and done.returncode != 0
