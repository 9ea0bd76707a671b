"""Hub settings, read once from the environment (every name starts with BRANDUBH_)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

# How long an ended game stays in Redis after its archive transaction committed, for
# the clients still connected; reads after that come from PostgreSQL (docs/storage.md).
LIVE_GRACE_S: Final = 600.0


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


def _count(name: str, default: int) -> int:
    value = _int(name, default)
    if value < 0:
        raise SystemExit(f"{name} must be 0 or more, not {value}")
    return value


def _flag(name: str) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if raw in ("", "0", "no", "false"):
        return False
    if raw in ("1", "yes", "true"):
        return True
    raise SystemExit(f"{name} must be 1 or 0, not {raw!r}")


def _smtp_url(name: str) -> str:
    raw = os.environ.get(name, "")
    parts = urlsplit(raw)
    if raw and (parts.scheme not in ("smtp", "smtps") or not parts.hostname):
        raise SystemExit(
            f"{name} must look like smtp://user:pass@host:587 (STARTTLS) or "
            f"smtps://user:pass@host:465 (TLS), not {raw!r}"
        )
    return raw


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
    database_url: str = "postgresql://brandubh@127.0.0.1:5432/brandubh"
    database_pool_size: int = 10  # PostgreSQL connections per hub process (and as many more)
    live_grace_s: float = LIVE_GRACE_S
    # Origins allowed to open a websocket or send a non-GET request. Empty: the request's
    # own host only (same-origin), which is what a single deployment wants.
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    max_frame_bytes: int = 4096  # larger frames get an error reply
    hard_frame_bytes: int = 65536  # uvicorn closes the socket (1009) beyond this
    credits: int = 100  # messages per credit window, pings and pongs too
    credit_window_s: float = 20.0
    session_credits: int = 300  # per credit window, shared by one session's sockets on a hub
    sockets_per_address: int = 64  # websockets one client address may hold on a hub; 0: any
    strikes: int = 10  # error replies a socket may earn before it is closed (4001)
    strike_refill_s: float = 2.0  # one strike forgiven per this many seconds
    outbound_queue: int = 256  # frames waiting for a slow reader before it is closed (4002)
    ping_interval_s: float = 2.5
    dead_after_s: float = 9.0
    replay_window: int = 20  # a client further behind than this gets a snapshot
    bot_poll_s: float = 1.0
    bot_processes: int = 1  # processes per hub that run the bot's search; 0: none here
    conditional_replies: bool = True  # False: this hub plays no conditional replies
    redis_pool_size: int = 64
    time_scale: float = 1.0  # multiplies every move deadline; tests shorten them with it
    # Multiplies an arena's length (tests run a "1 minute" arena in seconds); and how many
    # unfinished tournaments one account may have created.
    tournament_scale: float = 1.0
    tournaments_per_account: int = 3
    scheduler_poll_s: float = 1.0
    outage_after_s: float = 30.0  # no scheduler beat for this long: the service was down
    claim_grace_s: float = 30.0  # an opponent gone this long may be claimed against
    # PostgreSQL unanswering for this long: /healthz says 503 (a shorter outage: 200).
    database_down_after_s: float = 30.0
    client_dir: str = ""  # built client (index.html and assets); empty: the package's build
    # Login limits per sliding window (docs/accounts.md): failures per account (by email,
    # known or not) from one address, and from every address that failed there; attempts
    # per client address; failures over the whole service. An address with no failures in
    # the window is held up by none but its own attempts limit (so the owner gets in).
    login_window_s: float = 600.0
    login_per_account: int = 10
    login_per_address: int = 200
    login_overall: int = 5000
    # Sign-ups per sliding window: per client address and over the whole service.
    signup_window_s: float = 3600.0
    signup_per_address: int = 10
    signup_overall: int = 1000
    # New guest sessions per client address per window; an unused one lives this long.
    guest_window_s: float = 600.0
    guests_per_address: int = 60
    guest_unused_ttl_s: int = 3600
    bot_games_per_player: int = 3  # live (unfinished) games against the bot at once
    bot_games_per_address: int = 12  # and from one client address (or /64); 0: any
    hash_concurrency: int = 2  # argon2 logins checked at once per process (off the loop)
    signup_hash_concurrency: int = 1  # sign-up hashes at once, apart from the logins'
    # Connections (uvicorn, wire/transport.py): a request's headers must arrive within
    # header_timeout_s of its first byte (or of the connection, for the first request); an
    # idle keep-alive connection is closed after keep_alive_s; one peer address may hold
    # connections_per_address TCP connections (0: any; set 0 behind a reverse proxy).
    header_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    connections_per_address: int = 256
    archive_poll_s: float = 2.0  # how often a hub sweeps finished games not yet archived
    # Mail (docs/accounts.md, "Mail"): without an SMTP URL each mail is written as an .eml
    # file under mail_dir and its link logged, so a local user can still verify and reset.
    smtp_url: str = ""  # smtp://user:pass@host:587 (STARTTLS) or smtps://…:465 (TLS)
    mail_from: str = "Brandubh Live <noreply@localhost>"
    mail_dir: str = ".brandubh/mail"  # brandubh serve: mail/ beside its --data folder
    public_url: str = ""  # the site's address in links; serve.py sets it to where it listens
    mail_retry_s: float = 5.0  # first pause after a failed delivery; doubles up to 64 times it
    # Analysis by the bot (docs/analysis.md, "The queue and the workers"). The search's
    # budget per ply of a game's analysis and per board evaluation (0: the analysis
    # package's NODES_PER_PLY and BOARD_NODES); kept with each job, so every worker
    # computes the same analysis. Tests make it tiny.
    analysis_nodes: int = 0
    analysis_board_nodes: int = 0
    analysis_per_account: int = 20  # analyses one account may request per day
    analysis_per_address: int = 40  # and one client address
    evaluations_per_address: int = 600  # board evaluations one address may ask per hour
    walks_per_address: int = 120  # analysis board walks one address may ask per minute; 0: any
    # Moves tried in exercises (learning from one's mistakes) that need a search, an hour.
    tries_per_session: int = 100
    tries_per_address: int = 300
    analysis_queue_max: int = 100  # games waiting for a worker; more: analysis_busy
    analysis_wait_s: float = 10.0  # how long a board evaluation waits for a worker's answer
    analysis_lease_ms: int = 30_000  # a worker that stops renewing loses its job this late
    exports_per_address: int = 60  # game exports one address may start per hour; 0: any
    # Personal API tokens (docs/api.md): requests one token may make per sliding window.
    token_requests: int = 300
    token_window_s: float = 60.0

    @classmethod
    def from_env(cls) -> Settings:
        origins = os.environ.get("BRANDUBH_ALLOWED_ORIGINS", "")
        cluster = _flag("BRANDUBH_REDIS_CLUSTER")
        return cls(
            redis_url=os.environ.get("REDIS_URL") or cls.redis_url,
            redis_cluster=cluster,
            # On a cluster each ack waits for one replica unless told otherwise (its cost
            # is measured in docs/scaling.md); one Redis has no replica to wait for.
            redis_wait_replicas=_int("BRANDUBH_REDIS_WAIT_REPLICAS", 1 if cluster else 0),
            redis_wait_ms=_int("BRANDUBH_REDIS_WAIT_MS", cls.redis_wait_ms),
            database_url=os.environ.get("DATABASE_URL") or cls.database_url,
            database_pool_size=_int("BRANDUBH_DATABASE_POOL", cls.database_pool_size),
            live_grace_s=_float("BRANDUBH_LIVE_GRACE_S", cls.live_grace_s),
            allowed_origins=frozenset(o.strip() for o in origins.split(",") if o.strip()),
            max_frame_bytes=_int("BRANDUBH_MAX_FRAME_BYTES", cls.max_frame_bytes),
            credits=_int("BRANDUBH_CREDITS", cls.credits),
            credit_window_s=_float("BRANDUBH_CREDIT_WINDOW_S", cls.credit_window_s),
            session_credits=_int("BRANDUBH_SESSION_CREDITS", cls.session_credits),
            sockets_per_address=_int("BRANDUBH_SOCKETS_PER_ADDRESS", cls.sockets_per_address),
            strikes=_int("BRANDUBH_STRIKES", cls.strikes),
            outbound_queue=_int("BRANDUBH_OUTBOUND_QUEUE", cls.outbound_queue),
            ping_interval_s=_float("BRANDUBH_PING_INTERVAL_S", cls.ping_interval_s),
            dead_after_s=_float("BRANDUBH_DEAD_AFTER_S", cls.dead_after_s),
            replay_window=_int("BRANDUBH_REPLAY_WINDOW", cls.replay_window),
            bot_poll_s=_float("BRANDUBH_BOT_POLL_S", cls.bot_poll_s),
            bot_processes=_count("BRANDUBH_BOT_PROCESSES", cls.bot_processes),
            conditional_replies=_flag("BRANDUBH_CONDITIONAL_REPLIES")
            if "BRANDUBH_CONDITIONAL_REPLIES" in os.environ
            else cls.conditional_replies,
            redis_pool_size=_int("BRANDUBH_REDIS_POOL", cls.redis_pool_size),
            time_scale=_float("BRANDUBH_TIME_SCALE", cls.time_scale),
            tournament_scale=_float("BRANDUBH_TOURNAMENT_SCALE", cls.tournament_scale),
            tournaments_per_account=_int(
                "BRANDUBH_TOURNAMENTS_PER_ACCOUNT", cls.tournaments_per_account
            ),
            scheduler_poll_s=_float("BRANDUBH_SCHEDULER_POLL_S", cls.scheduler_poll_s),
            outage_after_s=_float("BRANDUBH_OUTAGE_AFTER_S", cls.outage_after_s),
            claim_grace_s=_float("BRANDUBH_CLAIM_GRACE_S", cls.claim_grace_s),
            database_down_after_s=_float(
                "BRANDUBH_DATABASE_DOWN_AFTER_S", cls.database_down_after_s
            ),
            client_dir=os.environ.get("BRANDUBH_CLIENT_DIR", ""),
            login_window_s=_float("BRANDUBH_LOGIN_WINDOW_S", cls.login_window_s),
            login_per_account=_int("BRANDUBH_LOGIN_PER_ACCOUNT", cls.login_per_account),
            login_per_address=_int("BRANDUBH_LOGIN_PER_ADDRESS", cls.login_per_address),
            login_overall=_int("BRANDUBH_LOGIN_OVERALL", cls.login_overall),
            signup_window_s=_float("BRANDUBH_SIGNUP_WINDOW_S", cls.signup_window_s),
            signup_per_address=_int("BRANDUBH_SIGNUP_PER_ADDRESS", cls.signup_per_address),
            signup_overall=_int("BRANDUBH_SIGNUP_OVERALL", cls.signup_overall),
            guest_window_s=_float("BRANDUBH_GUEST_WINDOW_S", cls.guest_window_s),
            guests_per_address=_int("BRANDUBH_GUESTS_PER_ADDRESS", cls.guests_per_address),
            guest_unused_ttl_s=_int("BRANDUBH_GUEST_UNUSED_TTL_S", cls.guest_unused_ttl_s),
            bot_games_per_player=_int("BRANDUBH_BOT_GAMES_PER_PLAYER", cls.bot_games_per_player),
            bot_games_per_address=_count(
                "BRANDUBH_BOT_GAMES_PER_ADDRESS", cls.bot_games_per_address
            ),
            hash_concurrency=_int("BRANDUBH_HASH_CONCURRENCY", cls.hash_concurrency),
            signup_hash_concurrency=_int(
                "BRANDUBH_SIGNUP_HASH_CONCURRENCY", cls.signup_hash_concurrency
            ),
            header_timeout_s=_float("BRANDUBH_HEADER_TIMEOUT_S", cls.header_timeout_s),
            keep_alive_s=_float("BRANDUBH_KEEP_ALIVE_S", cls.keep_alive_s),
            connections_per_address=_int(
                "BRANDUBH_CONNECTIONS_PER_ADDRESS", cls.connections_per_address
            ),
            archive_poll_s=_float("BRANDUBH_ARCHIVE_POLL_S", cls.archive_poll_s),
            smtp_url=_smtp_url("BRANDUBH_SMTP_URL"),
            mail_from=os.environ.get("BRANDUBH_MAIL_FROM") or cls.mail_from,
            mail_dir=os.environ.get("BRANDUBH_MAIL_DIR") or cls.mail_dir,
            public_url=os.environ.get("BRANDUBH_PUBLIC_URL", "").rstrip("/"),
            analysis_nodes=_count("BRANDUBH_ANALYSIS_NODES", cls.analysis_nodes),
            analysis_board_nodes=_count("BRANDUBH_ANALYSIS_BOARD_NODES", cls.analysis_board_nodes),
            analysis_per_account=_count("BRANDUBH_ANALYSIS_PER_ACCOUNT", cls.analysis_per_account),
            analysis_per_address=_count("BRANDUBH_ANALYSIS_PER_ADDRESS", cls.analysis_per_address),
            evaluations_per_address=_count(
                "BRANDUBH_EVALUATIONS_PER_ADDRESS", cls.evaluations_per_address
            ),
            walks_per_address=_count("BRANDUBH_WALKS_PER_ADDRESS", cls.walks_per_address),
            tries_per_session=_count("BRANDUBH_TRIES_PER_SESSION", cls.tries_per_session),
            tries_per_address=_count("BRANDUBH_TRIES_PER_ADDRESS", cls.tries_per_address),
            analysis_queue_max=_count("BRANDUBH_ANALYSIS_QUEUE_MAX", cls.analysis_queue_max),
            analysis_wait_s=_float("BRANDUBH_ANALYSIS_WAIT_S", cls.analysis_wait_s),
            analysis_lease_ms=_count("BRANDUBH_ANALYSIS_LEASE_MS", cls.analysis_lease_ms),
            mail_retry_s=_float("BRANDUBH_MAIL_RETRY_S", cls.mail_retry_s),
            exports_per_address=_count("BRANDUBH_EXPORTS_PER_ADDRESS", cls.exports_per_address),
            token_requests=_count("BRANDUBH_TOKEN_REQUESTS", cls.token_requests),
            token_window_s=_float("BRANDUBH_TOKEN_WINDOW_S", cls.token_window_s),
        )
