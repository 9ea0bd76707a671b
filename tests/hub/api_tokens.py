"""Helpers of the tests that use personal API tokens: making one from a session, a
program's client that sends it, an error body's code."""

from __future__ import annotations

import httpx

from services import HubProcess
from wsclient import Msg, Player


def error_of(r: httpx.Response) -> str:
    return str(r.json()["error"])


async def make_token(p: Player, name: str = "engine", scopes: list[str] | None = None) -> Msg:
    r = await p.http.post(
        "/api/account/tokens", json={"name": name, "scopes": scopes or ["games:read"]}
    )
    assert r.status_code == 201, r.text
    made: Msg = r.json()
    return made


def bearer(hub: HubProcess, token: str) -> httpx.AsyncClient:
    """A program's client: the token in its header, no cookie, no Origin."""
    return httpx.AsyncClient(base_url=hub.url, headers={"Authorization": f"Bearer {token}"})
