"""The websockets: one connection per socket with its limits, queue and heartbeat, each
message parsed once and handed to its handler, the registry of this process's sockets,
fan-out of commits to every hub that follows a game (pub/sub), spectator counts,
presence and turn notices, uvicorn's guarded protocols, and the cross-site checks. It
drives the games (``live``), the lobby and the sessions; nothing below it imports it."""

from brandubh.hub.wire import connection
from brandubh.hub.wire.budgets import SharedBudgets
from brandubh.hub.wire.fanout import RENEW_S, Fanout
from brandubh.hub.wire.heartbeat import Heartbeat
from brandubh.hub.wire.origin import unsafe_request_allowed
from brandubh.hub.wire.presence import Presence, TurnNotices
from brandubh.hub.wire.sockets import SessionGuard, Sockets
from brandubh.hub.wire.subscription import Follower, Subscription
from brandubh.hub.wire.transport import (
    GuardedHttp,
    GuardedWebSocket,
    chunk_writer,
    on_server_stop,
)
from brandubh.hub.wire.watchers import Watchers

__all__ = [
    "RENEW_S",
    "Fanout",
    "Follower",
    "GuardedHttp",
    "GuardedWebSocket",
    "Heartbeat",
    "Presence",
    "SessionGuard",
    "SharedBudgets",
    "Sockets",
    "Subscription",
    "TurnNotices",
    "Watchers",
    "chunk_writer",
    "connection",
    "on_server_stop",
    "unsafe_request_allowed",
]
