"""A third-party OTEP engine through the bridge: OpenTafl's own AI (``OpenTafl --engine``)
for one bot account, ``brandubh engine`` for another, each behind its own
``brandubh engine-bridge`` on a real hub, playing whole rated games of both rule sets OTN
can state, OpenTafl on each side. Runs only where an OpenTafl build is (OPENTAFL_CLASSPATH;
CI has none): docs/bridge.md, "Tested with OpenTafl"."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from bridge_helpers import BridgeProcess, bot_account, real_engine
from opentafl import CLASSPATH_ENV, opentafl_classpath, opentafl_engine, opentafl_folder

from brandubh.engine import ENGINE_REASONS, Game
from services import HubProcess
from waiting import wait_for
from wsclient import Msg

CLASSPATH = opentafl_classpath()
pytestmark = pytest.mark.skipif(
    CLASSPATH is None, reason=f"no OpenTafl build: set {CLASSPATH_ENV} (and have java)"
)


@pytest.mark.parametrize(
    ("ruleset", "opentafl_side"),
    [("walker", "attackers"), ("nielsen", "defenders")],
)
async def test_opentafl_plays_a_whole_rated_game_through_the_bridge(
    hub: HubProcess, tmp_path: Path, ruleset: str, opentafl_side: str
) -> None:
    assert CLASSPATH is not None
    (ot, ot_token), (ours, our_token) = await bot_account(hub), await bot_account(hub)
    folder = opentafl_folder(tmp_path / "opentafl", think_seconds=1)
    bridges = {
        "opentafl": BridgeProcess(
            [
                "--url",
                hub.url,
                "--engine",
                " ".join(opentafl_engine(CLASSPATH)),
                "--engine-dir",
                str(folder),
            ],
            ot_token,
        ),
        "ours": BridgeProcess(["--url", hub.url, "--engine", " ".join(real_engine())], our_token),
    }
    try:
        for bridge in bridges.values():
            bridge.said("playing as")
        # The challenger's colour: OpenTafl's bridge challenges for the side it is to play.
        async with httpx.AsyncClient(
            base_url=hub.url, headers={"Authorization": f"Bearer {ot_token}"}
        ) as client:
            body = {"ruleset": ruleset, "move_time": 60, "rated": True, "side": opentafl_side}
            r = await client.post(f"/api/challenge/{ours.id}", json=body)
            assert r.status_code == 201, r.text
            game = str(r.json()["challenge"]["id"])
        assert "accepted" in bridges["ours"].said(f"challenge {game} from")

        async def ended() -> Msg | None:
            state: Msg = (await ot.game(game))["state"]
            return state if state["status"] == "ended" else None

        final = await wait_for(ended, f"game {game} to end", timeout=1200, every=1.0)
        for bridge in bridges.values():
            bridge.said(f"game {game}: ended")
            bridge.signal()
        assert [bridge.wait() for bridge in bridges.values()] == [0, 0]
    finally:
        for bridge in bridges.values():
            bridge.kill()
    logs = {name: bridge.text() for name, bridge in bridges.items()}
    assert final["result"]["reason"] in ENGINE_REASONS, (final["result"], logs["opentafl"][-3000:])
    assert final["players"][opentafl_side]["id"] == ot.id
    assert final["rated"] is True and final["ply"] > 1
    for name, text in logs.items():
        assert "resigning" not in text, (name, text[-3000:])
    # Every move was legal: the record replays under our rules to the same end.
    record = (await ot.game(game))["moves"]
    replay = Game(ruleset)
    for move in record:
        replay.play(move)
    assert replay.result is not None and replay.result.reason == final["result"]["reason"]
