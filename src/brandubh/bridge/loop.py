"""The bridge: the account's event stream (reopened with backoff whenever it drops: its
first lines are the open challenges and games in progress, which is the resume), each
challenge accepted or declined by the policy, each game a task of its own, and the stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

import httpx

from brandubh.bridge.client import Answer, Api, Backoff, Fatal, StreamRefused
from brandubh.bridge.config import BridgeConfig
from brandubh.bridge.game import GameRunner
from brandubh.bridge.policy import decide
from brandubh.bridge.records import BadLine, challenge_of, game_info_of

__all__ = ["Bridge", "run_bridge"]

log = logging.getLogger(__name__)


class Bridge:
    """One account on one site: its games, the challenges decided, and whether it stops."""

    def __init__(self, config: BridgeConfig) -> None:
        self.config = config
        self.api = Api(config.url, config.token)
        self.me = ""
        self.games: dict[str, asyncio.Task[None]] = {}
        self.accepted: set[str] = set()  # accepted; their gameStart may not have come yet
        self.decided: set[str] = set()
        self.stopping = False
        self.wake = asyncio.Event()
        self.stop_now = False

    def stop(self) -> None:
        """The first call: accept no more, finish the games in progress; the second: now."""
        if self.stopping:
            log.warning("stopping now: the games in progress are left to their clocks")
            self.stop_now = True
        else:
            self.stopping = True
            log.warning(
                "stopping: declining new challenges, finishing the games in progress "
                "(%d; signal again to stop now)",
                sum(not task.done() for task in self.games.values()),
            )
        self.wake.set()

    async def run(self) -> int:
        """Play until stopped; the exit status (0, or 2 when the site refuses the token)."""
        events: asyncio.Task[None] | None = None
        try:
            account = await self.api.get("/api/account")
            self.me = str(account["id"])
            scopes = set(account.get("scopes") or ())
            log.info(
                "playing as %s (%s)%s on %s; engine: %s",
                account.get("name"),
                self.me,
                ", a bot account" if account.get("bot") else ", not a bot account",
                self.config.url,
                " ".join(self.config.engine),
            )
            if "bot:play" not in scopes:
                raise Fatal("the token lacks the scope bot:play (docs/api.md)")
            events = asyncio.create_task(self._events())
            while not self.stop_now and not (self.stopping and not self.games):
                if events.done():
                    events.result()  # a refused token: raised here
                self.wake.clear()
                waiters = [asyncio.ensure_future(self.wake.wait()), events]
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                waiters[0].cancel()
            log.info("stopped")
            return 0
        except Fatal as exc:
            log.error("%s", exc)
            return 2
        except httpx.HTTPError as exc:
            log.error("the site at %s cannot be reached: %s", self.config.url, exc)
            return 2
        finally:
            if events is not None:
                events.cancel()
                with contextlib.suppress(asyncio.CancelledError, Fatal):
                    await events
            for task in list(self.games.values()):
                task.cancel()
            for task in list(self.games.values()):
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self.api.close()

    # -- the event stream ---------------------------------------------------------------

    async def _events(self) -> None:
        backoff = Backoff()
        while True:
            try:
                async for line in self.api.lines("/api/stream/event"):
                    backoff.reset()
                    await self._event(line)
            except StreamRefused as exc:
                log.error("the site refuses the event stream: %s", exc)
            except httpx.HTTPError as exc:
                log.warning("the event stream is lost: %s", exc)
            delay = backoff.next_delay()
            log.info("reopening the event stream in %.1f s", delay)
            await asyncio.sleep(delay)

    async def _event(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        try:
            if kind == "challenge":
                await self._challenge(line.get("challenge"))
            elif kind == "gameStart":
                self._start(game_info_of(line.get("game")).id)
            elif kind == "gameFinish":
                log.info("game %s finished", game_info_of(line.get("game")).id)
            elif kind == "error":  # the stream ends after it; it is reopened
                log.warning("the event stream says %s: %s", line.get("code"), line.get("message"))
            elif kind in ("challengeCanceled", "challengeDeclined"):
                log.info("challenge %s: %s", challenge_of(line.get("challenge")).id, kind)
        except BadLine as exc:
            log.warning("a %s line the bridge cannot read: %s", kind, exc)
        except (Fatal, httpx.HTTPError):
            raise
        except Exception:  # a bug must not end the event stream: this line only
            log.exception("a %s line could not be handled", kind)

    async def _challenge(self, data: Any) -> None:
        c = challenge_of(data)
        if c.target.id != self.me or c.status != "created" or c.id in self.decided:
            return
        playing = len(self.games) + len(self.accepted - set(self.games))
        decision = decide(c, self.config.accept, playing, self.stopping)
        terms = f"{c.ruleset}, {c.move_time} s, {'rated' if c.rated else 'casual'}"
        who = f"{c.challenger.name}{' (bot)' if c.challenger.bot else ''}"
        if decision.accept:
            answer = await self.api.post(f"/api/challenge/{c.id}/accept")
            if answer.ok:
                log.info("challenge %s from %s (%s): accepted", c.id, who, terms)
                self.decided.add(c.id)
                self.accepted.add(c.id)
                self._start(str(answer.body.get("id") or c.id))
            else:
                log.warning("challenge %s: the accept was refused: %s", c.id, answer.why)
                self._settled(c.id, answer)
        else:
            answer = await self.api.post(
                f"/api/challenge/{c.id}/decline", json={"reason": decision.reason}
            )
            log.info(
                "challenge %s from %s (%s): declined, %s (%s)%s",
                c.id,
                who,
                terms,
                decision.reason,
                decision.why,
                "" if answer.ok else f"; the decline was refused: {answer.why}",
            )
            self._settled(c.id, answer)

    def _settled(self, challenge: str, answer: Answer) -> None:
        """A challenge answered, or refused for good (4xx): not to be answered again; after
        a network failure or a 5xx, its next line on a reopened stream is tried again."""
        if answer.ok or 400 <= answer.status < 500:
            self.decided.add(challenge)

    def _start(self, game_id: str) -> None:
        if game_id in self.games:
            return
        runner = GameRunner(self.api, self.config, self.me, game_id)
        task = asyncio.create_task(runner.run(), name=f"game {game_id}")
        self.games[game_id] = task

        def done(_: asyncio.Task[None]) -> None:
            self.games.pop(game_id, None)
            self.accepted.discard(game_id)
            self.wake.set()

        task.add_done_callback(done)


async def run_bridge(config: BridgeConfig) -> int:
    """Run the bridge until SIGINT or SIGTERM (twice: at once); its exit status."""
    bridge = Bridge(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, bridge.stop)
    try:
        return await bridge.run()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
