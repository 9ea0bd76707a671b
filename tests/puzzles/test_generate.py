"""The generator: worker processes on self-play and archive games, resumable after a stop
or a kill without duplicates, and the command line's refusals of bad input."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from brandubh.engine import Game, Record, format_record
from brandubh.puzzles import (
    SUPPORTED_RULESETS,
    Solver,
    examine,
    generate,
    parse_puzzle,
    progress_path,
    prove_puzzle,
    selfplay_sources,
)
from brandubh.puzzles.generate import archive_sources, play_selfplay
from brandubh.run import worker_pool
from brandubh.run.cli import main
from waiting import wait_for_sync

SRC = Path(__file__).resolve().parents[2] / "src"


def lines_of(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


def keys_of(out: Path) -> list[str]:
    return lines_of(progress_path(out))[1:]


def test_two_workers_find_proved_puzzles(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    log = io.StringIO()
    sources = selfplay_sources(["nielsen"], 3, seed=3)
    summary = generate(sources, out, max_depth=2, pool=worker_pool(2), log=log)
    assert not summary.stopped and summary.skipped == 0
    puzzles = [parse_puzzle(line) for line in lines_of(out)]
    assert len(puzzles) == summary.found > 0
    assert len({p.id for p in puzzles}) == len(puzzles)
    solver = Solver("nielsen")
    assert [prove_puzzle(p, solver) for p in puzzles] == [None] * len(puzzles)
    assert sorted(keys_of(out)) == sorted(s.key for s in sources)
    assert "3/3 games" in log.getvalue() and "positions/s" in log.getvalue()
    # Run again: every source is done, nothing is added.
    again = generate(sources, out, max_depth=2, pool=worker_pool(2), log=io.StringIO())
    assert (again.skipped, again.found) == (3, 0)
    assert len(lines_of(out)) == len(puzzles)


def test_self_play_is_reproducible() -> None:
    source = selfplay_sources(["common"], 1, seed=9)[0]
    assert play_selfplay(source) == play_selfplay(source)


def test_archive_games_are_sources() -> None:
    """An archived record (its text, as the archive keeps it) is replayed and examined."""
    source = selfplay_sources(["walker"], 1, seed=4)[0]
    game = Game("walker")
    for move in play_selfplay(source):
        game.play(move)
    rows = [("g1", format_record(Record.from_game(game, game_id="g1"))), ("g2", "not a record")]
    [archived] = archive_sources(rows)
    assert (archived.key, archived.ruleset, archived.index) == ("archive:g1", "walker", -1)
    found = examine(archived, 2).puzzles
    assert [(p.id, p.solution) for p in found] == [
        (p.id, p.solution) for p in examine(source, 2).puzzles
    ]
    assert all(p.source.startswith("archive:g1:") for p in found)


def start_run(out: Path, games: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "brandubh",
            "puzzles",
            "generate",
            "--out",
            str(out),
            "--ruleset",
            "nielsen",
            "--selfplay",
            str(games),
            "--max-depth",
            "1",
            "--seed",
            "5",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


# Games enough that a run cannot end between its first game and the signal (compiled, 5
# games at depth 1 had all ended by then once: exit 0 where 130 was awaited).
STOPPED_GAMES = 60


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT])
def test_a_stopped_run_goes_on_without_duplicates(tmp_path: Path, stop: signal.Signals) -> None:
    out = tmp_path / "p.jsonl"
    run = start_run(out, STOPPED_GAMES)
    try:
        wait_for_sync(
            lambda: progress_path(out).exists() and len(keys_of(out)) >= 1,
            "the first game examined",
            timeout=300,
        )
        run.send_signal(stop)
        _, err = run.communicate(timeout=120)
    finally:
        run.kill()
    if stop == signal.SIGINT:
        assert run.returncode == 130
        assert b"stopped" in err and b"Traceback" not in err
    first = keys_of(out)
    before = lines_of(out)
    assert 1 <= len(first) < STOPPED_GAMES
    again = start_run(out, STOPPED_GAMES)
    said, err = again.communicate(timeout=600)
    assert again.returncode == 0, err
    assert f"({len(first)} earlier, 0 left)" in said.decode()
    keys = keys_of(out)
    assert len(keys) == len(set(keys)) == STOPPED_GAMES
    assert keys[: len(first)] == first
    after = lines_of(out)
    assert after[: len(before)] == before
    ids = [parse_puzzle(line).id for line in after]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--selfplay", "1", "--max-depth", "9"], "--max-depth"),
        (["--selfplay", "1", "--ruleset", "newsome"], "--ruleset"),
        (["--selfplay", "1", "--workers", "0"], "--workers"),
        (["--selfplay", "-2"], "--selfplay"),
        ([], "nothing to examine"),
        (["--archive"], "DATABASE_URL"),
    ],
)
def test_bad_input_is_named(tmp_path: Path, args: list[str], said: str) -> None:
    runner = CliRunner()
    env = {"DATABASE_URL": ""}
    result = runner.invoke(
        main, ["puzzles", "generate", "--out", str(tmp_path / "p.jsonl"), *args], env=env
    )
    assert result.exit_code == 2
    assert said in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "p.jsonl").exists()


def test_a_missing_folder_and_other_settings_are_refused(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(
        main, ["puzzles", "generate", "--out", str(tmp_path / "no" / "p.jsonl"), "--selfplay", "1"]
    )
    assert missing.exit_code == 2 and "is not a folder" in missing.output
    out = tmp_path / "p.jsonl"
    progress_path(out).write_text('{"max_depth": 3}\n')
    other = runner.invoke(
        main, ["puzzles", "generate", "--out", str(out), "--selfplay", "1", "--max-depth", "2"]
    )
    assert other.exit_code == 2 and "other settings" in other.output


def test_the_command_offers_the_solver_s_rule_sets() -> None:
    group = main.commands["puzzles"]
    assert {"generate", "load"} <= set(group.commands)  # type: ignore[attr-defined]
    command = group.commands["generate"]  # type: ignore[attr-defined]
    ruleset = next(p for p in command.params if p.name == "rulesets")
    assert tuple(ruleset.type.choices) == SUPPORTED_RULESETS
