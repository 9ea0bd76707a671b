"""``Puzzles``: a player's next puzzle near their puzzle rating, the day's puzzle, a streak's
next puzzle, and each move checked against the hidden solution; an attempt's end rated
once (player against puzzle, Glicko-2).

The attempt under way lives in Redis (keys.puzzle_attempt, one a player), changed only if
nobody changed it since it was read (lua/puzzle.lua); the puzzles, accounts' puzzle ratings and
first attempts in PostgreSQL (store/puzzles.py); a guest's rating with its session in
Redis (keys.puzzle_guest). PostgreSQL is written before Redis, and rating is idempotent
there (the first attempt's row), so a request refused midway leaves nothing half-done.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from redis.asyncio import Redis

from brandubh.bot import choose_move
from brandubh.engine import Game
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.puzzles import rules
from brandubh.hub.puzzles.records import (
    Answer,
    Attempt,
    Mode,
    RatingChange,
    Standing,
    Started,
    load_attempt,
    view,
)
from brandubh.hub.redis import Scripts, keys
from brandubh.ratings import Rating
from brandubh.store import AttemptOutcome, Store, StoredPuzzle, StoreUnavailable

T = TypeVar("T")

REFUTATION_LEVEL: Final = 2  # the bot's level that finds a refutation: a bounded search
REFUTATIONS_AT_ONCE: Final = 2  # searches in threads at once on a hub
DAILY_FRESH_S: Final = 60.0  # the day's choice is read again from the ids this often
THEMES: Final = ("escape", "capture", "defend")
SESSION_TTL_S: Final = 30 * 24 * 3600  # a guest's rating lives as long as a session
LINES_KEPT: Final = 4096  # puzzles whose lines a hub keeps for judging moves


class Puzzles:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        store: Store,
        rulesets: frozenset[str],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.store = store
        self.rulesets = rulesets
        self.clock = clock
        self._searches = asyncio.Semaphore(REFUTATIONS_AT_ONCE)
        self._daily: tuple[str, float, str | None] | None = None
        # Puzzles' lines by id, for judging moves: a puzzle's position and solution never
        # change (only its rating, which a move does not read), so a move costs no read.
        self._lines: dict[str, StoredPuzzle] = {}

    # -- reads -------------------------------------------------------------------------

    async def standing(self, player_id: str | None, account: bool) -> Standing:
        """A player's puzzle rating (a new player's when there is no session)."""
        if player_id is None:
            rating, attempts, best = Rating(), 0, 0
        else:
            rating, attempts, best = await self._standing(player_id, account)
        return {
            "rating": round(rating.rating),
            "rd": round(rating.rd),
            "provisional": rating.provisional,
            "attempts": attempts,
            "best_streak": best,
            "account": account,
        }

    async def daily(self) -> tuple[str, StoredPuzzle | None]:
        """Today's day (UTC) and its puzzle: the same for everyone (rules.daily_choice)."""
        day = rules.day_of(self.clock())
        now = time.monotonic()
        cached = self._daily
        if cached is not None and cached[0] == day and now - cached[1] < DAILY_FRESH_S:
            chosen = cached[2]
        else:
            chosen = rules.daily_choice(day, await _stored(self.store.puzzle_ids()))
            self._daily = (day, now, chosen)
        return day, None if chosen is None else await _stored(self.store.puzzle(chosen))

    async def public(self, puzzle_id: str) -> StoredPuzzle:
        """A puzzle by its id, or ``not_found``."""
        found = await _stored(self.store.puzzle(puzzle_id))
        if found is None:
            raise Refusal("not_found", f"there is no puzzle {puzzle_id}")
        return found

    def view(self, puzzle: StoredPuzzle) -> Started:
        """A puzzle's public view, as an attempt's start shows it, without an attempt."""
        return self._started(puzzle, "rated", 0, 0)

    # -- starting ----------------------------------------------------------------------

    async def next(
        self,
        player_id: str,
        account: bool,
        *,
        mode: Mode = "rated",
        theme: str | None = None,
        ruleset: str | None = None,
    ) -> Started:
        """Start the player's next puzzle: near their rating (rated), or the streak's next,
        harder than the last one solved (a streak goes on after a solved streak puzzle,
        else begins). ``no_puzzles`` when none fits the filters."""
        if theme is not None and theme not in THEMES:
            raise Refusal("bad_field", f"theme is one of {', '.join(THEMES)}")
        if ruleset is not None and ruleset not in self.rulesets:
            raise Refusal("bad_field", f"there is no rule set {ruleset!r}")
        await self._count(player_id)
        key = keys.puzzle_attempt(player_id)
        if mode == "streak":
            last = load_attempt(await self.redis.get(key))
            going = last is not None and last.mode == "streak" and last.over and last.won
            streak = last.streak + 1 if going and last is not None else 0
            seen = (*last.seen, last.puzzle) if going and last is not None else ()
            above: float | None = None
            if going and last is not None:
                solved = await _stored(self.store.puzzle(last.puzzle))
                above = solved.rating.rating if solved is not None else None
            found = await _stored(
                self.store.pick_puzzle(
                    player_id,
                    near=above if above is not None else rules.STREAK_START,
                    theme=theme,
                    ruleset=ruleset,
                    above=above,
                    exclude=seen[-rules.STREAK_SEEN :],
                    choices=1,  # the next harder one: a streak climbs step by step
                )
            )
            if found is None and above is not None:  # the hardest is behind: any unseen
                found = await _stored(
                    self.store.pick_puzzle(
                        player_id,
                        near=above,
                        theme=theme,
                        ruleset=ruleset,
                        exclude=seen[-rules.STREAK_SEEN :],
                    )
                )
            attempt = Attempt(found.id, "streak", streak=streak, seen=seen) if found else None
        else:
            mine = (await self._standing(player_id, account))[0]
            found = await _stored(
                self.store.pick_puzzle(player_id, near=mine.rating, theme=theme, ruleset=ruleset)
            )
            attempt = Attempt(found.id, "rated") if found else None
        if found is None or attempt is None:
            raise Refusal("no_puzzles")
        await self.redis.set(key, attempt.dump(), ex=keys.PUZZLE_ATTEMPT_S)
        rating = await self._rating(player_id, account)
        return self._started(found, attempt.mode, attempt.streak, rating)

    async def start(self, player_id: str, account: bool, puzzle_id: str) -> Started:
        """Start a chosen puzzle (by its page, the day's): rated if it is the player's first
        attempt at it, as any attempt is."""
        await self._count(player_id)
        found = await self.public(puzzle_id)
        attempt = Attempt(found.id, "rated")
        await self.redis.set(
            keys.puzzle_attempt(player_id), attempt.dump(), ex=keys.PUZZLE_ATTEMPT_S
        )
        return self._started(found, "rated", 0, await self._rating(player_id, account))

    # -- moving ------------------------------------------------------------------------

    async def move(
        self, player_id: str, account: bool, puzzle_id: str, ply: int, move: str
    ) -> Answer:
        """Check the player's move at ``ply`` of their attempt at ``puzzle_id``: right (with
        the defence's reply), solved, or failed (with the awaited move and the refutation);
        rated once at its end."""
        await self._count(player_id)
        key = keys.puzzle_attempt(player_id)
        raw = await self.redis.get(key)
        attempt = load_attempt(raw)
        if raw is None or attempt is None or attempt.puzzle != puzzle_id:
            raise Refusal("puzzle_not_started", f"start puzzle {puzzle_id} before moving in it")
        if attempt.over:
            raise Refusal("puzzle_finished")
        if ply != attempt.ply:
            raise Refusal(
                "puzzle_ply", f"the puzzle awaits your move at ply {attempt.ply}, not {ply}"
            )
        puzzle = self._lines.get(puzzle_id) or await self.public(puzzle_id)
        if len(self._lines) >= LINES_KEPT:
            self._lines.clear()  # bounded: a cache, not a record
        self._lines[puzzle_id] = puzzle
        checked = rules.check_move(puzzle.position, puzzle.ruleset, puzzle.solution, ply, move)
        answer = _answer(checked, puzzle)
        if checked.verdict == "right":
            after = attempt.moved(ply + 2)
            answer["ply"] = ply + 2
            answer["streak"] = attempt.streak if attempt.mode == "streak" else None
        else:
            won = checked.verdict == "solved"
            after = attempt.finished(won)
            if not won:
                answer["refutation"] = await self._refutation(checked.game)
            # PostgreSQL first: rated once there whatever happens next (the first row).
            await self._finish(player_id, account, attempt, won, answer)
        changed = await self.scripts.puzzle(
            keys=[key], args=[raw, after.dump(), keys.PUZZLE_ATTEMPT_S]
        )
        if not int(changed):
            raise Refusal("busy", "another move of this attempt came at once: it counted")
        return answer

    # -- helpers -----------------------------------------------------------------------

    async def _finish(
        self, player_id: str, account: bool, attempt: Attempt, won: bool, answer: Answer
    ) -> None:
        """Keep the attempt's end: rated once (not a streak's), a streak's best kept."""
        guest = None if account else (await self._guest(player_id))[0]
        outcome: AttemptOutcome = await _stored(
            self.store.finish_attempt(
                player_id, attempt.puzzle, won, rated=attempt.mode == "rated", guest=guest
            )
        )
        change: RatingChange = {
            "before": round(outcome.player_before.rating),
            "after": round(outcome.player_after.rating),
        }
        answer["rated"] = outcome.rated
        answer["rating"] = change
        if outcome.rated and not account:
            await self._keep_guest(player_id, outcome.player_after)
        if attempt.mode == "streak":
            streak = attempt.streak + 1 if won else attempt.streak
            answer["streak"] = streak
            if not won:
                answer["best_streak"] = await self._keep_streak(player_id, account, streak)

    async def _refutation(self, game: Game) -> str | None:
        """The opponent's best answer to a wrong move: a move that wins at once if there is
        one, else the bot's bounded search (in a thread, a few at once on a hub)."""
        if game.result is not None:
            return None
        found = rules.winning_reply(game)
        if found is not None:
            return found
        async with self._searches:
            move = await asyncio.to_thread(
                choose_move, Game.from_snapshot(game.snapshot()), random.Random(0), REFUTATION_LEVEL
            )
        return str(move)

    async def _standing(self, player_id: str, account: bool) -> tuple[Rating, int, int]:
        if account:
            found = await _stored(self.store.puzzle_standing(player_id))
            return found.rating, found.attempts, found.best_streak
        return await self._guest(player_id)

    async def _rating(self, player_id: str, account: bool) -> int:
        return round((await self._standing(player_id, account))[0].rating)

    async def _guest(self, player_id: str) -> tuple[Rating, int, int]:
        raw = await self.redis.hgetall(keys.puzzle_guest(player_id))
        got = {k.decode() if isinstance(k, bytes) else k: v for k, v in raw.items()}
        try:
            rating = Rating(float(got["rating"]), float(got["rd"]), float(got["volatility"]))
        except (KeyError, ValueError):
            rating = Rating()
        return rating, int(got.get("attempts", 0)), int(got.get("best", 0))

    async def _keep_guest(self, player_id: str, rating: Rating) -> None:
        key = keys.puzzle_guest(player_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(
            key,
            mapping={"rating": rating.rating, "rd": rating.rd, "volatility": rating.volatility},
        )
        pipe.hincrby(key, "attempts", 1)
        pipe.expire(key, SESSION_TTL_S)
        await pipe.execute()

    async def _keep_streak(self, player_id: str, account: bool, streak: int) -> int:
        if account:
            return await _stored(self.store.keep_streak(player_id, streak))
        key = keys.puzzle_guest(player_id)
        best = max(streak, (await self._guest(player_id))[2])
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, "best", best)
        pipe.expire(key, SESSION_TTL_S)
        await pipe.execute()
        return best

    def _started(self, puzzle: StoredPuzzle, mode: Mode, streak: int, rating: int) -> Started:
        start = rules.replay(puzzle.position, puzzle.ruleset, ())
        side = start.side_to_move
        return {
            "puzzle": view(puzzle, side, rules.prompt(side), start.legal_texts()),
            "mode": mode,
            "ply": 0,
            "streak": streak,
            "rating": rating,
        }

    async def _count(self, player_id: str) -> None:
        """Count one request in the player's window, or RateLimited (nothing counted)."""
        reply = await self.scripts.windows(
            keys=[keys.puzzle_window(player_id)],
            args=[rules.WINDOW_S * 1000, secrets.token_hex(8), rules.REQUESTS],
        )
        if int(reply[0]):
            wait = max(1, -(-int(reply[1]) // 1000))
            raise RateLimited(
                f"too many puzzle requests: {rules.REQUESTS} a minute at most; "
                f"try again in {wait} s",
                wait,
            )


def _answer(checked: rules.Checked, puzzle: StoredPuzzle) -> Answer:
    over = checked.verdict != "right"
    return {
        "result": checked.verdict,
        "move": checked.played,
        "moved": checked.moved,
        "reply": checked.reply,
        "ply": len(puzzle.solution) if over else 0,
        "position": checked.game.position,
        "legal": [] if over else checked.game.legal_texts(),
        "right": checked.expected if checked.verdict == "failed" else None,
        "refutation": None,
        "solution": list(puzzle.solution) if over else None,
        "theme": puzzle.theme if over else None,
        "rated": False,
        "rating": None,
        "streak": None,
        "best_streak": None,
    }


async def _stored(work: Awaitable[T]) -> T:
    try:
        return await work
    except StoreUnavailable:
        raise Refusal("unavailable") from None
