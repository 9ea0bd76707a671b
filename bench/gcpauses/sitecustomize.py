"""Loaded by a hub process started with this folder first on PYTHONPATH (bench/gc_pauses.py):
every garbage collection's generation, length, when it ended (time.time()), whether the hub
was still starting and what it freed, one line each, appended to the file named by
BRANDUBH_GC_PAUSES (nothing without it).

Starting: until the hub's ``tune_gc`` has frozen what start-up made (it runs in the
lifespan's start, before uvicorn opens its socket: no request waits on those
collections)."""

import gc
import os
import time

_path = os.environ.get("BRANDUBH_GC_PAUSES")
if _path:
    _out = open(_path, "a", buffering=1)  # noqa: SIM115 (open for the process's life)
    _began = [0.0]

    def _timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            _began[0] = time.perf_counter()
        else:
            took = (time.perf_counter() - _began[0]) * 1000
            starting = 0 if gc.get_freeze_count() else 1
            _out.write(
                f"{os.getpid()} {info['generation']} {took:.3f} {time.time()} {starting}"
                f" {info['collected']}\n"
            )

    gc.callbacks.append(_timed)
