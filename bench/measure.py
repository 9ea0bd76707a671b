"""What the bench scripts measure with: processes' CPU time from /proc, Redis's, the load
average, percentiles, and the confirmation mail a hub without SMTP writes to a folder."""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import os
import re
import time
from pathlib import Path

import redis


def cpu_s(pid: int) -> float:
    """User plus system CPU seconds a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def family(pid: int) -> list[int]:
    """The process and its descendants (a hub's workers), as they are now."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, parent in parents.items() if parent == p]
    return out


def hub_cpu_s(pid: int) -> float:
    """CPU seconds of a process and its live descendants (a hub and its workers)."""
    total = 0.0
    for p in family(pid):
        with contextlib.suppress(OSError):  # gone meanwhile
            total += cpu_s(p)
    return total


async def settled(pid: int, busy: float = 0.05, every: float = 0.5, most: float = 30.0) -> float:
    """Wait until a hub uses under ``busy`` of a core over ``every`` seconds (what an
    earlier run left it, such as finished games' ratings and archiving, done), at most
    ``most`` seconds; the seconds waited."""
    start = time.perf_counter()
    before = hub_cpu_s(pid)
    while time.perf_counter() - start < most:
        await asyncio.sleep(every)
        now = hub_cpu_s(pid)
        if now - before < busy * every:
            break
        before = now
    return time.perf_counter() - start


def redis_cpu_s(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def pct(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def confirmation_token(mail_dir: Path, address: str, wait_s: float = 60.0) -> str:
    """The token of the confirmation link mailed to ``address`` (an .eml file, no SMTP)."""
    for _ in range(int(wait_s * 10)):
        for path in mail_dir.glob("*.eml"):
            mail = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            body = mail.get_body(("plain",))
            text = f"{mail['To']}\n{body.get_content() if body is not None else ''}"
            found = re.search(r"/verify-email/([A-Za-z0-9_-]+)", text)
            if address in text and found:
                return found.group(1)
        await asyncio.sleep(0.1)
    raise SystemExit(f"no confirmation mail to {address} in {mail_dir}")
