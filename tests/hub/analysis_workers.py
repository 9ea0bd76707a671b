"""Analysis workers and finished games for the hub's analysis tests: a ``brandubh
analyse-worker`` process whose output is read, and a friend game played to its end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from services import CLUSTER_URLS, TEST_ENV
from waiting import wait_for
from wsclient import Player, friend_game, seated

# The king escapes in 8 plies (nielsen): a finished game between two accounts.
QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


class Worker:
    """A ``brandubh analyse-worker`` process; its output read by a thread."""

    def __init__(self, redis_url: str, database_url: str, lease_ms: int = 30_000) -> None:
        env = {
            **os.environ,
            **TEST_ENV,
            "REDIS_URL": redis_url,
            "DATABASE_URL": database_url,
            "BRANDUBH_ANALYSIS_LEASE_MS": str(lease_ms),
            "BRANDUBH_LOG_LEVEL": "info",
            # On a cluster (the tests marked `cluster` run there too), its client.
            "BRANDUBH_REDIS_CLUSTER": "1" if redis_url in CLUSTER_URLS else "0",
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brandubh", "analyse-worker"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    async def ready(self) -> None:
        """Until it has started and looks for jobs (a minute at most)."""
        await wait_for(self._waiting, "the worker's start", timeout=60)

    async def _waiting(self) -> bool:
        return "waiting for jobs" in self.output

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


async def finished_game(url: str, moves: list[str] = QUICK_ESCAPE) -> tuple[str, Player, Player]:
    """A friend game between two new accounts, played to its end: (id, creator, joiner)."""
    game, alice, bob = await friend_game(url, "nielsen")
    socks = await seated(game, alice, bob)
    for ply, move in enumerate(moves):
        await socks["attackers" if ply % 2 == 0 else "defenders"].move(game, ply, move)
        await socks["attackers"].recv_until(lambda m, mv=move: m.get("move") == mv)
    for sock in socks.values():
        await sock.close()
    return game, alice, bob
