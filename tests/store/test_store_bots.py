"""Bot accounts in PostgreSQL: the upgrade (once, only without rated games), the account's
standing, and the leaderboards kept apart."""

from __future__ import annotations

from builders import finished
from sqlalchemy import update

from brandubh.store import Standing, Store
from brandubh.store.tables import accounts, ratings


async def test_an_account_without_rated_games_becomes_a_bot_once(store: Store) -> None:
    made = await store.create_account("u_a", "a@example.org", "Ann", "h")
    assert not made.bot and await store.standing("u_a") == Standing(verified=True, bot=False)
    # An unrated game does not stand in the way.
    await store.create_account("u_b", "b@example.org", "Bob", "h")
    await store.archive_game(finished(("u_a", "Ann"), ("u_b", "Bob"), rated=False))
    assert await store.upgrade_to_bot("u_a") is None
    account = await store.account("u_a")
    assert account is not None and account.bot
    assert await store.standing("u_a") == Standing(verified=True, bot=True)
    assert (await store.credentials("a@example.org")) == (account, "h")
    # Irreversible, and asked again it says why nothing changed.
    assert await store.upgrade_to_bot("u_a") == "already_bot"
    assert await store.upgrade_to_bot("u_none") == "no_account"
    assert await store.standing("u_none") is None


async def test_an_account_with_a_rated_game_stays_a_person(store: Store) -> None:
    ann, bob = ("u_a", "Ann"), ("u_b", "Bob")
    for pid, name in (ann, bob):
        await store.create_account(pid, f"{pid}@x.org", name, "h")
    archived = await store.archive_game(finished(ann, bob))
    assert archived.rated
    assert await store.upgrade_to_bot("u_a") == "rated_games"
    assert await store.upgrade_to_bot("u_b") == "rated_games"
    assert not (await store.account("u_a")).bot  # type: ignore[union-attr]
    # A rated game archived without a ratings row (kept from before) still counts.
    async with store.engine.begin() as conn:
        await conn.execute(ratings.delete().where(ratings.c.player_id == "u_b"))
    assert await store.upgrade_to_bot("u_b") == "rated_games"


async def test_bots_have_their_own_leaderboard(store: Store) -> None:
    people = [("u_a", "Ann"), ("u_b", "Bob")]
    bots = [("u_c", "Cybot"), ("u_d", "Dibot")]
    for pid, name in people + bots:
        await store.create_account(pid, f"{pid}@x.org", name, "h")
        await store.set_leaderboard(pid, True)
    await store.archive_game(finished(people[0], people[1], game_id="g1"))
    await store.archive_game(finished(bots[0], bots[1], game_id="g2"))
    async with store.engine.begin() as conn:
        # Two bots rated through the Bot API: made bots here directly, their ratings settled.
        await conn.execute(
            update(accounts).where(accounts.c.id.in_(["u_c", "u_d"])).values(bot=True)
        )
        await conn.execute(update(ratings).values(rd=80.0))
        await conn.execute(
            update(ratings).where(ratings.c.player_id == "u_c").values(rating=1900.0)
        )
    people_board = await store.leaderboard("nielsen")
    assert [e["id"] for e in people_board] == ["u_a", "u_b"]
    assert all("bot" not in e for e in people_board)
    bot_board = await store.leaderboard("nielsen", bots=True)
    assert [(e["rank"], e["id"], e["name"], e["bot"]) for e in bot_board] == [
        (1, "u_c", "Cybot", True),
        (2, "u_d", "Dibot", True),
    ]
