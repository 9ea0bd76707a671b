"""Fixtures that start real services: Redis, hub processes under uvicorn, the browser.

Nothing here is faked: a redis-server the tests start (on a Unix socket in a temporary
folder, so no port is ever fixed), hubs as separate `brandubh serve --port 0` processes
that report the port the OS gave them, and Debian's Chromium driven by Playwright.
Where a service is missing the tests that need it are skipped saying why, except in CI
(BRANDUBH_REQUIRE_SERVICES=1), where that is a failure.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from brandubh.redis_server import EmbeddedCluster, EmbeddedRedis, RedisNotFound
from services import HubProcess

REQUIRE = os.environ.get("BRANDUBH_REQUIRE_SERVICES") == "1"
ROOT = Path(__file__).resolve().parents[1]


def missing(reason: str) -> None:
    """Skip for want of a service, or fail where every service is required (CI)."""
    if REQUIRE:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


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


# -- hub processes ----------------------------------------------------------------------


@pytest.fixture(scope="session")
def hub(redis_url: str) -> Iterator[HubProcess]:
    """A hub process shared by the tests that do not stop it."""
    proc = HubProcess(redis_url).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def hub2(redis_url: str) -> Iterator[HubProcess]:
    """A second, separate hub process on the same Redis."""
    proc = HubProcess(redis_url).start()
    yield proc
    proc.stop()


@pytest.fixture
def start_hub(redis_url: str) -> Iterator[Callable[..., HubProcess]]:
    """Start hubs of the test's own (to kill or configure); all are stopped afterwards."""
    started: list[HubProcess] = []

    def start(
        env: dict[str, str] | None = None, workers: int = 1, redis: str | None = None
    ) -> HubProcess:
        proc = HubProcess(redis or redis_url, env, workers).start()
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
    from brandubh.client_build import CLIENT_DIR, ClientBuildError, ensure_client_built

    try:
        ensure_client_built()
    except ClientBuildError as exc:
        missing(str(exc))
    return CLIENT_DIR / "dist"


@pytest.fixture(scope="session")
def web_hub(redis_url: str, client_dist: Path) -> Iterator[HubProcess]:
    """A hub serving the built client, for the browser tests."""
    proc = HubProcess(redis_url, env={"BRANDUBH_CLIENT_DIR": str(client_dist)}).start()
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
