"""The ``brandubh`` command line."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

import click

from brandubh.run import puzzles_load

if TYPE_CHECKING:
    from brandubh.store import Store

T = TypeVar("T")


@click.group()
@click.version_option(package_name="brandubh")
def main() -> None:
    """Brandubh Live: play, serve and verify games of Brandubh."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on; 0 picks a free one.",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Hub processes sharing the port and one Redis.",
)
@click.option(
    "--data",
    "data_dir",
    default=".brandubh",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the embedded Redis and PostgreSQL keep their data, in redis/ and postgres/ "
    "(unused with REDIS_URL and DATABASE_URL).",
)
@click.option("--no-build", is_flag=True, help="Do not build the client if it is missing.")
@click.option(
    "--proxy-headers/--no-proxy-headers",
    default=True,
    show_default=True,
    envvar="BRANDUBH_PROXY_HEADERS",
    help="Take the client's address and scheme from X-Forwarded-For and X-Forwarded-Proto "
    "when a trusted proxy (--forwarded-allow-ips) sends them: a TLS-terminating proxy then "
    "gets Secure cookies.",
)
@click.option(
    "--forwarded-allow-ips",
    default="127.0.0.1",
    show_default=True,
    envvar="BRANDUBH_FORWARDED_ALLOW_IPS",
    help="The proxies trusted for those headers: comma-separated addresses or networks, "
    "or '*' for any (only when nothing else can reach the hub).",
)
@click.option(
    "--analysis-workers",
    default=1,
    show_default=True,
    type=click.IntRange(0, 64),
    envvar="BRANDUBH_ANALYSIS_WORKERS",
    help="Analysis worker processes to start beside the hub (brandubh analyse-worker); 0 for "
    "none, when workers run elsewhere.",
)
def serve(
    host: str,
    port: int,
    workers: int,
    data_dir: Path,
    no_build: bool,
    proxy_headers: bool,
    forwarded_allow_ips: str,
    analysis_workers: int,
) -> None:
    """Run the service: the hub, and an embedded Redis and PostgreSQL unless REDIS_URL and
    DATABASE_URL are set."""
    from brandubh.run.serve import run

    run(
        host,
        port,
        workers,
        data_dir,
        build_client=not no_build,
        proxy_headers=proxy_headers,
        forwarded_allow_ips=forwarded_allow_ips,
        analysis=analysis_workers,
    )


@main.command("analyse-worker")
@click.option(
    "--name",
    default="",
    help="This worker's name in the jobs it holds (default: host, process id and a random tag).",
)
def analyse_worker(name: str) -> None:
    """Run an analysis worker: take analyses and board evaluations from the service's queue
    and compute them (REDIS_URL and DATABASE_URL name the service's servers; any number of
    workers on any machines; docs/analysis.md)."""
    import os

    missing = [v for v in ("REDIS_URL", "DATABASE_URL") if not os.environ.get(v)]
    if missing:
        raise click.ClickException(
            f"set {' and '.join(missing)}: the worker joins a running service's Redis and "
            "PostgreSQL (brandubh serve prints both URLs as it starts its own)"
        )
    from brandubh.run.analysis_worker import main as run_worker

    run_worker(name)


# The folder of the embedded PostgreSQL, for the commands that only need the database.
_DATA = click.option(
    "--data",
    "data_dir",
    default=".brandubh",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The embedded PostgreSQL's data is in postgres/ here (unused with DATABASE_URL).",
)


@main.group()
def db() -> None:
    """The PostgreSQL schema."""


@db.command()
@_DATA
def upgrade(data_dir: Path) -> None:
    """Apply every schema migration not yet applied (``serve`` does this at start)."""
    from brandubh.run.serve import database_url, migrate

    with database_url(data_dir / "postgres") as url:
        click.echo(f"brandubh: the schema is at revision {migrate(url)}")


@db.command("explorer-rebuild")
@_DATA
def explorer_rebuild(data_dir: Path) -> None:
    """Count the whole archive into the opening explorer again (once after upgrading an
    archive kept before it; safe to run again, and while the service runs)."""
    import asyncio

    from brandubh.run.serve import database_url, migrate
    from brandubh.store import Store

    async def run(url: str) -> int:
        store = Store.from_url(url, pool_size=1)
        try:
            return await store.rebuild_explorer()
        finally:
            await store.close()

    with database_url(data_dir / "postgres") as url:
        migrate(url)
        click.echo(f"brandubh: the opening explorer counts {asyncio.run(run(url))} games")


@main.group()
def puzzles() -> None:
    """Puzzles (docs/puzzles.md): generating a set, loading one into PostgreSQL."""


puzzles.add_command(puzzles_load.load)


@puzzles.command("generate")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The JSONL file puzzles are appended to; FILE.progress beside it lets a run resume.",
)
@click.option(
    "--ruleset",
    "rulesets",
    multiple=True,
    type=click.Choice(["nielsen", "federation", "common", "walker"]),
    help="A rule set to examine (repeatable; default: every one the solver supports).",
)
@click.option(
    "--selfplay",
    default=0,
    show_default=True,
    type=click.IntRange(0, 1_000_000),
    help="Self-play games of the bot to examine per rule set.",
)
@click.option("--archive", is_flag=True, help="Also examine the finished games at DATABASE_URL.")
@click.option(
    "--max-depth",
    default=3,
    show_default=True,
    type=click.IntRange(1, 4),
    help="The longest win proved, in the solver's moves.",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Worker processes.",
)
@click.option(
    "--seed",
    default=1,
    show_default=True,
    type=click.IntRange(0, 2**32 - 1),
    help="The self-play games' seed: the same seed plays the same games.",
)
def puzzles_generate(
    out: Path,
    rulesets: tuple[str, ...],
    selfplay: int,
    archive: bool,
    max_depth: int,
    workers: int,
    seed: int,
) -> None:
    """Find puzzles in self-play and the archive, prove them, append them to --out
    (resumable: run the same command again after a stop; progress on stderr)."""
    from brandubh.run.puzzle_generation import run_generate

    run_generate(out, rulesets, selfplay, archive, max_depth, workers, seed)


@main.command("migrate-from-redis")
@click.option(
    "--data",
    "data_dir",
    default=".brandubh",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The embedded Redis and PostgreSQL keep their data in redis/ and postgres/ here "
    "(unused with REDIS_URL and DATABASE_URL).",
)
def migrate_from_redis(data_dir: Path) -> None:
    """Move accounts, ratings, histories and the archive from Redis into PostgreSQL, then
    remove them from Redis. Safe to run again: a second run changes nothing."""
    import asyncio

    from redis.asyncio import Redis

    from brandubh.hub.config import Settings
    from brandubh.run.migrate_redis import migrate
    from brandubh.run.serve import database_url, redis_url
    from brandubh.run.serve import migrate as upgrade_schema
    from brandubh.store import Store

    async def run(r_url: str, db_url: str) -> str:
        redis = Redis.from_url(r_url)
        store = Store.from_url(db_url)
        try:
            grace_ms = int(Settings.from_env().live_grace_s * 1000)
            moved = await migrate(redis, store, grace_ms)
            if moved.games:  # copied rows, not archived: the explorer counts them here
                await store.rebuild_explorer()
            return str(moved)
        finally:
            await redis.aclose()
            await store.close()

    with redis_url(data_dir / "redis") as r_url, database_url(data_dir / "postgres") as db_url:
        upgrade_schema(db_url)
        click.echo(f"brandubh: {asyncio.run(run(r_url, db_url))}")


@main.group()
def moderation() -> None:
    """Game chat's reports and muted accounts (docs/accounts.md, "Chat and moderation")."""


def _with_store(data_dir: Path, work: Callable[[Store], Awaitable[T]]) -> T:
    """Run ``work(store)`` on the deployment's PostgreSQL; its answer."""
    import asyncio

    from brandubh.run.serve import database_url
    from brandubh.store import Store

    async def run(url: str) -> T:
        store = Store.from_url(url)
        try:
            return await work(store)
        finally:
            await store.close()

    with database_url(data_dir / "postgres") as url:
        return asyncio.run(run(url))


@moderation.command("reports")
@_DATA
@click.option(
    "--status",
    type=click.Choice(["open", "cleared", "muted"]),
    default="open",
    show_default=True,
    help="Which reports: open ones, or those cleared or closed by a mute.",
)
def moderation_reports(data_dir: Path, status: str) -> None:
    """List reported chat lines, oldest first: the line as said, its author and reporter."""
    reports = _with_store(data_dir, lambda store: store.chat_reports(status))
    if not reports:
        click.echo(f"brandubh: no {status} reports")
    for r in reports:
        # repr: a line's control characters and markup print as text, never act.
        click.echo(
            f"#{r.id} game {r.game_id} {r.room} line {r.n}: {r.author_name} ({r.author_id})"
            f" said {r.text!r}; reported by {r.reporter_id}"
        )


@moderation.command("mute")
@_DATA
@click.argument("account_id")
def moderation_mute(data_dir: Path, account_id: str) -> None:
    """Mute an account: its chat lines are shown to itself only, from its next line on;
    its open reports close as muted."""
    if not _with_store(data_dir, lambda store: store.set_muted(account_id, True)):
        raise click.ClickException(f"there is no account {account_id}")
    click.echo(f"brandubh: {account_id} is muted")


@moderation.command("unmute")
@_DATA
@click.argument("account_id")
def moderation_unmute(data_dir: Path, account_id: str) -> None:
    """Lift an account's mute: its next lines reach the others again."""
    if not _with_store(data_dir, lambda store: store.set_muted(account_id, False)):
        raise click.ClickException(f"there is no account {account_id}")
    click.echo(f"brandubh: {account_id} is no longer muted")


@moderation.command("clear")
@_DATA
@click.argument("report_id", type=int)
def moderation_clear(data_dir: Path, report_id: int) -> None:
    """Close an open report with no action."""
    if not _with_store(data_dir, lambda store: store.clear_report(report_id)):
        raise click.ClickException(f"there is no open report #{report_id}")
    click.echo(f"brandubh: report #{report_id} cleared")


@main.command()
@click.option(
    "--level",
    type=click.IntRange(1, 5),
    default=5,
    show_default=True,
    help="The bot's level: its most nodes a move (the clock may allow fewer).",
)
@click.option("--seed", default="otep", show_default=True, help="Seed of the bot's choices.")
def engine(level: int, seed: str) -> None:
    """Play as an OpenTafl Engine Protocol (OTEP) engine on stdin and stdout (docs/otep.md)."""
    # OpenTafl gives an engine five seconds to say hello; the search's imports alone take
    # seconds on a loaded machine, so hello goes first (the host's lines wait on stdin).
    sys.stdout.write("hello\n")
    sys.stdout.flush()
    from brandubh.otep import run_engine

    run_engine(level, seed.encode(), greet=False)


@main.command("engine-bridge")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A TOML file of these settings (url, token_file, engine, engine_dir, transport, "
    "and an [accept] table); options given here win over it.",
)
@click.option("--url", help="The site's address, as https://brandubh.example.org.")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A file holding the token (else the environment variable BRANDUBH_TOKEN, which wins).",
)
@click.option(
    "--engine",
    help="The command line that starts the OTEP engine, e.g. 'brandubh engine --level 3'.",
)
@click.option(
    "--engine-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder the engine runs in (default: this one).",
)
@click.option("--rulesets", help="Rule sets to accept, comma-separated (default nielsen,walker).")
@click.option("--min-move-time", type=int, help="Fewest seconds a move to accept (default 60).")
@click.option("--max-move-time", type=int, help="Most seconds a move to accept (default a week).")
@click.option("--rated/--no-rated", default=None, help="Accept rated games (default yes).")
@click.option("--casual/--no-casual", default=None, help="Accept casual games (default yes).")
@click.option("--bots/--no-bots", default=None, help="Accept bots' challenges (default yes).")
@click.option("--people/--no-people", default=None, help="Accept people's (default yes).")
@click.option("--max-games", type=int, help="Games at once; more are declined 'later' (default 1).")
@click.option(
    "--transport",
    type=click.Choice(["http", "socket"]),
    help="How games are played: http (a game stream, a POST a move; the default) or socket "
    "(the bot socket, which costs the site what a person's moves do).",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    show_default=True,
    help="How much the log (standard error) says.",
)
def engine_bridge(config_file: Path | None, log_level: str, **options: object) -> None:
    """Play an OpenTafl Engine Protocol (OTEP) engine on the site as your bot account.

    The bridge opens the account's event stream with a personal API token (scopes bot:play
    and challenge:write), accepts the challenges its accept rules allow and declines the
    others with a reason, and plays each game by starting the engine as a child process
    and relaying its moves. An engine that crashes, stays silent past the move's time or
    plays an illegal move loses that game by resignation, logged with the reason. Dropped
    streams are reopened with backoff; games in progress are resumed.

    Ctrl-C or SIGTERM stops it cleanly: new challenges are declined 'later' and the games
    in progress are played to their end; a second signal stops at once, leaving them to
    their clocks (start the bridge again in time and it resumes them). docs/bridge.md.
    """
    import asyncio
    import logging

    from brandubh.bridge import ConfigError, load_config, run_bridge

    logging.basicConfig(
        level=log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    try:
        config = load_config(config_file, options)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    raise SystemExit(asyncio.run(run_bridge(config)))


@main.command()
@click.argument("depth", type=click.IntRange(1, 8))
@click.option("--ruleset", default="nielsen", show_default=True)
@click.option("--position", default=None, help="Position string; the start by default.")
def perft(depth: int, ruleset: str, position: str | None) -> None:
    """Count the move sequences of DEPTH plies (to check move generation)."""
    from brandubh.engine import START_POSITION, EngineError, Game
    from brandubh.engine import perft as count

    try:
        game = Game(ruleset, position or START_POSITION)
    except EngineError as exc:
        raise click.ClickException(str(exc)) from None
    for d in range(1, depth + 1):
        click.echo(f"{d}\t{count(game, d)}")


@main.command()
@click.argument("record_files", nargs=-1, required=True, type=click.File("r", encoding="utf-8"))
@click.option(
    "--online",
    metavar="URL",
    help="Also ask the service at URL (e.g. https://brandubh.live) whether each record is "
    "the game it played under that id.",
)
def verify(record_files: tuple[TextIO, ...], online: str | None) -> None:
    """Check finished games' records: seed, sides, every move, the result; or a finished
    tournament's export (JSON): its seed, every pairing, the standings.

    A match's later game takes its sides from the match: give the match's records in order,
    game 1 first. With --online, the service also compares each with the game it stored.
    """
    from brandubh.engine import EngineError, Record, parse_record
    from brandubh.fairplay import VerificationFailed, match_of
    from brandubh.fairplay import verify as check

    # Records checked so far, by match id: a later game of a match is checked against them.
    by_match: dict[str, list[Record]] = {}
    for record_file in record_files:
        label = f"{record_file.name}: " if len(record_files) > 1 else ""
        try:
            text = record_file.read()
            if text.lstrip().startswith("{"):
                _verify_tournament(text, label)
                continue
            record = parse_record(text)
            match = match_of(record)
            earlier = by_match.get(match.match_id, []) if match and match.number > 1 else []
            game = check(record, earlier)
        except (EngineError, VerificationFailed) as exc:
            click.echo(f"FAILED: {label}{exc}", err=True)
            raise SystemExit(1) from None
        if match:
            by_match.setdefault(match.match_id, []).append(record)
        if match and match.number == 2:
            sides = f"the sides follow from game 1 of match {match.match_id}"
        elif match and match.number == 3:
            sides = "the tie-breaker was due, its sides the chooser's"
        else:
            sides = "the sides follow from it"
        click.echo(
            f"OK: {label}game {record.game_id}, {record.ruleset}, {len(record.moves)} moves, "
            f"{game.result}; the seed matches its commitment and {sides}"
        )
        if online:
            _compare_online(online, text, label)


def _verify_tournament(text: str, label: str) -> None:
    """Check a tournament export (docs/tournaments.md §Verifying), printing each problem."""
    import json

    from brandubh.tournaments import is_tournament_export, verify_tournament

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise click.ClickException(f"{label}not a record, nor a tournament export: {exc}") from None
    if not is_tournament_export(data):
        raise click.ClickException(f"{label}a JSON file, but not a tournament export")
    problems = verify_tournament(data)
    for problem in problems:
        click.echo(f"FAILED: {label}{problem}", err=True)
    if problems:
        raise SystemExit(1)
    click.echo(
        f"OK: {label}tournament {data.get('id')}, {data['settings']['format']}, "
        f"{len(data['standings'])} players: verified (the seed matches its commitment; every "
        f"pairing and the standings recomputed)"
    )


def _compare_online(url: str, text: str, label: str) -> None:
    """Ask a service whether a record is the game it played (POST /api/verify)."""
    import json
    import urllib.request

    base = url.rstrip("/")
    request = urllib.request.Request(
        base + "/api/verify", data=text.encode(), headers={"Origin": base}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            reply = json.loads(answer.read())
    except (OSError, ValueError) as exc:
        click.echo(f"FAILED: {label}could not ask {url}: {exc}", err=True)
        raise SystemExit(2) from None
    stored = reply.get("stored") or {}
    if not reply.get("ok"):
        # The reason for people; "error" is its code (docs/protocol.md §2).
        why = reply.get("message") or reply.get("error")
        click.echo(f"FAILED: {label}{url} says: {why}", err=True)
        raise SystemExit(1)
    if not stored.get("found"):
        click.echo(f"FAILED: {label}{url} has no game under this id", err=True)
        raise SystemExit(1)
    if not stored.get("same"):
        why = "; ".join(stored.get("differences") or ())
        click.echo(f"FAILED: {label}not the game {url} played: {why}", err=True)
        raise SystemExit(1)
    click.echo(f"OK: {label}it is the game {url} played under this id")
