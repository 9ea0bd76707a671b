"""Loaded by a hub process started with this folder first on PYTHONPATH (bench/gc_pauses.py):
every garbage collection's generation and length, one line each, appended to the file
named by BRANDUBH_GC_PAUSES (nothing without it)."""

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
            _out.write(f"{os.getpid()} {info['generation']} {took:.3f}\n")

    gc.callbacks.append(_timed)
