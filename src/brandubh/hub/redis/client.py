"""The Redis client: one server or a Redis Cluster, and the few calls that differ between them.

With ``BRANDUBH_REDIS_CLUSTER=1`` the hub uses redis-py's asyncio cluster client, seeded
from any node named by ``REDIS_URL``. Every service is typed against ``redis.asyncio.Redis``
and uses only commands a ``RedisCluster`` answers the same way (the cluster tests run the
service on one); what differs lives here: script calls over many buckets (the cluster
pipeline takes no scripts: each node gets its own pipeline), plain clients of one node
(the fan-out's sharded subscriptions, the marks connection) and waiting for replicas after
a commit (WAIT must follow the write on its own connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Sequence
from typing import Any, Final, TypeAlias, cast

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from brandubh.hub.config import Settings
from brandubh.hub.redis import outage

log = logging.getLogger(__name__)

# A master lost in a cluster is replaced within a few node timeouts: the client retries
# (re-reading which node holds which slot) about 2 s, then the caller hears of it: a
# client resends (safe), a loop tries again next turn.
FAILOVER_RETRIES: Final = 6
CLUSTER_CONNECTIONS: Final = 1024  # per node and process; past it a command fails at once
NODE_CONNECTIONS: Final = 256  # per node and process, for commits that WAIT
# A node whose machine vanished answers nothing, not even a refusal: give up on a connect
# after this long (and on a command after the longer), so the layout is read again.
CONNECT_TIMEOUT_S: Final = 2.0
COMMAND_TIMEOUT_S: Final = 10.0

# What a node answers while the cluster's layout changes (a failover, a resharding).
MOVED_OR_DOWN: Final = (
    MovedError,
    AskError,
    TryAgainError,
    ClusterDownError,
    RedisClusterException,
    RedisConnectionError,
    RedisTimeoutError,
    OSError,
)

# What redis-py raises for a connection torn down under a command (outage.TORN): on the
# commit path, taken for the lost connection it is.
TORN: Final = outage.TORN

# What a script or command is given: redis-py and the lane both encode these (the lane
# nothing else).
Arg: TypeAlias = bytes | str | int
# A reply as Redis gives it: bytes, an int, None, a list of replies (a script's table) or,
# in RESP3, a map. Its shape is the command's or the script's contract, which its caller
# reads it by, so it is typed as loosely as redis-py types it.
Reply: TypeAlias = Any
# One script call: the script, its keys and its arguments.
Call = tuple[AsyncScript, Sequence[str], Sequence[Arg]]


def connect(settings: Settings) -> Redis:
    """The client for the settings: a blocking pool on one Redis, or the cluster client."""
    if settings.redis_cluster:
        cluster = RedisCluster.from_url(
            settings.redis_url,
            max_connections=CLUSTER_CONNECTIONS,
            retry=AsyncRetry(ExponentialBackoff(cap=0.5, base=0.05), FAILOVER_RETRIES),
            socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=COMMAND_TIMEOUT_S,
        )
        # The services are typed against Redis: a RedisCluster answers the same commands.
        return cast(Redis, cluster)
    pool = BlockingConnectionPool.from_url(
        settings.redis_url, max_connections=settings.redis_pool_size, timeout=10
    )
    return Redis(connection_pool=pool)


def cluster_of(redis: Redis) -> RedisCluster | None:
    """The cluster client behind ``redis``, or None on a single Redis."""
    client: object = redis
    return client if isinstance(client, RedisCluster) else None


async def close(redis: Redis) -> None:
    """Close the client and every node client made for it."""
    cluster = cluster_of(redis)
    if cluster is None:
        await redis.aclose()
        await redis.connection_pool.aclose()
        return
    for client in _NODES.pop(cluster, {}).values():
        await client.aclose()
        await client.connection_pool.aclose()
    await cluster.aclose()


async def run_scripts(redis: Redis, calls: Sequence[Call]) -> list[Reply]:
    """Run many script calls, each in its own slot, in one pipelined round trip per node:
    one on a single Redis; on a cluster, one to each master at once. On a cluster, the
    calls to a node that cannot answer now (it is lost, or no longer holds their slots)
    get None, and the cluster's layout is read again: the callers (claims of due work,
    timeouts) try those again on their next turn."""
    if not calls:
        return []
    cluster = cluster_of(redis)
    if cluster is None:
        return await _pipelined(redis, calls)
    groups: dict[str, list[int]] = {}
    out: list[Reply] = [None] * len(calls)
    for i, (_, keys_, _) in enumerate(calls):
        with contextlib.suppress(*MOVED_OR_DOWN):  # a slot no node covers now: None
            groups.setdefault(node_of(cluster, keys_[0]), []).append(i)
    replies = await asyncio.gather(
        *(
            _pipelined(node_client(cluster, name), [calls[i] for i in idx])
            for name, idx in groups.items()
        ),
        return_exceptions=True,
    )
    failed = sum(len(idx) for idx in groups.values()) < len(calls)
    for idx, got in zip(groups.values(), replies, strict=True):
        if isinstance(got, MOVED_OR_DOWN):
            failed = True
            continue
        if isinstance(got, BaseException):
            raise got
        for i, reply in zip(idx, got, strict=True):
            out[i] = reply
    if failed:
        await reread_layout(cluster)
    return out


async def claim_buckets(
    redis: Redis, claim: AsyncScript, sets: Sequence[str], args: Sequence[Arg]
) -> list[list[bytes]]:
    """lua/claim.lua over many buckets' sets: on one Redis one call takes them all; on a
    cluster, where a script touches one slot, one call a set, pipelined per node (a set
    whose node cannot answer now is left out: claimed next turn). One reply per call."""
    if cluster_of(redis) is None:
        return [cast(list[bytes], await script(claim, sets, args))]
    replies = await run_scripts(redis, [(claim, [key], args) for key in sets])
    return [reply for reply in replies if reply is not None]


async def _pipelined(redis: Redis, calls: Sequence[Call]) -> list[Reply]:
    # The pipeline loads any script the server lacks before it runs (redis-py's Pipeline).
    async with redis.pipeline(transaction=False) as pipe:
        for script, keys_, args in calls:
            await script(keys=keys_, args=args, client=pipe)
        replies: list[Reply] = await pipe.execute()
    return replies


LAYOUT_EVERY_S: Final = 0.5
_layout_read: weakref.WeakKeyDictionary[RedisCluster, float] = weakref.WeakKeyDictionary()


async def reread_layout(cluster: RedisCluster) -> None:
    """Read which node holds which slot again, at most every half second per client."""
    loop = asyncio.get_running_loop()
    if loop.time() - _layout_read.get(cluster, 0.0) < LAYOUT_EVERY_S:
        return
    _layout_read[cluster] = loop.time()
    with contextlib.suppress(*MOVED_OR_DOWN):
        await cluster.nodes_manager.initialize()


def node_of(cluster: RedisCluster, key: str) -> str:
    """The name (host:port) of the master that holds ``key``'s slot, as last read."""
    node = cluster.get_node_from_key(key)
    if node is None:
        raise RedisClusterException(f"no node of the cluster holds the slot of {key}")
    return str(node.name)


def _auth(cluster: RedisCluster) -> tuple[str | None, str | None]:
    kwargs = cluster.connection_kwargs
    return kwargs.get("username"), kwargs.get("password")


def plain_client(cluster: RedisCluster, name: str, single_connection_client: bool = False) -> Redis:
    """A new plain client of one node (by its name, host:port), with the cluster's
    credentials; not retried by default, so that a lost node is given up at once."""
    host, _, port = name.rpartition(":")
    user, password = _auth(cluster)
    return Redis(
        host=host,
        port=int(port),
        username=user,
        password=password,
        retry=AsyncRetry(NoBackoff(), 0),
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        single_connection_client=single_connection_client,
    )


_NODES: weakref.WeakKeyDictionary[RedisCluster, dict[str, Redis]] = weakref.WeakKeyDictionary()


def node_client(cluster: RedisCluster, name: str) -> Redis:
    """A pooled plain client of one node, kept for reuse: for what must run on one
    connection to one node (a pipeline of scripts, a write and its WAIT)."""
    clients = _NODES.setdefault(cluster, {})
    client = clients.get(name)
    if client is None:
        host, _, port = name.rpartition(":")
        user, password = _auth(cluster)
        pool = BlockingConnectionPool(
            host=host,
            port=int(port),
            username=user,
            password=password,
            max_connections=NODE_CONNECTIONS,
            timeout=10,
            socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=COMMAND_TIMEOUT_S,
        )
        client = clients[name] = Redis(connection_pool=pool)
    return client


async def script(script: AsyncScript, keys_: Sequence[str], args: Sequence[Arg]) -> Reply:
    """A script call by the registered client; a torn connection is a ConnectionError."""
    try:
        return await script(keys=keys_, args=args)
    except TORN as exc:
        raise RedisConnectionError(f"the connection to Redis was lost ({exc})") from exc


class ReplicaWait:
    """Run a script and then ``WAIT replicas timeout`` on the same connection, so that the
    write has reached that many replicas (or the timeout passed) before it is acknowledged."""

    def __init__(self, redis: Redis, replicas: int, timeout_ms: int) -> None:
        self.redis = redis
        self.replicas = replicas
        self.timeout_ms = timeout_ms
        self.short = 0  # commits acknowledged with fewer replicas than asked for

    async def call(self, script: AsyncScript, keys_: Sequence[str], args: Sequence[Arg]) -> Reply:
        cluster = cluster_of(self.redis)
        if cluster is None:
            return await self._on(self.redis, script, keys_, args)
        failure: BaseException = RedisConnectionError("no node of the cluster took the commit")
        for attempt in range(FAILOVER_RETRIES):
            try:
                client = node_client(cluster, node_of(cluster, keys_[0]))
                # commit.lua is safe to run again: a resend is answered from its acks.
                return await self._on(client, script, keys_, args)
            except (*MOVED_OR_DOWN, *TORN) as exc:
                failure = exc
            log.info("a commit failed (%s); reading the cluster's layout again", failure)
            await asyncio.sleep(min(0.5, 0.05 * 2**attempt))
            with contextlib.suppress(*MOVED_OR_DOWN):
                await cluster.nodes_manager.initialize()
        if isinstance(failure, TORN):
            raise RedisConnectionError(f"the connection to Redis was lost ({failure})")
        raise failure

    async def _on(
        self, client: Redis, script: AsyncScript, keys_: Sequence[str], args: Sequence[Arg]
    ) -> Reply:
        for _ in range(2):
            try:
                async with client.pipeline(transaction=False) as pipe:
                    pipe.evalsha(script.sha, len(keys_), *keys_, *args)
                    pipe.execute_command("WAIT", self.replicas, self.timeout_ms)
                    reply, acked = await pipe.execute()
            except NoScriptError:
                script.sha = await client.script_load(script.script)
                continue
            if int(acked) < self.replicas:
                self.short += 1
            return reply
        raise NoScriptError("the commit script could not be loaded")
