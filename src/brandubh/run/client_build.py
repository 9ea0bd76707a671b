"""Building the browser client (client/) with npm and Vite when its build is missing."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

CLIENT_DIR = Path(__file__).resolve().parents[3] / "client"


class ClientBuildError(RuntimeError):
    """The client could not be built; the message says what to install or run."""


def is_built(client_dir: Path = CLIENT_DIR) -> bool:
    """Whether a build exists that is newer than every source file."""
    index = client_dir / "dist" / "index.html"
    if not index.is_file():
        return False
    built = index.stat().st_mtime
    sources = [client_dir / "index.html", client_dir / "package-lock.json"]
    sources += list((client_dir / "src").rglob("*"))
    return all(p.stat().st_mtime <= built for p in sources if p.is_file())


def ensure_client_built(client_dir: Path = CLIENT_DIR, echo: Callable[[str], None] = print) -> None:
    """Run ``npm ci`` (if node_modules is missing) and ``npm run build`` unless up to date."""
    if not (client_dir / "package.json").is_file():
        raise ClientBuildError(f"no client sources at {client_dir}")
    if is_built(client_dir):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise ClientBuildError(
            "the client is not built and npm is not installed: install Node.js 20 or newer "
            "(Debian: apt-get install nodejs npm), then run this again"
        )
    steps = []
    if not (client_dir / "node_modules").is_dir():
        steps.append([npm, "ci", "--no-audit", "--no-fund"])
    steps.append([npm, "run", "build"])
    for step in steps:
        echo(f"building the client: {' '.join(step[1:])}")
        done = subprocess.run(step, cwd=client_dir, capture_output=True, text=True)
        if done.returncode != 0:
            raise ClientBuildError(
                f"`{' '.join(step[1:])}` failed in {client_dir}:\n{done.stdout}{done.stderr}"
            )
