"""``brandubh puzzles load FILE``: a generated puzzle set (JSONL, docs/puzzles.md) into
PostgreSQL, the puzzles not there yet added. Every line is read and checked first: a bad
line is named by file and line, and then nothing is added."""

from __future__ import annotations

from pathlib import Path

import click

from brandubh.puzzles import InvalidPuzzle, Puzzle, parse_puzzle


def read_set(path: Path) -> list[Puzzle]:
    """Every puzzle of a JSONL file (blank lines skipped); a ClickException names the file
    and line of the first that is not a puzzle."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path}: cannot be read: {exc}") from None
    found: list[Puzzle] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            found.append(parse_puzzle(line))
        except InvalidPuzzle as exc:
            raise click.ClickException(f"{path}:{number}: {exc}") from None
    return found


@click.command("load")
@click.option(
    "--data",
    "data_dir",
    default=".brandubh",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The embedded PostgreSQL's data is in postgres/ here (unused with DATABASE_URL).",
)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def load(data_dir: Path, file: Path) -> None:
    """Load a puzzle set (one JSON record a line) into PostgreSQL: the puzzles not there
    yet are added, those there keep their ratings. Safe to run again."""
    import asyncio

    from brandubh.run.serve import database_url, migrate
    from brandubh.store import Store

    found = read_set(file)

    async def run(url: str) -> int:
        store = Store.from_url(url, pool_size=1)
        try:
            return await store.add_puzzles(found)
        finally:
            await store.close()

    with database_url(data_dir / "postgres") as url:
        migrate(url)
        added = asyncio.run(run(url))
    click.echo(
        f"brandubh: {len(found)} puzzles read from {file}: {added} added, "
        f"{len(found) - added} there already"
    )
