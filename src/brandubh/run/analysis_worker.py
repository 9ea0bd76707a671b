"""``brandubh analyse-worker``: one analysis worker process (hub/analysis/worker.py) until
SIGTERM or Ctrl-C."""

from __future__ import annotations

import logging
import os
import signal

from brandubh.hub.analysis import Worker
from brandubh.hub.config import Settings

__all__ = ["main"]


def main(name: str = "") -> None:
    """Run one worker until SIGTERM or Ctrl-C; the job in hand is given back."""
    logging.basicConfig(
        level=os.environ.get("BRANDUBH_LOG_LEVEL", "info").upper(),
        format="brandubh analyse-worker: %(message)s",
    )

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    worker = Worker(Settings.from_env(), name)
    try:
        worker.run()
    except KeyboardInterrupt:
        pass
    finally:
        worker.close()
