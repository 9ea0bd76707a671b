"""Finished tournaments in the permanent record: kept once (idempotent on the id), read
back for their page, their export and the list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict, TypeVar

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from brandubh.store.base import Base
from brandubh.store.tables import tournament_players, tournaments

T = TypeVar("T")


class Kept(TypedDict):
    """A finished tournament as kept: its page's view and its export (JSON objects)."""

    view: dict[str, object]
    export: dict[str, object]


def _field(found: Mapping[str, object], name: str, kind: type[T]) -> T:
    """A field the table's columns take from a view, checked: the hub's views hold them."""
    value = found[name]
    if not isinstance(value, kind):
        raise ValueError(f"a tournament's {name} is not a {kind.__name__}: {value!r:.40}")
    return value


def _points(row: Mapping[str, object]) -> float:
    value = row["points"]
    if not isinstance(value, int | float):
        raise ValueError(f"a standings row's points are not a number: {value!r:.40}")
    return float(value)


def _object(value: object) -> dict[str, object]:
    """A JSON object (a JSONB column's value, a standings row), as the hub wrote it."""
    if not isinstance(value, dict):
        raise ValueError(f"a tournament's part is not an object: {value!r:.40}")
    return dict(value)


class TournamentQueries(Base):
    """``Store``'s part about tournaments."""

    async def keep_tournament(
        self,
        summary: Mapping[str, object],
        view: Mapping[str, object],
        export: Mapping[str, object],
        ended: int,
    ) -> bool:
        """Keep a finished tournament and each player's place; True when this call wrote it."""
        async with self._begin() as conn:
            done = (
                await conn.execute(
                    insert(tournaments)
                    .values(
                        id=_field(summary, "id", str),
                        name=_field(summary, "name", str),
                        format=_field(summary, "format", str),
                        creator_id=_field(_field(summary, "creator", dict), "id", str),
                        starts_at=_field(summary, "starts_at", int),
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
                    "player_id": _field(_field(row, "player", dict), "id", str),
                    "rank": _field(row, "rank", int),
                    "points": _points(row),
                }
                for row in map(_object, _field(view, "standings", list))
            ]
            if done is not None and rows:
                await conn.execute(insert(tournament_players).values(rows).on_conflict_do_nothing())
        return done is not None

    async def tournament(self, tournament_id: str) -> Kept | None:
        """{"view", "export"} of a finished tournament, or None."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(tournaments.c.view, tournaments.c.export).where(
                        tournaments.c.id == tournament_id
                    )
                )
            ).first()
        return {"view": _object(row.view), "export": _object(row.export)} if row else None

    async def finished_tournaments(self, limit: int) -> list[dict[str, object]]:
        """The summaries of the latest finished tournaments, newest first."""
        async with self._begin() as conn:
            found = await conn.scalars(
                select(tournaments.c.summary).order_by(tournaments.c.ended.desc()).limit(limit)
            )
            return [_object(s) for s in found]
