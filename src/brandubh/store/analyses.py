"""The bot's analyses of finished games in the permanent record: written once per game and
analysis version by a worker (brandubh.analysis_worker), read by the hubs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from brandubh.store.accounts import _NOW_MS
from brandubh.store.base import Base
from brandubh.store.tables import analyses


class AnalysisQueries(Base):
    """``Store``'s part about analyses."""

    async def save_analysis(
        self, game_id: str, version: int, ruleset: str, nodes: int, analysis: dict[str, Any]
    ) -> bool:
        """Keep a game's analysis; idempotent: a second write of the same game and version
        changes nothing. Whether this call wrote it."""
        async with self._begin() as conn:
            done = await conn.execute(
                insert(analyses)
                .values(
                    game_id=game_id,
                    version=version,
                    ruleset=ruleset,
                    nodes=nodes,
                    analysis=analysis,
                    created=_NOW_MS,
                )
                .on_conflict_do_nothing(index_elements=["game_id", "version"])
            )
        return bool(done.rowcount)

    async def analysis(self, game_id: str, version: int) -> dict[str, Any] | None:
        """A game's analysis of this version (the JSON of docs/analysis.md), or None."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(analyses.c.analysis).where(
                        analyses.c.game_id == game_id, analyses.c.version == version
                    )
                )
            ).first()
        return dict(row.analysis) if row else None
