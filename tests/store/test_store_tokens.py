"""Personal API tokens in PostgreSQL: made under the per-account limit, listed without
their digests, found by digest while live, revoked once, last use noted."""

from __future__ import annotations

import asyncio
import hashlib

from brandubh.store import ApiToken, Store


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


async def test_a_token_is_made_found_listed_and_revoked(store: Store) -> None:
    await store.create_account("u_a", "a@example.org", "Ann", "h")
    made = await store.create_token(
        "t1", "u_a", "my engine", ("bot:play", "games:read"), digest("bdl_one"), most=20
    )
    assert isinstance(made, ApiToken)
    assert (made.id, made.account_id, made.name) == ("t1", "u_a", "my engine")
    assert made.scopes == ("bot:play", "games:read") and made.last_used is None
    assert made.created > 1_700_000_000_000
    assert await store.live_tokens("u_a") == [made]
    assert await store.token_holder(digest("bdl_one")) == (made, "Ann", False)
    assert await store.token_holder(digest("bdl_two")) is None
    await store.token_used("t1")
    used = await store.token_holder(digest("bdl_one"))
    assert used is not None and used[0].last_used is not None
    assert used[0].last_used >= made.created
    # Only its owner revokes it, once; then it is found no more and listed no more.
    assert not await store.revoke_token("u_b", "t1")
    assert await store.revoke_token("u_a", "t1")
    assert not await store.revoke_token("u_a", "t1")
    assert await store.token_holder(digest("bdl_one")) is None
    assert await store.live_tokens("u_a") == []


async def test_the_newest_comes_first_and_each_account_sees_its_own(store: Store) -> None:
    await store.create_account("u_a", "a@example.org", "Ann", "h")
    await store.create_account("u_b", "b@example.org", "Bo", "h")
    for n in range(3):
        await store.create_token(f"a{n}", "u_a", f"t{n}", ("games:read",), digest(f"a{n}"), most=9)
    await store.create_token("b0", "u_b", "b", ("bot:play",), digest("b0"), most=9)
    assert [t.id for t in await store.live_tokens("u_a")] == ["a2", "a1", "a0"]
    assert [t.id for t in await store.live_tokens("u_b")] == ["b0"]
    assert await store.live_tokens("u_none") == []


async def test_the_limit_counts_live_tokens_even_when_made_at_once(store: Store) -> None:
    await store.create_account("u_a", "a@example.org", "Ann", "h")
    made = await asyncio.gather(
        *(
            store.create_token(f"t{n}", "u_a", "x", ("games:read",), digest(f"t{n}"), most=3)
            for n in range(6)
        )
    )
    assert sum(m is not None for m in made) == 3
    assert len(await store.live_tokens("u_a")) == 3
    gone = next(m for m in made if m is not None)
    assert await store.revoke_token("u_a", gone.id)  # a revoked one frees its place
    again = await store.create_token("t9", "u_a", "x", ("games:read",), digest("t9"), most=3)
    assert again is not None
    # No account, no token.
    assert await store.create_token("t8", "u_none", "x", (), digest("t8"), most=3) is None
