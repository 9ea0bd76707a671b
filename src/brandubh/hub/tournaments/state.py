"""A tournament as Redis holds it, read at one instant, and the JSON it is shown as.

Reading is one pipeline over the tournament's four keys (one hash tag: keys.py), each
record by its reader (records.py); every change goes through its own script
(changes.py). The views here are pure: the list's summary, the page's full view
(standings from the pure core, brandubh.tournaments) and the export that
``verify_tournament`` checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, NotRequired, TypeAlias, TypedDict, cast

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

from brandubh.hub.redis import keys
from brandubh.hub.tournaments import pairing, records
from brandubh.hub.tournaments.records import (
    ArenaGame,
    Entrant,
    EntrantState,
    LogEntry,
    RoundMatch,
    Status,
)
from brandubh.tournaments import Format, Settings, export

# The export's shape (brandubh.tournaments.export), reached through the package's face.
TournamentExport: TypeAlias = export.TournamentExport

# How many of each player's latest games an arena's ``tournament`` frame carries (the
# page's chips in the standings; every game in play is among them): ``frame_view``.
RECENT_GAMES: Final = 10


def frame_view(view: Mapping[str, object]) -> Mapping[str, object]:
    """What the ``tournament`` frame carries of a view: an arena's games cut to each
    player's last ``RECENT_GAMES``, each with its players' ids only (the names are in the
    standings), and each player's count (``game_counts``): the frame pushed after every
    change does not grow with every game of the arena. ``view``: ``View``, or one kept in
    PostgreSQL (JSON read back)."""
    games = view.get("games")
    if not games or not isinstance(games, list):
        return view
    counts: dict[str, int] = {}
    kept: list[FrameGame] = []
    for g in reversed(games):
        game = _frame_game(g)
        ids = (game["attackers"], game["defenders"])
        if any(counts.get(pid, 0) < RECENT_GAMES for pid in ids):
            kept.append(game)
        for pid in ids:
            counts[pid] = counts.get(pid, 0) + 1
    return {**view, "games": kept[::-1], "game_counts": counts, "recent_games": RECENT_GAMES}


def _frame_game(g: object) -> FrameGame:
    """An arena's game (``GameRow``, or one read back from PostgreSQL) as the frame has it."""
    if not isinstance(g, Mapping):
        raise ValueError("an arena's game is not an object")
    gid, result = g["id"], g["result"]
    if not isinstance(gid, str) or not (result is None or isinstance(result, str)):
        raise ValueError("an arena's game has no id or result")
    return {
        "id": gid,
        "attackers": _player_id(g["attackers"]),
        "defenders": _player_id(g["defenders"]),
        "result": result,
    }


def _player_id(player: object) -> str:
    found = player.get("id") if isinstance(player, Mapping) else None
    if not isinstance(found, str):
        raise ValueError("an arena game's player has no id")
    return found


class PlayerRef(TypedDict):
    """A player as the views name them."""

    id: str
    name: str


class Summary(TypedDict):
    """S of docs/protocol.md §2.5: what the list shows of a tournament."""

    id: str
    name: str
    format: Format
    ruleset: str
    move_time: int
    starts_at: int
    ends_at: int | None
    rounds: int | None
    players: int
    status: str
    creator: PlayerRef


class GameRow(TypedDict):
    """An arena's game in T's ``games``, in the order paired."""

    id: str
    wave: int
    attackers: PlayerRef
    defenders: PlayerRef
    result: str | None


class FrameGame(TypedDict):
    """An arena's game as the ``tournament`` frame has it: its players' ids only."""

    id: str
    attackers: str
    defenders: str
    result: str | None


class MatchGame(TypedDict):
    """A game of a round's match."""

    id: str
    attackers: PlayerRef
    defenders: PlayerRef
    result: str | None


class Me(TypedDict):
    """Where a viewer stands in a tournament (the page's "me")."""

    joined: bool
    paused: bool
    game: str | None  # the game they play now


class RoundPairing(TypedDict):
    """A match as the page's rounds show it."""

    match: str
    a: PlayerRef
    b: PlayerRef | None
    done: bool
    games: list[MatchGame]


class RoundRow(TypedDict):
    """A round robin's or Swiss's round in T's ``rounds``."""

    round: int
    pairings: list[RoundPairing]
    rests: list[PlayerRef]


class View(TypedDict):
    """T of docs/protocol.md §2.5: S and the rest of the page. ``rounds`` is S's (the
    setting) in an arena, the list of rounds in a round robin or Swiss."""

    id: str
    name: str
    format: Format
    ruleset: str
    move_time: int
    starts_at: int
    ends_at: int | None
    rounds: int | list[RoundRow] | None
    players: int
    status: str
    creator: PlayerRef
    seed_commitment: str
    seed: str | None
    now: int
    duration_min: int | None
    max_players: int | None
    round: int
    standings: list[dict[str, object]]  # brandubh.tournaments.Standing.to_json's rows
    games: NotRequired[list[GameRow]]  # an arena's
    me: NotRequired[Me]  # the asking session's (GET /api/tournaments/{id})


@dataclass
class Tournament:
    """A tournament's hash, players, games (arena) or matches (rounds), and log."""

    id: str
    fields: dict[str, str]
    players: dict[str, Entrant]
    games: dict[str, ArenaGame] = field(default_factory=dict)  # an arena's
    matches: dict[str, RoundMatch] = field(default_factory=dict)  # a round robin's, Swiss's
    roster: dict[str, float] = field(default_factory=dict)  # records.roster
    log: list[LogEntry] = field(default_factory=list)

    def number(self, name: str) -> int | None:
        value = self.fields.get(name, "")
        return int(value) if value else None

    @property
    def format(self) -> Format:
        return cast(Format, self.fields["format"])

    @property
    def status(self) -> Status:
        return Status(self.fields["status"])

    @property
    def arena(self) -> bool:
        return self.format == "arena"

    @property
    def seed(self) -> str:
        """The secret seed (hex): for the server's own pairings until revealed."""
        return self.fields["seed"]

    @property
    def public_status(self) -> str:
        """finishing (an arena past its time, games in progress) shows as running."""
        return Status.RUNNING if self.status == Status.FINISHING else self.status

    def ordered_games(self) -> list[ArenaGame]:
        """An arena's games by their number."""
        return sorted(self.games.values(), key=lambda g: g.n)

    def ordered_matches(self) -> list[RoundMatch]:
        """The matches by round, then board."""
        return sorted(self.matches.values(), key=lambda m: (m.round, m.board))

    def in_play(self) -> int:
        """Games (arena) or matches (rounds) not over."""
        if self.arena:
            return sum(1 for g in self.games.values() if not g.result)
        return sum(1 for m in self.matches.values() if not m.done)

    def free(self) -> list[Entrant]:
        """An arena's players that a wave may pair now, by id."""
        found = (p for p in self.players.values() if p.state == EntrantState.JOINED and not p.game)
        return sorted(found, key=lambda p: p.id)

    def round_over(self) -> bool:
        r = self.number("round") or 0
        return all(m.done for m in self.matches.values() if m.round == r)

    # -- views ---------------------------------------------------------------------------

    def summary(self) -> Summary:
        """S of docs/protocol.md: what the list shows of a tournament."""
        f = self.fields
        return {
            "id": self.id,
            "name": f["name"],
            "format": self.format,
            "ruleset": f["ruleset"],
            "move_time": int(f["move_time"]),
            "starts_at": int(f["starts_at"]),
            "ends_at": self.number("ends_at"),
            "rounds": self.number("rounds"),
            "players": sum(1 for p in self.players.values() if p.active),
            "status": self.public_status,
            "creator": {"id": f["creator"], "name": f["creator_name"]},
        }

    def view(self, now: int) -> View:
        """The page's view of everyone (GET /api/tournaments/{id} without "me")."""
        f = self.fields
        s = self.summary()
        out: View = {
            "id": s["id"],
            "name": s["name"],
            "format": s["format"],
            "ruleset": s["ruleset"],
            "move_time": s["move_time"],
            "starts_at": s["starts_at"],
            "ends_at": s["ends_at"],
            "rounds": s["rounds"],
            "players": s["players"],
            "status": s["status"],
            "creator": s["creator"],
            "seed_commitment": f["commitment"],
            "seed": f.get("revealed") or None,
            "now": now,
            "duration_min": self.number("duration_min"),
            "max_players": self.number("max_players"),
            "round": self.number("round") or 0,
            "standings": self.standings(),
        }
        if self.arena:
            out["games"] = [self._game(g) for g in self.ordered_games()]
        else:
            out["rounds"] = self._rounds()
        return out

    def me(self, player_id: str | None) -> Me:
        p = self.players.get(player_id or "")
        return {
            "joined": p is not None and p.active,
            "paused": p is not None and p.state == EntrantState.PAUSED,
            "game": self._current_game(p) if p is not None else None,
        }

    def _current_game(self, p: Entrant) -> str | None:
        """The game a player plays now: an arena game, or the match's latest game."""
        if not p.game:
            return None
        if self.arena:
            return p.game
        m = self.matches.get(p.game)
        return m.games[-1] if m is not None and m.games else None

    def _name(self, player_id: str) -> PlayerRef:
        p = self.players.get(player_id)
        return _ref(p) if p else {"id": player_id, "name": player_id}

    def _game(self, g: ArenaGame) -> GameRow:
        return {
            "id": g.id,
            "wave": g.wave,
            "attackers": self._name(g.attackers),
            "defenders": self._name(g.defenders),
            "result": g.result or None,
        }

    def _rounds(self) -> list[RoundRow]:
        rounds: dict[int, list[RoundPairing]] = {}
        for m in self.ordered_matches():
            games: list[MatchGame] = [
                {
                    "id": gid,
                    "attackers": self._name(m.sides[gid][0]),
                    "defenders": self._name(m.sides[gid][1]),
                    "result": m.results.get(gid),
                }
                for gid in m.games
            ]
            rounds.setdefault(m.round, []).append(
                {
                    "match": m.id,
                    "a": self._name(m.a),
                    "b": self._name(m.b) if m.b else None,
                    "done": m.done,
                    "games": games,
                }
            )
        return [
            {"round": r, "pairings": ps, "rests": self._rests(ps)}
            for r, ps in sorted(rounds.items())
        ]

    def _rests(self, pairings: list[RoundPairing]) -> list[PlayerRef]:
        """Who sits a round robin's round out (one a round when the count is odd), by join
        order; a Swiss's bye is a pairing of its own instead."""
        if self.format != "round_robin":
            return []
        paired = {p["a"]["id"] for p in pairings} | {p["b"]["id"] for p in pairings if p["b"]}
        out = [self.players[pid] for pid in self.roster if pid not in paired]
        return [_ref(p) for p in sorted(out, key=lambda p: p.n)]

    def names(self) -> dict[str, str]:
        return {p.id: p.name for p in sorted(self.players.values(), key=lambda p: p.n)}

    def standings(self) -> list[dict[str, object]]:
        names = self.names()
        return [row.to_json(names) for row in pairing.standings(self)]

    def settings(self) -> Settings:
        f = self.fields
        return Settings(
            f["name"],
            self.format,
            f["ruleset"],
            int(f["move_time"]),
            int(f["starts_at"]),
            self.number("duration_min"),
            self.number("rounds"),
            self.number("max_players") or 0,
        )

    def export(self) -> TournamentExport:
        """What ``verify_tournament`` checks (brandubh/tournaments/verify.py): the core's
        export, with the seed once revealed, and the arena's real end (``ends_at``: tests
        shorten arenas)."""
        f = self.fields
        names = self.names()
        rows = pairing.standings(self)
        revealed = f.get("revealed") or ""
        out: TournamentExport
        if revealed:
            out = export.export(
                self.id,
                self.settings(),
                bytes.fromhex(revealed),
                f["commitment"],
                names,
                [e.exported() for e in self.log],
                rows,
            )
        else:
            out = {
                "export": export.EXPORT_VERSION,
                "id": self.id,
                "settings": self.settings().to_json(),
                "seed": None,
                "seed_commitment": f["commitment"],
                "players": [{"id": pid, "name": name} for pid, name in names.items()],
                "events": [e.exported() for e in self.log],
                "standings": [row.to_json(names) for row in rows],
            }
        out["ends_at"] = self.number("ends_at")
        out["status"] = self.public_status
        return out


def _ref(p: Entrant) -> PlayerRef:
    """``Entrant.public``, typed."""
    return {"id": p.id, "name": p.name}


def summary_of(
    tournament_id: str, raw: dict[bytes, bytes], players: dict[bytes, bytes]
) -> Tournament | None:
    """A tournament from its hash and players alone (what the list shows), or None."""
    if not raw:
        return None
    raw = {k: v for k, v in raw.items() if k != b"roster"}
    return Tournament(
        tournament_id,
        {k.decode(): v.decode() for k, v in raw.items()},
        {pid.decode(): records.entrant(pid.decode(), v) for pid, v in players.items()},
    )


async def read(redis: Redis, tournament_id: str, with_log: bool = False) -> Tournament | None:
    """The tournament now (None if Redis has it no more)."""
    pipe = redis.pipeline(transaction=False)
    pipe.hgetall(keys.tournament(tournament_id))
    pipe.hgetall(keys.tournament_players(tournament_id))
    pipe.hgetall(keys.tournament_games(tournament_id))
    if with_log:
        pipe.lrange(keys.tournament_log(tournament_id), 0, -1)
    found = await pipe.execute()
    t = _built(
        tournament_id,
        cast(dict[bytes, bytes], found[0]),
        cast(dict[bytes, bytes], found[1]),
        cast(dict[bytes, bytes], found[2]),
    )
    if t is not None and with_log:
        t.log = [records.log_entry(x) for x in cast(list[bytes], found[3])]
    return t


async def snapshot(
    script: AsyncScript, tournament_id: str, bump: bool
) -> tuple[int, Tournament] | None:
    """The tournament and its frames' version at one instant (lua/tournament_snapshot.lua):
    the runner bumps the version to publish the state as it (``bump``); a new follower reads
    it, and the state read is that version's or later. None if Redis has it no more."""
    reply = await script(keys=_keys(tournament_id), args=["1" if bump else "0"])
    if not reply:
        return None
    if not isinstance(reply, list) or len(reply) != 4 or not isinstance(reply[0], int):
        raise ValueError(f"tournament_snapshot.lua answered {reply!r:.80}")
    version, raw, players, entries = reply
    t = _built(tournament_id, _pairs(raw), _pairs(players), _pairs(entries))
    return None if t is None else (version, t)


def _keys(tournament_id: str) -> list[str]:
    """The keys of lua/tournament_prelude.lua's order."""
    return [
        keys.tournament(tournament_id),
        keys.tournament_players(tournament_id),
        keys.tournament_games(tournament_id),
        keys.tournament_log(tournament_id),
    ]


def _pairs(flat: object) -> dict[bytes, bytes]:
    """HGETALL's flat list as a script returns it, as a map."""
    if not isinstance(flat, list) or not all(isinstance(x, bytes) for x in flat):
        raise ValueError("tournament_snapshot.lua answered a hash that is no list of strings")
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _built(
    tournament_id: str,
    raw: dict[bytes, bytes],
    players_raw: dict[bytes, bytes],
    entries: dict[bytes, bytes],
) -> Tournament | None:
    if not raw:
        return None
    raw = dict(raw)
    roster_raw = raw.pop(b"roster", None)
    fields = {k.decode(): v.decode() for k, v in raw.items()}
    players = {
        pid.decode(): records.entrant(pid.decode(), value) for pid, value in players_raw.items()
    }
    t = Tournament(tournament_id, fields, players, roster=records.roster(roster_raw))
    if t.arena:
        t.games = {k.decode(): records.arena_game(k.decode(), v) for k, v in entries.items()}
    else:
        t.matches = {k.decode(): records.round_match(k.decode(), v) for k, v in entries.items()}
    return t
