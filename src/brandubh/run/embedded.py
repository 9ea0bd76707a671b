"""What the embedded servers (redis_server.py, postgres_server.py) share: one user of a data
folder at a time (``FolderLock``), and servers that stop when the process that started them
dies (``parent_death_signal``, ``die_with_parent``)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class FolderInUse(RuntimeError):
    """Another process holds the lock of an embedded server's data folder."""


class FolderLock:
    """An exclusive lock on ``folder`` (a ``flock`` on ``<folder>.lock`` beside it), held
    until ``release`` or until this process ends, however it ends: a second service on the
    same folder is refused, never allowed to stop the first one's server."""

    def __init__(self, folder: Path, what: str, share_with: str) -> None:
        self.folder = folder.absolute()
        self.path = self.folder.with_name(self.folder.name + ".lock")
        self.what = what
        self.share_with = share_with  # the setting that lets a second service share it
        self._fd: int | None = None

    def acquire(self) -> None:
        import fcntl

        if self._fd is not None:  # held already (a server started again)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pid, _, url = os.pread(fd, 4096, 0).decode(errors="replace").partition("\n")
            os.close(fd)
            share = f"{self.share_with}={url.strip()}" if url.strip() else self.share_with
            raise FolderInUse(
                f"{self.folder} is in use by another brandubh (process {pid.strip() or '?'}), "
                f"which runs its {self.what}: stop that one first, or give this one another "
                f"--data folder, or set {share} to share that one's server"
            ) from None
        self._fd = fd
        self.note("")

    def note(self, url: str) -> None:
        """Write this process's id, and the server's URL once it runs, into the lock file:
        what a second service is told."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{os.getpid()}\n{url}\n".encode(), 0)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the lock goes with the descriptor; the file stays
            self._fd = None


def parent_death_signal(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` that has a child sent ``sig`` when this process's calling thread
    ends (Linux's ``PR_SET_PDEATHSIG``), so that a server outlives no service that was
    SIGKILLed; None where there is no such thing (the server then stops only when asked).
    Start the child from a thread that lives as long as it should (the main thread)."""
    if _prctl() is None:
        return None
    parent = os.getpid()
    return lambda: die_with_parent(parent, sig)


def die_with_parent(parent: int, sig: int = signal.SIGTERM) -> None:
    """Have this process sent ``sig`` when its parent, process ``parent``, dies (for a
    process started otherwise than by ``subprocess``: uvicorn's workers); where Linux's
    ``PR_SET_PDEATHSIG`` is missing, nothing."""
    prctl = _prctl()
    if prctl is None:
        return
    prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the signal was asked for
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), sig)


@functools.cache  # looked up before a fork: a forked child must not dlopen
def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl
