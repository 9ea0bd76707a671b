"""A player's conditional moves in a correspondence game: "if they play X, I reply Y".

The player stores lines of moves from the game's current position, each checked with the
engine there (legal in turn, ending with the player's own reply); lines that share a
beginning must agree on each of the player's replies, so the lines form one tree. The
tree lives in one Redis key of the game's hash tag (keys.conditional), read by nothing
that reaches anyone but its owner. commit.lua prunes it with every move and queues a due
reply; conditional_turns.py plays it (docs/architecture.md, Conditional moves).
"""

from __future__ import annotations

import json
from typing import Final, NamedTuple

from redis.asyncio import Redis

from brandubh.engine import IllegalMove
from brandubh.hub.errors import Refusal
from brandubh.hub.live.changes import playing_side, stale_ply
from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import GameState
from brandubh.hub.live.terms import LIVE_UNDER_S, is_live
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis import client as redis_client

MAX_LINES: Final = 32
MAX_PLIES: Final = 6  # moves in a line, both sides', counted from the position stored at
MAX_BYTES: Final = 4096  # the stored tree, as JSON


class Tree(NamedTuple):
    """A player's conditional moves: the ply their lines start at, and the lines."""

    ply: int
    lines: list[list[str]]
    due: bool = False  # the first move of every line is the owner's reply, to play now


def parse(raw: bytes | str | None) -> Tree | None:
    """The tree stored in keys.conditional, or None."""
    if not raw:
        return None
    data = json.loads(raw)
    return Tree(int(data["ply"]), [list(line) for line in data["lines"]], bool(data.get("due")))


def check_lines(state: GameState, player_id: str, lines: list[list[str]]) -> list[list[str]]:
    """The lines in the engine's spelling, or the refusal that says which line is wrong.

    Each is played with the engine from ``state``: legal in turn, at most MAX_PLIES moves,
    with at least one of the opponent's and ending with the player's own; where lines share
    a beginning and it is the player's move, they must name the same one.
    """
    side = playing_side(state, player_id)
    if is_live(state.move_time):
        raise Refusal(
            "conditional_live",
            f"conditional moves are for games of {LIVE_UNDER_S // 3600} hour or more a move",
        )
    if len(lines) > MAX_LINES:
        raise Refusal("conditional_too_large", f"at most {MAX_LINES} lines; sent {len(lines)}")
    out: list[list[str]] = []
    replies: dict[tuple[str, ...], str] = {}  # a beginning -> the player's next move after it
    for i, line in enumerate(lines, 1):
        if not 1 <= len(line) <= MAX_PLIES:
            raise Refusal("conditional_too_large", f"line {i}: 1 to {MAX_PLIES} moves")
        game = state.game()
        spelled: list[str] = []
        theirs = own = False
        for text in line:
            own = game.side_to_move == side
            theirs = theirs or not own
            try:
                move = str(game.play(text))
            except IllegalMove as exc:
                raise Refusal(
                    "conditional_illegal", f"line {i}, move {len(spelled) + 1}: {exc}"
                ) from None
            if own and replies.setdefault(tuple(spelled), move) != move:
                raise Refusal(
                    "conditional_conflict",
                    f"line {i}, move {len(spelled) + 1}: {move} where another line plays "
                    f"{replies[tuple(spelled)]}",
                )
            spelled.append(move)
            if game.result is not None and len(spelled) < len(line):
                raise Refusal("conditional_illegal", f"line {i}: the game ends at {move}")
        if not (theirs and own):
            raise Refusal(
                "conditional_illegal",
                f"line {i}: a line answers your opponent's move and ends with your own",
            )
        if spelled not in out:
            out.append(spelled)
    return out


class Conditionals:
    """Stores and reads each player's conditional moves; only the owner's requests read them."""

    def __init__(self, redis: Redis, scripts: Scripts, games: GameService) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games

    async def store(
        self, player_id: str, game_id: str, ply: int, lines: list[list[str]]
    ) -> list[list[str]]:
        """Replace the player's lines (none: clear them) with these, checked at ``ply``."""
        state = await self.games.load(game_id)
        if ply != state.ply:
            raise stale_ply(ply, state.ply)
        lines = check_lines(state, player_id, lines)
        raw = json.dumps({"player": player_id, "ply": ply, "lines": lines}) if lines else ""
        if len(raw) > MAX_BYTES:
            raise Refusal("conditional_too_large", f"at most {MAX_BYTES} bytes stored")
        reply = await redis_client.script(
            self.scripts.conditional,
            [keys.game(game_id), keys.conditional(game_id, player_id)],
            ["store", ply, raw],
        )
        if reply[0] == b"err":
            code, detail = reply[1].decode(), reply[2].decode()
            if code == "stale_ply":
                raise stale_ply(ply, int(detail))
            raise Refusal(code)
        return lines

    async def read(self, player_id: str, game_id: str) -> Tree | None:
        """The player's own tree in a game they play, or None."""
        state = await self.games.load(game_id)
        if state.side_of(player_id) is None:
            raise Refusal("not_a_player")
        return parse(await self.redis.get(keys.conditional(game_id, player_id)))
