"""Accounts: creating one, its password, its address's confirmation, its settings, and
upgrading one to a bot account."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy import BigInteger, exists, literal_column, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.sql.elements import ColumnClause

from brandubh.store.base import Base
from brandubh.store.errors import EmailTaken, IdTaken
from brandubh.store.tables import accounts, game_players, games, ratings

# The database's clock in ms, for rows whose time no caller knows (an account's creation).
_NOW_MS: Final[ColumnClause[int]] = literal_column(
    "(extract(epoch from clock_timestamp()) * 1000)::bigint", BigInteger()
)


@dataclass(frozen=True)
class Account:
    id: str
    email: str
    name: str
    created: int
    leaderboard: bool
    bot: bool = False  # a bot account (upgrade_to_bot): plays through the Bot API only
    bot_challenges: bool = False  # a person's setting: bot accounts may challenge them


@dataclass(frozen=True)
class Standing:
    """What decides whether an account may play people from a browser: a confirmed address
    (none recorded counts as confirmed) and not being a bot account."""

    verified: bool
    bot: bool


# Why an upgrade to a bot account was not made (None: it was).
UpgradeRefused = Literal["no_account", "already_bot", "rated_games"]


def _account(row: Any) -> Account:
    return Account(
        row.id,
        row.email,
        row.name,
        int(row.created),
        bool(row.leaderboard),
        bool(row.bot),
        bool(row.bot_challenges),
    )


class AccountQueries(Base):
    """``Store``'s part about accounts."""

    async def create_account(
        self,
        account_id: str,
        email: str,
        name: str,
        password_hash: str,
        *,
        verified: bool | None = None,
    ) -> Account:
        """A new account; EmailTaken or IdTaken when either is in use."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    insert(accounts)
                    .values(
                        id=account_id,
                        email=email,
                        name=name,
                        password_hash=password_hash,
                        created=_NOW_MS,
                        leaderboard=False,
                        verified=verified,
                    )
                    .on_conflict_do_nothing()
                    .returning(accounts.c.created)
                )
            ).first()
            if row is None:
                taken = await conn.scalar(select(accounts.c.id).where(accounts.c.email == email))
                raise EmailTaken() if taken is not None else IdTaken()
        return Account(account_id, email, name, int(row.created), False)

    async def account(self, account_id: str) -> Account | None:
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(
                        accounts.c.id,
                        accounts.c.email,
                        accounts.c.name,
                        accounts.c.created,
                        accounts.c.leaderboard,
                        accounts.c.bot,
                        accounts.c.bot_challenges,
                    ).where(accounts.c.id == account_id)
                )
            ).first()
        return _account(row) if row else None

    async def credentials(self, email: str) -> tuple[Account, str] | None:
        """The account of a normalised email and its password hash; None if unknown."""
        async with self._begin() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.email == email))).first()
        return (_account(row), str(row.password_hash)) if row else None

    async def password_hash(self, account_id: str) -> str | None:
        async with self._begin() as conn:
            found = await conn.scalar(
                select(accounts.c.password_hash).where(accounts.c.id == account_id)
            )
        return str(found) if found is not None else None

    async def set_password(self, account_id: str, password_hash: str) -> bool:
        async with self._begin() as conn:
            done = await conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(password_hash=password_hash)
            )
        return bool(done.rowcount)

    async def set_leaderboard(self, account_id: str, on: bool) -> bool:
        """Opt in to the leaderboards or out; False when there is no such account."""
        async with self._begin() as conn:
            done = await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(leaderboard=on)
            )
        return bool(done.rowcount)

    async def set_bot_challenges(self, account_id: str, on: bool) -> bool:
        """Let bot accounts challenge this account, or not; False when there is no such
        account."""
        async with self._begin() as conn:
            done = await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(bot_challenges=on)
            )
        return bool(done.rowcount)

    async def is_verified(self, account_id: str) -> bool:
        """Whether the account's address is confirmed (an account of before confirmation
        counts as confirmed); False for no such account."""
        async with self._begin() as conn:
            row = (
                await conn.execute(select(accounts.c.verified).where(accounts.c.id == account_id))
            ).first()
        return row is not None and row.verified is not False

    async def mark_verified(self, account_id: str, email: str) -> bool:
        """Confirm the account's address if it is still ``email``; whether it was."""
        async with self._begin() as conn:
            done = await conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id, accounts.c.email == email)
                .values(verified=True)
            )
        return bool(done.rowcount)

    async def reminders_on(self, account_id: str) -> bool:
        async with self._begin() as conn:
            found = await conn.scalar(
                select(accounts.c.reminders).where(accounts.c.id == account_id)
            )
        return bool(found)

    async def set_reminders(self, account_id: str, on: bool) -> bool:
        async with self._begin() as conn:
            done = await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(reminders=on)
            )
        return bool(done.rowcount)

    async def delete_unverified(self, account_id: str) -> bool:
        """Delete an account whose address was never confirmed, releasing the address;
        False (nothing changed) when it was confirmed or is gone."""
        async with self._begin() as conn:
            done = await conn.execute(
                accounts.delete().where(accounts.c.id == account_id, accounts.c.verified.is_(False))
            )
        return bool(done.rowcount)

    async def standing(self, account_id: str) -> Standing | None:
        """Whether the account confirmed its address and whether it is a bot, in one read;
        None for no such account."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.verified, accounts.c.bot).where(accounts.c.id == account_id)
                )
            ).first()
        return Standing(row.verified is not False, bool(row.bot)) if row else None

    async def upgrade_to_bot(self, account_id: str) -> UpgradeRefused | None:
        """Make the account a bot account for good, only if it has never had a rated game
        (no rating in any rule set, no rated game archived); None when done, else why not.
        The account's row is locked first: a rated game archived meanwhile either commits
        before (and is seen here) or waits for this (its rating rows' keys need the row)."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.bot).where(accounts.c.id == account_id).with_for_update()
                )
            ).first()
            if row is None:
                return "no_account"
            if row.bot:
                return "already_bot"
            rated = await conn.scalar(
                select(
                    exists().where(ratings.c.player_id == account_id)
                    | exists().where(
                        game_players.c.player_id == account_id,
                        games.c.id == game_players.c.game_id,
                        games.c.rated.is_(True),
                    )
                )
            )
            if rated:
                return "rated_games"
            await conn.execute(update(accounts).where(accounts.c.id == account_id).values(bot=True))
        return None
