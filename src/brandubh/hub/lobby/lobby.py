"""The lobby: open seeks, quick pairing, and the list of games to watch.

Every lobby key lives under one hash tag (keys.LOBBY), so a pairing is one Lua script:
a seek is taken once, and taking it (or being quick-paired) takes all of both players'
live seeks and pool places in the same step, so nobody lands in two games. Each script
declares every key it touches (as a Redis Cluster requires): the seeks are in a few
shared keys, and where a script needs a player's pool it is given the one read before,
and asks for a new read ('retry') if that changed meanwhile. The game
itself is then created by the hub that ran the script, and both players are told on
whichever hub they are connected to (a `paired` notice on the lobby channel).

Seeks with a move time under an hour are *live*: they belong to the socket that opened
them, vanish when it closes, and expire if their hub dies without closing it.
Correspondence seeks stay until taken or cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypedDict, cast

import msgpack
from redis.asyncio import Redis

from brandubh.hub.errors import Refusal
from brandubh.hub.live import GameService, MatchService, Player, check_quick, check_terms, is_live
from brandubh.hub.messages import frames
from brandubh.hub.redis import Scripts, keys

log = logging.getLogger(__name__)

NAMES_TTL_S: Final = 6 * 3600  # the quick-pairing names hash, from its last write
LIVE_SEEK_TTL_MS: Final = 60_000  # refreshed by the owning socket's heartbeat
MAX_SEEKS: Final = 5
WINDOW_BASE: Final = 100  # rating points a quick pairing accepts at once...
WINDOW_PER_S: Final = 25  # ...widening by this much a second of waiting...
WINDOW_WIDEST: Final = 1000  # ...up to this
WATCH_LIST: Final = 50
WATCH_LIST_FRESH_S: Final = 1.0  # a watch list is reused this long (it costs ~200 commands)
_RETRIES: Final = 16  # reads of a player's pool before a script that found it changed

# Looks up a player's rating in a rule set: (rating, provisional).
RatingLookup = Callable[[str, str], Awaitable[tuple[float, bool]]]


# The players one is never paired with: those they block or are blocked by (hub/social/).
Avoided = Callable[[str], Awaitable[frozenset[str]]]


async def default_rating(player_id: str, ruleset: str) -> tuple[float, bool]:
    return 1500.0, True


async def nobody_avoided(player_id: str) -> frozenset[str]:
    return frozenset()


@dataclass(frozen=True)
class Pairing:
    game: str
    players: tuple[str, str]


class SeekOwner(TypedDict):
    id: str
    name: str


class PublicSeek(TypedDict):
    """A seek as the lobby shows it (docs/protocol.md, Seek)."""

    id: str
    player: SeekOwner
    rating: int
    provisional: bool
    ruleset: str
    move_time: int
    rated: bool
    match: bool
    kind: str


class RatedPlayer(TypedDict):
    id: str
    name: str
    rating: int
    provisional: bool


class WatchedGame(TypedDict):
    """A game in progress as the watch list shows it (docs/protocol.md, LiveGame)."""

    id: str
    ruleset: str
    ply: int
    move: int
    players: dict[str, RatedPlayer]
    watchers: int
    opponent: str
    origin: str


class Lobby:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        rating: RatingLookup = default_rating,
        matches: MatchService | None = None,
        clock: Callable[[], int] = lambda: int(time.time() * 1000),
        avoided: Avoided = nobody_avoided,
    ) -> None:
        self.clock = clock  # this process's estimate of Redis's clock, ms
        self.avoided = avoided
        self.matches = matches
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.rating = rating
        self._watch_list: tuple[float, list[WatchedGame]] | None = None
        self._watch_list_task: asyncio.Task[list[WatchedGame]] | None = None

    # -- seeks -------------------------------------------------------------------------

    async def open_seek(
        self,
        player: Player,
        ruleset: str,
        move_time: int,
        rated: bool,
        match: bool,
        conn_id: str,
    ) -> str:
        check_terms(ruleset, move_time)
        seek_id = secrets.token_urlsafe(8)
        rating, provisional = await self.rating(player.id, ruleset)
        live = is_live(move_time)  # a live seek vanishes with its socket
        public = {
            "id": seek_id,
            "player": {"id": player.id, "name": player.name},
            "rating": round(rating),
            "provisional": provisional,
            "ruleset": ruleset,
            "move_time": move_time,
            "rated": rated,
            "match": match,
            "kind": "live" if live else "correspondence",
        }
        fields: dict[str, str] = {
            "id": seek_id,
            "player": player.id,
            "name": player.name,
            "rating": str(round(rating)),
            "provisional": "1" if provisional else "0",
            "ruleset": ruleset,
            "move_time": str(move_time),
            "rated": "1" if rated else "0",
            "match": "1" if match else "0",
            "live": "1" if live else "0",
            "conn": conn_id,
        }
        reply = await self.scripts.seek_add(
            keys=[keys.seeks(), keys.seek_data(), keys.seek_expiry(), keys.owned()],
            args=[
                seek_id,
                player.id,
                LIVE_SEEK_TTL_MS if live else 0,
                MAX_SEEKS,
                keys.lobby_channel(),
                frames.seek_added(public),
                cast(bytes, msgpack.packb(fields)),
            ],
        )
        if reply == b"too_many":
            raise Refusal("too_many_seeks", f"at most {MAX_SEEKS} open seeks at a time")
        return seek_id

    async def cancel_seek(self, player: Player, seek_id: str) -> None:
        await self._take(player, seek_id, "cancel")

    async def accept_seek(self, player: Player, seek_id: str) -> Pairing:
        """Take someone's seek: the game starts at once for both, unless either blocks the
        other (``blocked``: the seek stays open)."""
        open_now = await self._seeks([seek_id])
        seeker = open_now[seek_id]["player"] if seek_id in open_now else None
        if seeker is not None and seeker in await self.avoided(player.id):
            raise Refusal("blocked", "you cannot take this seek")
        seek = await self._take(player, seek_id, "accept")
        owner = Player(seek["player"], seek["name"])
        rated = seek["rated"] == "1"
        if seek["match"] == "1" and self.matches is not None:
            match_id, game_id = await self.matches.start(
                owner, player, seek["ruleset"], int(seek["move_time"]), rated
            )
            return await self._announce(game_id, (owner.id, player.id), match_id)
        return await self._start(
            owner, player, seek["ruleset"], int(seek["move_time"]), "seek", rated
        )

    async def _take(self, player: Player, seek_id: str, how: str) -> dict[str, str]:
        for _ in range(_RETRIES):
            pools: list[tuple[str, str]] = []  # (pool key, terms) of each player waiting
            if how == "accept":
                seek = await self._seeks([seek_id])
                owner = seek[seek_id]["player"] if seek_id in seek else None
                for pid in {player.id, owner} - {None}:
                    pools += await self._pool_of(str(pid))
            reply = await self.scripts.seek_take(
                keys=[
                    keys.seeks(),
                    keys.seek_data(),
                    keys.seek_expiry(),
                    keys.owned(),
                    keys.pools(),
                    *(key for key, _ in pools),
                ],
                args=[seek_id, player.id, how, keys.lobby_channel(), *(t for _, t in pools)],
            )
            items = [x.decode() for x in reply]
            if items[0] == "retry":
                continue  # a player's pool changed since it was read
            if items[0] == "err":
                code = items[1]  # seek_gone, not_yours or own_seek
                raise Refusal(code, _NOT_YOUR_SEEK if code == "not_yours" else "")
            return dict(zip(items[1::2], items[2::2], strict=True))
        raise Refusal("busy")

    async def _pool_of(self, player_id: str) -> list[tuple[str, str]]:
        """The pool a player waits in, as (key, "ruleset|move time"); none if not waiting."""
        where = cast(bytes | None, await self.redis.hget(keys.pools(), player_id))
        if where is None:
            return []
        ruleset, minutes = where.decode().split("|")[:2]
        return [(keys.pool(ruleset, int(minutes)), f"{ruleset}|{minutes}")]

    async def _owned(self, player_id: str) -> list[str]:
        raw = cast(bytes | None, await self.redis.hget(keys.owned(), player_id))
        return raw.decode().split() if raw else []

    async def _seeks(self, ids: list[str]) -> dict[str, dict[str, str]]:
        """The fields of those of these seeks that are open (live ones not expired)."""
        if not ids:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(keys.seek_data(), ids)
        pipe.zmscore(keys.seek_expiry(), ids)
        data, expiry = await pipe.execute()
        now = self.clock()
        out = {}
        for seek_id, raw, expires in zip(ids, data, expiry, strict=True):
            if raw is not None and (expires is None or expires > now):
                out[seek_id] = cast(dict[str, str], msgpack.unpackb(raw, raw=False))
        return out

    async def drop_live_seeks(self, player: Player, conn_id: str) -> None:
        """A socket closed: its live seeks and its place in quick pairing go with it."""
        for seek_id, f in (await self._seeks(await self._owned(player.id))).items():
            if f["live"] == "1" and f["conn"] == conn_id:
                with contextlib.suppress(Refusal):  # taken meanwhile
                    await self._take(player, seek_id, "cancel")
        await self.leave_quick(player, conn_id)

    async def refresh_live_seeks(self, player: Player, conn_id: str) -> None:
        seeks = await self._seeks(await self._owned(player.id))
        mine = [i for i, f in seeks.items() if f["live"] == "1" and f["conn"] == conn_id]
        if mine:
            expires = self.clock() + LIVE_SEEK_TTL_MS
            await self.redis.zadd(keys.seek_expiry(), dict.fromkeys(mine, expires), xx=True)

    async def seek_list(self) -> list[PublicSeek]:
        ids = cast(list[bytes], await self.redis.zrange(keys.seeks(), 0, -1))
        seeks = await self._seeks([raw.decode() for raw in ids])
        return [_public_seek(f) for f in seeks.values()]

    # -- quick pairing -----------------------------------------------------------------

    async def quick(
        self, player: Player, ruleset: str, move_time: int, conn_id: str
    ) -> list[Pairing]:
        """Wait for a close-rated player in a rule set and time; paired at once if one waits."""
        check_quick(ruleset, move_time)
        rating, _ = await self.rating(player.id, ruleset)
        avoided = await self.avoided(player.id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.names(), player.id, player.name)
        pipe.expire(keys.names(), NAMES_TTL_S)  # no names left behind once nobody waits
        if avoided:  # read by lua/quick.lua: padded so " id " finds a whole id
            pipe.hset(keys.avoid(), player.id, f" {' '.join(sorted(avoided))} ")
            pipe.expire(keys.avoid(), NAMES_TTL_S)
        else:
            pipe.hdel(keys.avoid(), player.id)
        await pipe.execute()
        reply = await self._pool(ruleset, move_time, player.id, rating, conn_id)
        return await self._start_pairs(reply, ruleset, move_time)

    async def leave_quick(self, player: Player, conn_id: str = "") -> bool:
        for _ in range(_RETRIES):
            pool = await self._pool_of(player.id)
            if not pool:
                return False
            key, terms = pool[0]
            left = await self.scripts.pool_leave(
                keys=[keys.pools(), key], args=[player.id, conn_id, terms]
            )
            if int(left) >= 0:
                return bool(left)
        raise Refusal("busy")

    async def sweep(self) -> list[Pairing]:
        """Pair whoever now fits in every pool (windows widen while players wait)."""
        waiting = cast(dict[bytes, bytes], await self.redis.hgetall(keys.pools()))
        terms = {tuple(v.decode().split("|")[:2]) for v in waiting.values()}
        out: list[Pairing] = []
        for ruleset, minutes in terms:
            reply = await self._pool(ruleset, int(minutes), "", 0, "")
            out += await self._start_pairs(reply, ruleset, int(minutes))
        return out

    async def _pool(
        self, ruleset: str, move_time: int, player_id: str, rating: float, conn_id: str
    ) -> list[bytes]:
        reply = await self.scripts.quick(
            keys=[
                keys.pool(ruleset, move_time),
                keys.pools(),
                keys.seeks(),
                keys.seek_data(),
                keys.seek_expiry(),
                keys.owned(),
                keys.avoid(),
            ],
            args=[
                player_id,
                round(rating),
                ruleset,
                move_time,
                conn_id,
                WINDOW_BASE,
                WINDOW_PER_S,
                WINDOW_WIDEST,
                keys.lobby_channel(),
            ],
        )
        if reply and reply[0] == b"err":
            raise Refusal("already_waiting")
        return cast(list[bytes], reply)

    async def _start_pairs(self, reply: list[bytes], ruleset: str, move_time: int) -> list[Pairing]:
        out = []
        for a, b in zip(reply[::2], reply[1::2], strict=True):
            first, second = await self._player(a.decode()), await self._player(b.decode())
            out.append(await self._start(first, second, ruleset, move_time, "quick"))
        return out

    async def _player(self, player_id: str) -> Player:
        """A player's display name, from any of their sessions' records."""
        name = cast(bytes | None, await self.redis.hget(keys.names(), player_id))
        return Player(player_id, name.decode() if name else player_id)

    async def _start(
        self,
        creator: Player,
        joiner: Player,
        ruleset: str,
        move_time: int,
        origin: str,
        rated: bool | None = None,
    ) -> Pairing:
        """Start a game between two players of the lobby (``origin``: seek or quick)."""
        state, _ = await self.games.create(
            creator, ruleset, move_time, "friend", joiner=joiner, rated=rated, origin=origin
        )
        return await self._announce(state.id, (creator.id, joiner.id))

    async def _announce(
        self, game_id: str, players: tuple[str, str], match: str | None = None
    ) -> Pairing:
        notice = frames.paired(game_id, list(players), match)
        await self.redis.publish(keys.lobby_channel(), notice)
        return Pairing(game_id, players)

    # -- games to watch ----------------------------------------------------------------

    async def watch_list(self) -> list[WatchedGame]:
        """The most recently started games in progress, with players, ply and spectators:
        built at most once a second per hub, however many sockets ask (one build at a time)."""
        cached = self._watch_list
        if cached is not None and time.monotonic() - cached[0] < WATCH_LIST_FRESH_S:
            return cached[1]
        if self._watch_list_task is None or self._watch_list_task.done():
            self._watch_list_task = asyncio.create_task(self._build_watch_list())
        built = await asyncio.shield(self._watch_list_task)
        self._watch_list = (time.monotonic(), built)
        return built

    async def _anyone_connected(self, game_id: str) -> bool:
        """Whether any player's socket follows the game now (presence entries are scored
        by when they lapse, on Redis's clock)."""
        return int(await self.redis.zcount(keys.presence(game_id), self.clock(), "+inf")) > 0

    async def _build_watch_list(self) -> list[WatchedGame]:
        ids = cast(list[bytes], await self.redis.zrevrange(keys.live_games(), 0, WATCH_LIST - 1))
        out: list[WatchedGame] = []
        for raw in ids:
            game_id = raw.decode()
            try:
                state = await self.games.load(game_id)
            except Refusal:
                await self.redis.zrem(keys.live_games(), game_id)
                continue
            if state.status != "active":
                await self.redis.zrem(keys.live_games(), game_id)
                continue
            if state.opponent == "bot" and not await self._anyone_connected(game_id):
                continue  # a bot game its player has left is no game to watch
            watchers = await self.redis.zcard(keys.watchers(game_id))
            players: dict[str, RatedPlayer] = {}
            for side, pid in (("attackers", state.attacker), ("defenders", state.defender)):
                p = state.player(pid)
                rating, provisional = await self.rating(pid, state.ruleset)
                players[side] = {
                    "id": pid,
                    "name": p.name if p else pid,
                    "rating": round(rating),
                    "provisional": provisional,
                }
            out.append(
                {
                    "id": game_id,
                    "ruleset": state.ruleset,
                    "ply": state.ply,
                    "move": state.ply // 2 + 1,
                    "players": players,
                    "watchers": watchers,
                    "opponent": state.opponent,
                    "origin": state.origin_or_guess(),
                }
            )
        return out


_NOT_YOUR_SEEK: Final = "only the player who opened a seek can cancel it"


def _public_seek(f: dict[str, str]) -> PublicSeek:
    return {
        "id": f["id"],
        "player": {"id": f["player"], "name": f["name"]},
        "rating": int(f["rating"]),
        "provisional": f["provisional"] == "1",
        "ruleset": f["ruleset"],
        "move_time": int(f["move_time"]),
        "rated": f["rated"] == "1",
        "match": f["match"] == "1",
        "kind": "live" if f["live"] == "1" else "correspondence",
    }
