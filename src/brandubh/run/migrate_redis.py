"""``brandubh migrate-from-redis``: move the permanent record an earlier version kept in
Redis (accounts, ratings, histories, the archive, finished matches) into PostgreSQL.

Idempotent: every row is inserted unless there already, in one transaction; only after it
commits is what was moved removed from Redis (the finished games' live keys get the grace
expiry, like games archived today). A second run finds nothing left and changes nothing.
Ratings are copied as they are, never computed again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import msgpack
from redis.asyncio import Redis
from sqlalchemy import Table
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from brandubh.engine import format_record
from brandubh.hub.live import GameService, GameState, Hash
from brandubh.hub.redis import Scripts, keys
from brandubh.store import Store, tables


@dataclass
class Moved:
    accounts: int = 0
    games: int = 0
    ratings: int = 0
    history: int = 0
    matches: int = 0
    keys_removed: int = 0

    def __str__(self) -> str:
        return (
            f"{self.accounts} accounts, {self.games} games, {self.ratings} ratings, "
            f"{self.history} rating history points, {self.matches} matches moved; "
            f"{self.keys_removed} Redis keys removed"
        )


class OldKeys:
    """The keys an earlier version kept its permanent record under, all in the {acct} slot
    (``keys.ACCT``): read by this command alone, which deletes what it has moved. Given
    "*" for their parts, they are SCAN patterns (braces are no wildcard in those)."""

    @staticmethod
    def emails() -> str:
        """Hash: normalised email -> account id."""
        return f"{keys.ACCT}:emails"

    @staticmethod
    def account(account_id: str) -> str:
        """Hash: an account (email, name, argon2 hash, created, leaderboard opt-in)."""
        return f"{keys.ACCT}:a:{account_id}"

    @staticmethod
    def rating(player_id: str, ruleset: str) -> str:
        """Hash: a player's Glicko-2 rating in one rule set (r, rd, vol, n games, last ms)."""
        return f"{keys.ACCT}:r:{player_id}:{ruleset}"

    @staticmethod
    def rating_history(player_id: str, ruleset: str) -> str:
        """List: "ended ms|rating|rd|game id" after each rated game, oldest first."""
        return f"{keys.ACCT}:h:{player_id}:{ruleset}"

    @staticmethod
    def player_games(player_id: str) -> str:
        """Sorted set: a player's finished games -> when they ended (ms)."""
        return f"{keys.ACCT}:pg:{player_id}"

    @staticmethod
    def archived() -> str:
        """Hash: game id -> its summary (JSON) once archived."""
        return f"{keys.ACCT}:done"

    @staticmethod
    def leaderboard(ruleset: str) -> str:
        """Sorted set: opted-in players with a non-provisional rating -> rating."""
        return f"{keys.ACCT}:lb:{ruleset}"


async def _scan(redis: Redis, pattern: str) -> list[str]:
    return [k.decode() async for k in redis.scan_iter(match=pattern, count=1000)]


def _s(h: dict[bytes, bytes], name: str, default: str = "") -> str:
    v = h.get(name.encode())
    return v.decode() if v is not None else default


async def migrate(redis: Redis, store: Store, grace_ms: int) -> Moved:
    """Move everything; what was moved."""
    moved = Moved()
    service = GameService(redis, Scripts.register(redis))
    account_keys = await _scan(redis, OldKeys.account("*"))
    rating_keys = await _scan(redis, OldKeys.rating("*", "*"))
    history_keys = await _scan(redis, OldKeys.rating_history("*", "*"))
    list_keys = await _scan(redis, OldKeys.player_games("*"))
    board_keys = await _scan(redis, OldKeys.leaderboard("*"))
    match_keys = await _scan(redis, f"{keys.PREFIX}:{{p*}}:match:*")  # every bucket's
    archived = cast(dict[bytes, bytes], await redis.hgetall(OldKeys.archived()))

    account_rows = []
    for key in account_keys:
        h = cast(dict[bytes, bytes], await redis.hgetall(key))
        if not h.get(b"email"):
            continue
        account_rows.append(
            {
                "id": key.rsplit(":", 1)[1],
                "email": _s(h, "email"),
                "name": _s(h, "name"),
                "password_hash": _s(h, "hash"),
                "created": int(_s(h, "created", "0") or 0),
                "leaderboard": _s(h, "leaderboard") == "1",
            }
        )
    known = {row["id"] for row in account_rows}

    game_rows = []
    for raw_id, raw_summary in archived.items():
        summary = _object(json.loads(raw_summary))
        game_rows.append(await _game_row(redis, service, raw_id.decode(), summary))
    archived_ids = {raw_id.decode() for raw_id in archived}  # each game row's id

    player_rows = []
    for key in list_keys:
        pid = key.rsplit(":", 1)[1]
        listed = cast(list[tuple[bytes, float]], await redis.zrange(key, 0, -1, withscores=True))
        for raw_gid, ended in listed:
            gid = raw_gid.decode()
            if gid in archived_ids:
                player_rows.append({"player_id": pid, "game_id": gid, "ended": int(ended)})

    rating_rows = []
    for key in rating_keys:
        _, pid, ruleset = key.rsplit(":", 2)
        h = cast(dict[bytes, bytes], await redis.hgetall(key))
        if pid not in known or not h.get(b"r"):
            continue
        rating_rows.append(
            {
                "player_id": pid,
                "ruleset": ruleset,
                "rating": float(_s(h, "r")),
                "rd": float(_s(h, "rd")),
                "volatility": float(_s(h, "vol")),
                "games": int(_s(h, "n", "0") or 0),
                "last": int(_s(h, "last", "0") or 0),
            }
        )
    history_rows = []
    for key in history_keys:
        _, pid, ruleset = key.rsplit(":", 2)
        if pid not in known:
            continue
        for item in cast(list[bytes], await redis.lrange(key, 0, -1)):
            t, r, rd, gid = item.decode().split("|")
            if gid in archived_ids:
                history_rows.append(
                    {
                        "player_id": pid,
                        "ruleset": ruleset,
                        "game_id": gid,
                        "t": int(t),
                        "rating": float(r),
                        "rd": float(rd),
                    }
                )

    match_rows = []
    finished_matches = []
    for key in match_keys:
        h = cast(dict[bytes, bytes], await redis.hgetall(key))
        if _s(h, "status") != "finished":
            continue
        summary = _match_summary(h)
        finished_matches.append(key)
        match_rows.append(
            {
                "id": summary["id"],
                "ruleset": summary["ruleset"],
                "player_a": _s(h, "a"),
                "player_b": _s(h, "b"),
                "points_a": float(_s(h, "points_a", "0")),
                "points_b": float(_s(h, "points_b", "0")),
                "winner": _s(h, "winner") or None,
                "games": _s(h, "games"),
                "ended": 0,
                "summary": summary,
            }
        )

    async with store.engine.begin() as conn:
        moved.accounts = await _insert(conn, tables.accounts, account_rows)
        moved.games = await _insert(conn, tables.games, game_rows)
        await _insert(conn, tables.game_players, player_rows)
        moved.ratings = await _insert(conn, tables.ratings, rating_rows)
        moved.history = await _insert(conn, tables.rating_history, history_rows)
        moved.matches = await _insert(conn, tables.matches, match_rows)

    # Committed: now let go of what was moved.
    gone = [
        *account_keys,
        *rating_keys,
        *history_keys,
        *list_keys,
        *board_keys,
        OldKeys.emails(),
        OldKeys.archived(),
    ]
    pipe = redis.pipeline(transaction=False)
    for key in gone:
        pipe.delete(key)
    for gid in archived_ids:
        for key in (keys.game(gid), keys.events(gid), keys.acks(gid), keys.seed(gid)):
            pipe.pexpire(key, grace_ms)
    for key in finished_matches:
        pipe.pexpire(key, grace_ms)
    results = await pipe.execute()
    moved.keys_removed = sum(int(n) for n in results[: len(gone)])
    return moved


async def _insert(conn: AsyncConnection, table: Table, rows: Sequence[Mapping[str, object]]) -> int:
    """Insert the rows not there yet; how many were new."""
    done = 0
    for i in range(0, len(rows), 500):
        result = await conn.execute(
            insert(table).values(rows[i : i + 500]).on_conflict_do_nothing()
        )
        done += max(0, result.rowcount or 0)
    return done


async def _game_row(
    redis: Redis, service: GameService, game_id: str, summary: dict[str, object]
) -> dict[str, object]:
    """A games row from the summary the old archive kept and, where still in Redis, the
    game's own hash and seed (every read of the game comes from these)."""
    raw = cast(Hash, await redis.hgetall(keys.game(game_id)))
    players = _object(summary.get("players") or {})
    att, dfn = _object(players.get("attackers") or {}), _object(players.get("defenders") or {})
    result = _object(summary.get("result") or {})
    row: dict[str, object] = {
        "id": game_id,
        "ruleset": summary["ruleset"],
        "rated": bool(summary.get("rated")),
        "opponent": summary.get("opponent") or "friend",
        "bot_level": summary.get("bot_level"),
        "attacker_id": att.get("id"),
        "attacker_name": att.get("name"),
        "defender_id": dfn.get("id"),
        "defender_name": dfn.get("name"),
        "winner": result.get("winner"),
        "reason": result.get("reason") or "",
        "plies": _int(summary.get("plies")),
        "move_time": _int(summary.get("move_time")),
        "created": _int(summary.get("created")),
        "ended": _int(summary.get("ended")),
        "moves": "",
        "seed": "",
        "commitment": "",
        "record": "",
        "match_id": None,
        "match_no": None,
        "summary": summary,
        "final": b"",
        "final_seq": 0,
    }
    if raw:
        state = GameState.from_hash(game_id, raw)
        seed = (await service.seed(game_id)).hex()
        row.update(
            moves=" ".join(state.moves),
            seed=seed,
            commitment=state.commitment,
            record=format_record(await service.record(state)),
            match_id=state.match or None,
            match_no=state.match_no or None,
            final=cast(bytes, msgpack.packb(raw, use_bin_type=True)),
            final_seq=state.seq,
        )
    return row


def _object(found: object) -> dict[str, object]:
    """A JSON object of the old archive's summaries."""
    if not isinstance(found, dict):
        raise ValueError(f"the old archive holds {found!r:.60} where an object belongs")
    return found


def _int(found: object) -> int:
    """A whole number of an old summary (0 when it has none)."""
    if not found:
        return 0
    if not isinstance(found, int | float | str):
        raise ValueError(f"the old archive holds {found!r:.60} where a number belongs")
    return int(found)


def _match_summary(h: dict[bytes, bytes]) -> dict[str, object]:
    """The shape GET /api/matches/<id> answers (matches.MatchService.summary)."""
    a, b = _s(h, "a"), _s(h, "b")
    return {
        "id": _s(h, "id"),
        "ruleset": _s(h, "ruleset"),
        "players": [{"id": a, "name": _s(h, "a_name")}, {"id": b, "name": _s(h, "b_name")}],
        "score": {a: float(_s(h, "points_a", "0")), b: float(_s(h, "points_b", "0"))},
        "games": _s(h, "games").split(),
        "status": "finished",
        "chooser": _s(h, "chooser") or None,
        "winner": _s(h, "winner") or None,
    }
