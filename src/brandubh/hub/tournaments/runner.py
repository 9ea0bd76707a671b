"""What moves tournaments on, exactly once from any number of hubs: the start, each arena
pairing wave, each round, the end, and each game's result.

Every tournament with something ahead has an entry in ``keys.tournament_events`` scored
by when it is next due. Every hub's loop claims due entries under a lease
(lua/claim.lua) and takes one ``step`` of each: read the tournament, decide from its
state (the pairings from the pure core, fed with its seed: pairing.py), and commit the
decision with its change's script (changes.py), which checks the state it changes (the wave's or
round's number, the status, that each player paired is still free). Two hubs stepping the
same tournament commit once; a hub killed mid-step leaves its claim to lapse, and the
next step finds what was committed and finishes it: games are created with ids the
script gave (``<tournament>-<n>``, matches ``<tournament>-r<round>-<board>``), so
creating one twice returns the first. Results come from the endings' steps
(``game_ended``, run durably after each ending: live/endings.py), which records the
result once and asks for a step ``PAIR_DELAY_MS`` later: the wave then takes everyone
freed meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Collection, Mapping
from typing import Final, Protocol, cast

from redis.asyncio import Redis

from brandubh.hub.errors import Refusal
from brandubh.hub.live import GameService, GameState, MatchService, Player
from brandubh.hub.mail import Outbox, mails
from brandubh.hub.messages import frames
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.tournaments import changes, delta, pairing, state
from brandubh.hub.tournaments.records import ArenaGame, EntrantState, RoundMatch, Status
from brandubh.hub.tournaments.state import Tournament
from brandubh.store import Account, Store
from brandubh.tournaments import PLAYERS, Pairing, Result, SwissRound

log = logging.getLogger(__name__)

CLAIM_LEASE_MS: Final = 10_000  # a step takes tens of ms; a dead hub's claim waits this
CLAIM_BATCH: Final = 20
# A pairing wave comes this long after a player comes free (or joins): a wave pairs
# everyone free by then, so players freed close together are paired together.
PAIR_DELAY_MS: Final = 500
# Free players a wave could not pair (their only partner was their last opponent) are
# looked at again this often while nothing else frees anyone.
RETRY_MS: Final = 2_000
# A step of a running tournament waits no longer than this for a result to wake it.
CHECK_MS: Final = 30_000
# Games committed this long ago and not created are created by whichever hub steps the
# tournament (the hub that committed them died first).
ORPHAN_MS: Final = 3_000
MAKE_AT_ONCE: Final = 32  # games of a wave created at once (a 500-player arena's first: 250)
STEPS: Final = 8  # changes one step commits at most before it yields
PUBLISH_DELAY_S: Final = 0.2  # the tournament frame waits this long for more changes
# The views kept to send deltas from, a tournament each (the ones published to most recently):
# a 500-player arena's is a few MB in memory.
KEEP_VIEWS: Final = 16
# A hub that bumped a version just after another hub waits this long for the other's frame
# (its view of the version before) rather than send the whole view.
WAIT_BEFORE_S: Final = 0.15
FRAME_FIELDS: Final = frozenset({"t", "tournament", "version", "base"})  # not of the view
ARENA_GAME: Final = re.compile(r"^(t[A-Za-z0-9_-]{8})-\d+\Z")
ROUND_MATCH: Final = re.compile(r"^(t[A-Za-z0-9_-]{8})-r\d+-\d+\Z")
ROUND_GAME: Final = re.compile(r"^t[A-Za-z0-9_-]{8}-r\d+-\d+-\d\Z")


def outcome(game: GameState) -> Result:
    """A tournament game's result as the core counts it (an aborted game apart)."""
    assert game.result is not None
    if game.result.reason == "aborted":
        return "aborted"
    return game.result.winner or "draw"


class RoundAccounts(Protocol):
    """What the round mails need of the accounts (accounts.Accounts is one)."""

    async def get(self, account_id: str) -> Account | None: ...
    async def reminders_on(self, account_id: str) -> bool: ...


class Runner:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        matches: MatchService,
        store: Store | None,
        clock: Callable[[], int],
        grace_s: float,
        outbox: Outbox | None = None,
        accounts: RoundAccounts | None = None,
        public_url: str = "",
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.matches = matches
        self.store = store
        self.clock = clock  # Redis's clock, as this process estimates it (ms)
        self.grace_ms = max(1, int(grace_s * 1000))
        self.outbox = outbox
        self.accounts = accounts
        self.public_url = public_url.rstrip("/")
        self.wake = asyncio.Event()  # the loop's wake-up: an event falls due
        self._timer: asyncio.TimerHandle | None = None
        self._dirty: set[str] = set()
        self._flush: asyncio.Task[None] | None = None
        # tournament id -> (version, frame view) as its frames last gave it (this hub's or
        # another's: observe), least recent first
        self._views: dict[str, tuple[int, Mapping[str, object]]] = {}
        self._arrivals: dict[str, asyncio.Event] = {}  # a view held anew, to _before

    # -- scheduling --------------------------------------------------------------------

    async def due(self, tid: str, at: int) -> None:
        """Ask for a step of a tournament at ``at`` (ms) or sooner, from any hub."""
        await self.redis.zadd(keys.tournament_events(), {tid: at}, lt=True)
        self.wake_at(at)

    def wake_at(self, at: int) -> None:
        """Sweep here just after ``at`` (ms, Redis's clock), if sooner than planned."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        delay = max(0.0, (at - self.clock()) / 1000) + 0.01
        if delay >= 1.0:
            return  # the poll comes first
        when = loop.time() + delay
        if self._timer is not None:
            if self._timer.when() <= when:
                return
            self._timer.cancel()
        self._timer = loop.call_at(when, self._ring)

    def _ring(self) -> None:
        self._timer = None
        self.wake.set()

    async def sweep(self) -> int:
        """Claim every tournament due now and step each; how many were stepped."""
        claimed = cast(
            list[bytes],
            await self.scripts.claim(
                keys=[keys.tournament_events()], args=[CLAIM_LEASE_MS, CLAIM_BATCH]
            ),
        )
        for raw in claimed:
            tid = raw.decode()
            try:
                await self.step(tid)
            except Exception:
                # The claim lapses and a hub steps it again (every step is idempotent).
                log.exception("tournament %s: a step failed; it is tried again", tid)
        return len(claimed)

    async def step(self, tid: str) -> None:
        """Take a tournament as far as it can go now, then plan its next step."""
        next_due: int | None = None
        rev = ""
        for _ in range(STEPS):
            t = await state.read(self.redis, tid)
            if t is not None and t.status == Status.FINISHED:
                t = await state.read(self.redis, tid, with_log=True)  # the export, kept
            if t is None:
                await self.redis.zrem(keys.tournament_events(), tid)
                return
            rev = t.fields["rev"]
            next_due = await self._advance(t)
            if next_due != 0:
                break
        if next_due is None:
            await self.redis.zrem(keys.tournament_events(), tid)
        else:
            at = next_due or self.clock()
            await self.redis.zadd(keys.tournament_events(), {tid: at})
            self.wake_at(at)
            # A result or join committed after the read above asked for a sooner step,
            # perhaps before the line above overwrote it: ask again.
            now_rev = await self.redis.hget(keys.tournament(tid), "rev")
            if now_rev is not None and cast(bytes, now_rev).decode() != rev:
                await self.due(tid, self.clock() + PAIR_DELAY_MS)

    async def _advance(self, t: Tournament) -> int | None:
        """One change of a tournament: 0 when it changed (step again), else when it is
        next due (ms), or None when it has nothing ahead."""
        now = self.clock()
        if t.status == Status.FINISHED:
            await self._keep(t)
            return None
        await self._make_games(t)
        if t.status == Status.UPCOMING:
            if now < int(t.fields["starts_at"]):
                return int(t.fields["starts_at"])
            # An arena starts whoever has joined (players join while it runs); a round
            # robin or Swiss with too few players to pair ends at once, unplayed.
            joined = sum(1 for p in t.players.values() if p.active)
            least = max(PLAYERS[t.format][0], (t.number("rounds") or 0) + 1)
            if not t.arena and joined < least:
                return await self._end(t)
            roster = None if t.arena else {p.id: p.rating for p in t.players.values() if p.active}
            return self._committed(t, await changes.start(self.scripts, t.id, roster, now))
        if t.arena:
            return await self._arena(t, now)
        if t.status == Status.RUNNING and t.round_over():
            return await self._round(t)
        return now + CHECK_MS

    def _committed(self, t: Tournament, reply: changes.Reply) -> int:
        if reply[0] == b"ok":
            self.publish(t.id)
        return 0  # changed, or raced: read it again either way

    async def _end(self, t: Tournament) -> int:
        return self._committed(t, await changes.end(self.scripts, t.id, t.seed, self.clock()))

    async def _arena(self, t: Tournament, now: int) -> int:
        ends = int(t.fields["ends_at"])
        if t.status == Status.FINISHING or now >= ends:
            if t.status == Status.RUNNING:
                return self._committed(t, await changes.finish(self.scripts, t.id))
            if t.in_play() == 0:
                return await self._end(t)
            return now + CHECK_MS
        free = t.free()
        if len(free) < 2:
            return min(ends, now + CHECK_MS)
        pairs = pairing.arena_wave(t, free)
        if not pairs:
            return min(ends, now + RETRY_MS)
        seq = t.number("seq") or 0
        games = [(f"{t.id}-{seq + k}", Pairing(a, d)) for k, (a, d) in enumerate(pairs, 1)]
        reply = await changes.wave(
            self.scripts,
            t.id,
            (t.number("waves") or 0) + 1,
            {p.id: p.rating for p in free},
            games,
            now,
        )
        if reply[0] != b"ok":
            return 0  # raced: read again
        self.publish(t.id)
        fresh = await state.read(self.redis, t.id)
        if fresh is not None:
            await self._make_games(fresh, {raw.decode() for raw in reply[1:]})
        if len(free) - 2 * len(pairs) >= 2:
            return min(ends, now + RETRY_MS)
        return 0

    async def _round(self, t: Tournament) -> int:
        chosen = pairing.next_pairings(t)
        if chosen is None:
            return await self._end(t)
        pairs, bye = chosen
        out = pairing.withdrawn(t)
        r = (t.number("round") or 0) + 1
        decided = [bool({a, b} & out) for a, b in pairs]
        reply = await changes.round_paired(
            self.scripts, t.id, r, SwissRound(pairs, bye), decided, self.clock()
        )
        if reply[0] != b"ok":
            return 0
        self.publish(t.id)
        fresh = await state.read(self.redis, t.id)
        if fresh is not None:
            await self._make_games(fresh, {raw.decode() for raw in reply[1:]})
            await self._mail_round(fresh, r)
        return 0

    # -- games -------------------------------------------------------------------------

    async def _make_games(self, t: Tournament, mine: Collection[str] = ()) -> None:
        """Create the games (arena) or matches (rounds) just committed here (``mine``), and
        those committed over ``ORPHAN_MS`` ago but not yet created (a hub died between)."""
        now = self.clock()
        entries: list[ArenaGame | RoundMatch] = [*t.ordered_games(), *t.ordered_matches()]
        due = [e for e in entries if not e.made and (e.id in mine or now - e.at >= ORPHAN_MS)]
        for start in range(0, len(due), MAKE_AT_ONCE):
            await asyncio.gather(*(self._make(t, e) for e in due[start : start + MAKE_AT_ONCE]))

    async def _make(self, t: Tournament, e: ArenaGame | RoundMatch) -> None:
        if isinstance(e, ArenaGame):
            await self._make_arena_game(t, e)
        else:
            await self._make_match(t, e)
        await changes.made(self.scripts, t.id, e.id)

    async def _make_arena_game(self, t: Tournament, g: ArenaGame) -> None:
        gid = g.id
        att, dfn = t.players[g.attackers], t.players[g.defenders]
        _, invite = await self.games.create(
            Player(att.id, att.name),
            t.fields["ruleset"],
            int(t.fields["move_time"]),
            "friend",
            joiner=Player(dfn.id, dfn.name),
            attacker_id=att.id,
            game_id=gid,
            origin="tournament",
            seat_by_seed=True,
            tournament=t.id,
        )
        if not invite:
            return  # another hub created it (and tells the players)
        for pid, side in ((att.id, "attackers"), (dfn.id, "defenders")):
            await self.redis.publish(
                keys.lobby_channel(), frames.tournament_game(t.id, gid, side, pid)
            )

    async def _make_match(self, t: Tournament, m: RoundMatch) -> None:
        """Start a round's match (idempotent) and log its first game."""
        mid = m.id
        a, b = t.players[m.a], t.players[m.b]
        _, gid = await self.matches.start(
            Player(a.id, a.name),
            Player(b.id, b.name),
            t.fields["ruleset"],
            int(t.fields["move_time"]),
            None,
            match_id=mid,
            origin="tournament",
            tournament=t.id,
        )
        await self._log_game(t.id, mid, await self.games.load(gid))

    async def _log_game(self, tid: str, mid: str, game: GameState) -> None:
        sides = Pairing(game.attacker, game.defender)
        await changes.game(self.scripts, tid, mid, game.id, sides, self.clock())
        for pid, side in ((game.attacker, "attackers"), (game.defender, "defenders")):
            await self.redis.publish(
                keys.lobby_channel(), frames.tournament_game(tid, game.id, side, pid)
            )

    async def game_ended(self, game_id: str) -> None:
        """Endings step: a tournament game ended; record it (once) and move on."""
        found = ARENA_GAME.match(game_id)
        if found:
            if await self.redis.exists(keys.tournament(found.group(1))):
                await self._arena_result(found.group(1), game_id)
            return
        if not ROUND_GAME.match(game_id):
            return
        try:
            game = await self.games.load(game_id)
        except Refusal:
            return
        m = ROUND_MATCH.match(game.match)
        if m and await self.redis.exists(keys.tournament(m.group(1))):
            await self._match_result(m.group(1), game)

    async def _arena_result(self, tid: str, game_id: str) -> None:
        try:
            game = await self.games.load(game_id)
        except Refusal:
            return
        if game.status != "ended" or game.result is None:
            return
        reply = await changes.result(self.scripts, tid, game_id, outcome(game), self.clock())
        if reply[0] == b"ok" and reply[1] == b"recorded":
            self.publish(tid)
            await self.due(tid, self.clock() + PAIR_DELAY_MS)

    async def _match_result(self, tid: str, game: GameState) -> None:
        """A match game ended: its result logged, the match's next game (created by
        live/matches.py) logged, and the round moved on once the match is decided."""
        if game.status != "ended" or game.result is None:
            return
        t = await state.read(self.redis, tid)
        if t is None or game.match not in t.matches:
            return
        m = t.matches[game.match]
        if m.done:
            return  # decided already (a withdrawn player's): a later game does not count
        if game.id not in m.games:
            await self._log_game(tid, game.match, game)  # its creation's log was cut short
            t = await state.read(self.redis, tid)
            if t is None:
                return
            m = t.matches[game.match]
        summary = await self.matches.summary(game.match)
        results: dict[str, str] = {**m.results, game.id: outcome(game)}
        decided = summary["status"] == "finished" or (
            pairing.decided(t, m, results) and summary["status"] != "choosing"
        )
        reply = await changes.match_result(
            self.scripts, tid, game.match, game.id, outcome(game), decided, self.clock()
        )
        if reply[0] != b"ok":
            return
        if reply[1] == b"recorded":
            self.publish(tid)
        if decided:
            await self.due(tid, self.clock())
            return
        for gid in summary["games"]:  # the match's next game, once it exists
            if gid not in results:
                nxt = await self.games.load(gid)
                await self._log_game(tid, game.match, nxt)
                if t.players[nxt.attacker].state == EntrantState.WITHDRAWN:
                    await self.games.resign(nxt.attacker, gid, f"withdrawn-{gid}")
                elif t.players[nxt.defender].state == EntrantState.WITHDRAWN:
                    await self.games.resign(nxt.defender, gid, f"withdrawn-{gid}")

    async def changed(self, tid: str, op: str, player_id: str, game: str) -> None:
        """After a player's change (service.py): a wave soon after a join or a resume; a
        withdrawn player's game in play resigned (their match's later games are too)."""
        self.publish(tid)
        if op in ("join", "resume"):
            await self.due(tid, self.clock() + PAIR_DELAY_MS)
        elif op == "withdraw" and game:
            t = await state.read(self.redis, tid)
            if t is None or t.arena or game not in t.matches:
                return
            for gid in t.matches[game].games:
                try:
                    played = await self.games.load(gid)
                except Refusal:
                    continue
                if played.status == "active" and played.side_of(player_id):
                    await self.games.resign(player_id, gid, f"withdrawn-{gid}")

    # -- the end -----------------------------------------------------------------------

    async def _keep(self, t: Tournament) -> None:
        """A finished tournament into PostgreSQL (idempotent), then its keys expire."""
        if t.fields.get("kept"):
            return
        if self.store is not None:
            view = t.view(self.clock())
            await self.store.keep_tournament(t.summary(), view, t.export(), int(t.fields["ended"]))
        await changes.kept(self.scripts, t.id, self.grace_ms)
        await self.redis.srem(keys.tournaments_run(t.fields["creator"]), t.id)
        self.publish(t.id)

    # -- telling -----------------------------------------------------------------------

    def publish(self, tid: str) -> None:
        """Push the tournament's frame to its followers on every hub, soon (changes close
        together make one frame)."""
        self._dirty.add(tid)
        if self._flush is None or self._flush.done():
            self._flush = asyncio.get_running_loop().create_task(self._publish_soon())

    async def _publish_soon(self) -> None:
        # Changes committed while a batch is out make the next batch (publish() starts no
        # task while this one runs).
        while self._dirty:
            await asyncio.sleep(PUBLISH_DELAY_S)
            dirty, self._dirty = self._dirty, set()
            for tid in dirty:
                try:
                    await self._publish(tid)
                except Exception:
                    log.exception("tournament %s: its frame could not be published", tid)

    async def _publish(self, tid: str) -> None:
        """The tournament's next version: what changed since the version before, when this
        hub holds its view (a ``tournament_delta``), else its whole view."""
        found = await state.snapshot(self.scripts.tournament.snapshot, tid, bump=True)
        if found is None:
            self._views.pop(tid, None)
            return
        version, t = found
        last = await self._before(tid, version)
        if last is not None and last[0] >= version:
            return  # another hub's later version went out first: its state holds this one's
        view = state.frame_view(t.view(self.clock()))
        if last is not None and last[0] == version - 1:
            frame = frames.tournament_delta(tid, version, delta.diff(last[1], view))
        else:
            frame = frames.tournament(tid, view, version)
        if not t.fields.get("kept"):  # a kept tournament changes no more
            self._hold(tid, version, view)
        await self.redis.publish(keys.lobby_channel(), frame)

    async def _before(self, tid: str, version: int) -> tuple[int, Mapping[str, object]] | None:
        """The view held of the version before ``version``: another hub's frame of it may
        be on its way (two hubs published at once), so it is waited for a little."""
        deadline = asyncio.get_running_loop().time() + WAIT_BEFORE_S
        while True:
            held = self._views.get(tid)
            left = deadline - asyncio.get_running_loop().time()
            if held is None or held[0] >= version - 1 or left <= 0:
                return held
            came = self._arrivals.setdefault(tid, asyncio.Event())
            try:
                await asyncio.wait_for(came.wait(), left)
            except TimeoutError:
                return self._views.get(tid)

    def _hold(self, tid: str, version: int, view: Mapping[str, object]) -> None:
        self._views.pop(tid, None)
        self._views[tid] = (version, view)
        while len(self._views) > KEEP_VIEWS:
            self._views.pop(next(iter(self._views)))
        came = self._arrivals.pop(tid, None)
        if came is not None:
            came.set()

    def observe(self, msg: Mapping[str, object]) -> None:
        """A tournament's frame from any hub (the lobby channel): the view this hub holds
        follows it, so that the next change, whichever hub publishes it, goes as a delta."""
        tid, version = msg.get("tournament"), msg.get("version")
        if not isinstance(tid, str) or not isinstance(version, int):
            return
        held = self._views.get(tid)
        if held is not None and version <= held[0]:
            return  # this hub's own, or late
        body = {k: v for k, v in msg.items() if k not in FRAME_FIELDS}
        if msg.get("t") == "tournament":
            if body.get("status") != "finished":
                self._hold(tid, version, body)
        elif held is not None and msg.get("base") == held[0]:
            self._hold(tid, version, delta.apply(held[1], body))
        elif held is not None:
            del self._views[tid]  # a frame missed: the next from here is whole

    async def stop(self) -> None:
        if self._flush is not None:
            self._flush.cancel()

    async def _mail_round(self, t: Tournament, r: int) -> None:
        """Mail each player of a correspondence round their games (if they take reminders)."""
        if self.outbox is None or self.accounts is None:
            return
        link = f"{self.public_url}/t/{t.id}"
        for m in t.matches.values():
            if m.round != r or not m.b:
                continue
            mid = m.id
            for me, other in ((m.a, m.b), (m.b, m.a)):
                account = await self.accounts.get(me)
                if account is None or not await self.accounts.reminders_on(me):
                    continue
                mail = mails.tournament_round(
                    account.email,
                    account.name,
                    t.fields["name"],
                    r,
                    [(t.players[other].name, f"{self.public_url}/g/{mid}-1")],
                    link,
                )
                await self.outbox.send(mail, mail_id=f"tr-{t.id}-{r}-{me}")
