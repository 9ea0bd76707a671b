"""Live games: create, join, and every change through the one commit path.

Each change reads the game (or starts from this process's last known state of it),
validates it with the engine, then runs ``commit.lua``, which re-checks that nothing
changed in between and writes the state, the numbered event, the ack, the deadline and
bot indexes and the publication at once. A concurrent change makes the script answer
``retry``; the change is then validated again against the new state.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Final, cast

import msgpack
from redis.asyncio import Redis

from brandubh import fairplay
from brandubh.engine import RULESETS, Game, IllegalMove, Record, Result, Side
from brandubh.hub import keys, mygames
from brandubh.hub.protocol import ProtocolError, encode
from brandubh.hub.scripts import Scripts
from brandubh.hub.state import BOT_ID, GameState, Hash, Player, pack_snapshot

MIN_MOVE_TIME: Final = 60
MAX_MOVE_TIME: Final = 7 * 24 * 3600
BOT_LEVELS: Final = range(1, 6)
DRAW_OFFER_GAP: Final = 10  # plies after a declined offer before that player may offer again
_RETRIES: Final = 16
CACHE_GAMES: Final = 10_000
# An ended game waits this long in its bucket's finished-games queue before a sweep may
# archive it; the hubs' live path (rater.py, fed by the final event) normally does first.
ARCHIVE_GRACE_MS: Final = 5_000
# Stands in the event frame for a deadline only commit.lua knows (it reads Redis's TIME);
# any value of 2**32 or more is packed by msgpack as 0xcf and 8 bytes.
DEADLINE_PLACEHOLDER: Final = 0xFEED_FACE_CAFE_BEEF
_PLACEHOLDER_BYTES: Final = b"\xcf" + DEADLINE_PLACEHOLDER.to_bytes(8, "big")

# The fields each kind of change writes (the others stay as they are).
START_FIELDS: Final = ("status", "p2", "p2name", "attacker", "defender", "turn")
MOVE_FIELDS: Final = (
    "ply",
    "snap",
    "moves",
    "turn",
    "status",
    "winner",
    "reason",
    "draw_offer",
    "draw_block_a",
    "draw_block_d",
)
END_FIELDS: Final = ("turn", "status", "winner", "reason", "draw_offer")
DRAW_FIELDS: Final = ("draw_offer", "draw_block_a", "draw_block_d")


@dataclass(frozen=True)
class Committed:
    """A change that is in Redis: its event number, and whether it was a resend."""

    n: int
    duplicate: bool = False


@dataclass(frozen=True)
class Change:
    """A validated change to a game, with what commit.lua must check and update."""

    new: GameState
    event: dict[str, Any]
    write: tuple[str, ...]
    status: str = "active"  # the status the game must still have
    ply: int | None = None  # the ply it must still be at
    require_turn: bool = False  # the actor must be the player on turn
    deadline_check: str = ""  # "before": not yet passed; "after": passed (a timeout)
    deadline_change: str = ""  # "set" (now + allowance), "at" (deadline_ms), "del"
    deadline_ms: int = 0
    bot_job: str = ""  # "add", "del"
    game: Game | None = None  # the engine's game at ``new``, when at hand


Build = Callable[[GameState], Change]


def new_game_id() -> str:
    return secrets.token_urlsafe(9)  # 12 characters


def other(side: str) -> Side:
    """The other side."""
    return "defenders" if side == "attackers" else "attackers"


class GameService:
    """The hub's only writer of live games."""

    def __init__(self, redis: Redis, scripts: Scripts, time_scale: float = 1.0) -> None:
        self.redis = redis
        self.scripts = scripts
        self.time_scale = time_scale  # tests shorten deadlines with it; 1.0 in production
        # Last known state of recently used games; only ever a first guess (see _act).
        self._cache: OrderedDict[str, GameState] = OrderedDict()

    def allowance_ms(self, state: GameState) -> int:
        """How long the side to move has for one move, in ms."""
        return max(1, int(state.move_time * 1000 * self.time_scale))

    # -- reading --------------------------------------------------------------------------

    async def load(self, game_id: str) -> GameState:
        raw = cast(Hash, await self.redis.hgetall(keys.game(game_id)))
        if not raw:
            raise ProtocolError("not_found", f"there is no game {game_id}")
        return self._remember(GameState.from_hash(game_id, raw))

    async def seed(self, game_id: str) -> bytes:
        """The game's secret seed: for the server's own use (sides, the bot, the reveal)."""
        return cast(bytes, await self.redis.get(keys.seed(game_id)) or b"")

    async def revealed_seed(self, state: GameState) -> str | None:
        """The seed, hex, once the game has ended; None before."""
        if state.status != "ended":
            return None
        return (await self.seed(state.id)).hex() or None

    async def snapshot_frame(self, state: GameState, watchers: int) -> bytes:
        seed = await self.revealed_seed(state)
        return encode(
            {
                "t": "snapshot",
                "game": state.id,
                "n": state.seq,
                "state": state.public(seed=seed),
                "moves": list(state.moves),
                "watchers": watchers,
            }
        )

    async def record(self, state: GameState) -> Record:
        """The game's record (docs/record-format.md); the seed only once it has ended."""
        started = datetime.fromtimestamp(state.created / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        creator = state.side_of(state.creator.id)
        attacker, defender = state.player(state.attacker), state.player(state.defender)
        return Record(
            ruleset=state.ruleset,
            moves=state.moves,
            result=state.result,
            game_id=state.id,
            attackers=attacker.name if attacker else None,
            defenders=defender.name if defender else None,
            start=started,
            commitment=state.commitment,
            seed=await self.revealed_seed(state),
            extra=(
                *((("Creator", creator),) if creator else ()),
                *((("Match", f"{state.match} game {state.match_no}"),) if state.match else ()),
            ),
        )

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
    ) -> tuple[GameState, str]:
        """Create a game; return its state and the invite token (empty against the bot).

        With ``joiner`` (a rematch) the game starts at once between the two. ``rated``
        defaults to True for a game between people; a bot game is never rated (the
        rater also rates only games between two accounts: rater.py).
        """
        check_terms(ruleset, move_time)
        if opponent not in ("bot", "friend"):
            raise ProtocolError("bad_field", "opponent must be 'bot' or 'friend'")
        if opponent == "bot" and bot_level not in BOT_LEVELS:
            raise ProtocolError("bad_field", "bot_level must be 1 to 5")
        if opponent == "bot" and rated:
            raise ProtocolError("bad_field", "rated: games against the bot are never rated")
        is_rated = opponent == "friend" and rated is not False
        seed = fairplay.new_seed()
        snap = pack_snapshot(Game(ruleset).snapshot())
        invite = secrets.token_urlsafe(12) if opponent == "friend" else ""
        for _ in range(_RETRIES):
            game_id = new_game_id()
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
            )
            created = await self.scripts.create(
                keys=[keys.game(game_id), keys.seed(game_id)],
                args=[seed, "seq", "0", *_flatten(state.fields())],
            )
            if created:
                state = replace(state, created=int(created))
                break
        else:  # pragma: no cover - 72 random bits do not collide 16 times
            raise RuntimeError("could not find a free game id")
        if opponent == "bot":
            joiner = Player(BOT_ID, f"Bot (level {bot_level})")
        if joiner is not None:
            state = await self._start(state, joiner, seed, attacker_id)
        return state, invite

    async def rematch(self, player_id: str, game_id: str) -> tuple[str, str | None]:
        """Offer a rematch after the end, or accept the opponent's: ("offered", None) or
        ("agreed", the new game's id). The bot accepts at once."""
        for _ in range(3):
            state = await self.load(game_id)
            side = state.side_of(player_id)
            if side is None:
                raise ProtocolError("not_a_player", "only the game's players can ask for a rematch")
            if state.status != "ended":
                raise ProtocolError("game_not_over", "a rematch can be asked for after the end")
            if state.rematch:
                return "agreed", state.rematch
            new_id = ""
            if state.opponent == "bot" or state.rematch_offer == other(side):
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
                )
                new_id = new.id
            reply = await self.scripts.rematch(
                keys=[keys.game(game_id)],
                args=[
                    side,
                    new_id,
                    keys.game_channel(game_id),
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
                raise ProtocolError(reply[1].decode(), "the rematch could not be arranged")
        raise ProtocolError("busy", "the rematch is changing too fast; try again")

    async def _discard(self, game_id: str) -> None:
        """End an unwanted, just-created game with no result."""

        def build(state: GameState) -> Change:
            event = {"kind": "abort", "by": None}
            return self._ending(state.next(), Result(None, "aborted"), event)

        await self._act("server", game_id, "", build)

    async def join(self, player: Player, game_id: str, invite: str) -> GameState:
        """Join a friend's game with its invite token; the game starts at once."""
        state = await self.load(game_id)
        if state.is_player(player.id):
            return state  # opening one's own invite link again changes nothing
        if state.status != "waiting" or state.opponent != "friend":
            raise ProtocolError("game_not_waiting", "this game already has both its players")
        if not invite or not secrets.compare_digest(invite, state.invite):
            raise ProtocolError("bad_invite", "this invite link is not valid for this game")
        if state.invitee and state.invitee != player.id:
            raise ProtocolError(
                "not_invited", "this challenge is for another player: only they can accept it"
            )
        return await self._start(state, player, await self.seed(game_id))

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

        def build(current: GameState) -> Change:
            if current.status != "waiting":
                raise ProtocolError("game_not_waiting", "this game already has both its players")
            new = replace(
                current,
                seq=current.seq + 1,
                status="active",
                joiner=joiner,
                attacker=attacker.id,
                defender=defender.id,
                turn=attacker.id,
            )
            return Change(
                new,
                {"kind": "start"},
                START_FIELDS,
                status="waiting",
                deadline_change="set",
                deadline_ms=self.allowance_ms(current),
                bot_job="add" if attacker.id == BOT_ID else "",
            )

        await self._act(joiner.id, state.id, "", build, first=state)
        return await self.load(state.id)

    # -- changes ---------------------------------------------------------------------------

    async def move(
        self, player_id: str, game_id: str, ply: int, text: str, msg_id: str
    ) -> Committed:
        """Validate and commit a move; a resend of an applied message id is acknowledged again."""

        def build(state: GameState) -> Change:
            refusal = _move_refusal(state, player_id, ply, msg_id)
            if refusal is not None:
                raise refusal
            game = state.game()
            try:
                played = game.play(text)
            except IllegalMove as exc:
                raise ProtocolError("illegal_move", str(exc), msg_id) from None
            mover = other(game.side_to_move)
            new = replace(
                state,
                seq=state.seq + 1,
                ply=state.ply + 1,
                snap=pack_snapshot(game.snapshot()),
                moves=(*state.moves, str(played)),
            )
            event: dict[str, Any] = {"kind": "move", "move": str(played), "by": mover}
            if state.draw_offer == other(mover):
                # Playing on declines the opponent's offer.
                new = _declined(new, state.draw_offer)
                event["draw_declined"] = True
            if game.result is not None:
                return self._ending(
                    new,
                    game.result,
                    event,
                    game=game,
                    write=MOVE_FIELDS,
                    ply=state.ply,
                    require_turn=True,
                    deadline_check="before",
                )
            next_player = new.player_of(game.side_to_move)
            return Change(
                replace(new, turn=next_player),
                event,
                MOVE_FIELDS,
                ply=state.ply,
                require_turn=True,
                deadline_check="before",
                deadline_change="set",
                deadline_ms=self.allowance_ms(state),
                bot_job="add" if next_player == BOT_ID else "del",
                game=game,
            )

        return await self._act(player_id, game_id, msg_id, build, cached=True)

    async def resign(self, player_id: str, game_id: str, msg_id: str) -> Committed:
        def build(state: GameState) -> Change:
            side = _playing_side(state, player_id, msg_id)
            event = {"kind": "resign", "by": side}
            return self._ending(state.next(), Result(other(side), "resignation"), event)

        return await self._act(player_id, game_id, msg_id, build)

    async def abort(self, player_id: str, game_id: str, msg_id: str) -> Committed:
        def build(state: GameState) -> Change:
            side = _playing_side(state, player_id, msg_id)
            if state.ply >= 2:
                raise ProtocolError(
                    "cannot_abort",
                    "both sides have moved, so the game can no longer be aborted: "
                    "resign or offer a draw instead",
                    msg_id,
                )
            event = {"kind": "abort", "by": side}
            return self._ending(state.next(), Result(None, "aborted"), event)

        return await self._act(player_id, game_id, msg_id, build)

    async def offer_draw(self, player_id: str, game_id: str, msg_id: str) -> Committed:
        def build(state: GameState) -> Change:
            side = _playing_side(state, player_id, msg_id)
            if state.opponent == "bot":
                raise ProtocolError(
                    "bot_declines",
                    "the bot plays every game out: it does not agree to draws",
                    msg_id,
                )
            if state.draw_offer == side:
                raise ProtocolError("draw_offer_open", "your draw offer is still open", msg_id)
            if state.draw_offer:
                raise ProtocolError(
                    "draw_offer_open",
                    "your opponent has offered a draw: accept or decline it",
                    msg_id,
                )
            allowed = state.draw_block[0 if side == "attackers" else 1]
            if state.ply < allowed:
                raise ProtocolError(
                    "draw_offer_too_soon",
                    f"your last offer was declined: you may offer again from ply {allowed} "
                    f"(the game is at ply {state.ply})",
                    msg_id,
                )
            new = replace(state.next(), draw_offer=side)
            return Change(new, {"kind": "draw_offer", "by": side}, DRAW_FIELDS)

        return await self._act(player_id, game_id, msg_id, build)

    async def answer_draw(
        self, player_id: str, game_id: str, accept: bool, msg_id: str
    ) -> Committed:
        def build(state: GameState) -> Change:
            side = _playing_side(state, player_id, msg_id)
            if state.draw_offer != other(side):
                raise ProtocolError("no_draw_offer", "there is no draw offer to answer", msg_id)
            if accept:
                event = {"kind": "draw_agreed", "by": side}
                return self._ending(state.next(), Result(None, "draw_agreed"), event)
            new = _declined(state.next(), state.draw_offer)
            return Change(new, {"kind": "draw_declined", "by": side}, DRAW_FIELDS)

        return await self._act(player_id, game_id, msg_id, build)

    def _expiry(self, state: GameState, outages: list[tuple[int, int]]) -> Change:
        """What a due deadline does: move it on for outages, or end the game on time."""
        if state.status != "active" or not state.deadline:
            raise ProtocolError("game_not_active", "no deadline runs in this game")
        extended = extend_for_outages(state.deadline, state.deadline_set, outages)
        if extended > state.deadline:
            notice = {"kind": "deadline_extended", "deadline": extended}
            return Change(state.next(), notice, (), deadline_change="at", deadline_ms=extended)
        side = state.side_of(state.turn) or "attackers"
        if state.ply < 2:  # a first move that never came: no result
            result = Result(None, "aborted")
            event: dict[str, Any] = {"kind": "abort", "by": None, "timeout": side}
        else:
            result = Result(other(side), "timeout")
            event = {"kind": "timeout", "side": side}
        return self._ending(state.next(), result, event, deadline_check="after")

    async def expire(self, game_id: str, outages: list[tuple[int, int]]) -> str:
        """The scheduler's work on one due deadline: extend it for outages, or end the game.

        Returns what happened: "extended", "timeout", "aborted", "not_due" or "gone".
        """
        try:
            await self._act("scheduler", game_id, "", lambda s: self._expiry(s, outages))
        except ProtocolError as exc:
            if exc.code == "deadline_not_passed":
                return "not_due"  # a move came first; it re-indexed the deadline
            if exc.code in ("game_not_active", "not_found"):
                await self.redis.zrem(keys.deadlines(keys.bucket(game_id)), game_id)
                return "gone"
            raise
        state = self._cache.get(game_id) or await self.load(game_id)
        return state.result.reason if state.result is not None else "extended"

    async def expire_many(self, game_ids: list[str], outages: list[tuple[int, int]]) -> int:
        """Fire many due deadlines with two pipelined round trips: read every game, then
        run every commit. Any that raced with another change go one by one through
        ``expire``. Returns how many games were ended or extended."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(keys.game(game_id))
            pipe.get(keys.seed(game_id))
        replies = await pipe.execute()
        pending: list[tuple[GameState, Change]] = []
        again: list[str] = []
        pipe = self.redis.pipeline(transaction=False)
        for game_id, raw, seed in zip(game_ids, replies[::2], replies[1::2], strict=True):
            if not raw:
                again.append(game_id)
                continue
            state = GameState.from_hash(game_id, raw)
            try:
                change = self._expiry(state, outages)
            except ProtocolError:
                again.append(game_id)
                continue
            keys_, args = self._commit_call(state, "scheduler", "", change, seed or b"")
            await self.scripts.commit(keys=keys_, args=args, client=pipe)
            pending.append((state, change))
        done = 0
        settled: list[Change] = []
        if pending:
            for (state, change), reply in zip(pending, await pipe.execute(), strict=True):
                try:
                    committed = self._settle(reply, change.new, "")
                except ProtocolError:
                    committed = None  # not due after all, or gone: the single path decides
                if committed is None:
                    again.append(state.id)
                else:
                    settled.append(change)
                    done += 1
            await self._list_live(settled)
        for game_id in again:
            done += await self.expire(game_id, outages) not in ("not_due", "gone")
        return done

    def _ending(
        self,
        new: GameState,
        result: Result,
        event: dict[str, Any],
        *,
        game: Game | None = None,
        write: tuple[str, ...] = END_FIELDS,
        ply: int | None = None,
        require_turn: bool = False,
        deadline_check: str = "",
    ) -> Change:
        """The change that ends a game: result, no deadline, no bot turn, no open offer."""
        new = replace(new, status="ended", turn="", result=result, draw_offer="")
        return Change(
            new,
            {**event, "result": {"winner": result.winner, "reason": result.reason}},
            write,
            ply=ply,
            require_turn=require_turn,
            deadline_check=deadline_check,
            deadline_change="del",
            bot_job="del",
            game=game,
        )

    # -- the commit path -------------------------------------------------------------------

    async def _act(
        self,
        actor: str,
        game_id: str,
        msg_id: str,
        build: Build,
        *,
        cached: bool = False,
        first: GameState | None = None,
    ) -> Committed:
        """Build a change against the game's state and commit it, retrying on a race.

        With ``cached``, the first attempt uses this process's last known state, so the
        usual move costs one round trip; a refusal is only ever given on Redis's word.
        """
        state = first or (self._cache.get(game_id) if cached else None)
        trusted = first is not None
        for _ in range(_RETRIES):
            if state is None:
                pipe = self.redis.pipeline(transaction=False)
                pipe.hgetall(keys.game(game_id))
                pipe.hget(keys.acks(game_id), f"{actor}:{msg_id}")
                raw, prev = await pipe.execute()
                if msg_id and prev is not None:
                    return Committed(int(prev), duplicate=True)
                if not raw:
                    raise ProtocolError("not_found", f"there is no game {game_id}", msg_id or None)
                state = self._remember(GameState.from_hash(game_id, raw))
                trusted = True
            try:
                change = build(state)
            except ProtocolError:
                if trusted:
                    raise
                state = None  # the cached state may be stale: ask Redis before refusing
                continue
            try:
                committed = await self._commit(state, actor, msg_id, change)
            except ProtocolError:
                self._cache.pop(game_id, None)
                raise
            if committed is not None:
                return committed
            state = None  # the game changed meanwhile: read it again
        raise ProtocolError("busy", "the game is changing too fast; try again", msg_id or None)

    async def _commit(
        self, old: GameState, actor: str, msg_id: str, change: Change
    ) -> Committed | None:
        """Run commit.lua; None means the game changed meanwhile and the caller retries."""
        seed = await self.seed(old.id) if change.new.status == "ended" else b""
        keys_, args = self._commit_call(old, actor, msg_id, change, seed)
        reply = await self.scripts.commit(keys=keys_, args=args)
        committed = self._settle(reply, change.new, msg_id)
        if committed is not None and not committed.duplicate:
            await self._list_live([change])
        return committed

    async def _list_live(self, changes: list[Change]) -> None:
        """Keep the watch list (keys.live_games) in step: games that start join it, games
        that end leave it. Only a list to browse: a lapse here changes no game."""
        now = time.time() * 1000
        started = {c.new.id: now for c in changes if c.event.get("kind") == "start"}
        ended = [c.new.id for c in changes if c.new.status == "ended"]
        if started:
            await self.redis.zadd(keys.live_games(), started)
        if ended:
            await self.redis.zrem(keys.live_games(), *ended)
        await mygames.index_changes(self.redis, [(c.new, c.event.get("kind", "")) for c in changes])

    def _commit_call(
        self, old: GameState, actor: str, msg_id: str, change: Change, seed: bytes
    ) -> tuple[list[str], list[str | bytes | int]]:
        """The keys and arguments of commit.lua for a change (see the script's header)."""
        new = change.new
        shown: int | None = None
        if change.deadline_change == "set":
            shown = DEADLINE_PLACEHOLDER
        elif change.deadline_change == "at":
            shown = change.deadline_ms
        elif change.deadline_change == "del":
            shown = 0
        revealed = seed.hex() if new.status == "ended" and seed else None
        frame = encode(
            {
                "t": "event",
                "game": old.id,
                "n": new.seq,
                **change.event,
                "state": new.public(change.game, seed=revealed, deadline=shown),
            }
        )
        fields = new.fields()
        args: list[str | bytes | int] = [
            actor,
            msg_id,
            change.status,
            "" if change.ply is None else str(change.ply),
            str(old.seq),
            "1" if change.require_turn else "0",
            change.deadline_check,
            change.deadline_change,
            change.deadline_ms,
            keys.game_channel(old.id),
            frame,
            _PLACEHOLDER_BYTES if change.deadline_change == "set" else b"",
            change.bot_job,
            old.id,
            # One argument for all fields: far cheaper for the client to send than many.
            # (Redis's Lua msgpack reads no bin type: bytes go as raw strings.)
            msgpack.packb(
                [x for name in change.write for x in (name, fields[name])], use_bin_type=False
            ),
            str(ARCHIVE_GRACE_MS) if new.status == "ended" else "",
        ]
        bucket = keys.bucket(old.id)
        return [
            keys.game(old.id),
            keys.events(old.id),
            keys.acks(old.id),
            keys.bot_jobs(bucket),
            keys.deadlines(bucket),
            keys.finished(bucket),
        ], args

    def _settle(self, reply: list[Any], new: GameState, msg_id: str) -> Committed | None:
        """What commit.lua's reply means: committed, a resend, a race (None) or a refusal."""
        tag = reply[0].decode()
        if tag == "ok":
            self._remember(replace(new, deadline=int(reply[2])))
            return Committed(int(reply[1]))
        if tag == "dup":
            return Committed(int(reply[1]), duplicate=True)
        if tag == "retry":
            return None
        self._cache.pop(new.id, None)
        raise _commit_error(reply[1].decode(), reply[2].decode(), msg_id or None)

    def _remember(self, state: GameState) -> GameState:
        cache = self._cache
        cache[state.id] = state
        cache.move_to_end(state.id)
        if len(cache) > CACHE_GAMES:
            cache.popitem(last=False)
        return state

    def observe(self, event: dict[str, Any]) -> None:
        """Fan-out hook: forget a cached game once an event newer than it was committed."""
        cached = self._cache.get(event["game"])
        if cached is not None and cached.seq < event["n"]:
            del self._cache[event["game"]]


def check_terms(ruleset: str, move_time: int) -> None:
    """Refuse a rule set or time per move the service does not offer, saying which."""
    if ruleset not in RULESETS:
        raise ProtocolError(
            "bad_field", f"unknown rule set {ruleset!r}: one of {', '.join(RULESETS)}"
        )
    if not MIN_MOVE_TIME <= move_time <= MAX_MOVE_TIME or move_time % 60:
        raise ProtocolError(
            "bad_field",
            "move_time must be a whole number of minutes from 1 minute to 7 days, in seconds",
        )


def extend_for_outages(deadline: int, set_at: int, outages: list[tuple[int, int]]) -> int:
    """A deadline moved on by every outage that began before it fell and ended after it was
    set (docs/fair-play.md): the side to move keeps the time it had when the service went
    down. An outage starts at the last heartbeat, so it may seem to start before the
    deadline was set; then the time lost counts from the setting."""
    for start, end in sorted(outages):
        if start < deadline and end > set_at:
            deadline += end - max(start, set_at)
    return deadline


def _declined(state: GameState, offerer: str) -> GameState:
    """The state after an offer is declined: closed, and its maker waits DRAW_OFFER_GAP plies."""
    block = state.ply + DRAW_OFFER_GAP
    a, d = state.draw_block
    return replace(
        state, draw_offer="", draw_block=(block, d) if offerer == "attackers" else (a, block)
    )


def _playing_side(state: GameState, player_id: str, msg_id: str) -> str:
    """The side of a player of a running game; a refusal for anyone or anything else."""
    side = state.side_of(player_id)
    if side is None:
        raise ProtocolError(
            "not_a_player", "you are watching this game: only its players can act", msg_id
        )
    if state.status != "active":
        what = "has not started yet" if state.status == "waiting" else "is over"
        raise ProtocolError("game_not_active", f"the game {what}", msg_id)
    return side


def _move_refusal(state: GameState, player_id: str, ply: int, msg_id: str) -> ProtocolError | None:
    """Why a player may not move now, if so; commit.lua repeats the checks that can race."""
    if not state.is_player(player_id):
        return ProtocolError(
            "not_a_player", "you are watching this game: only its players can move", msg_id
        )
    if state.status != "active":
        what = "has not started yet" if state.status == "waiting" else "is over"
        return ProtocolError("game_not_active", f"the game {what}: no moves now", msg_id)
    if ply != state.ply:
        return ProtocolError(
            "stale_ply",
            f"your move was for ply {ply} but the game is at ply {state.ply}: "
            "the board has been brought up to date",
            msg_id,
        )
    if state.turn != player_id:
        return ProtocolError("not_your_turn", "it is your opponent's move", msg_id)
    return None


def _commit_error(code: str, detail: str, msg_id: str | None) -> ProtocolError:
    if code == "deadline_passed":
        return ProtocolError(
            "deadline_passed", "the time for this move ran out: the game ends on time", msg_id
        )
    if code == "stale_ply":
        return ProtocolError(
            "stale_ply",
            f"the game has moved on to ply {detail}: the board has been updated",
            msg_id,
        )
    if code == "not_your_turn":
        return ProtocolError("not_your_turn", "it is your opponent's move", msg_id)
    if code == "wrong_status":
        return ProtocolError("game_not_active", f"the game is {detail}: no moves now", msg_id)
    return ProtocolError(code, f"the game could not be changed ({code})", msg_id)


def _flatten(
    fields: dict[str, str | bytes], only: tuple[str, ...] | None = None
) -> list[str | bytes]:
    out: list[str | bytes] = []
    for k in only or fields:
        out += [k, fields[k]]
    return out
