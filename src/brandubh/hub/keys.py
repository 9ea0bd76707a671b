"""Every Redis key and channel name the service uses, in one place.

A game's keys share one hash tag, ``{p<bucket>}``, with ``bucket = crc32(game_id) % BUCKETS``,
so that a game, its event list, its acks and its bucket's job indexes live in one slot and
one Lua script may touch them all, on a single Redis or in a Redis Cluster (docs/architecture.md).
"""

from __future__ import annotations

import zlib
from typing import Final

# 64, not 16: over a cluster's masters the buckets (and so the games) spread only as evenly
# as their slots fall. On three masters with the default slot split, 16 buckets fall 4/5/7
# (the busiest master holds 44% of the games), 64 fall 20/20/24 (38%; docs/scaling.md).
# Changing this moves every live game's keys: change it only on an empty Redis.
BUCKETS: Final = 64
PREFIX: Final = "bd"  # so the service can share a Redis with others


def bucket(game_id: str) -> int:
    """The bucket of a game: a stable function of its id."""
    return zlib.crc32(game_id.encode()) % BUCKETS


def tag(n: int) -> str:
    return f"{{p{n}}}"


def game(game_id: str) -> str:
    """Hash: the game's public and private fields (see store.py)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:g:{game_id}"


def events(game_id: str) -> str:
    """List: event n (1-based) at index n-1, each the msgpack frame sent to clients."""
    return f"{PREFIX}:{tag(bucket(game_id))}:ev:{game_id}"


def acks(game_id: str) -> str:
    """Hash: ``<player>:<client message id>`` -> the event number it produced."""
    return f"{PREFIX}:{tag(bucket(game_id))}:ack:{game_id}"


def seed(game_id: str) -> str:
    """String: the game's secret seed; read by nothing that reaches a client before the end."""
    return f"{PREFIX}:{tag(bucket(game_id))}:seed:{game_id}"


def watchers(game_id: str) -> str:
    """Sorted set: spectator connection id -> expiry (ms, Redis clock)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:w:{game_id}"


def bot_jobs(n: int) -> str:
    """Sorted set per bucket: game id -> when a bot worker may claim its turn (ms)."""
    return f"{PREFIX}:{tag(n)}:bot"


def deadlines(n: int) -> str:
    """Sorted set per bucket: game id -> its move deadline (ms, Redis clock)."""
    return f"{PREFIX}:{tag(n)}:dl"


# The schedulers' heartbeat and outage list share the tag {sched}: one script writes both.


def alive() -> str:
    """String: when a scheduler last ran (ms, Redis clock); see lua/heartbeat.lua."""
    return f"{PREFIX}:{{sched}}:alive"


def outages() -> str:
    """List: outages of the whole service as "start:end" (ms, Redis clock)."""
    return f"{PREFIX}:{{sched}}:outages"


def channel(n: int) -> str:
    """Pub/sub channel per bucket: every event and notice of that bucket's games."""
    return f"{PREFIX}:{tag(n)}:chan"


def game_channel(game_id: str) -> str:
    return channel(bucket(game_id))


def session(session_id: str) -> str:
    """Hash: a browser session (player id, display name, kind, account), by its id: the
    SHA-256 of the cookie's token, so that Redis never holds a usable token."""
    return f"{PREFIX}:s:{session_id}"


# -- the lobby ----------------------------------------------------------------------------
# Every lobby key shares the hash tag {lobby}, so each pairing is one script in one slot:
# nobody can be paired twice, on one Redis or in a cluster.

LOBBY: Final = f"{PREFIX}:{{lobby}}"


def seeks() -> str:
    """Sorted set: open seek id -> creation time (ms)."""
    return f"{LOBBY}:seeks"


# A pairing must take both players' seeks in one script, and a script may touch only the
# keys it declares: so the seeks of everyone live in these few keys, not a key per seek.


def seek_data() -> str:
    """Hash: seek id -> its fields (a msgpack map)."""
    return f"{LOBBY}:seekdata"


def seek_expiry() -> str:
    """Sorted set: live seek id -> when it expires unless its owner's socket refreshes it
    (ms, Redis clock); correspondence seeks are not here and stay until taken."""
    return f"{LOBBY}:seekexp"


def owned() -> str:
    """Hash: player id -> the ids of the seeks they have open, space-separated."""
    return f"{LOBBY}:owned"


def pool(ruleset: str, move_time: int) -> str:
    """Sorted set: players waiting for quick pairing in one rule set and time -> rating."""
    return f"{LOBBY}:pool:{ruleset}:{move_time}"


def pools() -> str:
    """Hash: player id -> "ruleset|move_time|rating|joined ms|connection": who waits where."""
    return f"{LOBBY}:pools"


def names() -> str:
    """Hash: player id -> display name, for players waiting in quick pairing."""
    return f"{LOBBY}:names"


def lobby_channel() -> str:
    """Pub/sub channel: seeks appearing and vanishing, and pairings."""
    return f"{LOBBY}:chan"


def live_games() -> str:
    """Sorted set: games in progress -> when last changed (ms), for the watch list."""
    return f"{LOBBY}:live"


def finished(n: int) -> str:
    """Sorted set per bucket: ended games not yet archived (and rated) -> when they may be
    claimed (ms); commit.lua adds a game when it ends, the rater removes it (rater.py)."""
    return f"{PREFIX}:{tag(n)}:fin"


def hub_channel() -> str:
    """Pub/sub channel every hub listens on for notices that are not about one game:
    sessions that ended (their sockets are closed with 4004)."""
    return f"{PREFIX}:hubs"


# -- accounts, ratings and the archive ---------------------------------------------------
# Every key here shares the hash tag {acct}: the script that rates a game must update both
# players' ratings, histories, game lists and the leaderboard, and mark the game rated, in
# one step, and the two players' keys would otherwise be in any two slots. In a Redis
# Cluster this data therefore lives on one node (docs/accounts.md): one write per finished
# game and one per sign-up, small next to the games' own traffic, which spreads over the
# {p<bucket>} tags. Sessions are not here: they are read on every request, each its own key.

ACCT: Final = f"{PREFIX}:{{acct}}"


def emails() -> str:
    """Hash: normalised email -> account id."""
    return f"{ACCT}:emails"


def account(account_id: str) -> str:
    """Hash: an account (email, name, argon2 hash, created, leaderboard opt-in)."""
    return f"{ACCT}:a:{account_id}"


def account_sessions(account_id: str) -> str:
    """Set: the session ids (see ``session``) logged in to an account."""
    return f"{ACCT}:as:{account_id}"


def rating(player_id: str, ruleset: str) -> str:
    """Hash: a player's Glicko-2 rating in one rule set (r, rd, vol, n games, last ms)."""
    return f"{ACCT}:r:{player_id}:{ruleset}"


def rating_history(player_id: str, ruleset: str) -> str:
    """List: "ended ms|rating|rd|game id" after each rated game, oldest first."""
    return f"{ACCT}:h:{player_id}:{ruleset}"


def player_games(player_id: str) -> str:
    """Sorted set: a player's finished games -> when they ended (ms). A guest's expires
    with their session unless they sign up (the account adopts the guest's id)."""
    return f"{ACCT}:pg:{player_id}"


def archived() -> str:
    """Hash: game id -> its summary (JSON) once archived; the rate-once guard."""
    return f"{ACCT}:done"


def leaderboard(ruleset: str) -> str:
    """Sorted set: opted-in players with a non-provisional rating -> rating."""
    return f"{ACCT}:lb:{ruleset}"


def login_limits() -> str:
    """Key prefix of the login rate limits (sorted sets of attempts, one slot: {login})."""
    return f"{PREFIX}:{{login}}"


def match(match_id: str) -> str:
    """Hash: a two-game match (hub/matches.py)."""
    return f"{PREFIX}:{tag(zlib.crc32(match_id.encode()) % BUCKETS)}:match:{match_id}"
