"""``Store``: what the hub asks of the permanent record, one class made of its parts:
accounts (accounts.py), ratings and the leaderboards (ratings.py), the archive of games and
matches (archive.py), game chat (chat.py), the opening explorer (explorer.py), the bot's
analyses (analyses.py), finished tournaments (tournaments.py), personal API tokens
(tokens.py), follows and blocks (social.py), the lessons' stars (lessons.py), puzzles
(puzzles.py), each on base.py's engine and transaction.

Every method is one short transaction; ``archive_game`` is the one that matters most
(archive.py). The answers have the shapes of the HTTP API (docs/protocol.md §2).
PostgreSQL unreachable: every method raises ``StoreUnavailable`` (errors.py).
"""

from __future__ import annotations

from sqlalchemy import text

from brandubh.store.accounts import AccountQueries
from brandubh.store.analyses import AnalysisQueries
from brandubh.store.archive import ArchiveQueries
from brandubh.store.chat import ChatQueries
from brandubh.store.db import create_engine
from brandubh.store.errors import StoreUnavailable
from brandubh.store.explorer import ExplorerQueries
from brandubh.store.lessons import LessonQueries
from brandubh.store.puzzles import PuzzleQueries
from brandubh.store.ratings import RatingQueries
from brandubh.store.social import SocialQueries
from brandubh.store.tokens import TokenQueries
from brandubh.store.tournaments import TournamentQueries


class Store(
    AccountQueries,
    RatingQueries,
    ArchiveQueries,
    ChatQueries,
    ExplorerQueries,
    AnalysisQueries,
    TournamentQueries,
    TokenQueries,
    SocialQueries,
    LessonQueries,
    PuzzleQueries,
):
    """The repository over one async engine (a pool of asyncpg connections)."""

    @classmethod
    def from_url(cls, url: str, *, pool_size: int = 10, timeout_s: float = 5.0) -> Store:
        return cls(create_engine(url, pool_size=pool_size, timeout_s=timeout_s))

    async def close(self) -> None:
        await self.engine.dispose()

    async def ping(self) -> bool:
        try:
            async with self._begin() as conn:
                await conn.execute(text("SELECT 1"))
        except StoreUnavailable:
            return False
        return True
