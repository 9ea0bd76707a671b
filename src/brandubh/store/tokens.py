"""Personal API tokens: creating one (at most so many live per account), an account's
live tokens, revoking, finding a token by the SHA-256 of its text, when it was last used.

Only the digest is kept: the text is the hub's to show once (hub/tokens/)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update

from brandubh.store.accounts import _NOW_MS
from brandubh.store.base import Base
from brandubh.store.tables import accounts, api_tokens


@dataclass(frozen=True)
class ApiToken:
    """One token as its owner's list shows it: never its text nor its digest."""

    id: str
    account_id: str
    name: str
    scopes: tuple[str, ...]
    created: int
    last_used: int | None


def _token(row: Any) -> ApiToken:
    last = row.last_used
    return ApiToken(
        row.id,
        row.account_id,
        row.name,
        tuple(row.scopes.split()),
        int(row.created),
        None if last is None else int(last),
    )


_SHOWN = (
    api_tokens.c.id,
    api_tokens.c.account_id,
    api_tokens.c.name,
    api_tokens.c.scopes,
    api_tokens.c.created,
    api_tokens.c.last_used,
)


class TokenQueries(Base):
    """``Store``'s part about personal API tokens."""

    async def create_token(
        self,
        token_id: str,
        account_id: str,
        name: str,
        scopes: Sequence[str],
        digest: bytes,
        *,
        most: int,
    ) -> ApiToken | None:
        """A new live token; None (nothing made) when the account has ``most`` live ones
        already, or no longer exists. The account's row is locked while counting, so two
        creations at once never pass the limit together."""
        async with self._begin() as conn:
            owner = await conn.scalar(
                select(accounts.c.id).where(accounts.c.id == account_id).with_for_update()
            )
            if owner is None:
                return None
            live = await conn.scalar(
                select(func.count())
                .select_from(api_tokens)
                .where(api_tokens.c.account_id == account_id, api_tokens.c.revoked.is_(None))
            )
            if int(live or 0) >= most:
                return None
            row = (
                await conn.execute(
                    api_tokens.insert()
                    .values(
                        id=token_id,
                        account_id=account_id,
                        name=name,
                        scopes=" ".join(scopes),
                        hash=digest,
                        created=_NOW_MS,
                    )
                    .returning(*_SHOWN)
                )
            ).one()
        return _token(row)

    async def live_tokens(self, account_id: str) -> list[ApiToken]:
        """An account's tokens not revoked, newest first."""
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(*_SHOWN)
                    .where(api_tokens.c.account_id == account_id, api_tokens.c.revoked.is_(None))
                    .order_by(api_tokens.c.created.desc(), api_tokens.c.id)
                )
            ).all()
        return [_token(r) for r in rows]

    async def revoke_token(self, account_id: str, token_id: str) -> bool:
        """Revoke one of the account's live tokens; False when it has no such live token."""
        async with self._begin() as conn:
            done = await conn.execute(
                update(api_tokens)
                .where(
                    api_tokens.c.id == token_id,
                    api_tokens.c.account_id == account_id,
                    api_tokens.c.revoked.is_(None),
                )
                .values(revoked=_NOW_MS)
            )
        return bool(done.rowcount)

    async def token_holder(self, digest: bytes) -> tuple[ApiToken, str, bool] | None:
        """The live token with this SHA-256, its account's name and whether that is a bot
        account; None if there is none (never made, or revoked)."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(*_SHOWN, accounts.c.name.label("account_name"), accounts.c.bot)
                    .join(accounts, accounts.c.id == api_tokens.c.account_id)
                    .where(api_tokens.c.hash == digest, api_tokens.c.revoked.is_(None))
                )
            ).first()
        return (_token(row), str(row.account_name), bool(row.bot)) if row else None

    async def token_used(self, token_id: str) -> None:
        """Note that a token was used now (the database's clock)."""
        async with self._begin() as conn:
            await conn.execute(
                update(api_tokens).where(api_tokens.c.id == token_id).values(last_used=_NOW_MS)
            )
