"""``brandubh puzzles generate``: the sources a run examines, the generator, its report."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path

import click

from brandubh.puzzles import (
    SUPPORTED_RULESETS,
    ProgressMismatch,
    Source,
    generate,
    read_archive,
    selfplay_sources,
)
from brandubh.run.pools import worker_pool

__all__ = ["run_generate"]


def run_generate(
    out: Path,
    rulesets: Sequence[str],
    selfplay: int,
    archive: bool,
    max_depth: int,
    workers: int,
    seed: int,
) -> None:
    """Examine the chosen sources into ``out``, resuming an earlier run into it."""
    if not out.parent.is_dir():
        raise click.BadParameter(f"{out.parent} is not a folder", param_hint="--out")
    if out.is_dir():
        raise click.BadParameter(f"{out} is a folder, not a file", param_hint="--out")
    chosen = list(dict.fromkeys(rulesets)) or list(SUPPORTED_RULESETS)
    if selfplay == 0 and not archive:
        raise click.UsageError("nothing to examine: give --selfplay N games, --archive, or both")
    sources: list[Source] = selfplay_sources(chosen, selfplay, seed)
    if archive:
        url = os.environ.get("DATABASE_URL")
        if not url:
            raise click.UsageError("--archive reads the games at DATABASE_URL, which is not set")
        try:
            sources += asyncio.run(read_archive(url, chosen))
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"could not read the archive: {exc}") from None
    try:
        summary = generate(sources, out, max_depth=max_depth, pool=worker_pool(workers))
    except ProgressMismatch as exc:
        raise click.UsageError(str(exc)) from None
    left = summary.sources - summary.skipped - summary.examined
    said = (
        f"{summary.examined} of {summary.sources} games examined now ({summary.skipped} "
        f"earlier, {left} left), {summary.positions} positions, {summary.found} new puzzles "
        f"in {out}"
    )
    if summary.stopped:
        click.echo(f"brandubh: stopped; {said}; run the same command again to go on", err=True)
        raise SystemExit(130)
    click.echo(f"brandubh: {said}")
