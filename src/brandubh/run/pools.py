"""Worker processes that end with their parent and leave a terminal's Ctrl-C to it: the
hub's bot searches (hub/live/bot_turns.py) and ``brandubh puzzles generate``'s workers."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.pool
import os
import signal
import threading
import time
from collections.abc import Iterator

from brandubh.run.embedded import die_with_parent

__all__ = ["end_with_parent", "sigint_held_back", "worker_pool"]


def end_with_parent(parent: int) -> None:
    """Pool initializer: end this worker when the process that started it dies, even by
    SIGKILL, and ignore SIGINT (the parent stops its pool itself).

    Linux sends PR_SET_PDEATHSIG's signal when the parent goes (embedded.die_with_parent);
    elsewhere a watchdog thread checks the parent's pid. With the workers gone,
    multiprocessing's resource_tracker sees its pipe close and ends too.
    """
    die_with_parent(parent, signal.SIGKILL)
    # Ctrl-C in a terminal signals the whole group: a search or a solve interrupted here
    # would only print a traceback. (SIGINT came blocked from the parent, sigint_held_back,
    # so none arrived before this point; one pending now is dropped as the disposition
    # becomes "ignore".)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=watch, name="parent watchdog", daemon=True).start()


@contextlib.contextmanager
def sigint_held_back() -> Iterator[None]:
    """Block SIGINT in this thread while it spawns pool processes, which inherit the mask.

    A spawned worker imports for a few hundred milliseconds before its initializer can
    ignore SIGINT; a terminal's Ctrl-C in that window killed it (a broken pool and a
    traceback). The parent itself still gets the signal: other threads do not block it.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def worker_pool(workers: int) -> multiprocessing.pool.Pool:
    """``workers`` spawned processes that end with this one and ignore Ctrl-C."""
    context = multiprocessing.get_context("spawn")
    with sigint_held_back():
        return context.Pool(workers, initializer=end_with_parent, initargs=(os.getpid(),))
