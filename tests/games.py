"""Games played through a hub: moves in turn over real sockets, and quiet lines to play."""

from __future__ import annotations

import random

from brandubh.engine import Game
from wsclient import Msg, Player, Socket

# Deadlines shortened (never by touching Redis's clock): a one-minute move time is 600 ms.
FAST = {"BRANDUBH_TIME_SCALE": "0.01", "BRANDUBH_SCHEDULER_POLL_S": "0.02"}


async def play(sockets: dict[str, Socket], viewer: Player, game: str, moves: list[str]) -> Msg:
    """Play the given moves in turn; the state after the last."""
    state = (await viewer.game(game))["state"]
    for move in moves:
        mover = sockets[state["turn"]]
        mid = await mover.move(game, state["ply"], move)
        reply = await mover.reply_to(mid)
        assert reply["t"] == "ack", reply
        state = (await viewer.game(game))["state"]
    return state


def quiet_line(plies: int, ruleset: str = "nielsen", seed: int = 1) -> list[str]:
    """A line of moves from the start with no capture, no repeated position and no end."""
    rng = random.Random(seed)
    game = Game(ruleset)
    line: list[str] = []
    while len(line) < plies:
        options = [m for m in game.legal_moves() if not m.captures]
        rng.shuffle(options)
        for move in options:
            game.play(move)
            if game.result is None and game.repetitions == 1:
                line.append(str(move))
                break
            game.pop()
        else:
            raise AssertionError("no quiet move left; try another seed")
    return line
