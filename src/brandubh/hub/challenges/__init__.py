"""Challenges and the account event stream (docs/protocol.md §2.10): a challenge is a
waiting friend game with an invitee, made, listed, accepted, declined with a reason or
cancelled through the games' service; account notices (a challenge made or gone, a game
started or finished) reach the account's event streams and the site's sockets on every
hub through the hubs' channel. Who may challenge whom, the terms and every line's shape
are decided in ``records`` (pure)."""

from brandubh.hub.challenges.notices import AccountNotices
from brandubh.hub.challenges.records import REASONS, Party, check_reason
from brandubh.hub.challenges.service import Challenges
from brandubh.hub.challenges.streams import KEEPALIVE_S, EventStream, EventStreams

__all__ = [
    "KEEPALIVE_S",
    "REASONS",
    "AccountNotices",
    "Challenges",
    "EventStream",
    "EventStreams",
    "Party",
    "check_reason",
]
