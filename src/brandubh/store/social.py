"""Follows and blocks between accounts: making and undoing each (at most so many per
account, counted under a lock of the account's row), an account's lists, and the
questions the hub asks of them (does either block the other, whom does one block)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import ColumnElement, Table, and_, delete, func, or_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from brandubh.store.accounts import _NOW_MS
from brandubh.store.base import Base
from brandubh.store.tables import accounts, blocks, follows

# What making a follow or a block came to: made, there already, the account has as many
# as it may, the other account is gone, or (a follow) a block stands between the two.
Made = Literal["made", "already", "full", "gone", "blocked"]


@dataclass(frozen=True)
class Related:
    """One account on another's list (followed or blocked): its id, name, bot flag and
    since when it is on the list (ms)."""

    id: str
    name: str
    bot: bool
    since: int


def _related(row: tuple[object, object, object, object]) -> Related:
    """A row of (id, name, bot, created) as the lists select them."""
    account_id, name, bot, created = row
    if not isinstance(account_id, str) or not isinstance(name, str):
        raise ValueError(f"an account's row without its id or name: {row!r:.80}")
    if not isinstance(created, int):
        raise ValueError(f"a follow's or block's row without its time: {row!r:.80}")
    return Related(account_id, name, bool(bot), created)


class SocialQueries(Base):
    """``Store``'s part about follows and blocks."""

    async def follow(self, follower: str, followed: str, *, most: int) -> Made:
        """``follower`` follows ``followed`` from now on, unless a block stands between
        them or ``follower`` follows ``most`` already."""
        async with self._begin() as conn:
            if not await _lock_both(conn, follower, followed):
                return "gone"
            between = await conn.scalar(
                select(func.count()).select_from(blocks).where(_either_way(follower, followed))
            )
            if between:
                return "blocked"
            return await _add(conn, follows, "follower", "followed", follower, followed, most)

    async def unfollow(self, follower: str, followed: str) -> bool:
        """Stop following; False when ``follower`` did not follow ``followed``."""
        async with self._begin() as conn:
            done = await conn.execute(
                delete(follows).where(
                    follows.c.follower == follower, follows.c.followed == followed
                )
            )
        return bool(done.rowcount)

    async def block(self, blocker: str, blocked: str, *, most: int) -> Made:
        """``blocker`` blocks ``blocked`` from now on (neither follows the other any more),
        unless ``blocker`` blocks ``most`` already."""
        async with self._begin() as conn:
            if not await _lock_both(conn, blocker, blocked):
                return "gone"
            made = await _add(conn, blocks, "blocker", "blocked", blocker, blocked, most)
            if made == "made":
                await conn.execute(
                    delete(follows).where(
                        or_(
                            and_(follows.c.follower == blocker, follows.c.followed == blocked),
                            and_(follows.c.follower == blocked, follows.c.followed == blocker),
                        )
                    )
                )
            return made

    async def unblock(self, blocker: str, blocked: str) -> bool:
        """Lift a block; False when ``blocker`` did not block ``blocked``."""
        async with self._begin() as conn:
            done = await conn.execute(
                delete(blocks).where(blocks.c.blocker == blocker, blocks.c.blocked == blocked)
            )
        return bool(done.rowcount)

    async def followed_by(self, follower: str) -> list[Related]:
        """The accounts ``follower`` follows, latest followed first."""
        return await self._listed(follows, "follower", "followed", follower)

    async def blocked_by(self, blocker: str) -> list[Related]:
        """The accounts ``blocker`` blocks, latest blocked first."""
        return await self._listed(blocks, "blocker", "blocked", blocker)

    async def relation(self, viewer: str, other: str) -> tuple[bool, bool]:
        """Whether ``viewer`` follows ``other``, and whether ``viewer`` blocks ``other``."""
        async with self._begin() as conn:
            follows_it = await conn.scalar(
                select(func.count())
                .select_from(follows)
                .where(follows.c.follower == viewer, follows.c.followed == other)
            )
            blocks_it = await conn.scalar(
                select(func.count())
                .select_from(blocks)
                .where(blocks.c.blocker == viewer, blocks.c.blocked == other)
            )
        return bool(follows_it), bool(blocks_it)

    async def avoided(self, player: str) -> set[str]:
        """The accounts ``player`` blocks or is blocked by: never paired with them."""
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(blocks.c.blocked.label("id"))
                    .where(blocks.c.blocker == player)
                    .union(select(blocks.c.blocker).where(blocks.c.blocked == player))
                )
            ).all()
        return {str(r.id) for r in rows}

    async def blocked_ids(self, blocker: str) -> set[str]:
        """The ids ``blocker`` blocks: whose chat lines they never see."""
        async with self._begin() as conn:
            rows = (
                await conn.execute(select(blocks.c.blocked).where(blocks.c.blocker == blocker))
            ).all()
        return {str(r.blocked) for r in rows}

    async def _listed(self, table: Table, who: str, whom: str, account: str) -> list[Related]:
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.name, accounts.c.bot, table.c.created)
                    .join(accounts, accounts.c.id == table.c[whom])
                    .where(table.c[who] == account)
                    .order_by(table.c.created.desc(), accounts.c.id)
                )
            ).all()
        return [_related(r) for r in rows]


def _either_way(one: str, other: str) -> ColumnElement[bool]:
    return or_(
        and_(blocks.c.blocker == one, blocks.c.blocked == other),
        and_(blocks.c.blocker == other, blocks.c.blocked == one),
    )


async def _lock_both(conn: AsyncConnection, one: str, other: str) -> bool:
    """Lock both accounts' rows (in id order, so two opposite requests never deadlock);
    False when either is gone."""
    found = (
        await conn.execute(
            select(accounts.c.id)
            .where(accounts.c.id.in_([one, other]))
            .order_by(accounts.c.id)
            .with_for_update()
        )
    ).all()
    return len(found) == len({one, other})


async def _add(
    conn: AsyncConnection, table: Table, who: str, whom: str, one: str, other: str, most: int
) -> Made:
    """Add the row (one, other) unless it is there or ``one`` has ``most`` rows already."""
    there = await conn.scalar(
        select(func.count()).select_from(table).where(table.c[who] == one, table.c[whom] == other)
    )
    if there:
        return "already"
    count = await conn.scalar(select(func.count()).select_from(table).where(table.c[who] == one))
    if int(count or 0) >= most:
        return "full"
    await conn.execute(
        insert(table).values({who: one, whom: other, "created": _NOW_MS}).on_conflict_do_nothing()
    )
    return "made"
