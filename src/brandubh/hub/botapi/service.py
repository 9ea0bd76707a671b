"""The Bot API's game actions (docs/protocol.md §2.9): each through the same services as
a websocket's message (``GameService``'s changes, the chat), with a message id derived
from the token, the game and the action (lines.move_id), so a request sent again is
applied once and answered the same."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Final

from brandubh.hub.botapi.lines import move_id
from brandubh.hub.botapi.stream import DirectWriter, GameStream
from brandubh.hub.errors import Refusal
from brandubh.hub.live import GameState, Player
from brandubh.hub.redis import TokenCheck
from brandubh.hub.wire import connection

# Streams one account may hold open on one hub: each holds a subscription and its queue.
MAX_STREAMS: Final = 64


class BotGames:
    """A bot's games: streams and actions, on the websockets' services."""

    def __init__(self, services: connection.Services) -> None:
        self.services = services
        self._streams: dict[str, int] = {}  # open streams on this hub, by account
        self._open: set[GameStream] = set()
        self._too_slow = 0  # streams closed after their reader fell behind

    @contextlib.contextmanager
    def stamped(self) -> Iterator[int]:
        """A request's receipt on Redis's clock, by which a move's deadline is judged; this
        hub's watermark is held back until it is answered (live/clock.py), as a socket's."""
        received = self.services.stamp()
        with self.services.hold(received):
            yield received

    async def game_of(self, player_id: str, game_id: str) -> GameState:
        """The game, refused (``not_a_player``) unless ``player_id`` plays it."""
        state = await self.services.games.load(game_id)
        if not state.is_player(player_id):
            raise Refusal("not_a_player", f"you do not play game {game_id}")
        return state

    async def stream(
        self, player: Player, game_id: str, since: int | None, direct: DirectWriter | None = None
    ) -> GameStream:
        """Open a stream of one of the player's games, from ``since`` (None: from its state),
        its lines written through ``direct`` while its connection takes them."""
        await self.game_of(player.id, game_id)
        held = self._streams.get(player.id, 0)
        if held >= MAX_STREAMS:
            raise Refusal(
                "too_many_games", f"an account may have {MAX_STREAMS} game streams open at once"
            )
        self._streams[player.id] = held + 1
        stream = GameStream(self.services, player, game_id, direct)
        try:
            await stream.open(since)
        except BaseException:
            await self.close(stream)
            raise
        self._open.add(stream)
        return stream

    async def close(self, stream: GameStream) -> None:
        """A stream's end (its client went, or its game ended): it follows nothing more."""
        if stream.closed:
            return
        self._open.discard(stream)
        self._too_slow += stream.too_slow
        left = self._streams.get(stream.player.id, 1) - 1
        if left:
            self._streams[stream.player.id] = left
        else:
            self._streams.pop(stream.player.id, None)
        await stream.close()

    def stats(self) -> dict[str, int]:
        """For /healthz/stats: open streams, the most lines any of them holds for its
        reader (bounded: stream.py), and how many ended because their reader fell behind."""
        return {
            "bot_streams": len(self._open),
            "bot_stream_queued_most": max((s.queued for s in self._open), default=0),
            "bot_streams_too_slow": self._too_slow + sum(s.too_slow for s in self._open),
        }

    def end_all(self) -> None:
        """The server stops: every open stream ends after what it has queued (its client
        reconnects with ``since``, to another hub)."""
        for stream in self._open:
            stream.end()

    async def move(
        self,
        token_id: str,
        player_id: str,
        game_id: str,
        text: str,
        ply: int | None,
        received: int,
        check: TokenCheck | None = None,
    ) -> int:
        """A move at ``ply`` (None: the game's current ply); another move at a ply its token
        played already is ``stale_ply``. ``check``: the token's request, checked and
        counted by the move's commit (its caller's when the commit is never called)."""
        if ply is None:
            ply = (await self.game_of(player_id, game_id)).ply
        msg_id = move_id(token_id, game_id, str(ply))
        games = self.services.games
        try:
            done = await games.move(player_id, game_id, ply, text, msg_id, received, check=check)
        except Refusal as exc:
            if exc.code == "id_reused":  # the same ply, another move: that ply was played
                raise Refusal("stale_ply", f"ply {ply} has been played already") from None
            raise
        return done.n

    async def resign(self, token_id: str, player_id: str, game_id: str) -> int:
        msg_id = move_id(token_id, game_id, "resign")
        return (await self.services.games.resign(player_id, game_id, msg_id)).n

    async def abort(self, token_id: str, player_id: str, game_id: str) -> int:
        msg_id = move_id(token_id, game_id, "abort")
        return (await self.services.games.abort(player_id, game_id, msg_id)).n

    async def draw(self, token_id: str, player_id: str, game_id: str, yes: bool) -> int:
        """Yes: accept the opponent's offer, or offer one; no: decline the opponent's."""
        games = self.services.games
        state = await self.game_of(player_id, game_id)
        side = state.side_of(player_id)
        # Over (perhaps by this very answer, sent again): answered, so that a resend finds
        # its ack (the ply an acceptance ends the game at is the ply it was sent at).
        offered = state.status == "ended" or (bool(state.draw_offer) and state.draw_offer != side)
        what = f"draw-{'yes' if yes else 'no'}-{'answer' if offered else 'offer'}:{state.ply}"
        msg_id = move_id(token_id, game_id, what)
        if yes and not offered:
            return (await games.offer_draw(player_id, game_id, msg_id)).n
        return (await games.answer_draw(player_id, game_id, yes, msg_id)).n

    async def chat(self, player: Player, game_id: str, text: str) -> int:
        """A line in the game's player chat (a confirmed account's); its number there."""
        await self.services.require_verified(player.id)
        state = await self.game_of(player.id, game_id)
        return await self.services.chat.say(state, player, "players", text)
