"""Keys that must not stay in Redis for ever get their lifetimes (hub/redis/keys.py)."""

from __future__ import annotations

import redis

from brandubh.hub.accounts.sessions import TTL_S, session_id
from brandubh.hub.config import Settings
from brandubh.hub.live.games import WAITING_TTL_S
from brandubh.hub.lobby.lobby import NAMES_TTL_S
from brandubh.hub.redis import keys
from services import HubProcess
from wsclient import Player


async def test_a_guest_session_is_short_until_its_guest_plays(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    guest = await Player(hub.url).start()
    assert guest.cookie == "None"  # looking makes no session
    unused = Settings().guest_unused_ttl_s
    # A first act that fails leaves no cookie, and at most a session that soon goes.
    before = set(redis_sync.scan_iter(keys.session("*")))
    r = await guest.http.post("/api/games", json={"opponent": "bot", "ruleset": "nope"})
    assert r.status_code == 400 and "set-cookie" not in r.headers
    made = set(redis_sync.scan_iter(keys.session("*"))) - before
    assert len(made) <= 1 and all(0 < redis_sync.ttl(k) <= unused for k in made)
    # One that plays makes the session, which lasts as long as an account's.
    await guest.create_game(opponent="bot", ruleset="nielsen")
    key = keys.session(session_id(guest.cookie))
    assert unused < redis_sync.ttl(key) <= TTL_S
    await guest.close()


async def test_a_friend_game_nobody_joins_is_forgotten_a_joined_one_lasts(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    alice, bob = await Player(hub.url).signup(), await Player(hub.url).signup()
    created = await alice.create_game(opponent="friend", ruleset="nielsen")
    game = created["id"]
    for key in (keys.game(game), keys.seed(game)):
        assert WAITING_TTL_S - 60 < redis_sync.ttl(key) <= WAITING_TTL_S
    await bob.join(created["invite"])
    assert redis_sync.ttl(keys.game(game)) == -1  # no expiry while it is played
    assert redis_sync.ttl(keys.seed(game)) == -1
    for p in (alice, bob):
        await p.close()


async def test_the_quick_pairing_names_hash_expires(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    p = await Player(hub.url).signup()
    sock = await p.connect()
    await sock.send({"t": "quick", "ruleset": "walker", "move_time": 300, "id": "q"})
    await sock.recv_until(lambda m: m.get("id") == "q")
    assert redis_sync.hget(keys.names(), p.id) is not None
    assert 0 < redis_sync.ttl(keys.names()) <= NAMES_TTL_S
    await sock.send({"t": "cancel_quick", "id": "c"})
    await sock.recv_until(lambda m: m.get("id") == "c")
    await sock.close()
    await p.close()
