"""Hub settings, read once from the environment (every name starts with BRANDUBH_)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {raw!r}") from None


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a number, not {raw!r}") from None


def _flag(name: str) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if raw in ("", "0", "no", "false"):
        return False
    if raw in ("1", "yes", "true"):
        return True
    raise SystemExit(f"{name} must be 1 or 0, not {raw!r}")


@dataclass(frozen=True)
class Settings:
    """Everything a hub process can be told; defaults suit production."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    # REDIS_URL names any node of a Redis Cluster; the hub then uses the cluster client.
    redis_cluster: bool = False
    # Replicas each commit waits for (WAIT) before its ack; 0: none. From the environment:
    # 1 on a cluster, 0 on one Redis, unless BRANDUBH_REDIS_WAIT_REPLICAS says (scaling.md).
    redis_wait_replicas: int = 0
    redis_wait_ms: int = 100  # the longest a commit waits for them; then it acks anyway
    # Origins allowed to open a websocket or send a non-GET request. Empty: the request's
    # own host only (same-origin), which is what a single deployment wants.
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    max_frame_bytes: int = 4096  # larger frames get an error reply
    hard_frame_bytes: int = 65536  # uvicorn closes the socket (1009) beyond this
    credits: int = 100  # messages per credit window (pings and pongs are free)
    credit_window_s: float = 20.0
    strikes: int = 10  # error replies a socket may earn before it is closed (4001)
    strike_refill_s: float = 2.0  # one strike forgiven per this many seconds
    outbound_queue: int = 256  # frames waiting for a slow reader before it is closed (4002)
    ping_interval_s: float = 2.5
    dead_after_s: float = 9.0
    replay_window: int = 20  # a client further behind than this gets a snapshot
    bot_poll_s: float = 1.0
    bot_processes: int = 1  # processes per hub that run the bot's search
    redis_pool_size: int = 64
    time_scale: float = 1.0  # multiplies every move deadline; tests shorten them with it
    scheduler_poll_s: float = 0.05
    outage_after_s: float = 30.0  # no scheduler beat for this long: the service was down
    client_dir: str = ""  # built client (index.html and assets); empty: the package's build
    # Login attempts allowed per sliding window (docs/accounts.md): per account (by email,
    # known or not), per client address, and over the whole service.
    login_window_s: float = 600.0
    login_per_account: int = 10
    login_per_address: int = 200
    login_overall: int = 5000
    hash_concurrency: int = 2  # argon2 hashes computed at once per process (off the loop)
    archive_poll_s: float = 2.0  # how often a hub sweeps finished games not yet archived

    @classmethod
    def from_env(cls) -> Settings:
        origins = os.environ.get("BRANDUBH_ALLOWED_ORIGINS", "")
        cluster = _flag("BRANDUBH_REDIS_CLUSTER")
        return cls(
            redis_url=os.environ.get("REDIS_URL") or cls.redis_url,
            redis_cluster=cluster,
            # On a cluster each ack waits for one replica unless told otherwise (its cost
            # measured negligible, docs/scaling.md); one Redis has no replica to wait for.
            redis_wait_replicas=_int("BRANDUBH_REDIS_WAIT_REPLICAS", 1 if cluster else 0),
            redis_wait_ms=_int("BRANDUBH_REDIS_WAIT_MS", cls.redis_wait_ms),
            allowed_origins=frozenset(o.strip() for o in origins.split(",") if o.strip()),
            max_frame_bytes=_int("BRANDUBH_MAX_FRAME_BYTES", cls.max_frame_bytes),
            credits=_int("BRANDUBH_CREDITS", cls.credits),
            credit_window_s=_float("BRANDUBH_CREDIT_WINDOW_S", cls.credit_window_s),
            strikes=_int("BRANDUBH_STRIKES", cls.strikes),
            outbound_queue=_int("BRANDUBH_OUTBOUND_QUEUE", cls.outbound_queue),
            ping_interval_s=_float("BRANDUBH_PING_INTERVAL_S", cls.ping_interval_s),
            dead_after_s=_float("BRANDUBH_DEAD_AFTER_S", cls.dead_after_s),
            replay_window=_int("BRANDUBH_REPLAY_WINDOW", cls.replay_window),
            bot_poll_s=_float("BRANDUBH_BOT_POLL_S", cls.bot_poll_s),
            bot_processes=_int("BRANDUBH_BOT_PROCESSES", cls.bot_processes),
            redis_pool_size=_int("BRANDUBH_REDIS_POOL", cls.redis_pool_size),
            time_scale=_float("BRANDUBH_TIME_SCALE", cls.time_scale),
            scheduler_poll_s=_float("BRANDUBH_SCHEDULER_POLL_S", cls.scheduler_poll_s),
            outage_after_s=_float("BRANDUBH_OUTAGE_AFTER_S", cls.outage_after_s),
            client_dir=os.environ.get("BRANDUBH_CLIENT_DIR", ""),
            login_window_s=_float("BRANDUBH_LOGIN_WINDOW_S", cls.login_window_s),
            login_per_account=_int("BRANDUBH_LOGIN_PER_ACCOUNT", cls.login_per_account),
            login_per_address=_int("BRANDUBH_LOGIN_PER_ADDRESS", cls.login_per_address),
            login_overall=_int("BRANDUBH_LOGIN_OVERALL", cls.login_overall),
            hash_concurrency=_int("BRANDUBH_HASH_CONCURRENCY", cls.hash_concurrency),
            archive_poll_s=_float("BRANDUBH_ARCHIVE_POLL_S", cls.archive_poll_s),
        )
