"""A takeback on the commit path, in this process on a real Redis: the bot's turn it drops,
a bot move thought out before it that is not played after it, the bot's message id for a
ply taken back that plays that ply again, and the conditional moves it clears."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from brandubh.hub.errors import Refusal
from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import BOT_ID, GameState, Player
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts

ANN = Player("u_ann", "Ann")


@pytest.fixture
async def games(fresh_redis_url: str) -> AsyncIterator[GameService]:
    r = aioredis.Redis.from_url(fresh_redis_url)
    yield GameService(r, Scripts.register(r))
    await r.aclose()


async def bot_job(games: GameService, game_id: str) -> float | None:
    score: float | None = await games.redis.zscore(keys.bot_jobs(keys.bucket(game_id)), game_id)
    return score


async def bots_move(games: GameService, state: GameState, pick: int = 0) -> GameState:
    """The bot's move as its worker commits it (bot_turns.py): its id, its takebacks."""
    text = state.game().legal_texts()[pick]
    await games.move(
        BOT_ID, state.id, state.ply, text, f"bot-{state.ply}", takebacks=state.takebacks
    )
    return await games.load(state.id)


async def test_a_takeback_drops_the_bots_turn_and_its_stale_thought(games: GameService) -> None:
    created, _ = await games.create(ANN, "nielsen", 600, "bot", 1)
    state = await games.load(created.id)
    if state.turn == BOT_ID:  # the bot opens: its first move, as its worker would
        state = await bots_move(games, state)
    start = state.ply
    await games.move(ANN.id, state.id, start, state.game().legal_texts()[0], "m1")
    thought = await games.load(state.id)  # the bot's turn: a worker reads it and thinks
    assert thought.turn == BOT_ID and await bot_job(games, state.id) is not None
    r = games.redis
    await r.set(keys.conditional(state.id, ANN.id), '{"ply": 0, "lines": []}')

    await games.takeback(ANN.id, state.id, start + 1, "t1")
    back = await games.load(state.id)
    assert (back.ply, back.turn, back.takebacks) == (start, ANN.id, 1)
    assert await bot_job(games, state.id) is None  # no answer to a position that is gone
    assert not await r.exists(keys.conditional(state.id, ANN.id))

    # Ann plays another move; the stale thought, legal or not there, is refused.
    await games.move(ANN.id, state.id, start, back.game().legal_texts()[-1], "m2")
    assert await bot_job(games, state.id) is not None  # the bot's turn again
    stale = thought.game().legal_texts()[0]
    with pytest.raises(Refusal) as err:
        await games.move(
            BOT_ID, state.id, start + 1, stale, f"bot-{start + 1}", takebacks=thought.takebacks
        )
    assert err.value.code == "stale_ply"
    # Its new thought is played, under the same message id as any for that ply.
    now = await bots_move(games, await games.load(state.id))
    assert now.ply == start + 2 and now.turn == ANN.id

    # Taken back after the reply (two plies): the bot's id for its ply plays it again, a
    # different move this time (a stored ack would call it a resend, or an id reused).
    await games.takeback(ANN.id, state.id, now.ply, "t2")
    back = await games.load(state.id)
    assert back.ply == start and back.takebacks == 2
    await games.move(ANN.id, state.id, start, back.game().legal_texts()[-1], "m3")
    again = await games.load(state.id)
    replayed = await bots_move(games, again, pick=-1)
    assert replayed.ply == start + 2
    assert replayed.moves[-1] == again.game().legal_texts()[-1]
    moves = (await r.get(keys.moves(state.id)) or b"").decode().split()
    assert tuple(moves) == replayed.moves


async def test_a_resent_takeback_is_acknowledged_not_applied_twice(games: GameService) -> None:
    created, _ = await games.create(ANN, "nielsen", 600, "bot", 1)
    state = await games.load(created.id)
    if state.turn == BOT_ID:
        state = await bots_move(games, state)
    start = state.ply
    await games.move(ANN.id, state.id, start, state.game().legal_texts()[0], "m1")
    state = await bots_move(games, await games.load(state.id))
    first = await games.takeback(ANN.id, state.id, start + 2, "t1")
    again = await games.takeback(ANN.id, state.id, start + 2, "t1")
    assert again.duplicate and again.n == first.n
    assert (await games.load(state.id)).ply == start
    with pytest.raises(Refusal) as err:  # the same id for another ply: another action
        await games.takeback(ANN.id, state.id, start, "t1")
    assert err.value.code == "id_reused"
