"""One game played by the engine: the Bot API's game stream in (resumed with ``since``),
the engine's moves out (sent with ``ply``, so a retry is applied once), over HTTP or over
the bot socket (gamesocket.py). The engine failing
in any way resigns this game, logged with the reason; the game's end ends the task."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Final

import httpx

from brandubh.bridge.client import Answer, Api, Backoff, Fatal, StreamRefused
from brandubh.bridge.config import BridgeConfig
from brandubh.bridge.engine import EngineFailure, OtepEngine
from brandubh.bridge.gamesocket import GameSocket, SocketLost
from brandubh.engine import (
    EngineError,
    Game,
    Move,
    format_otn_move,
    format_otn_position,
    format_otn_rules,
    move_from_otn,
    otn_from_move,
)

__all__ = ["GameRunner", "finish_code", "opponent_move_line", "think_seconds"]

log = logging.getLogger(__name__)

# Refusals of a move that mean the game moved on without it: the stream says how.
_MOVED_ON: Final = frozenset(
    {"game_not_active", "deadline_passed", "not_your_turn", "stale_ply", "id_reused"}
)
# Refusals on the bot socket that say "not now" (the HTTP transport's 429 and 503): the
# move is sent again after RESEND_SECONDS.
_TRY_AGAIN: Final = frozenset({"rate_limited", "unavailable"})
RESEND_SECONDS: Final = 1.0


def think_seconds(move_time: int, left_ms: float) -> float:
    """How long the engine may take over a move: the time left before the deadline less a
    margin for the move's way to the site (a tenth of the move time, 2 to 10 s), at least 1 s."""
    margin = min(10.0, max(2.0, move_time / 10))
    return max(1.0, left_ms / 1000 - margin)


def finish_code(result: dict[str, Any] | None) -> int:
    """OTEP's ``finish`` code: 2 attackers won, 3 defenders won, 1 a draw, 0 no result."""
    if not result:
        return 0
    winner = result.get("winner")
    if winner == "attackers":
        return 2
    if winner == "defenders":
        return 3
    return 0 if result.get("reason") == "aborted" else 1


def _king_square(position: str) -> str | None:
    """Where the king stands in one of our positions (rank 7 first), or None."""
    for r, rank in enumerate(position.split()[0].split("/")):
        col = 0
        for ch in rank:
            if ch.isdigit():
                col += int(ch)
                continue
            if ch == "K":
                return f"{'abcdefg'[col]}{7 - r}"
            col += 1
    return None


def opponent_move_line(game: Game, played: Move, before: str, *, simple: bool) -> str:
    """``opponent-move`` for ``played`` (just played in ``game``, from position ``before``):
    ``start-end`` while the engine keeps OTEP's default simple moves, else full OTN."""
    otn = otn_from_move(played, king_square=_king_square(before), result=game.result)
    return (
        f"opponent-move {format_otn_move(otn, simple=simple)} {format_otn_position(game.position)}"
    )


class GameRunner:
    """The bridge's side of one game: the stream, the local board, the engine."""

    def __init__(self, api: Api, config: BridgeConfig, me: str, game_id: str) -> None:
        self.api, self.config, self.me, self.id = api, config, me, game_id
        self.label = f"game {game_id}"
        self.game: Game | None = None
        self.side = ""
        self.state: dict[str, Any] = {}
        self.engine: OtepEngine | None = None
        self.done_ply: int | None = None  # the ply our move was taken at
        self.unsent: tuple[int, str, str] | None = None  # (ply, move, position after) to send
        self.failed = ""  # why the engine lost this game, once it did
        self.ended = False
        # transport = "socket": the game followed and played over the bot socket.
        self.socket = GameSocket(config.url, config.token) if config.transport == "socket" else None

    async def run(self) -> None:
        """Play until the game ends (or the site says it is not ours); never raises but
        for cancellation and a refused token."""
        try:
            await self._follow()
        except asyncio.CancelledError:
            raise
        except Fatal as exc:  # the token is refused: the bridge stops on its own stream
            log.error("%s: left: %s", self.label, exc)
        except Exception as exc:  # a bug must not take the bridge down: this game only
            log.exception("%s: stopped by an unexpected error", self.label)
            if not self.ended and not self.failed:
                await self._fail(f"the bridge failed: {exc!r}")
        finally:
            if self.engine is not None:
                await self.engine.close()

    async def _follow(self) -> None:
        since: int | None = None
        backoff = Backoff()
        while not self.ended:
            params = {"since": since} if since is not None else None
            if self.socket is not None:
                lines = self.socket.lines(self.id, since)
            else:
                lines = self.api.lines(f"/api/bot/game/stream/{self.id}", params)
            try:
                async for line in lines:
                    backoff.reset()
                    kind = line.get("type")
                    if kind == "answer":  # to a move sent on the socket
                        await self._answered(line)
                        continue
                    if kind == "gameFull":
                        await self._full(line)
                    elif kind == "gameState":
                        await self._event(line)
                    elif kind == "error":
                        log.warning("%s: stream error %s", self.label, line.get("message"))
                        break
                    else:
                        continue
                    since = int(line["n"])
                    if self.ended:
                        return
                    await self._maybe_move()
            except StreamRefused as exc:
                log.error("%s: the site refuses its stream (%s): leaving it", self.label, exc)
                return
            except (httpx.HTTPError, SocketLost) as exc:
                log.warning("%s: stream lost (%s)", self.label, exc)
            if self.ended:
                return
            delay = backoff.next_delay()
            log.info("%s: reopening its stream in %.1f s (since %s)", self.label, delay, since)
            await asyncio.sleep(delay)
            await self._send_move()  # a move the site could not be told of: now, if it can

    # -- the stream ---------------------------------------------------------------------

    async def _full(self, line: dict[str, Any]) -> None:
        state = line["state"]
        self.state = state
        ruleset = str(line["ruleset"])
        players = line.get("players") or {}
        sides = [s for s, p in players.items() if isinstance(p, dict) and p.get("id") == self.me]
        if not sides:
            log.error("%s: the account plays neither side: leaving it", self.label)
            self.ended = True
            return
        self.side = sides[0]
        game = Game(ruleset)
        try:
            for text in line.get("moves") or []:
                game.play(text)
        except EngineError:
            game = Game(ruleset, state["position"])
        if game.position != state["position"]:
            game = Game(ruleset, state["position"])
        self.game = game
        if state.get("status") == "ended":
            await self._ended(state)
            return
        log.info(
            "%s: %s, %s s a move, playing the %s at ply %s",
            self.label,
            ruleset,
            state.get("move_time"),
            self.side,
            state.get("ply"),
        )
        if self.failed:
            return
        try:
            rules = format_otn_rules(ruleset)
        except EngineError as exc:
            await self._fail(f"an OTEP engine cannot play {ruleset}: {exc}")
            return
        try:
            if self.engine is None:
                self.engine = await OtepEngine.start(
                    self.config.engine, self.label, self.config.engine_dir
                )
            # Mid-game (a resumed game, a fresh gameFull): the board as it is now. Our
            # board may hold no moves (rebuilt from the site's position), so ask the site.
            if int(state.get("ply") or 0) > 0:
                await self.engine.send(f"rules {rules}", *self._board_lines(game))
            else:
                await self.engine.send(f"rules {rules}")
        except EngineFailure as exc:
            await self._fail(str(exc))

    async def _event(self, line: dict[str, Any]) -> None:
        event, state = line.get("event") or {}, line["state"]
        self.state = state
        game = self.game
        if game is not None and event.get("kind") == "move":
            before = game.position
            try:
                played: Move | None = game.play(str(event["move"]))
            except EngineError:
                played = None
            if played is None or game.position != state["position"]:
                log.warning("%s: the site's board differs from ours: taking the site's", self.label)
                self.game = game = Game(game.ruleset, state["position"])
                await self._tell(*self._board_lines(game))
            elif event.get("by") != self.side:
                simple = self.engine is None or self.engine.simple_moves
                await self._tell(opponent_move_line(game, played, before, simple=simple))
        if state.get("status") == "ended":
            await self._ended(state)

    @staticmethod
    def _board_lines(game: Game) -> list[str]:
        return [f"position {format_otn_position(game.position)}", f"side {game.side_to_move}"]

    async def _ended(self, state: dict[str, Any]) -> None:
        self.ended = True
        result = state.get("result") or {}
        log.info(
            "%s: ended, %s (%s)%s",
            self.label,
            f"the {result.get('winner')} won" if result.get("winner") else "no winner",
            result.get("reason"),
            f"; the engine had failed: {self.failed}" if self.failed else "",
        )
        await self._tell(f"finish {finish_code(result)}")

    async def _tell(self, *lines: str) -> None:
        """Lines for the engine, if it still plays; its failure loses the game."""
        if self.engine is None or self.failed:
            return
        try:
            await self.engine.send(*lines)
        except EngineFailure as exc:
            if not self.ended:
                await self._fail(str(exc))

    # -- our move -----------------------------------------------------------------------

    async def _maybe_move(self) -> None:
        state, game, engine = self.state, self.game, self.engine
        if self.failed or self.ended or game is None or engine is None:
            return
        ply = int(state.get("ply") or 0)
        if (
            state.get("status") != "active"
            or state.get("turn") != self.side
            or ply == self.done_ply
        ):
            return
        if self.unsent is not None and self.unsent[0] == ply:
            await self._send_move()  # the engine's move for this ply, not yet taken
            return
        move_time = int(state.get("move_time") or 60)
        left_ms = float(move_time * 1000)
        deadline = state.get("deadline")
        if isinstance(deadline, int | float):
            left_ms = min(left_ms, max(1000.0, deadline - time.time() * 1000))
        theirs = move_time * 1000
        att, dfn = (int(left_ms), theirs) if self.side == "attackers" else (theirs, int(left_ms))
        try:
            otn = await engine.play(
                self.side, f"{att} {dfn} 0 0 0", think_seconds(move_time, left_ms)
            )
        except EngineFailure as exc:
            await self._fail(str(exc))
            return
        try:
            played = game.play(move_from_otn(otn))
        except EngineError as exc:
            await self._fail(f"the engine's move {format_otn_move(otn)} is illegal here: {exc}")
            return
        after = game.position
        game.pop()  # the stream's line of it plays it on our board
        self.unsent = (ply, played.text, after)
        await self._send_move()

    async def _send_move(self) -> None:
        """POST the engine's move at its ply (sent again, it is played once). Unreachable
        site: kept, and sent again after the stream's next backoff, not resigned."""
        if self.unsent is None:
            return
        ply, text, _ = self.unsent
        if self.socket is not None:
            # Its answer comes among the socket's frames (_answered); not sent (the socket
            # closed), it is sent again when the reopened socket shows the same turn.
            await self.socket.send_move(self.id, ply, text)
            return
        answer = await self.api.post(f"/api/bot/game/{self.id}/move/{text}", params={"ply": ply})
        await self._settle(answer)

    async def _answered(self, line: dict[str, Any]) -> None:
        """The socket's answer to a move: the unsent move's, if it is for its ply."""
        if self.unsent is None or line.get("id") != f"m{self.unsent[0]}":
            return
        if line.get("ok"):
            await self._settle(Answer(200, {}))
        elif line.get("code") in _TRY_AGAIN:
            # The site's store out of reach, or the socket's budget spent: the same move
            # again shortly (played once), as the HTTP transport retries its POST.
            log.warning(
                "%s: %s not taken yet (%s): sending it again",
                self.label,
                line.get("id"),
                line.get("code"),
            )
            await asyncio.sleep(RESEND_SECONDS)
            await self._send_move()
        else:
            said = {"message": line.get("message")}
            await self._settle(Answer(400, said, refused=str(line.get("code"))))

    async def _settle(self, answer: Answer) -> None:
        """The site's answer to the unsent move: taken, moved on without it, to be sent
        again (unreachable), or refused (the engine loses the game)."""
        if self.unsent is None:
            return
        ply, text, after = self.unsent
        if answer.ok:
            self.unsent, self.done_ply = None, ply
            await self._tell(f"move {format_otn_position(after)}")
        elif answer.error in _MOVED_ON:
            self.unsent, self.done_ply = None, ply
            log.info("%s: %s not taken (%s): the game moved on", self.label, text, answer.error)
        elif answer.status == 0 or answer.status >= 500:
            log.warning("%s: %s not sent yet (%s): sending it again", self.label, text, answer.why)
        else:
            self.unsent = None
            await self._fail(f"the site refused the engine's move {text}: {answer.why}")

    async def _fail(self, reason: str) -> None:
        """The engine lost this game: resign it, log why, stop the engine."""
        self.failed = reason
        log.error("%s: %s; resigning", self.label, reason)
        answer = await self.api.post(f"/api/bot/game/{self.id}/resign")
        if not answer.ok:
            log.warning("%s: the resignation was refused: %s", self.label, answer.why)
        if self.engine is not None:
            await self.engine.close()
