"""Game chat: who may say what in which room, the lines a socket may see, reports, and
the player chat's archive (docs/protocol.md, "Chat").

Every game between people has two rooms: ``players`` (its two players) and
``spectators`` (every other socket that follows it). A socket sees one room, the one it
may write in: a player the player room, during play and after; anyone else the spectator
room (so players never see the spectators' talk, as on lichess). Bot games have none.
Writing needs a confirmed account (the handler checks it); reading does not.

A line lives in its room's list in Redis (lua/chat.lua numbers it, applies the limits and
publishes it) and goes with the game's keys after the grace; the player room is archived
with the game in PostgreSQL. A muted account's lines are kept and delivered to itself
only: every other reader skips them (``visible``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Final, cast

import msgpack
from redis.asyncio import Redis

from brandubh.hub.chat.text import clean, shows_something
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.live import GameState, Player
from brandubh.hub.redis import Scripts, keys
from brandubh.store import ChatLine, Store, StoreUnavailable

ROOMS: Final = keys.CHAT_ROOMS
# Lines kept per room in Redis: the player room's whole chat (archived at the end; the
# limits allow about this many in a game), the spectators' latest ones.
KEEP: Final = {"players": 400, "spectators": 100}
RECENT: Final = 50  # lines sent with a snapshot or a catch-up
WINDOW_MS: Final = 10_000  # the rate window
PER_ACCOUNT: Final = 5  # lines one account may say in one game per window
PER_ROOM: Final = 20  # lines a room takes per window, from everyone


def room_for(state: GameState, player_id: str | None) -> str | None:
    """The room a socket of this player (None: no player) sees and writes in; None in a
    game with no chat (against the bot)."""
    if state.opponent == "bot":
        return None
    if player_id is not None and state.is_player(player_id):
        return "players"
    return "spectators"


def visible(
    lines: list[ChatLine], viewer: str | None, hidden: frozenset[str] = frozenset()
) -> list[ChatLine]:
    """The lines a viewer may see, as ``chat`` frames carry them: a muted author's only
    to that author, and never the mark; none by an author the viewer blocks (``hidden``)."""
    shown: list[ChatLine] = []
    for line in lines:
        if line["from"]["id"] in hidden:
            continue
        if line.get("muted"):
            if line["from"]["id"] != viewer:
                continue
            line = {"n": line["n"], "from": line["from"], "text": line["text"], "at": line["at"]}
        shown.append(line)
    return shown


async def _nobody(viewer: str) -> frozenset[str]:
    return frozenset()


class ChatService:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        store: Store,
        hidden: Callable[[str], Awaitable[frozenset[str]]] = _nobody,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.store = store
        self._hidden = hidden  # whose lines a viewer never sees: those they block

    async def hidden(self, viewer: str | None) -> frozenset[str]:
        """The authors whose lines ``viewer`` never sees (the players they block)."""
        return frozenset() if viewer is None else await self._hidden(viewer)

    async def say(self, state: GameState, player: Player, room: str, text: str) -> int:
        """Say a line in a room of a game; its number in the room. Refuses a game with no
        chat, a room the player does not write in, an empty line, and too many lines."""
        _check_room(state, player.id, room)
        if state.status == "waiting":
            raise Refusal("no_chat", "the game has not started: its chat opens with it")
        line = clean(text)
        if not shows_something(line):
            raise Refusal("bad_field", "chat: the line has nothing to show")
        muted = (await self._flags(player.id))[1]
        game_id = state.id
        reply = await self.scripts.chat(
            keys=[
                keys.game(game_id),
                keys.chat(game_id, room),
                keys.chat_numbers(game_id),
                keys.chat_window(game_id, player.id),
                keys.chat_window(game_id, f"room:{room}"),
                keys.game_hubs(game_id),
            ],
            args=[
                keys.game_channel_stem(game_id),
                game_id,
                room,
                player.id,
                player.name,
                line,
                "1" if muted else "0",
                PER_ACCOUNT,
                PER_ROOM,
                WINDOW_MS,
                KEEP[room],
            ],
        )
        outcome = _text(reply[0])
        if outcome == "gone":
            raise Refusal("not_found", f"there is no game {game_id}")
        if outcome == "limit":
            wait_s = max(1, -(-int(reply[2]) // 1000))
            who = "you have" if _text(reply[1]) == "account" else "this room has"
            raise RateLimited(f"{who} said enough for now: wait {wait_s} s", wait_s)
        n, at = int(reply[1]), int(reply[2])
        if room == "players" and state.status == "ended":
            # Said after the end: the archive may have read the room already.
            kept: ChatLine = {
                "n": n,
                "from": {"id": player.id, "name": player.name},
                "text": line,
                "at": at,
            }
            if muted:
                kept["muted"] = True
            await self._archive([kept], game_id)
        return n

    async def lines(self, game_id: str, room: str) -> list[ChatLine]:
        """Every line kept of a room, muted ones included, oldest first."""
        raw = cast(list[bytes], await self.redis.lrange(keys.chat(game_id, room), 0, -1))
        return [cast(ChatLine, msgpack.unpackb(item, raw=False)) for item in raw]

    async def recent(
        self, state: GameState, viewer: str | None
    ) -> tuple[str | None, list[ChatLine]]:
        """The room a socket of ``viewer`` sees in a game and its latest lines it may see."""
        room = room_for(state, viewer)
        if room is None:
            return None, []
        hidden = await self.hidden(viewer)
        return room, visible(await self.lines(state.id, room), viewer, hidden)[-RECENT:]

    async def player_chat(self, state: GameState, viewer: str) -> list[ChatLine]:
        """The player room of a game for one of its players (the replay): from Redis while
        the game is there, else from the archive."""
        _check_room(state, viewer, "players")
        lines = await self.lines(state.id, "players")
        if lines or state.status != "ended":
            return visible(lines, viewer, await self.hidden(viewer))
        return await self.archived(state.id, viewer)

    async def chat_off(self, account_id: str) -> bool:
        return (await self._flags(account_id))[0]

    async def set_chat_off(self, account_id: str, off: bool) -> None:
        try:
            await self.store.set_chat_off(account_id, off)
        except StoreUnavailable:
            raise Refusal("unavailable") from None

    async def archived(self, game_id: str, viewer: str) -> list[ChatLine]:
        """A finished game's player chat as its player ``viewer`` may see it (the replay)."""
        try:
            lines = await self.store.archived_chat(game_id)
        except StoreUnavailable:
            raise Refusal("unavailable") from None
        return visible(lines, viewer, await self.hidden(viewer))

    async def archive(self, game_id: str) -> None:
        """Keep the player room of a finished game (after the game's own archive: rater.py)."""
        await self.store.archive_chat(game_id, await self.lines(game_id, "players"))

    async def report(self, state: GameState, reporter: Player, room: str, n: int) -> bool:
        """Report line ``n`` of a room the reporter sees; False if they had already."""
        _check_room(state, reporter.id, room)
        found = [line for line in await self.lines(state.id, room) if line["n"] == n]
        if not found and room == "players":
            found = [line for line in await self.archived(state.id, reporter.id) if line["n"] == n]
        shown = visible(found, reporter.id)
        if not shown:
            raise Refusal("not_found", f"there is no line {n} in this game's {room} room")
        try:
            return await self.store.report_line(state.id, room, found[0], reporter.id)
        except StoreUnavailable:
            raise Refusal("unavailable") from None

    async def _flags(self, account_id: str) -> tuple[bool, bool]:
        try:
            return await self.store.chat_flags(account_id)
        except StoreUnavailable:
            raise Refusal("unavailable") from None

    async def _archive(self, lines: list[ChatLine], game_id: str) -> None:
        # PostgreSQL down: the game's own archive, retried until it works, keeps the room.
        with contextlib.suppress(StoreUnavailable):
            await self.store.archive_chat(game_id, lines, only_archived=True)


def _check_room(state: GameState, player_id: str, room: str) -> None:
    mine = room_for(state, player_id)
    if mine is None:
        raise Refusal("no_chat")
    if room != mine:
        raise Refusal("chat_room")


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
