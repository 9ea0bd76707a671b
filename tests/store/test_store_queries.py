"""Accounts, profiles, leaderboards and archive pages read from PostgreSQL."""

from __future__ import annotations

import pytest
from builders import finished
from sqlalchemy import update

from brandubh.store import EmailTaken, IdTaken, Store, StoreUnavailable
from brandubh.store.tables import ratings


async def test_accounts_are_found_by_id_and_email(store: Store) -> None:
    made = await store.create_account("u_a", "a@example.org", "Ann", "hash1")
    assert made.created > 1_700_000_000_000 and not made.leaderboard
    assert await store.account("u_a") == made
    assert await store.credentials("a@example.org") == (made, "hash1")
    assert await store.credentials("nobody@example.org") is None
    assert await store.account("u_none") is None
    with pytest.raises(EmailTaken):
        await store.create_account("u_b", "a@example.org", "Other", "h")
    with pytest.raises(IdTaken):
        await store.create_account("u_a", "b@example.org", "Other", "h")
    assert await store.set_password("u_a", "hash2")
    assert await store.password_hash("u_a") == "hash2"
    assert not await store.set_password("u_none", "x")
    assert await store.set_leaderboard("u_a", True)
    assert (await store.account("u_a")).leaderboard  # type: ignore[union-attr]
    assert not await store.set_leaderboard("u_none", True)


async def test_a_players_games_come_newest_first_in_pages(store: Store) -> None:
    ann = ("u_a", "Ann")
    for i in range(5):
        await store.archive_game(
            finished(ann, (f"g_{i}", "G"), ended=10_000 + i, game_id=f"game{i}")
        )
    page, nxt = await store.player_games("u_a", 0, 2)
    assert [g["id"] for g in page] == ["game4", "game3"] and nxt == 2
    page, nxt = await store.player_games("u_a", 4, 2)
    assert [g["id"] for g in page] == ["game0"] and nxt is None
    first = (await store.player_games("u_a", 0, 1))[0][0]
    assert first == {
        "id": "game4",
        "ruleset": "nielsen",
        "rated": False,
        "opponent": "friend",
        "bot_level": None,
        "players": {
            "attackers": {"id": "u_a", "name": "Ann"},
            "defenders": {"id": "g_4", "name": "G"},
        },
        "result": {"winner": "attackers", "reason": "king_captured"},
        "plies": 3,
        "move_time": 60,
        "created": 10_004 - 500,
        "ended": 10_004,
        "ratings": None,
        "origin": None,  # (the fixture's game says not where it came from)
    }
    assert await store.player_games("u_nobody", 0, 20) == ([], None)


async def test_profile_ratings_carry_their_history(store: Store) -> None:
    a, b = ("u_a", "Ann"), ("u_b", "Bob")
    await store.create_account(a[0], "a@x.org", a[1], "h")
    await store.create_account(b[0], "b@x.org", b[1], "h")
    await store.archive_game(finished(a, b, ended=5_000, game_id="first"))
    await store.archive_game(finished(b, a, ended=6_000, game_id="second", ruleset="newsome"))
    await store.archive_game(finished(a, b, ended=7_000, game_id="third"))
    mine = await store.ratings("u_a")
    assert set(mine) == {"nielsen", "newsome"}
    nielsen = mine["nielsen"]
    assert nielsen["games"] == 2 and nielsen["provisional"]
    assert [p["game"] for p in nielsen["history"]] == ["first", "third"]
    assert nielsen["history"][-1]["rating"] == nielsen["rating"]
    assert set(nielsen) == {"rating", "rd", "volatility", "games", "provisional", "history"}


async def test_the_leaderboard_shows_opted_in_settled_ratings_best_first(store: Store) -> None:
    players = [("u_a", "Ann"), ("u_b", "Bob"), ("u_c", "Cy"), ("u_d", "Di")]
    for pid, name in players:
        await store.create_account(pid, f"{pid}@x.org", name, "h")
    await store.archive_game(finished(players[0], players[1], game_id="g1"))
    await store.archive_game(finished(players[2], players[3], game_id="g2"))
    assert await store.leaderboard("nielsen") == []  # every rating is provisional yet
    settled = {"u_a": 1600.0, "u_b": 1450.0, "u_c": 1700.0}
    async with store.engine.begin() as conn:
        for pid, r in settled.items():
            await conn.execute(
                update(ratings).where(ratings.c.player_id == pid).values(rating=r, rd=80.0)
            )
    for pid in ("u_a", "u_b"):
        await store.set_leaderboard(pid, True)
    board = await store.leaderboard("nielsen")
    assert [(e["rank"], e["id"], e["name"], e["rating"]) for e in board] == [
        (1, "u_a", "Ann", 1600.0),
        (2, "u_b", "Bob", 1450.0),
    ]
    assert not board[0]["provisional"] and board[0]["games"] == 1
    await store.set_leaderboard("u_c", True)
    assert [e["id"] for e in await store.leaderboard("nielsen")] == ["u_c", "u_a", "u_b"]
    await store.set_leaderboard("u_a", False)
    assert [e["id"] for e in await store.leaderboard("nielsen")] == ["u_c", "u_b"]
    assert await store.leaderboard("newsome") == []


async def test_matches_are_kept_once(store: Store) -> None:
    summary = {
        "id": "m1",
        "ruleset": "nielsen",
        "players": [{"id": "u_a", "name": "Ann"}, {"id": "u_b", "name": "Bob"}],
        "score": {"u_a": 1.5, "u_b": 0.5},
        "games": ["g1", "g2"],
        "status": "finished",
        "chooser": None,
        "winner": "u_a",
    }
    assert await store.archive_match(summary, ended=9)
    assert not await store.archive_match(summary, ended=9)
    assert await store.match("m1") == summary
    assert await store.match("m2") is None


async def test_an_unreachable_server_is_reported_as_unavailable() -> None:
    gone = Store.from_url("postgresql://postgres@/postgres?host=/nonexistent-brandubh", timeout_s=1)
    try:
        with pytest.raises(StoreUnavailable) as info:
            await gone.account("u_a")
        assert "try again" in info.value.message
        assert not await gone.ping()
    finally:
        await gone.close()
