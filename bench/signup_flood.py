"""Logins during a sign-up flood: does a flood of sign-ups hold up real logins?

    python bench/signup_flood.py [--logins 40] [--flooders 16] [--signup-slots 1]

One hub on an embedded Redis. It times sequential logins of one account first on a quiet
hub (the baseline), then while ``--flooders`` clients sign up new accounts as fast as the
hub answers (each from an address of its own, so the per-address limit does not stop them,
and the overall limit lifted), and prints p50/p95/max of both, in the same run, and the
sign-ups per second.
Sign-ups hash behind slots of their own (``BRANDUBH_SIGNUP_HASH_CONCURRENCY``), apart
from the logins'. Run it with PYTHONPATH pointing at an older tree for a comparison (that
tree ignores the settings it does not know). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from brandubh.run.redis_server import EmbeddedRedis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from measure import confirmation_token  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402

PASSWORD = "a flood of passphrases"


def pct(xs: list[float], p: float) -> float:
    return statistics.quantiles(xs, n=100)[int(p) - 1] if len(xs) > 1 else xs[0]


async def time_logins(base: str, email: str, n: int) -> list[float]:
    out = []
    async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as client:
        for _ in range(n):
            t0 = time.perf_counter()
            r = await client.post("/api/login", json={"email": email, "password": PASSWORD})
            out.append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200, r.text
    return out


async def flood(base: str, stop: asyncio.Event, done: list[int], who: int) -> None:
    headers = {"Origin": base, "X-Forwarded-For": f"198.18.{who}.{secrets.randbelow(250) + 1}"}
    async with httpx.AsyncClient(base_url=base, headers=headers) as client:
        while not stop.is_set():
            email = f"flood{secrets.token_hex(6)}@example.org"
            r = await client.post("/api/signup", json={"email": email, "password": PASSWORD})
            client.cookies.clear()
            if r.status_code == 202:
                done.append(1)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False)
        with server:
            env = {
                "BRANDUBH_SIGNUP_OVERALL": "1000000",
                "BRANDUBH_SIGNUP_PER_ADDRESS": "1000000",
                "BRANDUBH_LOGIN_PER_ADDRESS": "1000000",
                "BRANDUBH_LOGIN_PER_ACCOUNT": "1000000",
                "BRANDUBH_SIGNUP_HASH_CONCURRENCY": str(args.signup_slots),
                "BRANDUBH_MAIL_DIR": str(Path(tmp) / "mail"),  # the .eml files of the sign-ups
            }
            hub = HubProcess(server.url, env, database_url=args.database).start()
            try:
                email = f"owner{secrets.token_hex(4)}@example.org"
                async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as c:
                    r = await c.post("/api/signup", json={"email": email, "password": PASSWORD})
                    assert r.status_code == 202, r.text
                    token = await confirmation_token(Path(tmp) / "mail", email)
                    r = await c.post(  # a new account logs in so; no session: the password
                        f"/api/verify-email/{token}", json={"password": PASSWORD}
                    )
                    assert r.status_code == 200, r.text
                quiet = await time_logins(hub.url, email, args.logins)
                stop, done = asyncio.Event(), list[int]()
                flooders = [
                    asyncio.create_task(flood(hub.url, stop, done, i)) for i in range(args.flooders)
                ]
                await asyncio.sleep(1)
                t0 = time.perf_counter()
                busy = await time_logins(hub.url, email, args.logins)
                rate = len(done) / (time.perf_counter() - t0 + 1)
                stop.set()
                await asyncio.gather(*flooders)
            finally:
                hub.stop()
    print(f"login round trip, {args.logins} logins, sign-up hash slots {args.signup_slots}")
    for label, xs in (("quiet hub           ", quiet), ("during sign-up flood", busy)):
        print(
            f"  {label} p50 {pct(xs, 50):7.1f} ms   p95 {pct(xs, 95):7.1f} ms"
            f"   max {max(xs):7.1f} ms"
        )
    print(f"  ({rate:.0f} sign-ups/s from {args.flooders} clients during the flood)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logins", type=int, default=40)
    parser.add_argument("--flooders", type=int, default=16)
    parser.add_argument("--signup-slots", type=int, default=1)
    arguments = parser.parse_args()
    arguments.database = shared_database()  # (it runs its own event loop: before ours)
    asyncio.run(main(arguments))
