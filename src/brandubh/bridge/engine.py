"""An OTEP engine as a child process, driven as OpenTafl's host drives one (docs/otep.md):
one process a game. Whatever goes wrong with it (it exits, stays silent past its time,
sends what is not a move) is an EngineFailure naming it; nothing here waits unbounded."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import Final

from brandubh.engine import EngineError, OtnMove, parse_otn_move

__all__ = ["EngineFailure", "OtepEngine"]

log = logging.getLogger(__name__)

HELLO_SECONDS: Final = 60.0  # a slow machine may take this long to start an interpreter
GOODBYE_SECONDS: Final = 3.0  # after goodbye, before the process is terminated
LINE_LIMIT: Final = 1 << 16  # a longer line is no OTEP line


class EngineFailure(Exception):
    """The engine failed this game: the message says how (for the log and the resignation)."""


class OtepEngine:
    """One engine process: its lines read as they come (status and error 0 logged at once,
    ``simple-moves`` heeded), the answers the host awaits (hello, move, critical errors)
    queued."""

    def __init__(self, proc: asyncio.subprocess.Process, label: str) -> None:
        self.proc = proc
        self.label = label
        # OTEP's default: moves told to the engine as start-end until it says otherwise.
        self.simple_moves = True
        self.answers: asyncio.Queue[str | None] = asyncio.Queue()
        self._readers = [
            asyncio.create_task(self._read_stdout()),
            asyncio.create_task(self._read_stderr()),
        ]

    @classmethod
    async def start(
        cls,
        command: tuple[str, ...],
        label: str,
        cwd: Path | None = None,
        hello_seconds: float = HELLO_SECONDS,
    ) -> OtepEngine:
        """Start the engine and wait for its ``hello``."""
        try:
            proc = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                limit=LINE_LIMIT,
                env=os.environ.copy(),
            )
        except OSError as exc:
            raise EngineFailure(f"the engine {command[0]!r} could not start: {exc}") from None
        engine = cls(proc, label)
        try:
            await engine._answer("hello", hello_seconds)
        except EngineFailure:
            await engine.close()
            raise
        return engine

    # -- reading ------------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        try:
            while True:
                try:
                    raw = await self.proc.stdout.readline()
                except ValueError:  # a line past the limit: not OTEP
                    await self.answers.put("garbage a line too long for OTEP")
                    continue
                if not raw:
                    break
                line = raw.decode("utf-8", "replace").strip()
                word = line.split(" ", 1)[0]
                if not line:
                    continue
                if word == "status":
                    log.info("%s: engine status: %s", self.label, line[7:])
                elif word == "simple-moves":
                    self._simple_moves(line)
                elif word == "error" and not line.startswith("error -1"):
                    log.warning("%s: engine says %s", self.label, line)
                else:
                    await self.answers.put(line)
        finally:
            await self.answers.put(None)  # end of output: the engine is gone

    def _simple_moves(self, line: str) -> None:
        words = line.split()
        if len(words) == 2 and words[1] in ("on", "off"):
            self.simple_moves = words[1] == "on"
            log.info(
                "%s: engine asks for %s moves",
                self.label,
                "simple" if self.simple_moves else "full OTN",
            )
        else:
            log.warning("%s: engine line not understood, passed: %s", self.label, line[:200])

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        with contextlib.suppress(ValueError):
            async for raw in self.proc.stderr:
                log.info(
                    "%s: engine stderr: %s", self.label, raw.decode("utf-8", "replace").rstrip()
                )

    async def _gone(self) -> str:
        code = self.proc.returncode
        if code is None:
            with contextlib.suppress(TimeoutError):
                code = await asyncio.wait_for(self.proc.wait(), 1.0)
        return (
            f"the engine exited (code {code})"
            if code is not None
            else "the engine closed its output"
        )

    async def _answer(self, word: str, seconds: float) -> str:
        """The next queued line starting with ``word``; others are logged and passed."""
        try:
            async with asyncio.timeout(seconds):
                while True:
                    line = await self.answers.get()
                    if line is None:
                        await self.answers.put(None)  # every later wait sees the end too
                        raise EngineFailure(f"{await self._gone()} while the host awaited {word!r}")
                    if line.startswith("error -1"):
                        raise EngineFailure(f"the engine gave up: {line}")
                    if line.split(" ", 1)[0] == word:
                        return line
                    log.warning("%s: engine line not awaited, passed: %s", self.label, line[:200])
        except TimeoutError:
            raise EngineFailure(f"the engine sent no {word!r} in {seconds:g} s") from None

    # -- writing ------------------------------------------------------------------------

    async def send(self, *lines: str) -> None:
        """Send lines to the engine; EngineFailure if it is gone."""
        stdin = self.proc.stdin
        if stdin is None or self.proc.returncode is not None:
            raise EngineFailure(await self._gone())
        try:
            stdin.write("".join(line + "\n" for line in lines).encode())
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise EngineFailure(await self._gone()) from None

    async def play(self, side: str, clock: str, seconds: float) -> OtnMove:
        """``clock``, ``play``, ``clock``; the engine's move within ``seconds``, read as OTN.

        OpenTafl's host sends the clock just before ``play`` (its own engine reads it only
        there); its spec says just after: an engine written to either finds it."""
        while not self.answers.empty():  # lines from before this move answer nothing
            stale = self.answers.get_nowait()
            if stale is None:
                raise EngineFailure(await self._gone())
            log.warning("%s: engine line not awaited, passed: %s", self.label, stale[:200])
        await self.send(f"clock {clock}", f"play {side}", f"clock {clock}")
        line = await self._answer("move", seconds)
        text = line[5:].strip()
        try:
            return parse_otn_move(text)
        except EngineError as exc:
            raise EngineFailure(f"the engine's move {text!r} cannot be read: {exc}") from None

    async def close(self) -> None:
        """Say goodbye; terminate, then kill, a process that does not leave."""
        if self.proc.returncode is None:
            with contextlib.suppress(EngineFailure):
                await self.send("goodbye")
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            try:
                await asyncio.wait_for(self.proc.wait(), GOODBYE_SECONDS)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.terminate()
                try:
                    await asyncio.wait_for(self.proc.wait(), GOODBYE_SECONDS)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        self.proc.kill()
                    await self.proc.wait()
        for task in self._readers:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
