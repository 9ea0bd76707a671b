"""A Bot API move's token check inside its commit (lua/commit.lua given the token's keys,
lua/token_check.lua): checked first, refusing with nothing of the game changed; counted
once, and counted even when the commit itself then refuses; on a real Redis, through the
lane, with two game services on it (two hubs' caches)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import redis.asyncio as aioredis

from brandubh.hub.errors import Refusal
from brandubh.hub.live.games import GameService
from brandubh.hub.live.matches import MatchService
from brandubh.hub.live.state import GameState, Player
from brandubh.hub.redis import TokenAnswer, TokenCheck, keys
from brandubh.hub.redis.lane import Lane
from brandubh.hub.redis.scripts import Scripts

A, B = Player("u_ann", "Ann"), Player("u_bob", "Bob")
TOKEN = "tok_one"
WINDOW_MS = 60_000


class Refused(Exception):
    """What the judge raised: the token's answer refused the request."""


@dataclass
class Judge:
    """The tokens' guard's part, as a record: each answer, a refusal raised as ``Refused``."""

    answers: list[TokenAnswer] = field(default_factory=list)

    def __call__(self, answer: TokenAnswer) -> None:
        self.answers.append(answer)
        if answer.state:
            raise Refused(answer)


def check_of(judge: Judge, nonce: str, most: int = 10) -> TokenCheck:
    return TokenCheck(
        keys.api_requests(TOKEN),
        keys.api_revoked(TOKEN),
        keys.api_bot(B.id),
        WINDOW_MS,
        nonce,
        most,
        judge,
    )


@dataclass
class Two:
    redis: aioredis.Redis
    here: GameService  # the hub the bot's moves reach
    there: GameService  # another hub, whose commits this one's cache does not see


@pytest.fixture
async def two(fresh_redis_url: str) -> AsyncIterator[Two]:
    r = aioredis.Redis.from_url(fresh_redis_url)
    scripts = Scripts.register(r)
    lanes = [Lane(r.connection_pool, timeout_s=10) for _ in range(2)]
    yield Two(
        r,
        GameService(r, scripts, lane=lanes[0], hub_id="hub-here"),
        GameService(r, scripts, lane=lanes[1], hub_id="hub-there"),
    )
    for lane in lanes:
        await lane.aclose()
    await r.aclose()


async def started(games: GameService) -> GameState:
    _, game_id = await MatchService(games.redis, games).start(A, B, "nielsen", 600, None)
    return await games.load(game_id)


async def counted(r: aioredis.Redis) -> int:
    return int(await r.zcard(keys.api_requests(TOKEN)))


async def seq_of(r: aioredis.Redis, game_id: str) -> int:
    return int(await r.hget(keys.game(game_id), "seq") or 0)


async def test_a_move_is_counted_once_and_its_bot_mark_seen(two: Two) -> None:
    state = await started(two.here)
    judge = Judge()
    await two.redis.set(keys.api_bot(B.id), 1)
    first = state.game().legal_texts()[0]
    done = await two.here.move(state.turn, state.id, 0, first, "m0", check=check_of(judge, "n0"))
    assert done.n == state.seq + 1
    assert judge.answers == [TokenAnswer(0, 0, True)]
    assert await counted(two.redis) == 1


async def test_a_revoked_token_commits_nothing(two: Two) -> None:
    state = await started(two.here)
    await two.redis.set(keys.api_revoked(TOKEN), 1)
    judge = Judge()
    first = state.game().legal_texts()[0]
    with pytest.raises(Refused):
        await two.here.move(state.turn, state.id, 0, first, "m0", check=check_of(judge, "n0"))
    assert judge.answers == [TokenAnswer(-1, 0, False)]
    assert await seq_of(two.redis, state.id) == state.seq
    assert await counted(two.redis) == 0
    assert not await two.redis.hexists(keys.acks(state.id), f"{state.turn}:m0")


async def test_a_full_window_commits_nothing_and_counts_nothing(two: Two) -> None:
    state = await started(two.here)
    await two.redis.zadd(keys.api_requests(TOKEN), {"earlier": await now_ms(two.redis)})
    judge = Judge()
    first = state.game().legal_texts()[0]
    full = check_of(judge, "n0", most=1)
    with pytest.raises(Refused):
        await two.here.move(state.turn, state.id, 0, first, "m0", check=full)
    (answer,) = judge.answers
    assert answer.state == 1 and 0 < answer.wait_ms <= WINDOW_MS
    assert await seq_of(two.redis, state.id) == state.seq
    assert await counted(two.redis) == 1  # the earlier request only


async def now_ms(r: aioredis.Redis) -> int:
    seconds, micros = await r.time()
    return int(seconds) * 1000 + int(micros) // 1000


async def test_a_move_the_script_refuses_is_still_counted(two: Two) -> None:
    """The cache of the bot's hub is a ply behind (another hub committed since): the move
    is built on it, and commit.lua, having counted the request, refuses it."""
    state = await started(two.here)
    game = state.game()
    first = game.legal_texts()[0]
    await two.here.move(state.turn, state.id, 0, first, "m0")  # this hub's cache: ply 1
    after = await two.there.load(state.id)
    second = after.game().legal_texts()[0]
    await two.there.move(after.turn, state.id, 1, second, "m1")  # Redis: ply 2, unseen here
    judge = Judge()
    with pytest.raises(Refusal) as refused:
        await two.here.move(after.turn, state.id, 1, second, "bot-1", check=check_of(judge, "n1"))
    assert refused.value.code == "stale_ply"
    assert judge.answers == [TokenAnswer(0, 0, False)]  # checked, by the commit's call
    assert await counted(two.redis) == 1
    assert await seq_of(two.redis, state.id) == state.seq + 2


async def test_a_move_that_races_is_counted_once(two: Two) -> None:
    """The commit answers ``retry`` (the game moved since the cached state, a draw offer
    by the other hub): the move is built again and committed, the token counted once."""
    state = await started(two.here)
    first = state.game().legal_texts()[0]
    await two.here.move(state.turn, state.id, 0, first, "m0")  # this hub's cache: ply 1
    await two.there.offer_draw(state.turn, state.id, "d1")  # seq moves, the ply does not
    after = await two.there.load(state.id)
    second = after.game().legal_texts()[0]
    judge = Judge()
    check = check_of(judge, "n1")
    done = await two.here.move(after.turn, state.id, 1, second, "bot-1", check=check)
    assert done.n == state.seq + 3
    assert judge.answers == [TokenAnswer(0, 0, False)]
    assert await counted(two.redis) == 1
