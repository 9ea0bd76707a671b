"""The Bot API's games (docs/protocol.md §2.9, docs/api.md): a program playing an
account's games over HTTP with a ``bot:play`` token. A bot's move is a move like any
other: stamped, committed once through ``GameService``, fanned out, judged by the same
deadlines; its stream follows the game as a websocket does (``wire.Subscription``)."""

from brandubh.hub.botapi.lines import KEEPALIVE_S, Line, line_of, move_id
from brandubh.hub.botapi.service import BotGames
from brandubh.hub.botapi.stream import GameStream

__all__ = ["KEEPALIVE_S", "BotGames", "GameStream", "Line", "line_of", "move_id"]
