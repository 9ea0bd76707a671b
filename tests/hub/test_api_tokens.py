"""Personal API tokens over real HTTP on a real hub: made, listed and revoked from a
browser session; used as a bearer token on the token routes; every wrong way refused with
its code and nothing changed; the per-token rate limit; a token is never a session and a
session never opens a token route."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_tokens import bearer, error_of, make_token

from brandubh.hub.tokens import SCOPES as SERVER
from services import HubProcess
from wsclient import Msg, Player

SCOPES = ["bot:play", "challenge:write", "games:read"]


async def listed(p: Player) -> list[Msg]:
    r = await p.http.get("/api/account/tokens")
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    tokens: list[Msg] = r.json()["tokens"]
    return tokens


async def test_a_token_is_made_shown_once_used_listed_and_revoked(hub: HubProcess) -> None:
    p = await Player(hub.url).signup(name="Tokenmaker")
    made = await make_token(p, "  my   engine ", ["games:read", "bot:play"])
    assert set(made) == {"id", "name", "scopes", "token", "created"}
    assert made["name"] == "my engine" and made["scopes"] == ["bot:play", "games:read"]
    assert made["token"].startswith("bdl_") and len(made["token"]) == 47
    # The list never shows the text again.
    shown = await listed(p)
    assert shown == [
        {
            "id": made["id"],
            "name": "my engine",
            "scopes": ["bot:play", "games:read"],
            "created": made["created"],
            "last_used": None,
        }
    ]
    assert made["token"] not in (await p.http.get("/api/account/tokens")).text
    async with bearer(hub, made["token"]) as program:
        r = await program.get("/api/account")
        assert r.status_code == 200, r.text
        assert r.json() == {
            "id": p.id,
            "name": "Tokenmaker",
            "bot": False,
            "scopes": ["bot:play", "games:read"],
        }
        games = await program.get("/api/account/games")
        assert games.status_code == 200 and set(games.json()) == {
            "playing",
            "finished",
            "your_move",
        }
        # Its last use is noted once, then not again within the minute.
        used = (await listed(p))[0]["last_used"]
        assert used is not None and used >= made["created"]
        assert (await program.get("/api/account")).status_code == 200
        assert (await listed(p))[0]["last_used"] == used
        # Revoked: refused from the next request on, and gone from the list.
        r = await p.http.delete(f"/api/account/tokens/{made['id']}")
        assert r.status_code == 200 and r.json() == {"id": made["id"], "revoked": True}
        r = await program.get("/api/account")
        assert r.status_code == 401 and error_of(r) == "token_invalid"
        assert "revoked" in r.json()["message"]
        assert r.headers["www-authenticate"].startswith("Bearer")
    assert await listed(p) == []
    r = await p.http.delete(f"/api/account/tokens/{made['id']}")  # once only
    assert r.status_code == 404 and error_of(r) == "not_found"
    await p.close()


async def test_names_and_scopes_are_checked(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    cases: list[tuple[Any, Any, int, str]] = [
        ("x", ["games:write"], 400, "unknown_scope"),
        ("x", ["games:read", "admin"], 400, "unknown_scope"),
        ("x", [], 400, "bad_field"),
        ("x", "games:read", 400, "bad_field"),
        ("x", None, 400, "bad_field"),
        ("", ["games:read"], 400, "bad_field"),
        ("   ", ["games:read"], 400, "bad_field"),
        ("y" * 41, ["games:read"], 400, "bad_field"),
        ("a\x00b", ["games:read"], 400, "bad_field"),
        (7, ["games:read"], 400, "bad_field"),
    ]
    for name, scopes, status, code in cases:
        r = await p.http.post("/api/account/tokens", json={"name": name, "scopes": scopes})
        assert (r.status_code, error_of(r)) == (status, code), (name, scopes, r.text)
    r = await p.http.post("/api/account/tokens", json={"name": "x", "scopes": ["games:write"]})
    assert "'games:write'" in r.json()["message"]  # names the unknown scope
    r = await p.http.post("/api/account/tokens", json={"name": "x", "scopes": [], "extra": 1})
    assert error_of(r) == "bad_field"
    assert await listed(p) == []  # nothing was made
    await p.close()


async def test_at_most_twenty_live_tokens(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    made = [await make_token(p, f"t{n}") for n in range(20)]
    r = await p.http.post("/api/account/tokens", json={"name": "one more", "scopes": SCOPES})
    assert r.status_code == 409 and error_of(r) == "too_many_tokens"
    assert len(await listed(p)) == 20
    await p.http.delete(f"/api/account/tokens/{made[0]['id']}")
    await make_token(p, "room again")
    await p.close()


async def test_the_management_routes_need_a_session_never_a_token(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    made = await make_token(p, scopes=SCOPES)
    before = await listed(p)
    async with bearer(hub, made["token"]) as program:
        program.headers["Origin"] = hub.url
        r = await program.post("/api/account/tokens", json={"name": "x", "scopes": SCOPES})
        assert r.status_code == 401 and error_of(r) == "not_logged_in"
        r = await program.get("/api/account/tokens")
        assert r.status_code == 401 and error_of(r) == "not_logged_in"
        r = await program.delete(f"/api/account/tokens/{made['id']}")
        assert r.status_code == 401 and error_of(r) == "not_logged_in"
        # Nor is it a session anywhere else.
        assert (await program.get("/api/me")).json()["id"] is None
    # A guest session makes no token either.
    guest = await Player(hub.url).guest()
    r = await guest.http.post("/api/account/tokens", json={"name": "x", "scopes": SCOPES})
    assert r.status_code == 401 and error_of(r) == "not_logged_in"
    # Another site cannot make the browser make or revoke one.
    evil = {"Origin": "https://evil.example"}
    r = await p.http.post("/api/account/tokens", json={"name": "x", "scopes": SCOPES}, headers=evil)
    assert r.status_code == 403 and error_of(r) == "forbidden"
    r = await p.http.delete(f"/api/account/tokens/{made['id']}", headers=evil)
    assert r.status_code == 403 and error_of(r) == "forbidden"
    # Another account cannot revoke it.
    other = await Player(hub.url).signup()
    r = await other.http.delete(f"/api/account/tokens/{made['id']}")
    assert r.status_code == 404 and error_of(r) == "not_found"
    assert await listed(p) == before  # nothing changed
    for player in (p, guest, other):
        await player.close()


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Basic dXNlcjpwYXNz",
        "Bearer bdl_short",
        "Bearer xyz_" + "a" * 43,
        "Bearer bdl_" + "a" * 42 + "!",
        "Token bdl_" + "a" * 43,
        "Bearer bdl_" + "a" * 43,  # well formed, never made
    ],
)
async def test_a_token_route_refuses_a_missing_malformed_or_unknown_token(
    hub: HubProcess, header: str | None
) -> None:
    headers = {} if header is None else {"Authorization": header}
    async with httpx.AsyncClient(base_url=hub.url, headers=headers) as program:
        for path in ("/api/account", "/api/account/games"):
            r = await program.get(path)
            assert r.status_code == 401 and error_of(r) == "token_invalid", (header, r.text)
            assert r.headers["www-authenticate"].startswith("Bearer")


async def test_a_token_route_ignores_the_session_cookie(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    made = await make_token(p)
    r = await p.http.get("/api/account")  # the browser's session, no token
    assert r.status_code == 401 and error_of(r) == "token_invalid"
    # A session and a wrong token: the token decides, the session is not looked at.
    r = await p.http.get("/api/account", headers={"Authorization": "Bearer bdl_" + "b" * 43})
    assert r.status_code == 401 and error_of(r) == "token_invalid"
    assert (await listed(p))[0]["last_used"] is None  # nothing used, nothing changed
    r = await p.http.get("/api/account", headers={"Authorization": f"bearer {made['token']}"})
    assert r.status_code == 200 and r.json()["id"] == p.id  # the scheme in any case
    await p.close()


async def test_a_token_without_the_scope_is_refused_naming_it(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    made = await make_token(p, scopes=["bot:play"])
    async with bearer(hub, made["token"]) as program:
        r = await program.get("/api/account/games")
        assert r.status_code == 403 and error_of(r) == "token_scope"
        assert "games:read" in r.json()["message"]
        assert (await listed(p))[0]["last_used"] is None  # a refusal notes no use
        assert (await program.get("/api/account")).status_code == 200  # any scope does
    await p.close()


async def test_each_token_has_its_own_rate_limit(start_hub: Any) -> None:
    h = start_hub({"BRANDUBH_TOKEN_REQUESTS": "3"})
    p = await Player(h.url).signup()
    first, second = await make_token(p, "first"), await make_token(p, "second")
    async with bearer(h, first["token"]) as program:
        codes = [(await program.get("/api/account")).status_code for _ in range(3)]
        assert codes == [200, 200, 200]
        r = await program.get("/api/account")
        assert r.status_code == 429 and error_of(r) == "rate_limited"
        assert 1 <= int(r.headers["retry-after"]) <= 60
        assert "this token" in r.json()["message"]
    async with bearer(h, second["token"]) as other:  # another token of the same account
        assert (await other.get("/api/account")).status_code == 200
    await p.close()


def test_the_client_offers_exactly_the_servers_scopes_in_its_words() -> None:
    """client/src/network/tokens.ts repeats hub/tokens/scopes.py's scopes and sentences."""
    source = (Path(__file__).resolve().parents[2] / "client/src/network/tokens.ts").read_text()
    client = dict(re.findall(r'\{ id: "([^"]+)", text: "([^"]+)" \}', source))
    assert client == SERVER
