"""The permanent record's refusals, and telling a server that cannot be reached from a
question asked wrong."""

from __future__ import annotations

import asyncio
from typing import Final

import sqlalchemy.exc


class StoreError(Exception):
    """A refusal of the permanent record, with a message a user can act on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class StoreUnavailable(StoreError):
    """PostgreSQL cannot be reached (down, restarting, or too slow to answer)."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(
            "unavailable",
            "accounts and the archive are unavailable for a moment: try again shortly",
        )
        self.detail = detail


class EmailTaken(StoreError):
    def __init__(self) -> None:
        super().__init__("email_taken", "an account with this email address exists already")


class IdTaken(StoreError):
    def __init__(self) -> None:
        super().__init__("id_taken", "an account with this player id exists already")


_UNREACHABLE: Final = (
    OSError,
    TimeoutError,
    asyncio.TimeoutError,
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.TimeoutError,
)


def sqlstate(exc: BaseException | None) -> str | None:
    """The SQLSTATE of a database error, however deep the drivers wrapped it (SQLAlchemy's
    ``orig``, an adapter's ``__cause__``)."""
    for _ in range(8):  # a few wrappers deep at most; never round a cycle
        if exc is None:
            break
        code = getattr(exc, "pgcode", None) or getattr(exc, "sqlstate", None)
        if isinstance(code, str):
            return code
        exc = getattr(exc, "orig", None) or exc.__cause__
    return None


def unreachable(exc: BaseException) -> bool:
    """Whether an error means the server could not be reached (not that we asked wrong)."""
    if isinstance(exc, _UNREACHABLE):
        return True
    if isinstance(exc, sqlalchemy.exc.DBAPIError):
        if exc.connection_invalidated:
            return True
        code = sqlstate(exc.orig)
        # 08: connection exceptions; 57P: the server shutting down or starting up.
        return isinstance(code, str) and code.startswith(("08", "57P"))
    return False
