"""The garbage collector's pauses in a hub under bench/load.py's paced load.

    python bench/gc_pauses.py [--seconds 60] [--games 500] [--src SRC ...]

Runs ``bench/load.py --only one`` once for each ``--src`` (a folder holding the package
``brandubh``; default: this checkout's src), interleaved, with bench/gcpauses/ first on the
hub's PYTHONPATH so that its sitecustomize times every collection (``gc.callbacks``), and
prints, per run, phase and generation, how many collections there were, their p50 / p99 /
max in ms and the objects they freed, beside the load's own round-trip figures. The phases:
``start-up``, before the hub's ``tune_gc`` freezes what start-up made (in the lifespan's
start, before the hub listens: no move waits on them); ``connecting``, while the load's
1,500 sockets open; ``playing``, the paced window whose round trips load.py measures (it
writes the window's bounds to BRANDUBH_LOAD_WINDOW); ``closing``, as the sockets close.
Nothing is asserted.
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


Pauses = dict[tuple[str, int], list[tuple[float, int]]]
PHASES = ("start-up", "connecting", "playing", "closing")


def run(src: str, args: argparse.Namespace) -> tuple[str, Pauses]:
    with tempfile.NamedTemporaryFile(suffix=".gc", delete=False) as f:
        log = f.name
    with tempfile.NamedTemporaryFile(suffix=".window", delete=False) as f:
        window = f.name
    env = {**os.environ, "BRANDUBH_GC_PAUSES": log, "BRANDUBH_LOAD_WINDOW": window}
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
    began, ended = (float(x) for x in Path(window).read_text().splitlines()[0].split()[-2:])
    pauses: Pauses = collections.defaultdict(list)
    for line in Path(log).read_text().splitlines():
        _pid, gen, ms, at, starting, freed = line.split()
        # A collection ends at ``at``: one that ends inside the window held up moves.
        t = float(at)
        phase = PHASES[0 if starting == "1" else 1 if t < began else 2 if t <= ended else 3]
        pauses[phase, int(gen)].append((float(ms), int(freed)))
    os.unlink(log)
    os.unlink(window)
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
            for phase, gen in sorted(pauses, key=lambda k: (PHASES.index(k[0]), k[1])):
                ms = sorted(m for m, _ in pauses[phase, gen])
                freed = sum(f for _, f in pauses[phase, gen])
                p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
                print(
                    f"  {phase:10s} generation {gen}: {len(ms):5d} collections, p50 "
                    f"{statistics.median(ms):7.2f}  p99 {p99:7.2f}  max {ms[-1]:7.2f} ms,"
                    f" {freed} objects freed"
                )


if __name__ == "__main__":
    main()
