"""A bot's move answered in front of Starlette (hub/http/lean.py) on a real hub: the answer
a route through the app would give (its body, its status, its headers: the security
headers, no-store, never gzipped), a move sent twice applied once, the refusals as the
app's own routes give them (a bad token beside the same on /resign, which the app answers),
a misshapen id, the token's rate window; another method goes on to the app."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from api_tokens import bearer, error_of, make_token

from brandubh.hub.http.headers import ALWAYS
from services import HubProcess
from wsclient import Player, Socket, friend_game, seated

FIRST = "g4-g3"  # the attackers' first move (nielsen)
SECURITY = {name.decode(): value.decode() for name, value in ALWAYS}


async def bot_to_move(hub: HubProcess) -> tuple[str, Player, Socket, str]:
    """A friend game in which the bot account (a ``bot:play`` token's) has the first move:
    the game, the bot account, the person's socket, the bot's token."""
    while True:
        game, alice, bob = await friend_game(hub.url)
        socks = await seated(game, alice)
        if "defenders" in socks:  # the person defends: the bot opens
            made = await make_token(bob, "bot", ["bot:play"])
            return game, bob, socks["defenders"], str(made["token"])
        for sock in socks.values():
            await sock.close()


def security_of(r: httpx.Response) -> dict[str, str]:
    return {name: r.headers.get(name, "") for name in SECURITY}


async def test_a_move_is_answered_as_the_app_would_and_applied_once(hub: HubProcess) -> None:
    game, _bob, sock, token = await bot_to_move(hub)
    async with bearer(hub, token) as bot:
        url = f"/api/bot/game/{game}/move/{FIRST}"
        r = await bot.post(url, params={"ply": 0}, headers={"Accept-Encoding": "gzip"})
        assert r.status_code == 200, r.text
        assert r.json() == {"ok": True, "n": r.json()["n"]} and r.json()["n"] > 0
        assert r.headers["content-type"] == "application/json"
        assert r.headers["cache-control"] == "no-store"
        assert "content-encoding" not in r.headers and "vary" not in r.headers
        assert security_of(r) == SECURITY
        event = await sock.event(r.json()["n"])
        assert event["move"] == FIRST and event["state"]["ply"] == 1
        again = await bot.post(url, params={"ply": 0})  # sent twice: applied once
        assert again.status_code == 200 and again.json() == r.json(), again.text
        state = (await bot.get(f"/api/games/{game}")).json()["state"]
        assert state["ply"] == 1 and state["status"] == "active"


async def test_refusals_are_the_apps_own(hub: HubProcess) -> None:
    game, _bob, _sock, token = await bot_to_move(hub)
    async with bearer(hub, "bb_" + "x" * 40) as wrong, bearer(hub, token) as bot:
        # A wrong token: the same answer as the app's route (/resign) gives it.
        moved = await wrong.post(f"/api/bot/game/{game}/move/{FIRST}")
        resigned = await wrong.post(f"/api/bot/game/{game}/resign")
        assert moved.status_code == resigned.status_code == 401
        assert moved.json() == resigned.json() and error_of(moved) == "token_invalid"
        for name in ("www-authenticate", "content-type", "cache-control", *SECURITY):
            assert moved.headers.get(name) == resigned.headers.get(name), name
        # Ids not of their shape: refused before anything is read, as the app's guard does.
        r = await bot.post(f"/api/bot/game/{game}/move/g4%3Ag3")
        assert r.status_code == 404 and r.json()["message"] == "no move has that form", r.text
        moved = await bot.post("/api/bot/game/no.such/move/g4-g3")
        resigned = await bot.post("/api/bot/game/no.such/resign")
        assert moved.status_code == resigned.status_code == 404
        assert moved.json() == resigned.json() and error_of(moved) == "not_found"
        assert security_of(moved) == SECURITY
        # The route's own refusals, with the security headers.
        r = await bot.post(f"/api/bot/game/{game}/move/a1-a2", params={"ply": 0})
        assert r.status_code == 400 and error_of(r) == "illegal_move", r.text
        assert security_of(r) == SECURITY and r.headers["cache-control"] == "no-store"
        r = await bot.post(f"/api/bot/game/{game}/move/{FIRST}", params={"ply": "-1"})
        assert r.status_code == 400 and error_of(r) == "bad_field", r.text
        # Another method is the app's to answer.
        r = await bot.get(f"/api/bot/game/{game}/move/{FIRST}")
        assert r.status_code == 405, r.text
        state = (await bot.get(f"/api/games/{game}")).json()["state"]
        assert state["ply"] == 0  # nothing changed


async def test_a_move_counts_in_the_tokens_window(
    start_hub: Callable[..., HubProcess],
) -> None:
    h = start_hub({"BRANDUBH_TOKEN_REQUESTS": "2"})
    game, _bob, _sock, token = await bot_to_move(h)
    async with bearer(h, token) as bot:
        url = f"/api/bot/game/{game}/move"
        r = await bot.post(f"{url}/a1-a2", params={"ply": 0})
        assert error_of(r) == "illegal_move", r.text
        r = await bot.post(f"{url}/{FIRST}", params={"ply": 0})
        assert r.status_code == 200, r.text
        r = await bot.post(f"{url}/d5-g5", params={"ply": 1})
        assert r.status_code == 429 and error_of(r) == "rate_limited", r.text
        assert int(r.headers["retry-after"]) >= 1
        assert security_of(r) == SECURITY
        state = (await bot.get(f"/api/games/{game}")).json()["state"]
        assert state["ply"] == 1
