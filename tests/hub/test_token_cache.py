"""The hub's memory of API token holders: bounded and short-lived (the pure cache), read
from PostgreSQL once for many requests, and never in the way of a revocation or a bot
upgrade made on another hub (real hubs, Redis and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from api_tokens import bearer, error_of, make_token
from redis.asyncio import Redis

from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal
from brandubh.hub.redis import Scripts
from brandubh.hub.tokens import ApiTokens
from brandubh.hub.tokens.cache import HolderCache
from brandubh.store import ApiToken, Store
from services import HubProcess
from wsclient import Player


def a_token(n: int, account: str = "acct") -> ApiToken:
    return ApiToken(f"t{n}", account, "engine", ("games:read",), 0, None)


def test_the_cache_keeps_at_most_its_size_dropping_the_least_recently_used() -> None:
    now = [0.0]
    cache = HolderCache(3, 60.0, clock=lambda: now[0])
    for n in range(3):
        cache.put(bytes([n]), a_token(n), "A", False)
    assert cache.get(bytes([0])) is not None  # 0 is now the most recently used
    cache.put(bytes([3]), a_token(3), "A", False)
    assert len(cache) == 3
    assert cache.get(bytes([1])) is None  # the least recently used went
    assert [cache.get(bytes([n])) is not None for n in (0, 2, 3)] == [True, True, True]
    for n in range(4, 1000):
        cache.put(bytes(str(n), "ascii"), a_token(n), "A", False)
    assert len(cache) == 3


def test_a_kept_holder_is_forgotten_after_its_time() -> None:
    now = [100.0]
    cache = HolderCache(10, 60.0, clock=lambda: now[0])
    held = cache.put(b"d", a_token(1), "A", False)
    assert held.token.id == "t1" and cache.get(b"d") is held
    now[0] = 159.9
    assert cache.get(b"d") is held
    now[0] = 160.0
    assert cache.get(b"d") is None and len(cache) == 0
    cache.put(b"d", a_token(1), "A", False)
    cache.drop(b"d")
    assert cache.get(b"d") is None
    # Kept from when PostgreSQL was asked, not from when it answered.
    cache.put(b"e", a_token(2), "A", False, asked=now[0] - 59.0)
    now[0] += 1.0
    assert cache.get(b"e") is None
    with pytest.raises(ValueError, match="at least one"):
        HolderCache(0, 60.0)


class CountingStore(Store):
    """The real store, counting its reads of token holders and writes of last uses."""

    holder_reads = 0
    use_writes = 0

    async def token_holder(self, digest: bytes) -> tuple[ApiToken, str, bool] | None:
        self.holder_reads += 1
        return await super().token_holder(digest)

    async def token_used(self, token_id: str) -> None:
        self.use_writes += 1
        await super().token_used(token_id)


@pytest.fixture
async def counting(database_url: str) -> AsyncIterator[CountingStore]:
    store = CountingStore.from_url(database_url, timeout_s=5)
    assert isinstance(store, CountingStore)
    yield store
    await store.close()


async def test_many_requests_read_the_holder_once_and_note_the_use_once(
    hub: HubProcess, redis_async: Redis, counting: CountingStore
) -> None:
    p = await Player(hub.url).signup(name="Cached")
    made = await make_token(p, "engine", ["games:read"])
    tokens = ApiTokens(redis_async, Scripts.register(redis_async), counting, Settings())
    header = f"Bearer {made['token']}"
    for _ in range(25):
        holder = await tokens.bearer(header, "games:read")
        assert holder.account_id == p.id and holder.name == "Cached" and not holder.bot
    assert counting.holder_reads == 1
    assert counting.use_writes <= 1  # at most: a hub may have noted it within the minute
    # Revoked through the hub: this other "hub" refuses its next request, cached or not.
    r = await p.http.delete(f"/api/account/tokens/{made['id']}")
    assert r.status_code == 200, r.text
    with pytest.raises(Refusal) as refused:
        await tokens.bearer(header, "games:read")
    assert refused.value.code == "token_invalid"
    with pytest.raises(Refusal) as again:
        await tokens.bearer(header)
    assert again.value.code == "token_invalid"
    await p.close()


async def test_a_token_revoked_on_one_hub_is_refused_at_once_on_another(
    hub: HubProcess, hub2: HubProcess
) -> None:
    p = await Player(hub.url).signup()
    made = await make_token(p, "engine", ["games:read"])
    async with bearer(hub2, made["token"]) as program:
        for _ in range(3):  # hub2 holds it now
            assert (await program.get("/api/account")).status_code == 200
        r = await p.http.delete(f"/api/account/tokens/{made['id']}")
        assert r.status_code == 200, r.text
        r = await program.get("/api/account")
        assert r.status_code == 401 and error_of(r) == "token_invalid"
        r = await program.get("/api/account/games")
        assert r.status_code == 401 and error_of(r) == "token_invalid"
    await p.close()


async def test_an_account_upgraded_on_one_hub_is_a_bot_at_once_on_another(
    hub: HubProcess, hub2: HubProcess
) -> None:
    p = await Player(hub.url).signup(name="Soon A Bot")
    made = await make_token(p, "engine", ["bot:play", "games:read"])
    async with bearer(hub2, made["token"]) as there, bearer(hub, made["token"]) as here:
        r = await there.get("/api/account")
        assert r.status_code == 200 and r.json()["bot"] is False  # hub2 holds it now
        r = await here.post("/api/bot/account/upgrade")
        assert r.status_code == 200, r.text
        r = await there.get("/api/account")
        assert r.status_code == 200 and r.json()["bot"] is True
        r = await there.post("/api/bot/account/upgrade")
        assert r.status_code == 409 and error_of(r) == "already_bot"
    await p.close()
