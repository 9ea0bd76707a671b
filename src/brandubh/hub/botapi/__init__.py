"""The Bot API's games (docs/protocol.md §2.9, docs/api.md): a program playing an
account's games with a ``bot:play`` token, over HTTP or over the bot socket. A bot's move
is a move like any other: stamped, committed once through ``GameService``, fanned out,
judged by the same deadlines; its stream follows the game as a websocket does
(``wire.Subscription``)."""

from brandubh.hub.botapi.bot_socket import PATH as BOT_SOCKET_PATH
from brandubh.hub.botapi.bot_socket import serve as serve_bot_socket
from brandubh.hub.botapi.lines import KEEPALIVE_S, Line, line_of, move_id
from brandubh.hub.botapi.service import BotGames
from brandubh.hub.botapi.stream import GameStream

__all__ = [
    "BOT_SOCKET_PATH",
    "KEEPALIVE_S",
    "BotGames",
    "GameStream",
    "Line",
    "line_of",
    "move_id",
    "serve_bot_socket",
]
