"""The lobby: open seeks, quick pairing by rating, and the list of games to watch.
It starts games through ``live`` and imports nothing of the sockets: the connection
hands it a player and pushes what it returns."""

from brandubh.hub.lobby.lobby import Lobby

__all__ = [
    "Lobby",
]
