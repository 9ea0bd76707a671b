"""Live games: create, join, and every change through the one commit path.

Each change reads the game, validates it with the engine, then runs ``commit.lua``, which
re-checks that nothing changed in between and writes the state, the numbered event, the
ack and the publication at once. A concurrent change makes the script answer ``retry``;
the change is then validated again against the new state.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Final, cast

from redis.asyncio import Redis

from brandubh import fairplay
from brandubh.engine import RULESETS, Game, IllegalMove, Move
from brandubh.hub import keys
from brandubh.hub.protocol import ProtocolError, encode
from brandubh.hub.scripts import Scripts
from brandubh.hub.state import BOT_ID, GameState, Hash, Player, pack_snapshot

MIN_MOVE_TIME: Final = 60
MAX_MOVE_TIME: Final = 7 * 24 * 3600
BOT_LEVELS: Final = range(1, 6)
_RETRIES: Final = 16
CACHE_GAMES: Final = 10_000
# The fields each kind of change writes (the others stay as they are).
START_FIELDS: Final = ("status", "p2", "p2name", "attacker", "defender", "turn")
MOVE_FIELDS: Final = ("ply", "snap", "moves", "turn", "status", "winner", "reason")


@dataclass(frozen=True)
class Committed:
    """A change that is in Redis: its event number, and whether it was a resend."""

    n: int
    duplicate: bool = False


def new_game_id() -> str:
    return secrets.token_urlsafe(9)  # 12 characters


class GameService:
    """The hub's only writer of live games."""

    def __init__(self, redis: Redis, scripts: Scripts) -> None:
        self.redis = redis
        self.scripts = scripts
        # Last known state of recently used games; only ever a first guess (see move).
        self._cache: OrderedDict[str, GameState] = OrderedDict()

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

    async def events_after(self, game_id: str, since: int) -> list[bytes]:
        """Event frames numbered after ``since``, in order."""
        return cast(list[bytes], await self.redis.lrange(keys.events(game_id), since, -1))

    # -- creating and joining -------------------------------------------------------------

    async def create(
        self, creator: Player, ruleset: str, move_time: int, opponent: str, bot_level: int = 1
    ) -> tuple[GameState, str]:
        """Create a game; return its state and the invite token (empty against the bot)."""
        if ruleset not in RULESETS:
            raise ProtocolError(
                "bad_field", f"unknown rule set {ruleset!r}: one of {', '.join(RULESETS)}"
            )
        if not MIN_MOVE_TIME <= move_time <= MAX_MOVE_TIME or move_time % 60:
            raise ProtocolError(
                "bad_field",
                "move_time must be a whole number of minutes from 1 minute to 7 days, in seconds",
            )
        if opponent not in ("bot", "friend"):
            raise ProtocolError("bad_field", "opponent must be 'bot' or 'friend'")
        if opponent == "bot" and bot_level not in BOT_LEVELS:
            raise ProtocolError("bad_field", "bot_level must be 1 to 5")
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
            bot = Player(BOT_ID, f"Bot (level {bot_level})")
            state = await self._start(state, bot, seed)
        return state, invite

    async def join(self, player: Player, game_id: str, invite: str) -> GameState:
        """Join a friend's game with its invite token; the game starts at once."""
        state = await self.load(game_id)
        if state.is_player(player.id):
            return state  # opening one's own invite link again changes nothing
        if state.status != "waiting" or state.opponent != "friend":
            raise ProtocolError("game_not_waiting", "this game already has both its players")
        if not invite or not secrets.compare_digest(invite, state.invite):
            raise ProtocolError("bad_invite", "this invite link is not valid for this game")
        return await self._start(state, player, await self.seed(game_id))

    async def _start(self, state: GameState, joiner: Player, seed: bytes) -> GameState:
        """Seat the second player, sides by the seed (docs/fair-play.md), and start."""
        creator = state.creator
        if fairplay.creator_attacks(seed, state.id):
            attacker, defender = creator, joiner
        else:
            attacker, defender = joiner, creator
        for _ in range(_RETRIES):
            new = replace(
                state,
                seq=state.seq + 1,
                status="active",
                joiner=joiner,
                attacker=attacker.id,
                defender=defender.id,
                turn=attacker.id,
            )
            done = await self._commit(
                state,
                new,
                {"kind": "start"},
                actor=joiner.id,
                msg_id="",
                status="waiting",
                ply=None,
                require_turn=False,
                bot_job="add" if attacker.id == BOT_ID else "",
                write=START_FIELDS,
            )
            if done is not None:
                return new
            state = await self.load(state.id)
            if state.status != "waiting":
                raise ProtocolError("game_not_waiting", "this game already has both its players")
        raise ProtocolError("busy", "the game is changing too fast; try again")

    # -- moves ----------------------------------------------------------------------------

    async def move(
        self, player_id: str, game_id: str, ply: int, text: str, msg_id: str
    ) -> Committed:
        """Validate and commit a move; a resend of an applied message id is acknowledged again.

        The first attempt validates against this process's last known state of the game, so
        the usual move costs one round trip to Redis; commit.lua catches a stale one.
        """
        state = self._cache.get(game_id)
        for _ in range(_RETRIES):
            if state is None or _move_refusal(state, player_id, ply, msg_id) is not None:
                # Ask Redis for the truth before refusing anything (or for a resend's ack).
                pipe = self.redis.pipeline(transaction=False)
                pipe.hgetall(keys.game(game_id))
                pipe.hget(keys.acks(game_id), f"{player_id}:{msg_id}")
                raw, prev = await pipe.execute()
                if prev is not None:
                    return Committed(int(prev), duplicate=True)
                if not raw:
                    raise ProtocolError("not_found", f"there is no game {game_id}", msg_id)
                state = self._remember(GameState.from_hash(game_id, raw))
                refusal = _move_refusal(state, player_id, ply, msg_id)
                if refusal is not None:
                    raise refusal
            game = state.game()
            try:
                played = game.play(text)
            except IllegalMove as exc:
                raise ProtocolError("illegal_move", str(exc), msg_id) from None
            try:
                committed = await self._commit_move(state, game, played, player_id, msg_id)
            except ProtocolError:
                self._cache.pop(game_id, None)
                raise
            if committed is not None:
                return committed
            state = None  # the game changed meanwhile: read it again
        raise ProtocolError("busy", "the game is changing too fast; send the move again", msg_id)

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

    async def _commit_move(
        self, state: GameState, game: Game, played: Move, actor: str, msg_id: str
    ) -> Committed | None:
        result = game.result
        mover = "defenders" if game.side_to_move == "attackers" else "attackers"
        next_player = state.attacker if game.side_to_move == "attackers" else state.defender
        new = replace(
            state,
            seq=state.seq + 1,
            ply=state.ply + 1,
            snap=pack_snapshot(game.snapshot()),
            moves=(*state.moves, str(played)),
            turn=next_player if result is None else "",
            status="active" if result is None else "ended",
            result=result,
        )
        seed = (await self.seed(state.id)).hex() if result is not None else None
        return await self._commit(
            state,
            new,
            {"kind": "move", "move": str(played), "by": mover},
            game=game,
            actor=actor,
            msg_id=msg_id,
            status="active",
            ply=state.ply,
            require_turn=True,
            write=MOVE_FIELDS,
            bot_job="add" if result is None and next_player == BOT_ID else "del",
            seed=seed,
        )

    async def _commit(
        self,
        old: GameState,
        new: GameState,
        event: dict[str, Any],
        *,
        actor: str,
        msg_id: str,
        status: str,
        ply: int | None,
        require_turn: bool,
        bot_job: str,
        game: Game | None = None,
        write: tuple[str, ...],
        seed: str | None = None,
    ) -> Committed | None:
        """Run commit.lua; None means the game changed meanwhile and the caller retries."""
        frame = encode(
            {
                "t": "event",
                "game": old.id,
                "n": new.seq,
                **event,
                "state": new.public(game, seed=seed),
            }
        )
        reply = await self.scripts.commit(
            keys=[
                keys.game(old.id),
                keys.events(old.id),
                keys.acks(old.id),
                keys.bot_jobs(keys.bucket(old.id)),
            ],
            args=[
                actor,
                msg_id,
                status,
                "" if ply is None else str(ply),
                str(old.seq),
                "1" if require_turn else "0",
                keys.game_channel(old.id),
                frame,
                bot_job,
                old.id,
                *_flatten(new.fields(), write),
            ],
        )
        tag = reply[0].decode()
        if tag == "ok":
            self._remember(new)
            return Committed(int(reply[1]))
        if tag == "dup":
            return Committed(int(reply[1]), duplicate=True)
        if tag == "retry":
            return None
        raise _commit_error(reply[1].decode(), reply[2].decode(), msg_id or None)


def _move_refusal(
    state: GameState, player_id: str, ply: int, msg_id: str
) -> ProtocolError | None:
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
