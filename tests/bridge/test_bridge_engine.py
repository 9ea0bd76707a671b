"""The OTEP child wrapper (bridge/engine.py) against real processes: ``brandubh engine``
answering a move that is legal, and tiny engines that crash, stay silent, send what is no
move or never say hello, each an EngineFailure naming it, the process gone afterwards."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bridge_helpers import bad_engine, real_engine, recording_engine

from brandubh.bridge import EngineFailure, OtepEngine
from brandubh.engine import Game, format_otn_move, format_otn_rules, move_from_otn


@pytest.fixture(autouse=True)
def worktree_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine child imports this worktree's brandubh (the wrapper passes its env on)."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))


async def test_our_engine_answers_a_legal_move_and_leaves_on_goodbye() -> None:
    engine = await OtepEngine.start(real_engine(), "test")
    try:
        await engine.send(f"rules {format_otn_rules('nielsen')}")
        otn = await engine.play("attackers", "60000 60000 0 0 0", 60)
        game = Game("nielsen")
        played = game.play(move_from_otn(otn))  # raises if not legal at the start
        assert str(played) in Game("nielsen").legal_texts()
        assert engine.simple_moves is True  # OTEP's default: ours never asks otherwise
    finally:
        await engine.close()
    assert engine.proc.returncode == 0  # it left on goodbye, not killed


async def test_the_clock_comes_before_play_and_after_and_simple_moves_off_is_heeded(
    tmp_path: Path,
) -> None:
    """OpenTafl's host sends ``clock`` before ``play`` (its engine reads it only there), its
    spec after: the bridge sends both; an engine's ``simple-moves off`` switches to full OTN."""
    command, heard = recording_engine(tmp_path)
    engine = await OtepEngine.start(command, "test")
    try:
        await engine.send(f"rules {format_otn_rules('walker')}")
        otn = await engine.play("attackers", "50000 60000 0 0 0", 30)
        assert format_otn_move(otn) == "d2-c2"
        assert engine.simple_moves is False
    finally:
        await engine.close()
    assert engine.proc.returncode == 0
    assert heard.read_text().splitlines() == [
        f"rules {format_otn_rules('walker')}",
        "clock 50000 60000 0 0 0",
        "play attackers",
        "clock 50000 60000 0 0 0",
        "goodbye",
    ]


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("crash", "the engine exited (code 3)"),
        ("garbage", "the engine's move 'hello-world' cannot be read"),
        ("silent", "the engine sent no 'move' in 1 s"),
    ],
)
async def test_a_misbehaving_engine_is_a_failure_naming_it(
    tmp_path: Path, kind: str, said: str
) -> None:
    engine = await OtepEngine.start(bad_engine(tmp_path, kind), "test")
    try:
        with pytest.raises(EngineFailure) as failed:
            await engine.play("attackers", "60000 60000 0 0 0", 1.0)
        assert said in str(failed.value)
    finally:
        await engine.close()
    assert engine.proc.returncode is not None  # gone, whatever it did


async def test_an_illegal_move_is_read_and_left_to_the_game_to_judge(tmp_path: Path) -> None:
    engine = await OtepEngine.start(bad_engine(tmp_path, "illegal"), "test")
    try:
        otn = await engine.play("attackers", "60000 60000 0 0 0", 10)
        assert (otn.origin, otn.destination) == ("a1", "a2")
    finally:
        await engine.close()


async def test_an_engine_that_never_says_hello_or_cannot_start(tmp_path: Path) -> None:
    mute = tmp_path / "mute.py"
    mute.write_text("import sys\nsys.stdin.read()\n")
    with pytest.raises(EngineFailure, match="sent no 'hello' in 1 s"):
        await OtepEngine.start((real_engine()[0], str(mute)), "test", hello_seconds=1.0)
    with pytest.raises(EngineFailure, match="could not start"):
        await OtepEngine.start((str(tmp_path / "no-such-engine"),), "test")
