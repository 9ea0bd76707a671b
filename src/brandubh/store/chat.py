"""Game chat in the permanent record: the archived player chats, chat reports, and an
account's two chat flags (``chat_off``, its own choice; ``muted``, a moderator's)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert

from brandubh.store.accounts import _NOW_MS
from brandubh.store.base import Base
from brandubh.store.tables import accounts, chat_lines, chat_reports, games


class Author(TypedDict):
    id: str
    name: str


# One chat line as lua/chat.lua keeps it in Redis, the archive gives it back and ``chat``
# frames carry it ("from" is a keyword, hence the functional form).
ChatLine = TypedDict(
    "ChatLine", {"n": int, "from": Author, "text": str, "at": int, "muted": NotRequired[bool]}
)


@dataclass(frozen=True)
class ChatReport:
    """One reported line, as ``brandubh moderation`` lists it."""

    id: int
    game_id: str
    room: str
    n: int
    author_id: str
    author_name: str
    text: str
    reporter_id: str
    created: int
    status: str


class ChatQueries(Base):
    """``Store``'s part about game chat."""

    async def chat_flags(self, account_id: str) -> tuple[bool, bool]:
        """(chat_off, muted) of an account; (False, False) for no such account."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.chat_off, accounts.c.muted).where(accounts.c.id == account_id)
                )
            ).first()
        return (bool(row.chat_off), bool(row.muted)) if row else (False, False)

    async def set_chat_off(self, account_id: str, off: bool) -> bool:
        async with self._begin() as conn:
            done = await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(chat_off=off)
            )
        return bool(done.rowcount)

    async def set_muted(self, account_id: str, muted: bool) -> bool:
        """Mute an account or lift it; with a mute, its open reports are closed as muted.
        False when there is no such account."""
        async with self._begin() as conn:
            done = await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(muted=muted)
            )
            if done.rowcount and muted:
                await conn.execute(
                    update(chat_reports)
                    .where(chat_reports.c.author_id == account_id, chat_reports.c.status == "open")
                    .values(status="muted")
                )
        return bool(done.rowcount)

    async def archive_chat(
        self, game_id: str, lines: Sequence[ChatLine], *, only_archived: bool = False
    ) -> None:
        """Keep a finished game's player chat (idempotent: a line kept is kept once);
        ``only_archived``: only if the game is in the archive already (else its own
        archive keeps the lines later)."""
        if not lines:
            return
        rows = [
            {
                "game_id": game_id,
                "n": line["n"],
                "author_id": line["from"]["id"],
                "author_name": line["from"]["name"],
                "text": line["text"],
                "at": line["at"],
                "muted": bool(line.get("muted")),
            }
            for line in lines
        ]
        async with self._begin() as conn:
            if only_archived and not await conn.scalar(
                select(games.c.id).where(games.c.id == game_id)
            ):
                return
            await conn.execute(insert(chat_lines).values(rows).on_conflict_do_nothing())

    async def archived_chat(self, game_id: str) -> list[ChatLine]:
        """A finished game's player chat in order, each line as lua/chat.lua keeps it."""
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(chat_lines)
                    .where(chat_lines.c.game_id == game_id)
                    .order_by(chat_lines.c.n)
                )
            ).all()
        lines: list[ChatLine] = []
        for row in rows:
            line: ChatLine = {
                "n": row.n,
                "from": {"id": row.author_id, "name": row.author_name},
                "text": row.text,
                "at": row.at,
            }
            if row.muted:
                line["muted"] = True
            lines.append(line)
        return lines

    async def report_line(self, game_id: str, room: str, line: ChatLine, reporter_id: str) -> bool:
        """Store a report of a line; False when this reporter had reported it already."""
        async with self._begin() as conn:
            done = await conn.execute(
                insert(chat_reports)
                .values(
                    game_id=game_id,
                    room=room,
                    n=line["n"],
                    author_id=line["from"]["id"],
                    author_name=line["from"]["name"],
                    text=line["text"],
                    reporter_id=reporter_id,
                    created=_NOW_MS,
                )
                .on_conflict_do_nothing()
            )
        return bool(done.rowcount)

    async def chat_reports(self, status: str = "open", limit: int = 100) -> list[ChatReport]:
        """Reports with this status, oldest first."""
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(chat_reports)
                    .where(chat_reports.c.status == status)
                    .order_by(chat_reports.c.id)
                    .limit(limit)
                )
            ).all()
        return [
            ChatReport(
                r.id,
                r.game_id,
                r.room,
                r.n,
                r.author_id,
                r.author_name,
                r.text,
                r.reporter_id,
                r.created,
                r.status,
            )
            for r in rows
        ]

    async def clear_report(self, report_id: int) -> bool:
        """Close an open report with no action; False when it is not open."""
        async with self._begin() as conn:
            done = await conn.execute(
                update(chat_reports)
                .where(chat_reports.c.id == report_id, chat_reports.c.status == "open")
                .values(status="cleared")
            )
        return bool(done.rowcount)
