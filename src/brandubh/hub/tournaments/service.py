"""Tournaments for the routes: creating one, joining, withdrawing, pausing, and reading
one (live from Redis, or kept in PostgreSQL once finished), the list and the export.

Each change is one call of its script (changes.py), which checks the state it changes; what
follows a change (a pairing wave soon after a join, the frame to followers) is the
runner's (runner.py).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Final, Literal, cast

from redis.asyncio import Redis

from brandubh.hub.errors import Refusal
from brandubh.hub.live import GameService, Player
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.tournaments import changes, records, state
from brandubh.hub.tournaments.records import Status
from brandubh.hub.tournaments.runner import Runner
from brandubh.hub.tournaments.state import Summary, Tournament
from brandubh.store import Store, StoreUnavailable
from brandubh.tournaments import InvalidSettings, Settings, commitment, new_seed

# How many upcoming or running tournaments one account may have created at once.
MAX_RUNNING: Final = 3
FINISHED_LISTED: Final = 20
PAGE: Final = 20  # the upcoming or the running listed at once (GET /api/tournaments)
SECTIONS: Final = ("upcoming", "running")
# An upcoming tournament is listed this long past its start (the runner starts it within
# a second, so only while it is down); the list never reads further back for them.
UPCOMING_SLACK_MS: Final = 5 * 60_000
RUN_SET_TTL_S: Final = 30 * 24 * 3600
# A new tournament's hash lives this long until its creator's limit takes it (a hub that
# dies between leaves nothing behind).
UNTAKEN_MS: Final = 60_000


def _cursor(after: str | None) -> tuple[int, str]:
    """A page's cursor (``<start>:<id>`` of its last entry), as ``listing`` gave it."""
    start, _, tid = (after or "").partition(":")
    if not start.lstrip("-").isdigit() or not tid:
        raise Refusal("bad_field", "after is the cursor a page of the list gave")
    return int(start), tid


def _standing_ids(view: Mapping[str, object]) -> set[str]:
    """The ids of a kept view's players in its standings (each row's ``player``'s ``id``)."""
    rows = view.get("standings")
    if not isinstance(rows, list):
        return set()
    players = [r.get("player") for r in rows if isinstance(r, dict)]
    return {p["id"] for p in players if isinstance(p, dict) and isinstance(p.get("id"), str)}


def new_tournament_id() -> str:
    return "t" + secrets.token_urlsafe(6)  # 9 characters


class TournamentService:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        runner: Runner,
        rating: Callable[[str, str], Awaitable[tuple[float, bool]]],
        store: Store | None,
        clock: Callable[[], int],
        arena_scale: float = 1.0,
        max_running: int = MAX_RUNNING,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.runner = runner
        self.rating = rating  # (rating, provisional) of a player in a rule set (Rater.lookup)
        self.store = store
        self.clock = clock
        # Tests shorten arenas with it (BRANDUBH_TOURNAMENT_SCALE): an arena's minutes
        # count this fraction of a minute each. 1.0 in production.
        self.arena_scale = arena_scale
        self.max_running = max_running

    async def create(self, creator: Player, body: Mapping[str, object]) -> str:
        """A new tournament from a creator's settings; its id."""
        now = self.clock()
        try:
            settings = Settings.parse(body, now)
        except InvalidSettings as exc:
            raise Refusal("invalid_tournament", str(exc)) from None
        tid = new_tournament_id()
        seed = new_seed()
        starts = max(settings.starts_at, now)
        ends = (
            starts + int(settings.duration_min * 60_000 * self.arena_scale)
            if settings.duration_min is not None
            else None
        )
        fields = {
            "id": tid,
            "name": settings.name,
            "format": settings.format,
            "ruleset": settings.ruleset,
            "move_time": str(settings.move_time),
            "starts_at": str(starts),
            "ends_at": "" if ends is None else str(ends),
            "duration_min": "" if settings.duration_min is None else str(settings.duration_min),
            "rounds": "" if settings.rounds is None else str(settings.rounds),
            "max_players": str(settings.max_players),
            "creator": creator.id,
            "creator_name": creator.name,
            "created": str(now),
            "status": Status.UPCOMING.value,
            "round": "0",
            "waves": "0",
            "seq": "0",
            "rev": "0",
            "seed": seed.hex(),
            "commitment": commitment(seed),
        }
        # Created first, then taken against the limit: an id in the account's set always
        # has its hash until it finishes, so pruning the set never drops one being made.
        reply = await changes.create(self.scripts, tid, fields, UNTAKEN_MS)
        if reply[0] != b"ok":  # pragma: no cover - 48 random bits do not collide
            raise RuntimeError("tournament id taken")
        if not await self._take(creator.id, tid, starts):
            await self.redis.delete(keys.tournament(tid))
            raise Refusal(
                "too_many_tournaments",
                f"you run {self.max_running} tournaments that have not finished: "
                "wait for one to end",
            )
        await self.redis.persist(keys.tournament(tid))
        self.runner.wake_at(starts)
        return tid

    async def _take(self, account_id: str, tid: str, starts: int) -> bool:
        """Count a new tournament against its creator's limit, atomically (lua/run_limit.lua:
        simultaneous creations take at most the limit), listing it; False at the limit."""
        args: list[str | int] = [tid, self.max_running, RUN_SET_TTL_S, starts]
        run_keys = [keys.tournaments_run(account_id), keys.tournaments(), keys.tournament_events()]
        if await self.scripts.run_limit(keys=run_keys, args=args):
            return True
        return await self._prune(account_id) and bool(
            await self.scripts.run_limit(keys=run_keys, args=args)
        )

    async def _prune(self, account_id: str) -> bool:
        """Drop the account's finished (or gone) tournaments from its set; whether any."""
        mine = keys.tournaments_run(account_id)
        ids = [raw.decode() for raw in cast(set[bytes], await self.redis.smembers(mine))]
        pipe = self.redis.pipeline(transaction=False)
        for tid in ids:
            pipe.hget(keys.tournament(tid), "status")
        statuses = await pipe.execute()
        done = [t for t, st in zip(ids, statuses, strict=True) if st in (None, b"finished")]
        if done:
            await self.redis.srem(mine, *done)
        return bool(done)

    async def act(self, player: Player, tid: str, op: str) -> None:
        """join | withdraw | pause | resume, for a player (an account, checked by the route)."""
        if op == "join":
            reply = await self._join(player, tid)
        elif op in ("withdraw", "pause", "resume"):
            change = cast(changes.PlayerChange, op)
            reply = await changes.player_change(self.scripts, tid, change, player.id, self.clock())
        else:
            raise ValueError(f"no such change of a player: {op}")
        if reply[0] == b"err":
            code = reply[1].decode()
            raise Refusal(code, f"there is no tournament {tid}" if code == "not_found" else "")
        await self.runner.changed(tid, op, player.id, reply[1].decode() if len(reply) > 1 else "")

    async def _join(self, player: Player, tid: str) -> changes.Reply:
        """A join, with the player's rating now, or the one they first joined with if they
        come back (the script says "race" if that changed between: read it again)."""
        found = await self.redis.hget(keys.tournament(tid), "ruleset")
        if found is None:
            raise Refusal("not_found", f"there is no tournament {tid}")
        now, _ = await self.rating(player.id, cast(bytes, found).decode())
        for _ in range(3):
            before = await self.redis.hget(keys.tournament_players(tid), player.id)
            rating = (
                records.entrant(player.id, cast(bytes, before)).rating
                if before is not None
                else round(now, 1)
            )
            reply = await changes.join(
                self.scripts, tid, player.id, player.name, rating, self.clock()
            )
            if reply[0] != b"race":
                return reply
        raise Refusal("busy", "this tournament changed while you joined: try again")

    # -- reading ---------------------------------------------------------------------------

    async def view(self, tid: str, viewer: str | None) -> Mapping[str, object]:
        """GET /api/tournaments/{id}: the view, and what the viewer is in it ("me"): a
        ``state.View``, or one kept in PostgreSQL."""
        t = await state.read(self.redis, tid)
        if t is None:
            return await self._kept_view(tid, viewer)
        out = t.view(self.clock())
        out["me"] = t.me(viewer)
        return out

    async def _kept_view(self, tid: str, viewer: str | None) -> dict[str, object]:
        """A finished tournament's view from PostgreSQL, with "me" and "now"."""
        out = dict(await self._kept(tid, "view"))
        me: state.Me = {"joined": viewer in _standing_ids(out), "paused": False, "game": None}
        out["me"] = me
        out["now"] = self.clock()
        return out

    async def frame_view(self, tid: str) -> tuple[int, Mapping[str, object]]:
        """What a ``tournament`` frame carries now, and its version: the view without "me",
        an arena's games cut to each player's latest (state.frame_view). The version is read
        with the state, at one instant (state.snapshot): the view is that version's or a
        later one's, so each delta from it on applies. A kept tournament's is 0 (no more
        frames come)."""
        found = await state.snapshot(self.scripts.tournament.snapshot, tid, bump=False)
        if found is None:
            out = dict(await self.view(tid, None))
            out.pop("me", None)
            return 0, state.frame_view(out)
        version, t = found
        return version, state.frame_view(t.view(self.clock()))

    async def export(self, tid: str) -> Mapping[str, object]:
        """The export (``TournamentExport``), or the one kept in PostgreSQL."""
        t = await state.read(self.redis, tid, with_log=True)
        if t is None:
            return await self._kept(tid, "export")
        return t.export()

    async def _kept(self, tid: str, part: Literal["view", "export"]) -> dict[str, object]:
        """A finished tournament's view or export, from PostgreSQL."""
        if self.store is None:
            raise Refusal("not_found", f"there is no tournament {tid}")
        try:
            kept = await self.store.tournament(tid)
        except StoreUnavailable:
            raise Refusal(
                "busy", "this tournament is in the archive, which cannot be reached: try again"
            ) from None
        if kept is None:
            raise Refusal("not_found", f"there is no tournament {tid}")
        return kept[part]

    async def listing(
        self, section: str | None = None, after: str | None = None
    ) -> dict[str, object]:
        """GET /api/tournaments: a page (``PAGE``) of the upcoming and of the running from
        Redis, with each one's cursor for the next (``next``), and the latest finished from
        PostgreSQL; or, with ``section`` and ``after`` (a cursor), that section's next page.
        What it reads is a page's worth, however many tournaments there are."""
        now = self.clock()
        if section is not None:
            if section not in SECTIONS:
                raise Refusal("bad_field", "section is upcoming or running")
            cursor = _cursor(after) if after else None
            items, nxt = await self._page(Status(section), now, cursor)
            return {section: items, "next": {section: nxt}}
        upcoming, up_next = await self._page(Status.UPCOMING, now, None)
        running, run_next = await self._page(Status.RUNNING, now, None)
        finished: list[dict[str, object]] = []
        if self.store is not None:
            with contextlib.suppress(StoreUnavailable):  # the list goes on without them
                finished = await self.store.finished_tournaments(FINISHED_LISTED)
        return {
            "upcoming": upcoming,
            "running": running,
            "finished": finished,
            "next": {"upcoming": up_next, "running": run_next},
        }

    async def _page(
        self, status: Status, now: int, after: tuple[int, str] | None
    ) -> tuple[list[Summary], str | None]:
        """One page of a section, by start, from the index (``keys.tournaments``): the
        upcoming start after ``now - UPCOMING_SLACK_MS``, the running before ``now``; each
        entry read, those of another status passed over, those gone dropped."""
        lo: float = now - UPCOMING_SLACK_MS if status == Status.UPCOMING else float("-inf")
        hi: float = float("inf") if status == Status.UPCOMING else now
        if after is not None:
            lo = max(lo, after[0])
        found: list[Summary] = []
        offset = 0
        while True:
            batch = cast(
                list[tuple[bytes, float]],
                await self.redis.zrangebyscore(
                    keys.tournaments(), lo, hi, start=offset, num=PAGE, withscores=True
                ),
            )
            offset += len(batch)
            entries = [
                (int(score), raw.decode())
                for raw, score in batch
                if after is None or (int(score), raw.decode()) > after
            ]
            gone: list[str] = []
            summaries = await self._summaries(e[1] for e in entries)
            for (start, tid), t in zip(entries, summaries, strict=True):
                if t is None:
                    gone.append(tid)
                elif t.status == status or (
                    status == Status.RUNNING and t.status == Status.FINISHING
                ):
                    found.append(t.summary())
                    if len(found) == PAGE:
                        if gone:
                            await self.redis.zrem(keys.tournaments(), *gone)
                        return found, f"{start}:{tid}"
            if gone:
                await self.redis.zrem(keys.tournaments(), *gone)
            if len(batch) < PAGE:
                return found, None

    async def _summaries(self, ids: Iterable[str]) -> list[Tournament | None]:
        """Tournaments as the list shows them: each one's hash and players (not its games)."""
        ids = list(ids)
        pipe = self.redis.pipeline(transaction=False)
        for tid in ids:
            pipe.hgetall(keys.tournament(tid))
            pipe.hgetall(keys.tournament_players(tid))
        found = await pipe.execute()
        return [state.summary_of(tid, found[2 * i], found[2 * i + 1]) for i, tid in enumerate(ids)]

    async def read(self, tid: str) -> Tournament | None:
        return await state.read(self.redis, tid)
