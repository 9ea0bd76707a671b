"""The garbage collector's pauses in a hub under bench/load.py's paced load.

    python bench/gc_pauses.py [--seconds 60] [--games 500] [--src SRC ...]

Runs ``bench/load.py --only one`` once for each ``--src`` (a folder holding the package
``brandubh``; default: this checkout's src), interleaved, with bench/gcpauses/ first on the
hub's PYTHONPATH so that its sitecustomize times every collection (``gc.callbacks``), and
prints, per run and per generation, how many collections there were and their p50 / p99 /
max in ms, beside the load's own round-trip figures. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(src: str, args: argparse.Namespace) -> tuple[str, dict[int, list[float]]]:
    with tempfile.NamedTemporaryFile(suffix=".gc", delete=False) as f:
        log = f.name
    env = {**os.environ, "BRANDUBH_GC_PAUSES": log}
    cmd = [
        sys.executable,
        str(HERE / "load.py"),
        "--only",
        "one",
        "--games",
        str(args.games),
        "--seconds",
        str(args.seconds),
        "--hub-src",
        f"{HERE / 'gcpauses'}{os.pathsep}{src}",
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    pauses: dict[int, list[float]] = collections.defaultdict(list)
    for line in Path(log).read_text().splitlines():
        _pid, gen, ms = line.split()
        pauses[int(gen)].append(float(ms))
    os.unlink(log)
    said = [x for x in done.stdout.splitlines() if "p99" in x or "paced" in x.lower()]
    return "\n".join(said[-4:]) or done.stdout[-2000:] + done.stderr[-2000:], pauses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--src", action="append", default=[])
    args = parser.parse_args()
    sources = args.src or [str(HERE.parent / "src")]
    for round_ in range(args.rounds):
        for src in sources:
            said, pauses = run(src, args)
            print(f"round {round_ + 1}, hub from {src}:\n{said}")
            for gen in sorted(pauses):
                ms = sorted(pauses[gen])
                p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
                print(
                    f"  generation {gen}: {len(ms):5d} collections, p50 "
                    f"{statistics.median(ms):7.2f}  p99 {p99:7.2f}  max {ms[-1]:7.2f} ms"
                )


if __name__ == "__main__":
    main()
