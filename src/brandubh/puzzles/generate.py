"""The generator: games in (self-play of our bot, the archive), proved puzzles out.

Each source game is one job for a worker process: it replays (or, for self-play, plays) the
game and asks the solver about every position in it. The parent appends each job's new
puzzles to the output (JSONL) and then the job's key to ``<out>.progress``, so a run that is
stopped, killed or crashes goes on where it stopped, without duplicates (puzzles are
deduplicated by id against the output). docs/puzzles.md, "Generation", tells the rules.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from brandubh.bot import choose_code, rng_for
from brandubh.engine import START_POSITION, Game, parse_record
from brandubh.puzzles.record import Puzzle, format_puzzle, parse_puzzle, puzzle_id
from brandubh.puzzles.solver import Solver, Verdict

PER_GAME: Final = 4  # puzzles kept from one game at most: variety over volume
FIRST_PLY: Final = 4  # positions before this ply are not examined (no win is that early)
LAST_PLIES: Final = 30  # only a game's last positions are examined: where its wins are
MAX_PLIES: Final = 160  # a self-play game is cut here (a long game adds few new positions)
DEFEND_HORIZON: Final = 2  # the opponent's moves a defend puzzle's move holds for, at most
SELFPLAY_LEVELS: Final = ((1, 1), (1, 2), (2, 1), (2, 2))  # (attackers, defenders) in turn
_THEME_REASONS: Final = {"escape": "king_escaped", "capture": "king_captured"}


@dataclass(frozen=True, slots=True)
class Source:
    """One game to examine: its key (``selfplay:<seed>.<ruleset>.<n>`` or
    ``archive:<id>``), rule set, start and moves (self-play: played by the worker)."""

    key: str
    ruleset: str
    start: str = START_POSITION
    moves: tuple[str, ...] = ()
    seed: int = 0
    index: int = -1  # the self-play game's number; -1 for a game from the archive


@dataclass(frozen=True, slots=True)
class Examined:
    """What one job found: the positions it asked the solver about and the puzzles kept."""

    key: str
    positions: int
    puzzles: tuple[Puzzle, ...]
    nodes: int


@dataclass(frozen=True, slots=True)
class Summary:
    """A run's totals (this run only; the output may hold earlier runs' puzzles too)."""

    sources: int
    skipped: int  # examined by an earlier run
    examined: int  # by this run
    positions: int
    found: int  # new puzzles written
    duplicates: int
    stopped: bool


class ProgressMismatch(ValueError):
    """The progress file was written by a run with other settings."""


def selfplay_sources(rulesets: Sequence[str], games: int, seed: int) -> list[Source]:
    """``games`` self-play games per rule set, numbered; each is one job. The rule sets
    take turns, so a run stopped early has some of each."""
    return [
        Source(f"selfplay:{seed}.{rs}.{n}", rs, seed=seed, index=n)
        for n in range(games)
        for rs in rulesets
    ]


def archive_sources(records: Iterable[tuple[str, str]]) -> Iterator[Source]:
    """Sources from the archive's (id, record text) rows (unreadable records skipped)."""
    for game_id, text in records:
        try:
            record = parse_record(text)
        except ValueError:
            continue
        yield Source(f"archive:{game_id}", record.ruleset, record.position, record.moves)


async def read_archive(url: str, rulesets: Sequence[str]) -> list[Source]:
    """Every finished game under ``rulesets`` in the archive at ``url`` (PostgreSQL)."""
    from brandubh.store import Store

    store = Store.from_url(url, pool_size=1)
    try:
        rows = [(game_id, record) async for game_id, record in store.stream_records(rulesets)]
    finally:
        await store.close()
    return list(archive_sources(rows))


# -- one job (in a worker) ---------------------------------------------------------------

_SOLVERS: dict[str, Solver] = {}


def _solver(ruleset: str) -> Solver:
    """One solver per rule set and process: its tables hold proofs, valid for every game."""
    solver = _SOLVERS.get(ruleset)
    if solver is None:
        solver = _SOLVERS[ruleset] = Solver(ruleset)
    return solver


def play_selfplay(source: Source) -> tuple[str, ...]:
    """The bot's game against itself for a source: levels by its number, every move seeded."""
    attackers, defenders = SELFPLAY_LEVELS[source.index % len(SELFPLAY_LEVELS)]
    game = Game.from_position(source.start, source.ruleset)
    seed = str(source.seed).encode()
    while game.result is None and game.ply < MAX_PLIES:
        level = defenders if game.board.side else attackers
        game.push(choose_code(game, rng_for(seed, source.key, game.ply), level))
    return tuple(m.text for m in game.moves)


def examine(source: Source, max_depth: int) -> Examined:
    """Play or replay the source's game and keep its proved puzzles (at most ``PER_GAME``)."""
    moves = play_selfplay(source) if source.index >= 0 else source.moves
    solver = _solver(source.ruleset)
    nodes = solver.nodes
    game = Game.from_position(source.start, source.ruleset)
    found: list[tuple[int, Puzzle]] = []
    won_at: dict[int, int] = {}  # ply -> the side to move's shortest win there
    kept_at: set[int] = set()
    positions = 0
    first = max(FIRST_PLY, len(moves) + 1 - LAST_PLIES)
    for ply in range(len(moves) + 1):
        if game.result is not None:
            break
        if ply >= first:
            positions += 1
            puzzle = _puzzle_at(solver, game, source, ply, max_depth, won_at, kept_at)
            if puzzle is not None:
                found.append((ply, puzzle))
                kept_at.add(ply)
        if ply < len(moves):
            game.play(moves[ply])
    # The deepest first, then the earliest: the most instructive of the game's puzzles.
    found.sort(key=lambda pp: (-pp[1].depth, pp[1].theme != "defend", pp[0]))
    # A position met twice in the game (a repetition) is one puzzle.
    ids: set[str] = set()
    unique = []
    for _, puzzle in found:
        if puzzle.id not in ids:
            ids.add(puzzle.id)
            unique.append(puzzle)
    kept = tuple(unique[:PER_GAME])
    return Examined(source.key, positions, kept, solver.nodes - nodes)


def _puzzle_at(
    solver: Solver,
    game: Game,
    source: Source,
    ply: int,
    max_depth: int,
    won_at: dict[int, int],
    kept_at: set[int],
) -> Puzzle | None:
    position = game.position
    verdict: Verdict = solver.solve(position, max_depth)
    label = f"{source.key}:{ply}"
    if verdict.win_depth is not None:
        won_at[ply] = verdict.win_depth
        # The same side's win a move earlier is a puzzle already, or was a win in one: this
        # is the same win again.
        if verdict.win is None or ply - 2 in kept_at or won_at.get(ply - 2) == 1:
            return None
        win = verdict.win
        if win.reason != _THEME_REASONS[win.theme]:
            return None  # a win by a blocked side: true, but not what the theme promises
        return Puzzle(
            id=puzzle_id(source.ruleset, position),
            ruleset=source.ruleset,
            position=position,
            solution=win.line,
            theme=win.theme,
            depth=win.depth,
            source=label,
            rating=estimate_rating(win.depth, win.moves),
        )
    hold = solver.defend(position, min(DEFEND_HORIZON, max_depth))
    if hold is None:
        return None
    return Puzzle(
        id=puzzle_id(source.ruleset, position),
        ruleset=source.ruleset,
        position=position,
        solution=(hold.move,),
        theme="defend",
        depth=1,
        source=label,
        rating=estimate_rating(hold.threat, hold.moves),
    )


def estimate_rating(depth: int, moves: int) -> float:
    """A puzzle's first rating: 1000, 350 more for each move of depth after the first (for
    defend, of the threat's depth), and 100 more for each doubling of the legal moves past
    16 (less below); between 600 and 2600. The service re-rates it with Glicko-2."""
    rating = 1000 + 350 * (depth - 1) + 100 * math.log2(max(moves, 1) / 16)
    return round(min(2600.0, max(600.0, rating)), 1)


# -- the run (in the parent) -------------------------------------------------------------


def progress_path(out: Path) -> Path:
    """Where a run keeps the keys of the sources it examined: ``<out>.progress``."""
    return out.with_name(out.name + ".progress")


def generate(
    sources: Sequence[Source],
    out: Path,
    *,
    max_depth: int,
    pool: multiprocessing.pool.Pool,
    log: TextIO = sys.stderr,
) -> Summary:
    """Examine every source not yet examined in ``pool``'s processes (brandubh.run's
    worker_pool), appending new puzzles to ``out``; the pool is closed at the end. Ctrl-C
    (or SIGTERM) stops at once, keeping what is written."""
    progress = progress_path(out)
    settings = {"max_depth": max_depth}
    done = _read_progress(progress, settings)
    seen = _read_ids(out)
    pending = [s for s in sources if s.key not in done]
    skipped = len(sources) - len(pending)
    positions = found = duplicates = finished = 0
    started = time.monotonic()
    stopped = False
    if not progress.exists():
        progress.write_text(json.dumps(settings) + "\n", "utf-8")
    try:
        with (
            _sigterm_as_interrupt(),
            out.open("a", encoding="utf-8") as sink,
            progress.open("a", encoding="utf-8") as keys,
        ):
            jobs = [(s, max_depth) for s in pending]
            for result in pool.imap_unordered(_examine_job, jobs, chunksize=1):
                new = []
                for puzzle in result.puzzles:
                    if puzzle.id not in seen:  # a position met before, here or in a game
                        seen.add(puzzle.id)
                        new.append(puzzle)
                        sink.write(format_puzzle(puzzle) + "\n")
                duplicates += len(result.puzzles) - len(new)
                sink.flush()
                os.fsync(sink.fileno())
                keys.write(result.key + "\n")
                keys.flush()
                os.fsync(keys.fileno())
                finished += 1
                positions += result.positions
                found += len(new)
                rate = positions / max(time.monotonic() - started, 1e-9)
                log.write(
                    f"puzzles: {finished}/{len(pending)} games, {positions} positions, "
                    f"{found} puzzles, {rate:.1f} positions/s\n"
                )
                log.flush()
        pool.close()
    except KeyboardInterrupt:
        stopped = True
        pool.terminate()
    finally:
        pool.join()
    return Summary(len(sources), skipped, finished, positions, found, duplicates, stopped)


def _examine_job(job: tuple[Source, int]) -> Examined:
    return examine(job[0], job[1])


def _read_progress(path: Path, settings: dict[str, int]) -> set[str]:
    """The keys examined by earlier runs into the same output; their settings must match."""
    if not path.exists():
        return set()
    lines = _whole_lines(path)
    if not lines:
        return set()
    try:
        written = json.loads(lines[0])
    except ValueError:
        written = None
    if written != settings:
        given = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in settings.items())
        raise ProgressMismatch(
            f"{path} was written by a run with other settings ({lines[0].strip()}), not "
            f"{given}: use the same settings or another --out"
        )
    return {line.strip() for line in lines[1:] if line.strip()}


def _read_ids(out: Path) -> set[str]:
    """The ids of the puzzles already in the output (a last line cut short is dropped)."""
    if not out.exists():
        return set()
    return {parse_puzzle(line).id for line in _whole_lines(out) if line.strip()}


def _whole_lines(path: Path) -> list[str]:
    """The file's complete lines; a last line without its newline (a run killed while
    writing it) is cut off the file, so appending starts on a line of its own."""
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end != len(data):
        with path.open("r+b") as f:
            f.truncate(end)
    return data[:end].decode("utf-8").splitlines()


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the run as Ctrl-C does (in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
