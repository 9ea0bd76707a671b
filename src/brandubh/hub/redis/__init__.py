"""Redis as the hub uses it: every key and channel name with its lifetime (``keys``),
the Lua scripts of ``lua/`` registered once (``Scripts``), a token request's check
(``TokenCheck``: on its own or inside a Bot API move's commit), the client of one server or a
Redis Cluster (``client``), the pipelined commit lane (``Lane``), and one log line per
outage (``outage``). It knows keys and connections, not games: it imports no other hub
package but the settings."""

from brandubh.hub.redis import client, keys, outage
from brandubh.hub.redis.api_request import TokenAnswer, TokenCheck
from brandubh.hub.redis.client import ReplicaWait
from brandubh.hub.redis.lane import Lane, Orphan
from brandubh.hub.redis.outage import UNREACHABLE
from brandubh.hub.redis.scripts import Scripts, lua_source

__all__ = [
    "UNREACHABLE",
    "Lane",
    "Orphan",
    "ReplicaWait",
    "Scripts",
    "TokenAnswer",
    "TokenCheck",
    "client",
    "keys",
    "lua_source",
    "outage",
]
