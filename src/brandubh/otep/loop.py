"""The engine's I/O: host lines from stdin to the session, its lines to stdout, flushed.

A reader thread queues stdin's lines, so that after a ``play`` the loop can wait a moment for
the ``clock`` OpenTafl sends right behind it, and play without one if none comes.
"""

from __future__ import annotations

import queue
import sys
import threading
from typing import TextIO

from brandubh.otep.session import Session
from brandubh.otep.think import Thinker

__all__ = ["CLOCK_WAIT_SECONDS", "run", "run_engine"]

# How long a play waits for its clock before the search starts without it.
CLOCK_WAIT_SECONDS = 0.25


def _reader(stream: TextIO, lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)  # end of input: the host is gone


def run(session: Session, stdin: TextIO, stdout: TextIO, *, greet: bool = True) -> None:
    """Serve one host until it says goodbye or closes our stdin; ``greet``: say hello
    first (False when the caller already has)."""
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_reader, args=(stdin, lines), daemon=True).start()

    def send(out: tuple[str, ...]) -> None:
        for text in out:
            stdout.write(text + "\n")
        stdout.flush()

    if greet:
        send(session.hello())
    waiting = False  # a play waits for its clock
    while True:
        try:
            line = lines.get(timeout=CLOCK_WAIT_SECONDS) if waiting else lines.get()
        except queue.Empty:
            send(session.go())
            waiting = False
            continue
        if line is None:
            return
        if not line.strip():
            continue
        reply = session.handle(line)
        send(reply.lines)
        if reply.done:
            return
        waiting = reply.await_clock


def run_engine(level: int = 5, seed: bytes = b"otep", *, greet: bool = True) -> None:
    """``brandubh engine``: the bot at ``level`` as an OTEP engine on stdin and stdout."""
    thinker = Thinker(level, seed)
    run(Session(thinker.choose, thinker.analyse), sys.stdin, sys.stdout, greet=greet)
