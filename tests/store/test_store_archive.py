"""Archiving finished games into PostgreSQL: exactly once, rated exactly once."""

from __future__ import annotations

import asyncio

from builders import finished
from sqlalchemy import func, select

from brandubh.ratings import Rating, rate_game
from brandubh.store import Store
from brandubh.store.tables import game_players, games, rating_history

ANN = ("u_ann", "Ann")
BOB = ("u_bob", "Bob")


async def two_accounts(store: Store) -> None:
    await store.create_account(ANN[0], "ann@example.org", ANN[1], "h")
    await store.create_account(BOB[0], "bob@example.org", BOB[1], "h")


async def count(store: Store, table: object, *where: object) -> int:
    async with store.engine.connect() as conn:
        q = select(func.count()).select_from(table)  # type: ignore[arg-type]
        for w in where:
            q = q.where(w)  # type: ignore[arg-type]
        return int(await conn.scalar(q) or 0)


async def test_a_rated_game_is_rated_once_and_a_retry_is_a_duplicate(store: Store) -> None:
    await two_accounts(store)
    game = finished(ANN, BOB, winner="attackers")
    first = await store.archive_game(game)
    assert first.outcome == "ok" and first.rated
    want_a, want_b = rate_game(Rating(), Rating(), 1.0)
    assert first.summary is not None
    assert first.summary["ratings"] == {
        ANN[0]: {"before": 1500.0, "after": round(want_a.rating, 1), "provisional": True},
        BOB[0]: {"before": 1500.0, "after": round(want_b.rating, 1), "provisional": True},
    }
    again = await store.archive_game(game)
    assert again.outcome == "dup"
    rating, n = await store.rating(ANN[0], "nielsen")
    assert n == 1 and abs(rating.rating - want_a.rating) < 1e-9
    assert await count(store, rating_history) == 2


async def test_two_hubs_archiving_one_ending_at_once_make_one_row(fresh_database_url: str) -> None:
    stores = [Store.from_url(fresh_database_url, pool_size=2) for _ in range(6)]
    try:
        await two_accounts(stores[0])
        game = finished(ANN, BOB, winner="defenders")
        outcomes = await asyncio.gather(*(s.archive_game(game) for s in stores for _ in range(3)))
        assert sorted(o.outcome for o in outcomes) == ["dup"] * 17 + ["ok"]
        assert await count(stores[0], games) == 1
        assert await count(stores[0], rating_history) == 2
        for pid in (ANN[0], BOB[0]):
            assert (await stores[0].rating(pid, "nielsen"))[1] == 1
    finally:
        for s in stores:
            await s.close()


async def test_games_of_one_pair_archived_at_once_each_count(fresh_database_url: str) -> None:
    """Rating rows are locked while a game is rated: no change is lost to another game."""
    stores = [Store.from_url(fresh_database_url, pool_size=3) for _ in range(4)]
    try:
        await two_accounts(stores[0])
        batch = [finished(ANN, BOB, winner=None, reason="draw", ended=2_000 + i) for i in range(24)]
        outcomes = await asyncio.gather(
            *(stores[i % 4].archive_game(g) for i, g in enumerate(batch))
        )
        assert [o.outcome for o in outcomes] == ["ok"] * 24
        rating, n = await stores[0].rating(ANN[0], "nielsen")
        assert n == 24
        # Draws between equals leave the rating at 1500 and shrink the RD every time.
        assert abs(rating.rating - 1500.0) < 1e-6 and rating.rd < 120
        assert await count(stores[0], rating_history, rating_history.c.player_id == ANN[0]) == 24
    finally:
        for s in stores:
            await s.close()


async def test_games_that_do_not_count_are_archived_unrated(store: Store) -> None:
    await two_accounts(store)
    cases = [
        finished(ANN, ("g_guest", "Guest")),  # a guest
        finished(ANN, ("bot", "Bot"), opponent="bot", rated=False),  # the bot
        finished(ANN, BOB, rated=False),  # created casual
        finished(ANN, BOB, winner=None, reason="aborted"),  # aborted
    ]
    for game in cases:
        done = await store.archive_game(game)
        assert done.outcome == "ok" and not done.rated
        assert done.summary is not None and done.summary["ratings"] is None
    assert await store.ratings(ANN[0]) == {}
    # Every human's list has their games; the bot has none.
    assert await count(store, game_players, game_players.c.player_id == ANN[0]) == 4
    assert await count(store, game_players, game_players.c.player_id == "bot") == 0
    assert await count(store, game_players, game_players.c.player_id == "g_guest") == 1


async def test_an_archived_game_keeps_what_replays_it(store: Store) -> None:
    game = finished(ANN, ("g_x", "X"), rated=False)
    await store.archive_game(game)
    final = await store.final_game(game.id)
    assert final is not None
    assert (final.final, final.final_seq, final.seed, final.record) == (
        game.final,
        game.final_seq,
        game.seed,
        game.record,
    )
    assert await store.final_game("nosuchgame00") is None
    assert await store.is_archived(game.id)
    assert await store.archived_among([game.id, "other"]) == {game.id}
