"""Tournaments run in memory through the hub's own state and pairing (state.Tournament,
pairing.py): the frame view after each change, as the runner publishes it. The ground of
the delta tests (test_tournament_delta.py) and of the fixture the client's tests share."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from brandubh.hub.tournaments import delta, pairing
from brandubh.hub.tournaments.records import ArenaGame, Entrant, EntrantState, RoundMatch
from brandubh.hub.tournaments.state import Tournament, frame_view

START = 1_800_000_000_000
SEED = bytes(range(32)).hex()


def _tournament(tid: str, fmt: str, rounds: int | None) -> Tournament:
    fields = {
        "name": f"A {fmt}",
        "format": fmt,
        "ruleset": "nielsen",
        "move_time": "60",
        "starts_at": str(START),
        "ends_at": str(START + 600_000) if fmt == "arena" else "",
        "duration_min": "10" if fmt == "arena" else "",
        "rounds": str(rounds or ""),
        "max_players": "",
        "creator": "p00",
        "creator_name": "P00",
        "commitment": "c0ffee",
        "seed": SEED,
        "status": "upcoming",
    }
    return Tournament(tid, fields, {})


class Sim:
    """One tournament, changed a step at a time; ``views`` the frame view after each."""

    def __init__(self, tid: str, fmt: str, seed: int, rounds: int | None = None) -> None:
        self.t = _tournament(tid, fmt, rounds)
        self.rnd = random.Random(seed)
        self.now = START
        self.views: list[dict[str, Any]] = []

    def shot(self) -> None:
        self.now += self.rnd.randrange(200, 5000)
        self.views.append(frame_view(self.t.view(self.now)))

    def join(self, n: int) -> None:
        pid = f"p{n:02d}"
        rating = 1500.0 + self.rnd.randrange(-300, 300)
        self.t.players[pid] = Entrant(pid, pid.upper(), rating, EntrantState.JOINED, "", 0, n)

    def set_player(self, pid: str, **changes: Any) -> None:
        self.t.players[pid] = replace(self.t.players[pid], **changes)


def arena(
    players: int, changes: int, seed: int = 1, tid: str = "tArenaSim"
) -> list[dict[str, Any]]:
    """An arena's frame views: joins, the start, waves, results, pauses, a withdrawal, the end."""
    s = Sim(tid, "arena", seed)
    t = s.t
    for n in range(players):
        s.join(n)
        if n % 3 == 0:
            s.shot()
    t.fields["status"] = "running"
    s.shot()
    for _ in range(changes):
        playing = [g for g in t.games.values() if not g.result]
        free = t.free()
        roll = s.rnd.random()
        if len(free) >= 2 and (roll < 0.4 or not playing):
            waves = (t.number("waves") or 0) + 1
            seq = t.number("seq") or 0
            for k, (a, d) in enumerate(pairing.arena_wave(t, free), 1):
                gid = f"{t.id}-{seq + k}"
                t.games[gid] = ArenaGame(gid, seq + k, waves, a, d, "", True, s.now)
                s.set_player(a, game=gid)
                s.set_player(d, game=gid)
                t.fields["seq"] = str(seq + k)
            t.fields["waves"] = str(waves)
        elif playing and roll < 0.9:
            for g in s.rnd.sample(playing, min(len(playing), s.rnd.randrange(1, 4))):
                result = s.rnd.choice(["attackers", "defenders", "attackers", "draw"])
                t.games[g.id] = replace(g, result=result)
                for pid in (g.attackers, g.defenders):
                    s.set_player(pid, game="")
        else:
            p = s.rnd.choice(sorted(t.players.values(), key=lambda p: p.n))
            if p.state == EntrantState.JOINED:
                s.set_player(
                    p.id, state=s.rnd.choice([EntrantState.PAUSED, EntrantState.WITHDRAWN])
                )
            elif p.state == EntrantState.PAUSED:
                s.set_player(p.id, state=EntrantState.JOINED)
            else:
                s.join(len(t.players))  # a late joiner
        s.shot()
    for g in [g for g in t.games.values() if not g.result]:
        t.games[g.id] = replace(g, result="draw")
    t.fields.update(status="finished", revealed=SEED)
    s.shot()
    return s.views


def rounds(
    fmt: str, players: int, seed: int = 1, tid: str = "tRoundSim", swiss_rounds: int = 4
) -> list[dict[str, Any]]:
    """A round robin's or Swiss's frame views: joins, each round paired, each game's result
    (two games a match), the end."""
    s = Sim(tid, fmt, seed, swiss_rounds if fmt == "swiss" else None)
    t = s.t
    for n in range(players):
        s.join(n)
    s.shot()
    t.roster = {p.id: p.rating for p in t.players.values()}
    t.fields["status"] = "running"
    s.shot()
    while (chosen := pairing.next_pairings(t)) is not None:
        pairs, bye = chosen
        r = (t.number("round") or 0) + 1
        t.fields["round"] = str(r)
        board = 0
        for board, (a, b) in enumerate(pairs, 1):
            mid = f"{t.id}-r{r}-{board}"
            gid = f"{mid}-1"
            t.matches[mid] = RoundMatch(mid, r, a, b, (gid,), {gid: (a, b)}, {}, False, True, s.now)
        if bye:
            mid = f"{t.id}-r{r}-{board + 1}"
            t.matches[mid] = RoundMatch(mid, r, bye, "", (), {}, {}, True, True, s.now)
        s.shot()
        while not t.round_over():
            m = s.rnd.choice([m for m in t.matches.values() if not m.done])
            gid = m.games[-1]
            results = {**m.results, gid: s.rnd.choice(["attackers", "defenders", "draw"])}
            if len(m.games) == 1:
                nxt = f"{m.id}-2"
                sides = {**m.sides, nxt: (m.b, m.a)}
                t.matches[m.id] = replace(m, games=(*m.games, nxt), sides=sides, results=results)
            else:
                t.matches[m.id] = replace(m, results=results, done=True)
            s.shot()
        if fmt == "round_robin" and r == 2:
            p = sorted(t.players)[-1]
            s.set_player(p, state=EntrantState.WITHDRAWN)
            s.shot()
    t.fields.update(status="finished", revealed=SEED)
    s.shot()
    return s.views


# -- the fixture the client's tests share (client/src/logic/tournamentdelta.test.ts) -----

FIXTURE = Path(__file__).resolve().parents[2] / "client/src/logic/tournamentdelta.cases.json"


def _edges() -> list[dict[str, Any]]:
    """Hand-made views for what the runs above rarely show: a field gone, a list turned
    into a number, rows reordered with none changed, a count gone, every row gone."""
    row = lambda pid, rank: {"rank": rank, "player": {"id": pid, "name": pid}, "points": 0}  # noqa: E731
    a = {
        "id": "tEdgeCase",
        "note": "gone next",
        "rounds": [{"round": 1, "pairings": []}],
        "standings": [row("a", 1), row("b", 2), row("c", 3)],
        "games": [{"id": "g1", "result": None}, {"id": "g2", "result": None}],
        "game_counts": {"a": 1, "b": 1, "c": 0},
    }
    b = {
        "id": "tEdgeCase",
        "rounds": 3,
        "standings": [row("c", 3), row("a", 1), row("b", 2)],
        "games": [{"id": "g0", "result": "draw"}, {"id": "g2", "result": "attackers"}],
        "game_counts": {"a": 1, "c": 2},
        "seed": "ff",
    }
    c = {**b, "standings": [], "games": [], "game_counts": {}, "rounds": [{"round": 2}]}
    return [a, b, c, a]


def fixture() -> dict[str, Any]:
    """Runs' views and the delta between each and the next (and a few further ones)."""
    runs = {
        "arena": arena(5, 14, seed=3),
        "round_robin": rounds("round_robin", 3, seed=4),
        "swiss": rounds("swiss", 4, seed=5, swiss_rounds=2),
        "edges": _edges(),
    }
    out: list[dict[str, Any]] = []
    for name, views in runs.items():
        steps = [(i, i + 1) for i in range(len(views) - 1)]
        steps += [(0, len(views) - 1), (len(views) // 2, len(views) - 1)]
        out.append(
            {
                "name": name,
                "views": views,
                "steps": [
                    {"from": i, "to": j, "delta": delta.diff(views[i], views[j])} for i, j in steps
                ],
            }
        )
    return {"note": "made by tests/hub/tournament_views.py; do not edit", "runs": out}


def fixture_text() -> str:
    return json.dumps(fixture(), separators=(",", ":"), sort_keys=True) + "\n"


if __name__ == "__main__":
    FIXTURE.write_text(fixture_text())
