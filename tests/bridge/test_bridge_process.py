"""``brandubh engine-bridge`` as a process: wrong settings and refused tokens end it with a
sentence naming the problem (no traceback), and a signal stops an idle bridge with 0."""

from __future__ import annotations

import signal

import pytest
from bridge_helpers import BridgeProcess, real_engine, token_of

from services import HubProcess
from wsclient import Player

ENGINE = " ".join(real_engine())


def args_for(url: str, *more: str) -> list[str]:
    return ["--url", url, "--engine", ENGINE, *more]


def test_the_help_explains_the_command() -> None:
    bridge = BridgeProcess(["--help"], None)
    assert bridge.wait() == 0
    for words in ("OpenTafl Engine Protocol", "bot:play", "--max-games", "second signal"):
        assert words in bridge.text(), words


def test_wrong_settings_are_named_without_a_traceback() -> None:
    token = "bdl_" + "x" * 43
    for args, said in [
        (["--url", "brandubh.example.org", "--engine", ENGINE], "url must be the site's address"),
        (args_for("http://127.0.0.1:9", "--rulesets", "newsome"), "'newsome': an OTEP engine"),
        (args_for("http://127.0.0.1:9", "--max-games", "100"), "max_games is 100: from 1 to 64"),
    ]:
        bridge = BridgeProcess(args, token)
        assert bridge.wait() == 1
        assert said in bridge.text() and "Traceback" not in bridge.text()
    bridge = BridgeProcess(args_for("http://127.0.0.1:9"), None)
    assert bridge.wait() == 1
    assert "no token: set BRANDUBH_TOKEN" in bridge.text()


async def test_a_refused_token_or_an_absent_site_ends_it_with_2(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    reader = await token_of(p, ["games:read"])
    for url, token, said in [
        (hub.url, "bdl_" + "z" * 43, "the site refuses the token: token_invalid"),
        (hub.url, reader, "the token lacks the scope bot:play"),
        ("http://127.0.0.1:9", reader, "the site at http://127.0.0.1:9 cannot be reached"),
    ]:
        bridge = BridgeProcess(args_for(url), token)
        try:
            assert bridge.wait() == 2
        finally:
            bridge.kill()
        assert said in bridge.text() and "Traceback" not in bridge.text()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_an_idle_bridge_stops_on_a_signal_with_0(hub: HubProcess, sig: int) -> None:
    p = await Player(hub.url).signup()
    token = await token_of(p, ["bot:play", "challenge:write"])
    bridge = BridgeProcess(args_for(hub.url), token)
    try:
        assert p.id in bridge.said("playing as")
        bridge.signal(sig)
        assert bridge.wait() == 0
    finally:
        bridge.kill()
    assert "stopping: declining new challenges" in bridge.text()
    assert "Traceback" not in bridge.text()
