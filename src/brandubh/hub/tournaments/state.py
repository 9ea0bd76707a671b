"""A tournament as Redis holds it, read at one instant, and the JSON it is shown as.

Reading is one pipeline over the tournament's four keys (one hash tag: keys.py); every
change goes through lua/tournament.lua (runner.py, service.py). The views here are pure: the list's
summary, the page's full view (standings from the pure core, brandubh.tournaments) and
the export that ``verify_tournament`` checks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, cast

from redis.asyncio import Redis

from brandubh.hub.redis import keys
from brandubh.hub.tournaments import pairing
from brandubh.tournaments import Format, Settings, export

# How many of each player's latest games an arena's ``tournament`` frame carries (the
# page's chips in the standings; every game in play is among them): ``frame_view``.
RECENT_GAMES: Final = 10


def frame_view(view: dict[str, Any]) -> dict[str, Any]:
    """What the ``tournament`` frame carries of a view: an arena's games cut to each
    player's last ``RECENT_GAMES``, each with its players' ids only (the names are in the
    standings), and each player's count (``game_counts``): the frame pushed after every
    change does not grow with every game of the arena."""
    games = view.get("games")
    if not games:
        return view
    counts: dict[str, int] = {}
    kept = []
    for g in reversed(games):
        ids = (g["attackers"]["id"], g["defenders"]["id"])
        if any(counts.get(pid, 0) < RECENT_GAMES for pid in ids):
            kept.append(
                {"id": g["id"], "attackers": ids[0], "defenders": ids[1], "result": g["result"]}
            )
        for pid in ids:
            counts[pid] = counts.get(pid, 0) + 1
    return {**view, "games": kept[::-1], "game_counts": counts, "recent_games": RECENT_GAMES}


@dataclass
class Entrant:
    """One player of a tournament."""

    id: str
    name: str
    rating: float
    state: str  # joined | paused | withdrawn
    game: str  # the game (arena) or match (rounds) they play now, "" for none
    free: int  # when they were last free (ms)
    n: int  # join order, from 1

    @property
    def active(self) -> bool:
        return self.state != "withdrawn"

    def public(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


@dataclass
class Tournament:
    """A tournament's hash, players, games (arena) or matches (rounds), and log."""

    id: str
    fields: dict[str, str]
    players: dict[str, Entrant]
    entries: dict[str, dict[str, Any]]  # arena: game id -> game; rounds: match id -> match
    log: list[dict[str, Any]] = field(default_factory=list)

    def number(self, name: str) -> int | None:
        value = self.fields.get(name, "")
        return int(value) if value else None

    @property
    def format(self) -> str:
        return self.fields["format"]

    @property
    def status(self) -> str:
        return self.fields["status"]

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
        return "running" if self.status == "finishing" else self.status

    def ordered_entries(self) -> list[tuple[str, dict[str, Any]]]:
        """Arena games by their number; matches by round, then board."""
        if self.arena:
            return sorted(self.entries.items(), key=lambda kv: int(kv[1]["n"]))
        return sorted(self.entries.items(), key=lambda kv: (kv[1]["round"], _board(kv[0])))

    def in_play(self) -> int:
        """Games (arena) or matches (rounds) not over."""
        if self.arena:
            return sum(1 for g in self.entries.values() if not g["result"])
        return sum(1 for m in self.entries.values() if not m["done"])

    def free(self) -> list[Entrant]:
        """An arena's players that a wave may pair now, by id."""
        found = (p for p in self.players.values() if p.state == "joined" and not p.game)
        return sorted(found, key=lambda p: p.id)

    def round_over(self) -> bool:
        r = self.number("round") or 0
        return all(m["done"] for m in self.entries.values() if m["round"] == r)

    # -- views ---------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
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

    def view(self, now: int) -> dict[str, Any]:
        """The page's view of everyone (GET /api/tournaments/{id} without "me")."""
        f = self.fields
        out = self.summary()
        out.update(
            seed_commitment=f["commitment"],
            seed=f.get("revealed") or None,
            now=now,
            duration_min=self.number("duration_min"),
            max_players=self.number("max_players"),
            round=self.number("round") or 0,
            standings=self.standings(),
        )
        if self.arena:
            out["games"] = [self._game(gid, g) for gid, g in self.ordered_entries()]
        else:
            out["rounds"] = self._rounds()
        return out

    def me(self, player_id: str | None) -> dict[str, Any]:
        p = self.players.get(player_id or "")
        return {
            "joined": p is not None and p.active,
            "paused": p is not None and p.state == "paused",
            "game": self._current_game(p) if p is not None else None,
        }

    def _current_game(self, p: Entrant) -> str | None:
        """The game a player plays now: an arena game, or the match's latest game."""
        if not p.game:
            return None
        if self.arena:
            return p.game
        games = pairing.ids(self.entries.get(p.game, {}).get("games"))
        return games[-1] if games else None

    def _name(self, player_id: str) -> dict[str, str]:
        p = self.players.get(player_id)
        return p.public() if p else {"id": player_id, "name": player_id}

    def _game(self, gid: str, g: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": gid,
            "wave": g["wave"],
            "attackers": self._name(g["attackers"]),
            "defenders": self._name(g["defenders"]),
            "result": g["result"] or None,
        }

    def _rounds(self) -> list[dict[str, Any]]:
        rounds: dict[int, list[dict[str, Any]]] = {}
        for mid, m in self.ordered_entries():
            sides = m.get("sides") or {}
            results = m.get("results") or {}
            games = [
                {
                    "id": gid,
                    "attackers": self._name(sides[gid][0]),
                    "defenders": self._name(sides[gid][1]),
                    "result": results.get(gid),
                }
                for gid in pairing.ids(m.get("games"))
            ]
            rounds.setdefault(int(m["round"]), []).append(
                {
                    "match": mid,
                    "a": self._name(m["a"]),
                    "b": self._name(m["b"]) if m["b"] else None,
                    "done": bool(m["done"]),
                    "games": games,
                }
            )
        return [
            {"round": r, "pairings": ps, "rests": self._rests(ps)}
            for r, ps in sorted(rounds.items())
        ]

    def _rests(self, pairings: list[dict[str, Any]]) -> list[dict[str, str]]:
        """Who sits a round robin's round out (one a round when the count is odd), by join
        order; a Swiss's bye is a pairing of its own instead."""
        if self.format != "round_robin":
            return []
        paired = {p[side]["id"] for p in pairings for side in ("a", "b") if p[side]}
        out = [self.players[pid] for pid in pairing.start_ratings(self) if pid not in paired]
        return [p.public() for p in sorted(out, key=lambda p: p.n)]

    def names(self) -> dict[str, str]:
        return {p.id: p.name for p in sorted(self.players.values(), key=lambda p: p.n)}

    def standings(self) -> list[dict[str, Any]]:
        names = self.names()
        return [row.to_json(names) for row in pairing.standings(self)]

    def settings(self) -> Settings:
        f = self.fields
        return Settings(
            f["name"],
            cast(Format, self.format),
            f["ruleset"],
            int(f["move_time"]),
            int(f["starts_at"]),
            self.number("duration_min"),
            self.number("rounds"),
            self.number("max_players") or 0,
        )

    def export(self) -> dict[str, Any]:
        """What ``verify_tournament`` checks (brandubh/tournaments/verify.py): the core's
        export, with the seed once revealed, and the arena's real end (``ends_at``: tests
        shorten arenas)."""
        f = self.fields
        names = self.names()
        rows = pairing.standings(self)
        revealed = f.get("revealed") or ""
        if revealed:
            out = export.export(
                self.id,
                self.settings(),
                bytes.fromhex(revealed),
                f["commitment"],
                names,
                self.log,
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
                "events": self.log,
                "standings": [row.to_json(names) for row in rows],
            }
        out["ends_at"] = self.number("ends_at")
        out["status"] = self.public_status
        return out


def _board(match_id: str) -> int:
    return int(match_id.rsplit("-", 1)[1])


def tournament_keys(tournament_id: str) -> list[str]:
    """The keys lua/tournament.lua takes, in its order."""
    return [
        keys.tournament(tournament_id),
        keys.tournament_players(tournament_id),
        keys.tournament_games(tournament_id),
        keys.tournament_log(tournament_id),
    ]


async def read(redis: Redis, tournament_id: str, with_log: bool = False) -> Tournament | None:
    """The tournament now (None if Redis has it no more)."""
    pipe = redis.pipeline(transaction=False)
    pipe.hgetall(keys.tournament(tournament_id))
    pipe.hgetall(keys.tournament_players(tournament_id))
    pipe.hgetall(keys.tournament_games(tournament_id))
    if with_log:
        pipe.lrange(keys.tournament_log(tournament_id), 0, -1)
    found = await pipe.execute()
    raw = cast(dict[bytes, bytes], found[0])
    if not raw:
        return None
    players = {}
    for pid, value in cast(dict[bytes, bytes], found[1]).items():
        p = json.loads(value)
        players[pid.decode()] = Entrant(
            pid.decode(),
            p["name"],
            float(p["rating"]),
            p["state"],
            p["game"],
            int(p["free"]),
            int(p["n"]),
        )
    entries = {k.decode(): json.loads(v) for k, v in cast(dict[bytes, bytes], found[2]).items()}
    log = [json.loads(x) for x in cast(list[bytes], found[3])] if with_log else []
    fields = {k.decode(): v.decode() for k, v in raw.items()}
    return Tournament(tournament_id, fields, players, entries, log)
