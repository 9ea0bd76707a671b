"""Game chat: who may say what in which room, the lines a socket may see (muted accounts'
only to themselves), reports, the player chat's archive at the game's end; each line
through ``lua/chat.lua`` (limits, the room's own numbering, publication beside the
events)."""

from brandubh.hub.chat.service import ChatService

__all__ = ["ChatService"]
