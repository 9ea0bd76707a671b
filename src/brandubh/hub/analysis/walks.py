"""The analysis board's walks (``POST /api/board/walk``), bounded: at most ``MAX_LINE``
moves a walk, ``walks_per_address`` walks a minute from one address, and one walk at a
time per hub, in a thread of its own beside the event loop, which also encodes the
answer (gzipped when the client accepts it); ``WAITING_MAX`` more may wait, then
``analysis_busy`` (docs/analysis.md, "The analysis board").
"""

from __future__ import annotations

import asyncio
import gzip
import json
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final

from brandubh.analysis import IllegalLineMove, walk
from brandubh.engine import RULESETS, EngineError
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.redis import Scripts, keys

# A whole game fits: every rule set's game ends (move_limit) by its 400th ply.
MAX_LINE: Final = max(rs.move_limit for rs in RULESETS.values())
MAX_MOVE_TEXT: Final = 32
WINDOW_MS: Final = 60_000  # walks_per_address counts in this window
WAITING_MAX: Final = 8  # walks waiting for the walker on one hub; more: analysis_busy
GZIP_LEVEL: Final = 6  # an answer of 400 steps: 142 KB to 12 KB in about 2 ms

# One walker thread per process: a flood of walks shares one thread's time, and the event
# loop keeps its own (the interpreter hands the lock to a waiting thread within 5 ms).
_WALKER: Final = ThreadPoolExecutor(max_workers=1, thread_name_prefix="board-walk")


@dataclass(frozen=True, slots=True)
class Answer:
    """A walk's JSON, gzipped when the client asked for it (``gzipped``)."""

    body: bytes
    gzipped: bool


def check_moves(moves: object) -> list[str]:
    """The moves of a walk, or ``bad_field`` naming the limit."""
    if (
        not isinstance(moves, list)
        or len(moves) > MAX_LINE
        or not all(isinstance(m, str) and 0 < len(m) <= MAX_MOVE_TEXT for m in moves)
    ):
        raise Refusal("bad_field", f"moves: an array of at most {MAX_LINE} move texts")
    return moves


def answer(ruleset: str, position: str | None, moves: list[str], gzipped: bool) -> Answer:
    """Walk the line and encode its steps (in the walker thread); refusals as the route's."""
    try:
        steps = walk(ruleset, position, moves)
    except IllegalLineMove as exc:
        raise Refusal("illegal_move", str(exc)) from None
    except EngineError as exc:
        raise Refusal("bad_position", f"not a position of {ruleset}: {exc}") from None
    body = json.dumps(
        {"steps": [step.to_dict() for step in steps]}, ensure_ascii=False, separators=(",", ":")
    ).encode()
    if gzipped:
        return Answer(gzip.compress(body, GZIP_LEVEL), True)
    return Answer(body, False)


Limiter = Callable[[str], Awaitable[None]]


class BoardWalks:
    """The walks of one hub process: counted per address, then queued for the walker."""

    def __init__(self, limit: Limiter) -> None:
        self.limit = limit
        self.waiting = 0  # walks of this process queued or walking now

    async def walk(
        self, ruleset: str, position: str | None, moves: object, address: str, gzipped: bool
    ) -> Answer:
        line = check_moves(moves)
        if self.waiting >= WAITING_MAX:
            raise Refusal(
                "analysis_busy",
                f"the analysis board is busy: {self.waiting} lines are being walked here; "
                "try again in a moment",
            )
        await self.limit(address)
        self.waiting += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(_WALKER, answer, ruleset, position, line, gzipped)
        finally:
            self.waiting -= 1


def address_limit(scripts: Scripts, per_minute: int) -> Limiter:
    """Counts a walk against its address's minute (lua/windows.lua), or RateLimited."""

    async def limit(address: str) -> None:
        if not per_minute:
            return
        reply = await scripts.windows(
            keys=[f"{keys.analysis_limits()}:walk:ip:{address}"],
            args=[WINDOW_MS, secrets.token_hex(8), per_minute],
        )
        if int(reply[0]):
            raise RateLimited(
                f"you have walked as many lines on the analysis board from your address as a "
                f"minute allows ({per_minute}): try again shortly",
                max(1, int(reply[1]) // 1000),
                code="analysis_limit",
            )

    return limit
