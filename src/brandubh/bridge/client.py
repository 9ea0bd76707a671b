"""The site as the bridge sees it: token requests over httpx, NDJSON streams read line by
line, retries with capped exponential backoff and jitter (docs/bridge.md, "Reconnecting")."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final

import httpx

__all__ = ["Answer", "Api", "Backoff", "Fatal", "StreamRefused"]

log = logging.getLogger(__name__)

# A stream sends an empty line every 7 s: this long without a byte, and it is dead.
STREAM_READ_SECONDS: Final = 30.0
REQUEST_SECONDS: Final = 20.0
POST_TRIES: Final = 6


class Fatal(Exception):
    """The site refuses the token itself (revoked, or missing a scope): retrying is useless."""


class StreamRefused(Exception):
    """A stream the site refused for a reason of its own (the game is not ours, is gone)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code = status, code


@dataclass(frozen=True, slots=True)
class Answer:
    """A POST's status and JSON body (``error`` names a refusal's code); status 0 when
    the site could not be reached, ``failure`` saying why."""

    status: int
    body: dict[str, Any]
    failure: str = ""
    refused: str = ""  # a refusal's code given apart from a body (the bot socket's)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def error(self) -> str:
        return self.refused or str(self.body.get("error") or "")

    @property
    def why(self) -> str:
        """The answer in words, for the log."""
        if self.failure:
            return self.failure
        said = self.body.get("message") or self.body.get("text") or ""
        return f"{self.status} {self.error} {said}".strip()


class Backoff:
    """Delays before each retry: doubling from ``first`` up to ``cap``, each drawn from its
    upper half (jitter, so that bridges cut off together do not return together)."""

    def __init__(self, first: float = 1.0, cap: float = 60.0, rng: random.Random | None = None):
        self.first, self.cap = first, cap
        self.rng = rng or random.Random()
        self.failures = 0

    def next_delay(self) -> float:
        ceiling: float = min(self.cap, self.first * 2.0**self.failures)
        self.failures = min(self.failures + 1, 32)
        return ceiling / 2 + self.rng.random() * ceiling / 2

    def reset(self) -> None:
        self.failures = 0


def _body(r: httpx.Response) -> dict[str, Any]:
    try:
        body = r.json()
    except ValueError:
        return {"text": r.text[:200]}  # no JSON: a proxy's page, say
    return body if isinstance(body, dict) else {"value": body}


def _retry_after(r: httpx.Response) -> float | None:
    try:
        return max(0.0, float(r.headers.get("retry-after", "")))
    except ValueError:
        return None


class Api:
    """The site at ``url`` with one token."""

    def __init__(self, url: str, token: str) -> None:
        self.client = httpx.AsyncClient(
            base_url=url,
            headers={"Authorization": f"Bearer {token}", "User-Agent": "brandubh-engine-bridge"},
            timeout=REQUEST_SECONDS,
        )

    async def close(self) -> None:
        await self.client.aclose()

    def _fatal(self, r: httpx.Response) -> None:
        body = _body(r)
        if r.status_code == 401 or body.get("error") == "token_scope":
            raise Fatal(f"the site refuses the token: {body.get('error')}: {body.get('message')}")

    async def get(self, path: str) -> dict[str, Any]:
        """A GET's JSON; Fatal for a refused token, httpx.HTTPError for the rest."""
        r = await self.client.get(path)
        self._fatal(r)
        r.raise_for_status()
        return _body(r)

    async def post(self, path: str, params: dict[str, Any] | None = None, **kw: Any) -> Answer:
        """A POST, retried (the same request: the site applies a repeat once) when the
        network fails, the site is unavailable or its limit says wait; its final answer."""
        backoff = Backoff(0.5, 10.0)
        for attempt in range(POST_TRIES):
            try:
                r = await self.client.post(path, params=params, **kw)
            except httpx.HTTPError as exc:
                if attempt == POST_TRIES - 1:
                    return Answer(0, {}, failure=f"the site cannot be reached: {exc}")
                await asyncio.sleep(backoff.next_delay())
                continue
            self._fatal(r)
            if r.status_code in (429, 502, 503, 504) and attempt < POST_TRIES - 1:
                await asyncio.sleep(_retry_after(r) or backoff.next_delay())
                continue
            return Answer(r.status_code, _body(r))
        raise AssertionError("unreachable")  # pragma: no cover

    async def lines(
        self, path: str, params: dict[str, Any] | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """The JSON lines of an NDJSON stream (keep-alives skipped) until it ends.
        StreamRefused for a refusal, httpx.HTTPError for a failure (reconnect)."""
        timeout = httpx.Timeout(REQUEST_SECONDS, read=STREAM_READ_SECONDS)
        async with self.client.stream("GET", path, params=params, timeout=timeout) as r:
            if r.status_code != 200:
                await r.aread()
                self._fatal(r)
                body = _body(r)
                if r.status_code == 429 or r.status_code >= 500:
                    wait = _retry_after(r)
                    if wait:
                        await asyncio.sleep(wait)
                    raise httpx.HTTPStatusError(
                        f"{r.status_code} {body.get('error')}", request=r.request, response=r
                    )
                raise StreamRefused(r.status_code, str(body.get("error")), str(body.get("message")))
            async for raw in r.aiter_lines():
                if not raw.strip():
                    continue
                try:
                    line = json.loads(raw)
                except ValueError:
                    log.warning("%s: a line that is not JSON, passed: %.200s", path, raw)
                    continue
                if isinstance(line, dict):
                    yield line
