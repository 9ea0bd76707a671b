"""The opening explorer's counts: kept as games are archived, equal to a direct count over
the archived records, once per game, and made again alike by the rebuild."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import sys
from collections import Counter, defaultdict
from typing import Any

import pytest
from builders import finished
from sqlalchemy import select

from brandubh.engine import RULESETS, START_POSITION, Game
from brandubh.store import FinishedGame, Store, explorer
from brandubh.store.explorer import EXPLORER_PLIES, position_key
from brandubh.store.tables import explorer_moves, games

PEOPLE = [("u_ann", "Ann"), ("u_bob", "Bob"), ("u_cat", "Cat"), ("g_guest", "Guest")]
BOT = ("bot", "Bot")
RESULTS: list[tuple[str | None, str]] = [
    ("attackers", "king_captured"),
    ("defenders", "king_escaped"),
    (None, "draw_agreed"),
    ("attackers", "resignation"),
    (None, "aborted"),
]


def playout(ruleset: str, rng: random.Random, plies: int) -> tuple[str, ...]:
    """Legal moves from the start: the first few from a narrow choice, so that games share
    openings (and positions have several games and moves), then any."""
    game = Game(ruleset)
    for ply in range(plies):
        if game.is_over:
            break
        legal = sorted(game.legal_texts())
        game.play(rng.choice(legal[:2] if ply < 6 else legal))
    return tuple(m.text for m in game.moves)


def generated(rng: random.Random, n: int) -> list[FinishedGame]:
    """Games of every rule set between people (some rated, some aborted) and against the
    bot, a few repeating one position and its move (a back-and-forth)."""
    out = []
    for i in range(n):
        ruleset = list(RULESETS)[i % len(RULESETS)]
        winner, reason = RESULTS[rng.randrange(len(RESULTS))]
        a, d = rng.sample(PEOPLE, 2)
        if i % 4 == 3:
            a, d = (a, BOT) if i % 8 == 3 else (BOT, d)
        game = finished(
            a,
            d,
            winner=winner,
            reason=reason,
            rated=rng.random() < 0.5,
            opponent="bot" if BOT in (a, d) else "friend",
            ruleset=ruleset,
            ended=1_000 + i,
        )
        moves = playout(ruleset, rng, rng.randrange(0, 70))
        if i % 10 == 0:
            moves = back_and_forth(ruleset) + moves[:10]
        out.append(dataclasses.replace(game, moves=moves, plies=len(moves)))
    return out


def back_and_forth(ruleset: str) -> tuple[str, ...]:
    """Four plies that come back to the start: its first move is played twice."""
    game = Game(ruleset)
    first = sorted(game.legal_texts())[0]
    origin, dest = first.lstrip("K").split("-")[0], first.split("-")[1][:2]
    game.play(first)
    reply = sorted(game.legal_texts())[0]
    r_origin, r_dest = reply.lstrip("K").split("-")[0], reply.split("-")[1][:2]
    return (first, reply, f"{dest}-{origin}", f"{r_dest}-{r_origin}")


async def direct_count(store: Store) -> dict[tuple[str, str], dict[str, Counter[str]]]:
    """Per (rule set, position text) and move, what the archived records say, counted
    straight from the ``games`` rows: people only, not aborted, each game once."""
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(games))).all()
    found: dict[tuple[str, str], dict[str, Counter[str]]] = defaultdict(
        lambda: defaultdict(Counter)
    )
    for row in rows:
        if row.opponent == "bot" or row.reason == "aborted":
            continue
        game = Game(row.ruleset)
        seen = set()
        for text in row.moves.split()[:EXPLORER_PLIES]:
            before = game.position
            seen.add((before, game.play(text).text))
        ratings = row.summary["ratings"]
        for position, move in seen:
            c = found[(row.ruleset, position)][move]
            c["games"] += 1
            c[row.winner or "draws"] += 1
            if ratings:
                c["rated"] += 1
                c["rating_sum"] += sum(round(r["before"]) for r in ratings.values())
    return found


def expected_answer(ruleset: str, position: str, moves: dict[str, Counter[str]]) -> dict[str, Any]:
    listed = [
        {
            "move": move,
            "games": c["games"],
            "attackers": c["attackers"],
            "defenders": c["defenders"],
            "draws": c["draws"],
            "rating": round(c["rating_sum"] / (2 * c["rated"])) if c["rated"] else None,
        }
        for move, c in moves.items()
    ]
    listed.sort(key=lambda m: (-m["games"], m["move"]))
    total = {k: sum(m[k] for m in listed) for k in ("games", "attackers", "defenders", "draws")}
    return {"ruleset": ruleset, "position": position, "total": total, "moves": listed}


async def accounts(store: Store) -> None:
    for pid, name in PEOPLE[:3]:
        await store.create_account(pid, f"{pid}@example.org", name, "h")


async def archive_all(store: Store, seed: int, n: int) -> list[FinishedGame]:
    """``n`` generated games archived one by one (their players' accounts made first)."""
    await accounts(store)
    batch = generated(random.Random(seed), n)
    for game in batch:
        await store.archive_game(game)
    return batch


def counting(batch: list[FinishedGame]) -> int:
    """How many of the games the explorer counts."""
    return sum(1 for g in batch if g.opponent == "friend" and g.reason != "aborted")


async def table(store: Store) -> list[tuple[Any, ...]]:
    async with store.engine.connect() as conn:
        return [tuple(r) for r in (await conn.execute(select(explorer_moves))).all()]


async def test_the_counts_match_a_direct_count_over_the_archive(store: Store) -> None:
    await accounts(store)
    batch = generated(random.Random(31), 120)
    for game in batch:
        assert (await store.archive_game(game)).outcome == "ok"
    want = await direct_count(store)
    assert len(want) > 200  # many positions, of every rule set
    assert {rs for rs, _ in want} == set(RULESETS)
    shared = [m for moves in want.values() for m in moves.values() if m["games"] > 1]
    assert shared and any(c["rated"] for c in shared)
    for (ruleset, position), moves in want.items():
        assert await store.explorer(ruleset, position) == expected_answer(
            ruleset, position, moves
        ), (ruleset, position)
    # Positions reached only by games against the bot (or aborted) have nothing.
    bot_only = {
        (g.ruleset, pos)
        for g in batch
        if g.opponent == "bot" or g.reason == "aborted"
        for pos in positions(g)
    } - set(want)
    assert bot_only
    for ruleset, position in bot_only:
        assert (await store.explorer(ruleset, position))["moves"] == []


def positions(game: FinishedGame) -> list[str]:
    g = Game(game.ruleset)
    out = []
    for text in game.moves[:EXPLORER_PLIES]:
        out.append(g.position)
        g.play(text)
    return out


async def test_a_game_archived_twice_counts_once_and_the_rebuild_agrees(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = await archive_all(store, seed=7, n=40)
    once = sorted(await table(store))
    for game in batch[::3]:
        assert (await store.archive_game(game)).outcome == "dup"
    assert sorted(await table(store)) == once
    counted = await store.rebuild_explorer()
    assert counted == counting(batch)
    assert sorted(await table(store)) == once
    assert await store.rebuild_explorer() == counted  # the rebuild is idempotent too
    assert sorted(await table(store)) == once
    # Summed and written in many small parts, as a large archive is: the same table.
    monkeypatch.setattr(explorer, "REBUILD_GAMES", 3)
    monkeypatch.setattr(explorer, "REBUILD_FLUSH", 40)
    assert await store.rebuild_explorer() == counted
    assert sorted(await table(store)) == once


async def test_a_position_is_found_however_it_is_spelled(store: Store) -> None:
    game = finished(PEOPLE[0], PEOPLE[1], rated=False, winner="defenders", reason="timeout")
    await store.archive_game(dataclasses.replace(game, moves=("d2-b2",), plies=1))
    spelled = "111A111/3A3/3D3/AADKDAA/3D3/3A3/3A3 a"
    assert position_key(spelled) == position_key(START_POSITION)
    answer = await store.explorer("nielsen", spelled)
    assert answer["total"] == {"games": 1, "attackers": 0, "defenders": 1, "draws": 0}
    assert answer["moves"] == [
        {"move": "d2-b2", "games": 1, "attackers": 0, "defenders": 1, "draws": 0, "rating": None}
    ]
    assert (await store.explorer("federation", START_POSITION))["moves"] == []


async def test_the_command_line_rebuilds_an_archive_kept_before_the_explorer(
    store: Store, fresh_database_url: str
) -> None:
    batch = await archive_all(store, seed=3, n=20)
    kept = sorted(await table(store))
    async with store.engine.begin() as conn:
        await conn.execute(explorer_moves.delete())  # as an archive older than the table
    env = {**os.environ, "DATABASE_URL": fresh_database_url}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "brandubh",
        "db",
        "explorer-rebuild",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert sorted(await table(store)) == kept
    counted = counting(batch)
    assert f"the opening explorer counts {counted} games" in out.decode()


async def test_games_archived_at_once_by_many_hubs_all_count(fresh_database_url: str) -> None:
    """Archivings that share rows (every game shares the start's) wait for each other in
    one order: none is lost to a deadlock, and the counts add up."""
    stores = [Store.from_url(fresh_database_url, pool_size=2) for _ in range(6)]
    try:
        await accounts(stores[0])
        batch = [g for g in generated(random.Random(5), 60) if g.ruleset == "nielsen"]
        outcomes = await asyncio.gather(
            *(stores[i % 6].archive_game(g) for i, g in enumerate(batch))
        )
        assert [o.outcome for o in outcomes] == ["ok"] * len(batch)
        for (ruleset, position), moves in (await direct_count(stores[0])).items():
            assert await stores[0].explorer(ruleset, position) == expected_answer(
                ruleset, position, moves
            )
        once = sorted(await table(stores[0]))
        await stores[0].rebuild_explorer()
        assert sorted(await table(stores[0])) == once
    finally:
        for s in stores:
            await s.close()
