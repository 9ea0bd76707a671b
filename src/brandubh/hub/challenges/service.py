"""Challenges (docs/protocol.md §2.10): making one (a waiting friend game with an invitee,
origin "challenge", its own record beside it), listing an account's open ones, accepting
(the game starts: GameService.join), declining with a reason (changes.decline) and
cancelling (GameService.withdraw); each told to both accounts (notices.py). Who may
challenge whom and the terms are records.py's; this module does the reading and writing."""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Final, cast

from redis.asyncio import Redis

from brandubh.hub.accounts import Accounts
from brandubh.hub.challenges import records
from brandubh.hub.challenges.notices import AccountNotices
from brandubh.hub.challenges.records import Extra, Party
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.live import WAITING_TTL_S, GameService, GameState, Player, mygames, new_game_id
from brandubh.hub.redis import Scripts, keys

MAX_OPEN: Final = 10  # open outgoing challenges per account
PER_WINDOW: Final = 20  # challenges an account may make per window
WINDOW_S: Final = 600.0
MAX_LISTED: Final = 50  # open challenges read per direction (at most MAX_OPEN go out)


# Whether one account blocks another: (blocker id, blocked id) -> bool (hub/social/).
# No challenge is made or accepted between two accounts one of whom blocks the other.
Blocks = Callable[[str, str], Awaitable[bool]]


async def no_blocks(blocker: str, blocked: str) -> bool:
    return False


def no_challenge(game_id: str) -> Refusal:
    return Refusal("not_found", f"there is no challenge {game_id}")


class Challenges:
    """Every hub's challenges: made, listed, answered, told."""

    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        accounts: Accounts,
        notices: AccountNotices,
        *,
        per_window: int = PER_WINDOW,
        window_s: float = WINDOW_S,
        blocks: Blocks = no_blocks,
    ) -> None:
        self.blocks = blocks
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.accounts = accounts
        self.notices = notices
        self.per_window = per_window
        self.window_s = window_s

    # -- making one ----------------------------------------------------------------------

    async def target(self, player_id: str) -> tuple[Party, bool]:
        """The account challenged and whether it lets bots challenge it (``not_found``:
        no such player, or one whose address is not confirmed)."""
        account = await self.accounts.get(player_id)
        if account is None or not await self.accounts.is_verified(player_id):
            raise Refusal("not_found", f"there is no player {player_id}")
        return Party(account.id, account.name, account.bot), account.bot_challenges

    async def create(
        self, challenger: Party, target_id: str, body: Mapping[str, object]
    ) -> dict[str, object]:
        """Challenge ``target_id`` on the terms of ``body``: the challenge as made."""
        target, allows_bots = await self.target(target_id)
        terms = records.parse_terms(body)
        records.refusal_to_challenge(challenger, target, allows_bots)
        await self._check_blocks(challenger.id, target)
        game_id = new_game_id()
        await self._reserve(challenger.id, game_id)
        try:
            await self._count(challenger.id)
            bots = tuple(p.id for p in (challenger, target) if p.bot)
            state, _ = await self.games.create(
                Player(challenger.id, challenger.name),
                terms.ruleset,
                terms.move_time,
                "friend",
                rated=terms.rated,
                invitee=target.id,
                game_id=game_id,
                origin="challenge",
                bots=bots,
                creator_side=terms.creator_side,
            )
        except BaseException:
            await self.redis.zrem(keys.challenges_out(challenger.id), game_id)
            raise
        extra = Extra(target, challenger.bot, terms.side)
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(keys.challenge(game_id), extra.pack(), ex=WAITING_TTL_S)
        # Both indexes ordered by the game's creation on Redis's clock (the place taken
        # above had this hub's).
        pipe.zadd(keys.challenges_out(challenger.id), {game_id: state.created}, xx=True)
        pipe.zadd(keys.challenges_in(target.id), {game_id: state.created})
        pipe.expire(keys.challenges_in(target.id), WAITING_TTL_S)
        await pipe.execute()
        view = records.challenge_view(state, extra)
        await self.notices.publish([challenger.id, target.id], records.CHALLENGE, view)
        return view

    async def _check_blocks(self, challenger: str, target: Party) -> None:
        """No challenge across a block, either way; the words say no more than needed."""
        if await self.blocks(target.id, challenger):
            raise Refusal("blocked", f"{target.name} does not accept challenges from you")
        if await self.blocks(challenger, target.id):
            raise Refusal("blocked", f"you block {target.name}: unblock them to challenge them")

    async def _reserve(self, account_id: str, game_id: str) -> None:
        """Take a place among the account's open challenges before the game is made, so
        that two made at once cannot both pass the cap (``too_many_challenges``)."""
        out = keys.challenges_out(account_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(out, {game_id: time.time() * 1000})
        pipe.expire(out, WAITING_TTL_S)
        pipe.zrange(out, 0, -1)
        held = [raw.decode() for raw in cast(list[bytes], (await pipe.execute())[2])]
        if len(held) <= MAX_OPEN:
            return
        # Over the cap: drop the entries of challenges no longer open, then count again.
        await self._open_states(out, [g for g in held if g != game_id])
        if await self.redis.zcard(out) > MAX_OPEN:
            await self.redis.zrem(out, game_id)
            raise Refusal("too_many_challenges")

    async def _count(self, account_id: str) -> None:
        """Count a challenge made in the account's window, or refuse (``rate_limited``)."""
        reply = await self.scripts.windows(
            keys=[keys.challenge_limits(account_id)],
            args=[int(self.window_s * 1000), secrets.token_hex(8), self.per_window],
        )
        if int(reply[0]):
            wait = max(1, math.ceil(int(reply[1]) / 1000))
            raise RateLimited(
                f"you made {self.per_window} challenges in {self.window_s / 60:g} minutes: "
                f"try again in {wait} s",
                wait,
            )

    # -- reading -------------------------------------------------------------------------

    async def _open_states(self, index: str, ids: list[str]) -> list[tuple[GameState, Extra]]:
        """The challenges of an index still open, in its order; the others leave it."""
        found: list[tuple[GameState, Extra]] = []
        gone: list[str] = []
        for game_id in ids:
            got = await self._read(game_id)
            if got is None or got[0].status != "waiting":
                gone.append(game_id)
            else:
                found.append(got)
        if gone:
            await self.redis.zrem(index, *gone)
        return found

    async def _read(self, game_id: str) -> tuple[GameState, Extra] | None:
        """A challenge's game and record, or None when it is no challenge (or forgotten)."""
        raw = cast(bytes | None, await self.redis.get(keys.challenge(game_id)))
        if raw is None:
            return None
        try:
            state = await self.games.load(game_id)
        except Refusal as exc:
            if exc.code == "not_found":
                return None
            raise
        return state, Extra.unpack(raw)

    async def get(self, game_id: str) -> tuple[GameState, Extra]:
        got = await self._read(game_id)
        if got is None:
            raise no_challenge(game_id)
        return got

    async def open_of(self, account_id: str, newest_first: bool = True) -> dict[str, list[object]]:
        """The account's open challenges: {"in": [...], "out": [...]}, newest first (or
        oldest first, as the event stream gives them)."""
        out: dict[str, list[object]] = {}
        for name, index in (
            ("in", keys.challenges_in(account_id)),
            ("out", keys.challenges_out(account_id)),
        ):
            read = self.redis.zrevrange if newest_first else self.redis.zrange
            ids = [raw.decode() for raw in cast(list[bytes], await read(index, 0, MAX_LISTED))]
            out[name] = [
                records.challenge_view(s, e) for s, e in await self._open_states(index, ids)
            ]
        return out

    async def opening_lines(self, account_id: str) -> list[bytes]:
        """What an event stream starts with: a ``challenge`` line for every open challenge
        to or from the account, oldest first, then a ``gameStart`` for each game in
        progress."""
        both = await self.open_of(account_id, newest_first=False)
        views = sorted(
            (cast(dict[str, object], v) for v in [*both["in"], *both["out"]]),
            key=lambda v: (cast(int, v["created"]), str(v["id"])),
        )
        lines = [records.line(records.CHALLENGE, v, account_id) for v in views]
        cards = await mygames.playing(self.redis, self.games.load, account_id)
        for card in cards:  # as the "your games" list orders them: yours to move first
            state = await self.games.load(card["id"])
            lines.append(records.line(records.GAME_START, records.game_view(state), account_id))
        return [text for text in lines if text is not None]

    # -- answering -----------------------------------------------------------------------

    async def _closed(self, state: GameState, extra: Extra, kind: str) -> dict[str, object]:
        """A challenge no longer open: off both indexes, told to both accounts."""
        creator, invitee = state.creator.id, extra.to.id
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(keys.challenges_out(creator), state.id)
        pipe.zrem(keys.challenges_in(invitee), state.id)
        await pipe.execute()
        view = records.challenge_view(state, extra)
        await self.notices.publish([creator, invitee], kind, view)
        return view

    async def accept(self, player: Player, game_id: str) -> GameState:
        """The challenged account accepts: the game starts. Asked again, the same answer."""
        state, extra = await self.get(game_id)
        _check_invitee(state, player.id, "accept")
        if state.is_player(player.id):
            return state  # accepted already
        if state.declined:
            raise Refusal("game_not_waiting", "you declined this challenge")
        # A block made since the challenge: it cannot be accepted either (decline it).
        if await self.blocks(player.id, state.creator.id) or await self.blocks(
            state.creator.id, player.id
        ):
            raise Refusal(
                "blocked", f"a block stands between you and {state.creator.name}: decline it"
            )
        started = await self.games.join(player, game_id, state.invite)
        await self._closed(started, extra, records.ACCEPTED)
        return started

    async def decline(self, player_id: str, game_id: str, reason: str) -> dict[str, object]:
        """The challenged account declines, giving ``reason``. Asked again, the same answer."""
        state, extra = await self.get(game_id)
        _check_invitee(state, player_id, "decline")
        if state.declined:
            return records.challenge_view(state, extra)
        try:
            done = await self.games.decline(player_id, game_id, reason)
        except Refusal as exc:
            if exc.code != "game_not_waiting":
                raise
            now = await self.games.load(game_id)
            if now.withdrawn() and not now.declined:
                raise Refusal(
                    "invitation_withdrawn", f"{now.creator.name} cancelled this challenge"
                ) from None
            if now.status != "waiting" and not now.withdrawn():
                raise Refusal("game_not_waiting", "you accepted this challenge") from None
            raise
        return await self._closed(done, extra, records.DECLINED)

    async def cancel(self, player_id: str, game_id: str) -> dict[str, object]:
        """The challenger cancels. Asked again (or once declined), nothing changes."""
        state, extra = await self.get(game_id)
        if state.creator.id != player_id:
            raise Refusal("not_yours", "only the player who sent this challenge can cancel it")
        if state.withdrawn():
            return records.challenge_view(state, extra)
        try:
            done = await self.games.withdraw(player_id, game_id)
        except Refusal as exc:
            if exc.code != "game_not_waiting":
                raise
            now = await self.games.load(game_id)
            if now.withdrawn():  # cancelled (or declined) meanwhile: nothing left to do
                return records.challenge_view(now, extra)
            raise
        return await self._closed(done, extra, records.CANCELED)


def _check_invitee(state: GameState, player_id: str, act: str) -> None:
    """Only the challenged account accepts or declines (``not_invited``)."""
    if state.invitee == player_id:
        return
    if state.creator.id == player_id:
        raise Refusal("not_invited", f"you sent this challenge: you cannot {act} it (cancel it)")
    raise Refusal("not_invited", f"this challenge is for another player: you cannot {act} it")
