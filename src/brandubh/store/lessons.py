"""The lessons' stars of accounts: which stages of which rule set's course each finished."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from brandubh.store.accounts import _NOW_MS
from brandubh.store.base import Base
from brandubh.store.tables import accounts, lesson_stars


class LessonQueries(Base):
    """``Store``'s part about the lessons."""

    async def lesson_stars(self, account_id: str) -> list[tuple[str, str]]:
        """The (rule set, stage) pairs the account has a star for, oldest first."""
        async with self._begin() as conn:
            rows = await conn.execute(
                select(lesson_stars.c.ruleset, lesson_stars.c.stage)
                .where(lesson_stars.c.account_id == account_id)
                .order_by(lesson_stars.c.created, lesson_stars.c.ruleset, lesson_stars.c.stage)
            )
            return [(r.ruleset, r.stage) for r in rows]

    async def add_lesson_stars(self, account_id: str, stars: Iterable[tuple[str, str]]) -> bool:
        """Give the account these stars (once each); False when there is no such account."""
        values = [
            {"account_id": account_id, "ruleset": r, "stage": s, "created": _NOW_MS}
            for r, s in stars
        ]
        async with self._begin() as conn:
            found = await conn.scalar(select(accounts.c.id).where(accounts.c.id == account_id))
            if found is None:
                return False
            if values:
                await conn.execute(insert(lesson_stars).values(values).on_conflict_do_nothing())
        return True
