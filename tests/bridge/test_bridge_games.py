"""One game through the bridge's game loop (bridge/game.py) on a real hub: ``brandubh
engine`` as a child process plays a whole game against a person's websocket; an engine
that crashes, plays an illegal move or sends no move loses that game by resignation,
with the reason logged, and the loop ends with the game."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from bridge_helpers import bad_engine, config_for, person_plays_to_the_end, real_engine, token_of

from brandubh.bridge import Api, GameRunner
from brandubh.bridge.gamesocket import line_of_frame
from services import HubProcess
from wsclient import Socket, friend_game, seated


@pytest.fixture(autouse=True)
def worktree_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine child imports this worktree's brandubh (the wrapper passes its env on)."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))


async def bridge_game(
    hub: HubProcess, engine: tuple[str, ...], transport: str = "http"
) -> tuple[GameRunner, asyncio.Task[None], Socket, str, str, str]:
    """A friend game, a minute a move; its joiner played by the bridge's game loop."""
    game, alice, bob = await friend_game(hub.url, move_time=60)
    (person_side, sock), *_ = (await seated(game, alice)).items()
    token = await token_of(bob, ["bot:play"])
    config = config_for(hub.url, token, engine, transport)
    runner = GameRunner(Api(hub.url, token), config, bob.id, game)
    task = asyncio.create_task(runner.run())
    return runner, task, sock, game, person_side, alice.id


@pytest.mark.parametrize("transport", ["http", "socket"])
async def test_our_engine_plays_a_whole_game_against_a_person(
    hub: HubProcess, transport: str
) -> None:
    runner, task, sock, game, _, person = await bridge_game(hub, real_engine(), transport)
    try:
        final = await person_plays_to_the_end(sock, game, person)
        await asyncio.wait_for(task, 30)  # the loop ends with the game
    finally:
        task.cancel()
        await runner.api.close()
    assert final["result"]["reason"] not in ("resignation", "timeout", "aborted"), final["result"]
    assert final["ply"] > 1  # both sides moved: the engine's moves were taken
    assert runner.failed == "" and runner.ended
    assert runner.engine is not None and runner.engine.proc.returncode == 0  # left on goodbye


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("crash", "the engine exited (code 3)"),
        ("illegal", "the engine's move a1-a2 is illegal here"),
        ("garbage", "the engine's move 'hello-world' cannot be read"),
    ],
)
async def test_a_failing_engine_resigns_its_game_with_the_reason(
    hub: HubProcess, tmp_path: Path, kind: str, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    runner, task, sock, game, person_side, person = await bridge_game(
        hub, bad_engine(tmp_path, kind)
    )
    try:
        final = await person_plays_to_the_end(sock, game, person)
        await asyncio.wait_for(task, 30)
    finally:
        task.cancel()
        await runner.api.close()
    assert final["result"] == {"winner": person_side, "reason": "resignation"}
    assert said in runner.failed
    assert any(said in r.getMessage() and "resigning" in r.getMessage() for r in caplog.records)
    assert runner.engine is not None and runner.engine.proc.returncode is not None


async def test_a_refused_token_on_the_socket_leaves_the_game_without_a_move(
    hub: HubProcess, caplog: pytest.LogCaptureFixture
) -> None:
    game, _alice, bob = await friend_game(hub.url, move_time=60)
    reader = await token_of(bob, ["games:read"])  # no bot:play: the bot socket refuses it
    config = config_for(hub.url, reader, real_engine(), "socket")
    runner = GameRunner(Api(hub.url, reader), config, bob.id, game)
    try:
        await asyncio.wait_for(runner.run(), 30)  # it leaves, rather than retrying forever
    finally:
        await runner.api.close()
    left = [r.getMessage() for r in caplog.records if "left" in r.getMessage()]
    assert any("token_scope" in m for m in left), left
    assert runner.engine is None and runner.unsent is None


def test_the_socket_s_frames_are_read_as_the_stream_s_lines() -> None:
    state = {"ruleset": "nielsen", "players": {"attackers": {"id": "a"}}, "ply": 0}
    snap = {"t": "snapshot", "game": "g1", "n": 3, "state": state, "moves": []}
    assert line_of_frame("g1", snap) == {
        "type": "gameFull",
        "id": "g1",
        "ruleset": "nielsen",
        "players": state["players"],
        "state": state,
        "moves": [],
        "n": 3,
    }
    event = {"t": "event", "game": "g1", "n": 4, "kind": "move", "move": "g4-g3", "state": state}
    assert line_of_frame("g1", event) == {
        "type": "gameState",
        "n": 4,
        "event": {"kind": "move", "move": "g4-g3"},
        "state": state,
    }
    assert line_of_frame("g2", event) is None  # another game's
    assert line_of_frame("g1", {"t": "ack", "id": "m3"}) == {
        "type": "answer",
        "id": "m3",
        "ok": True,
    }
    refused = {"t": "error", "id": "m3", "code": "illegal_move", "message": "no"}
    assert line_of_frame("g1", refused) == {
        "type": "answer",
        "id": "m3",
        "ok": False,
        "code": "illegal_move",
        "message": "no",
    }
    assert line_of_frame("g1", {"t": "presence", "game": "g1"}) is None
