"""Live games: create, join, rematch, and every change through the one commit path.

What a change does is decided by changes.py (pure); committing it is commit.py's. This
module chooses the change for each request, and reads games for everyone else.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import secrets
from typing import Final, cast

import msgpack
from redis.asyncio import Redis

from brandubh import fairplay
from brandubh.engine import Game, Record, opponent
from brandubh.hub.errors import Refusal, no_game
from brandubh.hub.live import changes, stored
from brandubh.hub.live.cache import GameCache
from brandubh.hub.live.changes import Change
from brandubh.hub.live.commit import CommitHook, Committed, Committer, LostHook
from brandubh.hub.live.state import BOT_ID, ORIGINS, GameState, Hash, Player, pack_snapshot
from brandubh.hub.live.terms import check_bot_level, check_terms
from brandubh.hub.messages import frames
from brandubh.hub.redis import Lane, ReplicaWait, Scripts, TokenCheck, keys
from brandubh.store import Store, StoreUnavailable

_RETRIES: Final = 16
# A friend game nobody joins is forgotten after this long (its hash and seed expire; the
# join's commit makes the hash lasting again: commit.lua).
WAITING_TTL_S: Final = 7 * 24 * 3600
BOT_GAMES_TTL_S: Final = 30 * 24 * 3600


def new_game_id() -> str:
    return secrets.token_urlsafe(9)  # 12 characters


class GameService:
    """The hub's only writer of live games (through its ``Committer``), and their reader
    (remembering what it reads in its ``GameCache``)."""

    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        time_scale: float = 1.0,
        archive: Store | None = None,
        bot_games: int = 0,
        lane: Lane | None = None,
        replicas: ReplicaWait | None = None,
        hub_id: str = "",
        claim_grace_s: float = 30.0,
        outage_after_s: float = 30.0,
        on_commit: CommitHook | None = None,
        on_lost: LostHook | None = None,
        bot_games_per_address: int = 0,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.cache = cache = GameCache()
        self.committer = Committer(
            redis, scripts, cache, lane, replicas, hub_id, on_commit=on_commit, on_lost=on_lost
        )
        # Where ended games are read from once their Redis keys have expired (rater.py).
        self.archive = archive
        self.time_scale = time_scale  # tests shorten deadlines with it; 1.0 in production
        self.bot_games = bot_games  # live bot games a player may have at once; 0: any
        # And a client address (client_source: an IPv4 address or an IPv6 /64); 0: any.
        self.bot_games_per_address = bot_games_per_address
        # How long an opponent must be gone before a claim (docs/fair-play.md), and the
        # schedulers' outage threshold, which says whether the service is in an outage.
        self.claim_grace_ms = int(claim_grace_s * 1000)
        self.outage_after_ms = int(outage_after_s * 1000)

    def allowance_ms(self, state: GameState) -> int:
        """How long the side to move has for one move, in ms."""
        return max(1, int(state.move_time * 1000 * self.time_scale))

    # -- reading --------------------------------------------------------------------------

    async def load(self, game_id: str) -> GameState:
        """A game's state: live from Redis, or from the archive once Redis let it go."""
        state, _ = await stored.read(self.scripts, game_id)
        if state is not None:
            return self.cache.remember(state)
        raw = await self._archived_fields(game_id)
        if not raw:
            raise no_game(game_id)
        return GameState.from_hash(game_id, raw)

    async def _archived_fields(self, game_id: str) -> Hash:
        """The last live fields of an archived game ({} if it was never archived)."""
        if self.archive is None:
            return {}
        try:
            final = await self.archive.final_game(game_id)
        except StoreUnavailable:
            raise Refusal(
                "busy", "this ended game is in the archive, which cannot be reached: try again"
            ) from None
        if final is None or not final.final:  # moved from an old Redis without its hash
            return {}
        return cast(Hash, msgpack.unpackb(final.final, raw=True))

    async def seed(self, game_id: str) -> bytes:
        """The game's secret seed: for the server's own use (sides, the bot, the reveal)."""
        found = cast(bytes | None, await self.redis.get(keys.seed(game_id)))
        if found is None and self.archive is not None:
            try:
                final = await self.archive.final_game(game_id)
            except StoreUnavailable:
                final = None
            found = bytes.fromhex(final.seed) if final else None
        return found or b""

    async def revealed_seed(self, state: GameState) -> str | None:
        """The seed, hex, once the game has ended; None before."""
        if state.status != "ended":
            return None
        return (await self.seed(state.id)).hex() or None

    async def snapshot_frame(self, state: GameState, watchers: int) -> bytes:
        seed = await self.revealed_seed(state)
        return frames.snapshot(
            state.id, state.seq, state.public(seed=seed), list(state.moves), watchers
        )

    async def record(self, state: GameState) -> Record:
        """The game's record (docs/record-format.md); the seed only once it has ended."""
        return state.record(await self.revealed_seed(state))

    async def events_after(self, game_id: str, since: int) -> list[bytes]:
        """Event frames numbered after ``since``, in order."""
        return cast(list[bytes], await self.redis.lrange(keys.events(game_id), since, -1))

    # -- creating and joining -------------------------------------------------------------

    async def create(
        self,
        creator: Player,
        ruleset: str,
        move_time: int,
        opponent: str,
        bot_level: int = 1,
        joiner: Player | None = None,
        rated: bool | None = None,
        invitee: str = "",
        match: str = "",
        match_no: int = 0,
        attacker_id: str = "",
        game_id: str = "",
        origin: str = "",
        address: str = "",
        source: str = "",
        seat_by_seed: bool = False,
        tournament: str = "",
        bots: tuple[str, ...] = (),
        creator_side: str = "",
    ) -> tuple[GameState, str]:
        """Create a game; return its state and the invite token (empty against the bot).

        A bot game keeps where it came from, for the bot's fair turns (bot_turns.py): the
        creator's client ``address`` (digested: client_source), or the ``source`` of the
        ended game it is a rematch of.

        With ``joiner`` (a rematch) the game starts at once between the two. With
        ``game_id`` (a match's later games) creating is idempotent: a game of that id
        that exists already is returned as it is. ``origin`` (state.ORIGINS) defaults to
        the bot, a private challenge or an invitation, by ``opponent`` and ``invitee``.
        ``rated`` defaults to True for a game between people; a bot game is never rated
        (the rater also rates only games between two accounts: rater.py).

        With ``seat_by_seed`` (a tournament's pairing, which gives the sides, and a fixed
        ``game_id``) the creator is whichever of the two the seed seats on their side, so
        the record's sides still follow from its seed (fairplay.verify). ``tournament``
        names the tournament the game is of (its state shows it).

        ``bots``: the players that are bot accounts (a challenge's), shown so. With
        ``creator_side`` (a challenge's chosen side, and a fixed ``game_id``) the seed is
        drawn until it seats the creator there: the record's sides still follow from it.
        """
        check_terms(ruleset, move_time)
        if opponent not in ("bot", "friend"):
            raise Refusal("bad_field", "opponent must be 'bot' or 'friend'")
        if opponent == "bot":
            check_bot_level(bot_level)
        if opponent == "bot" and rated:
            raise Refusal("bad_field", "rated: games against the bot are never rated")
        is_rated = opponent == "friend" and rated is not False
        if not origin:
            origin = "bot" if opponent == "bot" else "challenge" if invitee else "invite"
        assert origin in ORIGINS, origin
        bot_source = (source or client_source(address)) if opponent == "bot" else ""
        if opponent == "bot":
            await self._check_bot_games(creator.id, bot_source)
        if creator_side:
            assert game_id and creator_side in ("attackers", "defenders"), creator_side
            seed = seed_seating(game_id, creator_side == "attackers")
        else:
            seed = fairplay.new_seed()
        if seat_by_seed:
            assert game_id and joiner is not None and attacker_id in (creator.id, joiner.id)
            attacker, defender = (
                (creator, joiner) if creator.id == attacker_id else (joiner, creator)
            )
            attacks = fairplay.creator_attacks(seed, game_id)
            creator, joiner = (attacker, defender) if attacks else (defender, attacker)
        start = Game(ruleset).snapshot()
        snap = pack_snapshot(start)
        invite = secrets.token_urlsafe(12) if opponent == "friend" else ""
        fixed_id = game_id
        for _ in range(_RETRIES):
            game_id = fixed_id or new_game_id()
            state = GameState(
                id=game_id,
                ruleset=ruleset,
                status="waiting",
                seq=0,
                ply=0,
                created=0,
                move_time=move_time,
                opponent=opponent,
                bot_level=bot_level if opponent == "bot" else 0,
                creator=creator,
                joiner=None,
                attacker="",
                defender="",
                turn="",
                snap=snap,
                moves=(),
                commitment=fairplay.commitment(seed),
                invite=invite,
                result=None,
                rated=is_rated,
                invitee=invitee,
                match=match,
                match_no=match_no,
                origin=origin,
                tournament=tournament,
                source=bot_source,
                bots=bots,
            )
            created = await self.scripts.create(
                keys=[keys.game(game_id), keys.seed(game_id), keys.repetitions(game_id)],
                args=[
                    seed,
                    str(start.recent[-1]),
                    "seq",
                    "0",
                    *(x for kv in state.fields().items() for x in kv),
                ],
            )
            if created:
                state = state.evolve(created=int(created))
                break
            if fixed_id:
                return await self.load(fixed_id), ""
        else:  # pragma: no cover - 72 random bits do not collide 16 times
            raise RuntimeError("could not find a free game id")
        if opponent == "bot":
            joiner = Player(BOT_ID, f"Bot (level {bot_level})")
            pipe = self.redis.pipeline(transaction=False)
            # (No source, no address to count by: a test client, a unix socket.)
            for owner in [creator.id, f"@{bot_source}"] if bot_source else [creator.id]:
                mine = keys.bot_games(owner)
                pipe.zadd(mine, {game_id: state.created})
                pipe.expire(mine, BOT_GAMES_TTL_S)
            await pipe.execute()
        if joiner is not None:
            state = await self._start(state, joiner, seed, attacker_id)
        else:
            pipe = self.redis.pipeline(transaction=False)
            pipe.expire(keys.game(state.id), WAITING_TTL_S)
            pipe.expire(keys.seed(state.id), WAITING_TTL_S)
            pipe.expire(keys.repetitions(state.id), WAITING_TTL_S)
            await pipe.execute()
        return state, invite

    async def _check_bot_games(self, player_id: str, source: str) -> None:
        """Refuse a new bot game to a player who has ``bot_games`` unfinished ones, or to a
        client address (``source``) with ``bot_games_per_address``: one player's, or one
        address's many sessions', games would otherwise fill every hub's bot worker."""
        if self.bot_games and await self._unfinished(player_id, self.bot_games) >= self.bot_games:
            raise Refusal(
                "too_many_bot_games",
                f"you have {self.bot_games} unfinished games against the bot: "
                "finish or resign one first",
            )
        cap = self.bot_games_per_address
        if cap and source and await self._unfinished(f"@{source}", cap) >= cap:
            raise Refusal(
                "too_many_bot_games",
                f"{cap} games against the bot are unfinished from your address (your "
                "network's, shared by everyone on it): finish or resign one first, or "
                "try again when one has ended",
            )

    async def _unfinished(self, owner: str, cap: int) -> int:
        """How many of the bot games kept under ``owner`` (a player, or "@" and a client
        source) are unfinished, read once there are ``cap``; the finished are dropped."""
        mine = keys.bot_games(owner)
        ids = [raw.decode() for raw in cast(list[bytes], await self.redis.zrange(mine, 0, -1))]
        if len(ids) < cap:
            return len(ids)
        pipe = self.redis.pipeline(transaction=False)
        for game_id in ids:
            pipe.hget(keys.game(game_id), "status")
        statuses = await pipe.execute()
        done = [g for g, st in zip(ids, statuses, strict=True) if st not in (b"active", b"waiting")]
        if done:
            await self.redis.zrem(mine, *done)
        return len(ids) - len(done)

    async def rematch(self, player_id: str, game_id: str) -> tuple[str, str | None]:
        """Offer a rematch after the end, or accept the opponent's: ("offered", None) or
        ("agreed", the new game's id). The bot accepts at once."""
        for _ in range(3):
            state = await self.load(game_id)
            if state.status == "ended" and not await self.redis.exists(keys.game(game_id)):
                raise Refusal("rematch_closed")
            side = state.side_of(player_id)
            if side is None:
                raise Refusal("not_a_player")
            if state.status != "ended":
                raise Refusal("game_not_over")
            if state.rematch:
                return "agreed", state.rematch
            new_id = ""
            if state.opponent == "bot" or state.rematch_offer == opponent(side):
                joiner = state.joiner if state.creator.id != BOT_ID else None
                assert joiner is not None
                new, _ = await self.create(
                    state.creator,
                    state.ruleset,
                    state.move_time,
                    state.opponent,
                    max(state.bot_level, 1),
                    joiner=None if state.opponent == "bot" else joiner,
                    rated=state.rated,
                    origin="bot" if state.opponent == "bot" else "rematch",
                    source=state.source,
                )
                new_id = new.id
            reply = await self.scripts.rematch(
                keys=[keys.game(game_id), keys.game_hubs(game_id)],
                args=[
                    side,
                    new_id,
                    keys.game_channel_stem(game_id),
                    game_id,
                    "1" if state.opponent == "bot" else "0",
                ],
            )
            tag = reply[0].decode()
            if tag == "agreed":
                return "agreed", new_id
            if tag == "exists":
                if new_id:  # a second click lost the race: that game is not wanted
                    await self._discard(new_id)
                return "agreed", reply[1].decode()
            if tag == "offered":
                return "offered", None
            if tag == "err":
                raise rematch_refusal(reply[1].decode())
        raise Refusal("busy", "the rematch is changing too fast; try again")

    async def decline_rematch(self, player_id: str, game_id: str, msg_id: str) -> str | None:
        """Decline the opponent's rematch offer; None, or the rematch's id if one was
        agreed first (then there is nothing to decline). Sent again with the same
        ``msg_id``, the same answer; with another, no offer is open any more."""
        state = await self.load(game_id)
        side = state.side_of(player_id)
        if side is None:
            raise Refusal("not_a_player")
        reply = await self.scripts.rematch_decline(
            keys=[keys.game(game_id), keys.game_hubs(game_id), keys.acks(game_id)],
            args=[side, keys.game_channel_stem(game_id), game_id, f"{player_id}:{msg_id}"],
        )
        tag = reply[0].decode()
        if tag == "exists":
            return cast(bytes, reply[1]).decode()
        if tag == "err":
            raise rematch_refusal(reply[1].decode())
        return None

    async def withdraw(self, player_id: str, game_id: str) -> GameState:
        """The creator withdraws an invitation nobody has accepted (changes.withdraw);
        asked again once withdrawn, it changes nothing."""
        state = await self.load(game_id)
        if state.withdrawn() and state.creator.id == player_id:
            return state
        # Ended, it lasts until archived (rater.py): the seed too, as the join does.
        await self.redis.persist(keys.seed(game_id))
        await self.committer.act(
            player_id, game_id, "", "", lambda s: changes.withdraw(s, player_id), first=state
        )
        return await self.load(game_id)

    async def decline(self, player_id: str, game_id: str, reason: str) -> GameState:
        """The invitee declines a private challenge (changes.decline); asked again once
        declined, it changes nothing."""
        state = await self.load(game_id)
        if state.declined and state.invitee == player_id:
            return state
        await self.redis.persist(keys.seed(game_id))  # as withdraw: it lasts until archived
        await self.committer.act(
            player_id, game_id, "", "", lambda s: changes.decline(s, player_id, reason), first=state
        )
        return await self.load(game_id)

    async def _discard(self, game_id: str) -> None:
        """End an unwanted, just-created game with no result."""
        await self.redis.persist(keys.seed(game_id))  # as withdraw: it lasts until archived
        await self.committer.act("server", game_id, "", "", changes.discard)

    async def check_invite(self, game_id: str, invite: str, player_id: str) -> GameState:
        """The game an invite token opens to ``player_id``, waiting for a friend; refused
        (withdrawn, started, a wrong token, a challenge for someone else) otherwise."""
        return opened_by(await self.load(game_id), invite, player_id)

    async def join(self, player: Player, game_id: str, invite: str) -> GameState:
        """Join a friend's game with its invite token; the game starts at once."""
        state = await self.load(game_id)
        if state.is_player(player.id):
            return state  # opening one's own invite link again changes nothing
        opened_by(state, invite, player.id)
        try:
            return await self._start(state, player, await self.seed(game_id))
        except Refusal:
            if (await self.load(game_id)).withdrawn():  # withdrawn while this join ran
                raise withdrawn(state) from None
            raise

    async def _start(
        self, state: GameState, joiner: Player, seed: bytes, attacker_id: str = ""
    ) -> GameState:
        """Seat the second player, sides by the seed (docs/fair-play.md) unless given (the
        later games of a match), and start."""
        creator = state.creator
        if attacker_id:
            attacks = attacker_id == creator.id
        else:
            attacks = fairplay.creator_attacks(seed, state.id)
        if attacks:
            attacker, defender = creator, joiner
        else:
            attacker, defender = joiner, creator

        allowance = self.allowance_ms(state)

        def build(current: GameState) -> Change:
            return changes.start(current, joiner, attacker, defender, allowance)

        # The seed lasts from now (commit.lua does the same for the hash when it starts the
        # game); should the join fail, it keeps a few bytes too long, never too short.
        await self.redis.persist(keys.seed(state.id))
        await self.committer.act(joiner.id, state.id, "", "", build, first=state)
        return await self.load(state.id)

    # -- changes ---------------------------------------------------------------------------

    async def move(
        self,
        player_id: str,
        game_id: str,
        ply: int,
        text: str,
        msg_id: str,
        received: int | None = None,
        takebacks: int | None = None,
        check: TokenCheck | None = None,
    ) -> Committed:
        """Validate and commit a move; a resend of an applied message id is acknowledged again.

        ``received``: when the move reached this hub (RedisClock.stamp), by which its
        deadline is judged. ``takebacks``: a move thought out by the service (the bot's, a
        conditional reply) at a state with that many takebacks, refused after another one.
        ``check``: a Bot API move's token request, checked and counted by the commit's call.
        """
        allowance = self.allowance_ms

        def build(state: GameState) -> Change:
            if takebacks is not None and state.takebacks != takebacks:
                raise changes.stale_ply(ply, state.ply, msg_id)  # thought for a lost position
            return changes.move(state, player_id, ply, text, msg_id, allowance(state))

        fp = changes.fingerprint("move", f"{ply}:{text}")
        return await self.committer.act(
            player_id, game_id, msg_id, fp, build, cached=True, received=received, check=check
        )

    async def resign(self, player_id: str, game_id: str, msg_id: str) -> Committed:
        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            "resign",
            lambda state: changes.resign(state, player_id, msg_id),
        )

    async def abort(self, player_id: str, game_id: str, msg_id: str) -> Committed:
        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            "abort",
            lambda state: changes.abort(state, player_id, msg_id),
        )

    async def offer_draw(self, player_id: str, game_id: str, msg_id: str) -> Committed:
        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            "offer_draw",
            lambda state: changes.offer_draw(state, player_id, msg_id),
        )

    async def answer_draw(
        self, player_id: str, game_id: str, accept: bool, msg_id: str
    ) -> Committed:
        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            changes.fingerprint("answer_draw", "yes" if accept else "no"),
            lambda state: changes.answer_draw(state, player_id, accept, msg_id),
        )

    async def takeback(self, player_id: str, game_id: str, ply: int, msg_id: str) -> Committed:
        """Take back the player's last move against the bot, and its reply if it came."""
        allowance = self.allowance_ms
        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            changes.fingerprint("takeback", str(ply)),
            lambda state: changes.takeback(state, player_id, ply, msg_id, allowance(state)),
        )

    async def offer_takeback(self, player_id: str, game_id: str, msg_id: str) -> Committed:
        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            "takeback_offer",
            lambda state: changes.offer_takeback(state, player_id, msg_id),
        )

    async def answer_takeback(
        self, player_id: str, game_id: str, accept: bool, msg_id: str
    ) -> Committed:
        allowance = self.allowance_ms

        def build(state: GameState) -> Change:
            return changes.answer_takeback(state, player_id, accept, msg_id, allowance(state))

        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            changes.fingerprint("takeback_answer", "yes" if accept else "no"),
            build,
        )

    async def claim(self, player_id: str, game_id: str, draw: bool, msg_id: str) -> Committed:
        """End a live game whose opponent left: a win for the claimant, or a draw."""
        beat, outages = await asyncio.gather(
            self.redis.get(keys.alive()), self.redis.lrange(keys.outages(), 0, -1)
        )
        ends = [int(item.split(b":")[1]) for item in cast(list[bytes], outages)]
        absence = changes.Absence(
            "", self.claim_grace_ms, max(ends, default=0), int(beat or 0), self.outage_after_ms
        )
        return await self.committer.act(
            player_id,
            game_id,
            msg_id,
            changes.fingerprint("claim", "draw" if draw else "win"),
            lambda state: changes.claim(state, player_id, draw, msg_id, absence),
        )

    async def expire(
        self, game_id: str, outages: list[tuple[int, int]], safe: int | None = None
    ) -> str:
        """The scheduler's work on one due deadline: extend it for outages, or end the game.
        ``safe``: the time up to which deadlines may be judged (clock.Marks.safe).

        Returns what happened: "extended", "timeout", "aborted", "not_due" or "gone".
        """
        try:
            await self.committer.act(
                "scheduler", game_id, "", "", lambda s: changes.expiry(s, outages), safe=safe
            )
        except Refusal as exc:
            if exc.code == "deadline_not_passed":
                return "not_due"  # a move came first; it re-indexed the deadline
            if exc.code in ("game_not_active", "not_found"):
                await self.redis.zrem(keys.deadlines(keys.bucket(game_id)), game_id)
                return "gone"
            raise
        state = self.cache.get(game_id) or await self.load(game_id)
        return state.result.reason if state.result is not None else "extended"

    async def expire_many(
        self, game_ids: list[str], outages: list[tuple[int, int]], safe: int | None = None
    ) -> int:
        """Fire many due deadlines with two pipelined round trips: read every game, then
        run every commit. Those that raced with another change go one by one through
        ``expire``. Returns how many games were ended or extended."""
        results = await self.committer.act_many(
            "scheduler", game_ids, lambda s: changes.expiry(s, outages), safe
        )
        done = 0
        for game_id, committed in zip(game_ids, results, strict=True):
            if committed is not None:
                done += 1
            else:  # gone, not due after all, or raced: the single path decides
                done += await self.expire(game_id, outages, safe) not in ("not_due", "gone")
        return done


def seed_seating(game_id: str, creator_attacks: bool) -> bytes:
    """A fresh seed whose sides formula (fairplay.creator_attacks) seats the creator of
    ``game_id`` as asked: drawn again until it does (two draws on average), so the seed
    stays random and its commitment binds as any other's."""
    while True:
        seed = fairplay.new_seed()
        if fairplay.creator_attacks(seed, game_id) == creator_attacks:
            return seed


def opened_by(state: GameState, invite: str, player_id: str) -> GameState:
    """``state`` if ``invite`` opens it to ``player_id`` now; refused otherwise."""
    if state.withdrawn():
        raise withdrawn(state)
    if state.status != "waiting" or state.opponent != "friend":
        raise Refusal("game_not_waiting")
    if not invite or not secrets.compare_digest(invite, state.invite):
        raise Refusal("bad_invite")
    if state.invitee and state.invitee != player_id:
        raise Refusal("not_invited")
    return state


def withdrawn(state: GameState) -> Refusal:
    """The answer to anyone opening an invitation its creator withdrew."""
    return Refusal(
        "invitation_withdrawn",
        f"this invitation was withdrawn by {state.creator.name}: ask them for a new one",
    )


def client_source(address: str) -> str:
    """What a bot game keeps of the client address that created it: a digest of the
    address, or of its /64 for IPv6 (one subscriber's usual share); "" for none."""
    if not address:
        return ""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return ""  # not an address (a unix socket, a test client): no grouping
    net = ipaddress.ip_network(f"{ip}/64", strict=False) if ip.version == 6 else ip
    return hashlib.sha256(f"brandubh-live/source/v1:{net}".encode()).hexdigest()[:16]


def rematch_refusal(code: str) -> Refusal:
    """What a refused rematch request or answer says (lua/rematch*.lua's codes: the game
    loaded a moment ago has left Redis meanwhile (not_found): it is archived)."""
    return Refusal("rematch_closed" if code == "not_found" else code)
