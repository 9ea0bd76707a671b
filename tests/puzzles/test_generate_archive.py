"""The generator reads the archive in PostgreSQL: `brandubh puzzles generate --archive`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from click.testing import CliRunner

from brandubh.engine import Game, Record, format_record
from brandubh.puzzles import parse_puzzle, read_archive, selfplay_sources
from brandubh.puzzles.generate import play_selfplay
from brandubh.run.cli import main
from brandubh.store import FinishedGame, Seat, Store


def archived(game_id: str, ruleset: str, seed: int) -> FinishedGame:
    """A finished game of the bot against itself, as the hub would archive it."""
    game = Game(ruleset)
    for move in play_selfplay(selfplay_sources([ruleset], 1, seed=seed)[0]):
        game.play(move)
    assert game.result is not None
    seats = (Seat("a1", "Ann", "attackers"), Seat("d1", "Dan", "defenders"))
    return FinishedGame(
        id=game_id,
        ruleset=ruleset,
        wants_rating=False,
        opponent="friend",
        bot_level=None,
        seats=seats,
        humans=seats,
        winner=game.result.winner,
        reason=game.result.reason,
        plies=game.ply,
        move_time=60,
        created=500,
        ended=1_000,
        moves=tuple(str(m) for m in game.moves),
        seed="ab" * 16,
        commitment="cd" * 32,
        record=format_record(Record.from_game(game, game_id=game_id)),
        final=b"\x80",
        final_seq=7,
    )


async def archive(url: str, games: list[FinishedGame]) -> None:
    store = Store.from_url(url, pool_size=1)
    try:
        for game in games:
            await store.archive_game(game)
    finally:
        await store.close()


def test_the_archive_s_games_are_examined(fresh_database_url: str, tmp_path: Path) -> None:
    games = [archived("gw1", "walker", 4), archived("gn1", "nielsen", 2)]
    asyncio.run(archive(fresh_database_url, games))
    [source] = asyncio.run(read_archive(fresh_database_url, ["walker"]))
    assert (source.key, source.ruleset, source.moves) == ("archive:gw1", "walker", games[0].moves)
    out = tmp_path / "p.jsonl"
    result = CliRunner().invoke(
        main,
        ["puzzles", "generate", "--out", str(out), "--archive", "--ruleset", "walker"],
        env={"DATABASE_URL": fresh_database_url},
    )
    assert result.exit_code == 0, result.output
    assert "1 of 1 games examined now" in result.output
    puzzles = [parse_puzzle(line) for line in out.read_text().splitlines()]
    assert puzzles and all(p.source.startswith("archive:gw1:") for p in puzzles)
