"""Finished tournaments in the permanent record: kept once (idempotent on the id), read
back for their page, their export and the list."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from brandubh.store.base import Base
from brandubh.store.tables import tournament_players, tournaments


class TournamentQueries(Base):
    """``Store``'s part about tournaments."""

    async def keep_tournament(
        self, summary: dict[str, Any], view: dict[str, Any], export: dict[str, Any], ended: int
    ) -> bool:
        """Keep a finished tournament and each player's place; True when this call wrote it."""
        async with self._begin() as conn:
            done = (
                await conn.execute(
                    insert(tournaments)
                    .values(
                        id=summary["id"],
                        name=summary["name"],
                        format=summary["format"],
                        creator_id=summary["creator"]["id"],
                        starts_at=summary["starts_at"],
                        ended=ended,
                        summary=summary,
                        view=view,
                        export=export,
                    )
                    .on_conflict_do_nothing(index_elements=[tournaments.c.id])
                    .returning(tournaments.c.id)
                )
            ).first()
            rows = [
                {
                    "tournament_id": summary["id"],
                    "player_id": row["player"]["id"],
                    "rank": row["rank"],
                    "points": float(row["points"]),
                }
                for row in view["standings"]
            ]
            if done is not None and rows:
                await conn.execute(insert(tournament_players).values(rows).on_conflict_do_nothing())
        return done is not None

    async def tournament(self, tournament_id: str) -> dict[str, Any] | None:
        """{"view", "export"} of a finished tournament, or None."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(tournaments.c.view, tournaments.c.export).where(
                        tournaments.c.id == tournament_id
                    )
                )
            ).first()
        return {"view": dict(row.view), "export": dict(row.export)} if row else None

    async def finished_tournaments(self, limit: int) -> list[dict[str, Any]]:
        """The summaries of the latest finished tournaments, newest first."""
        async with self._begin() as conn:
            found = await conn.scalars(
                select(tournaments.c.summary).order_by(tournaments.c.ended.desc()).limit(limit)
            )
            return [dict(s) for s in found]
