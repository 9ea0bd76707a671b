"""Checking a lesson move, measured: ``python bench/lessons.py [--rounds 200]``.

Prints the CPU time (process time, one thread) of checking one learner move with
``brandubh.lessons.check`` (a one-move stage, and each move of the two-move escape, whose
check searches the attackers' best defence) beside the engine's own work for a game move
on the same machine: resuming a game from its snapshot, playing the move and listing the
next legal moves, as a hub's commit path asks of it. Print only; the machine's load (from
``os.getloadavg``) is printed with it, as others may share the machine.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from brandubh.engine import Game
from brandubh.lessons import COURSES, check


def per_call_us(work: Callable[[], object], rounds: int) -> float:
    """CPU microseconds per call, the best of three runs of ``rounds`` calls."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(rounds):
            work()
        best = min(best, time.process_time() - start)
    return best / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    rounds = parser.parse_args().rounds
    course = COURSES["nielsen"]
    capture, escape = course.stage("capture"), course.stage("escape")
    assert capture is not None and escape is not None
    game = Game("nielsen")
    for text in ("d2-c2", "d3-e3", "c2-c3"):
        game.play(text)
    snapshot = game.snapshot()

    def game_move() -> object:
        resumed = Game.from_snapshot(snapshot)
        resumed.play("e3-e2")
        return resumed.legal_texts()

    rows = [
        ("game move (resume, play, legal moves)", per_call_us(game_move, rounds)),
        (
            "lesson move, 1-move stage (capture)",
            per_call_us(lambda: check(capture, "nielsen", ["c6-c4"]), rounds),
        ),
        (
            "lesson move 1 of escape (best defence)",
            per_call_us(lambda: check(escape, "nielsen", ["Kc3-c7"]), max(1, rounds // 10)),
        ),
        (
            "lesson move 2 of escape",
            per_call_us(
                lambda: check(escape, "nielsen", ["Kc3-c7", "Kc7-a7"]), max(1, rounds // 10)
            ),
        ),
        (
            "wrong lesson move (escape, Kc3-c4)",
            per_call_us(lambda: check(escape, "nielsen", ["Kc3-c4"]), max(1, rounds // 10)),
        ),
    ]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"CPU per call, best of 3 x {rounds} rounds (load average {load}):")
    base = rows[0][1]
    for name, us in rows:
        print(f"  {name:42} {us:10.0f} us   {us / base:6.1f}x the game move")


if __name__ == "__main__":
    main()
