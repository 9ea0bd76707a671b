"""What the compiled modules compute on fixed inputs, as plain JSON values.

tests/test_compiled.py runs ``probe`` here (compiled) and, through ``main``, in a second
process that loads the sources (``brandubh.native.uncompiled``); the two must be equal.
"""

from __future__ import annotations

import json
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack

from brandubh.engine import (
    RULESETS,
    Game,
    IllegalMove,
    Record,
    format_record,
    parse_record,
    perft,
)
from brandubh.hub.errors import ProtocolError
from brandubh.hub.messages import decode_frame, frames, parse

Json = Any
# The engine's perft vectors (tests/engine/test_engine_perft.py), to depth 3: positions
# and the rule sets they are counted under.
PERFT = [
    ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a", ("nielsen", "federation", "common", "walker")),
    ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a", ("newsome",)),
    ("7/5DA/2AK3/4A2/1A4D/7/7 d", ("nielsen", "federation", "common", "walker")),
]
# Tried on every ply and refused there (each a different explanation, or a wrong capture).
ILLEGAL = ("d4-d7", "a4-b5", "Kc5-c7", "d1-d1", "b2-f6", "a1-a2", "c4-c7xb7xc6", "e4-e6xe5")
MAX_FRAME = 4096


def recorded_games(games_per_ruleset: int = 4) -> list[str]:
    """Records of whole games in every rule set: seeded random moves, half of them undoing
    the side's last move when they can, so repetitions come round too."""
    records = []
    for ruleset in sorted(RULESETS):
        for number in range(games_per_ruleset):
            rng = random.Random(f"{ruleset}:{number}")
            game = Game(ruleset)
            last: dict[int, str] = {}
            while game.result is None:
                texts = game.legal_texts()
                side = game.board.side
                back = last.get(side)
                text = back if back in texts and number % 2 and rng.random() < 0.5 else None
                text = text or rng.choice(texts)
                move = game.play(text)
                last[side] = f"{'K' if move.king else ''}{move.destination}-{move.origin}"
            record = Record.from_game(game, game_id=f"{ruleset}-{number:04d}", attackers="a")
            records.append(format_record(record))
    return records


def messages() -> list[str]:
    """Client frames, good and bad, as hex: one of each message type, then refusals."""
    good: list[dict[str, Any]] = [
        {"t": "watch", "game": "abcdef", "since": 3},
        {"t": "watch", "game": "abcdef"},
        {"t": "unwatch", "game": "abcdef"},
        {"t": "move", "game": "abcdef", "ply": 4, "move": "d1-c1", "id": "m.1"},
        {"t": "resign", "game": "abcdef", "id": "r1"},
        {"t": "abort", "game": "abcdef", "id": "a1"},
        {"t": "offer_draw", "game": "abcdef", "id": "o1"},
        {"t": "answer_draw", "game": "abcdef", "accept": True, "id": "o2"},
        {"t": "rematch", "game": "abcdef", "id": "x"},
        {"t": "decline_rematch", "game": "abcdef", "id": "x"},
        {"t": "lobby", "on": False},
        {"t": "seek", "ruleset": "common", "move_time": 30, "id": "s"},
        {
            "t": "seek",
            "ruleset": "common",
            "move_time": 30,
            "rated": False,
            "match": True,
            "id": "s",
        },
        {"t": "cancel_seek", "seek": "seek-01", "id": "s"},
        {"t": "accept_seek", "seek": "seek-01", "id": "s"},
        {"t": "quick", "ruleset": "walker", "move_time": 10, "id": "q"},
        {"t": "cancel_quick", "id": "q"},
        {"t": "choose_sides", "match": "match-1", "side": "defenders", "id": "c"},
        {"t": "ping", "n": 7},
        {"t": "ping"},
        {"t": "pong", "n": 8},
    ]
    bad: list[Any] = [
        {"t": "move", "game": "abcdef", "ply": -1, "move": "d1-c1", "id": "m"},
        {"t": "move", "game": "abc", "ply": 1, "move": "d1-c1", "id": "m"},
        {"t": "move", "game": "abcdef", "ply": 1, "move": "", "id": "m"},
        {"t": "move", "game": "abcdef", "ply": 1, "move": "d1-c1", "id": "m", "x": 1},
        {"t": "move", "game": "abcdef", "ply": True, "move": "d1-c1", "id": "bad id!"},
        {"t": "move", "game": "abcdef", "move": "d1-c1", "id": "m"},
        {"t": "move", "game": "abcdef", "ply": 1, "move": "d1-c1", "id": 5},
        {"t": "answer_draw", "game": "abcdef", "accept": 1, "id": "o"},
        {"t": "choose_sides", "match": "match-1", "side": "both", "id": "c"},
        {"t": "seek", "ruleset": 3, "move_time": "30", "id": "s"},
        {"t": "ping", "n": 1 << 40},
        {"t": "nope"},
        {"t": 5},
        {"game": "abcdef"},
        {"t": "watch", "game": [[[[[[[[["deep"]]]]]]]]]},
        ["t", "move"],
        "text",
    ]
    packed = [msgpack.packb(m, use_bin_type=True) for m in good + bad]
    raw = [b"", b"\xc1", b"\x81\xa1t", b"\x80\x80", b"\xd4\x01\x00", b"\x81" * 5000]
    return [frame.hex() for frame in packed + raw]


def inputs() -> dict[str, Json]:
    return {"records": recorded_games(), "messages": messages()}


def _ply(game: Game) -> list[Json]:
    """Everything a ply shows: position, legal moves both ways, repetitions, result,
    snapshot, and the refusal of each of ILLEGAL (or the move it would be)."""
    refusals = []
    for text in ILLEGAL:
        try:
            refusals.append(str(Game.from_snapshot(game.snapshot()).play(text)))
        except IllegalMove as exc:
            refusals.append(f"{type(exc).__name__}: {exc}")
    snap = game.snapshot()
    return [
        game.position,
        game.legal_texts(),
        [repr(move) for move in game.legal_moves()],
        game.repetitions,
        game.side_to_move,
        repr(game.result),
        str(game.result),
        repr(snap),
        refusals,
    ]


def _replay(text: str) -> list[Json]:
    record = parse_record(text)
    game = Game(record.ruleset, record.position)
    plies = [_ply(game)]
    for move in record.moves:
        played = game.play(move)
        plies.append([repr(played), str(played), played.code, *_ply(game)])
    for ply in range(0, game.ply, 7):  # back to earlier plies, and on from their snapshot
        while game.ply > ply:
            game.pop()
        plies.append(_ply(game))
    snap = pickle.loads(pickle.dumps(game.snapshot()))
    resumed = Game.from_snapshot(snap)
    plies.append([format_record(record), str(resumed.finish("defenders", "resignation"))])
    return plies


def _parse(hex_frame: str) -> list[Json]:
    try:
        msg = parse(decode_frame(bytes.fromhex(hex_frame), MAX_FRAME))
    except ProtocolError as exc:
        return ["refused", exc.code, exc.message, exc.msg_id]
    return [type(msg).__name__, repr(msg)]


def _frames() -> list[str]:
    state = {"ply": 3, "moves": ["d1-c1"], "result": None}
    built = [
        frames.hello({"id": "p", "name": "Ann"}, 25.0, 1_700_000_000_000, {"frame": 4096}),
        frames.ping(3, 12),
        frames.pong(4),
        frames.ack("m1", "move", ply=3),
        frames.error("not_your_turn", "wait", "m1", "abcdef"),
        frames.error("bad_frame", "what"),
        frames.event("abcdef", 9, {"kind": "move", "move": "d1-c1"}, state),
        frames.snapshot("abcdef", 9, state, ["d1-c1", "d4-d5"], 2),
        frames.presence("abcdef", ["b", "a"]),
        frames.turn("abcdef", 3, "d1-c1", 0xFEED_FACE_CAFE_BEEF, "ann"),
        frames.match("abcdef", {"score": [1, 0]}),
        frames.lobby([{"id": "s"}], [{"id": "g"}]),
        frames.games([]),
        frames.seek_added({"id": "s"}),
        frames.paired("abcdef", ["a", "b"], None),
        frames.turn_for("hub-1", "abcdef", "p", b"\x80"),
        frames.sessions_ended(["s1", "s2"]),
        frames.challenge({"id": "abcdef", "status": "created"}),
        frames.challenge_gone({"id": "abcdef", "status": "declined", "declineReason": "later"}),
        frames.account_notice("hub-1", ["a", "b"], "gameStart", {"id": "abcdef"}),
    ]
    return [frame.hex() for frame in built]


def probe(given: dict[str, Json]) -> dict[str, Json]:
    """Everything the checks compare, from ``inputs()``."""
    counts = [
        [position, ruleset, [perft(Game(ruleset, position), d) for d in (1, 2, 3)]]
        for position, rulesets in PERFT
        for ruleset in rulesets
    ]
    return {
        "perft": counts,
        "games": [_replay(text) for text in given["records"]],
        "messages": [_parse(frame) for frame in given["messages"]],
        "frames": _frames(),
    }


def run_uncompiled(code: str, given: Json = None) -> Json:
    """Run ``code``, which prints one JSON value, in a second process that loads every
    compiled module from its source, with ``given`` as JSON on its stdin; that value."""
    script = (
        f"import sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "import brandubh.native.uncompiled\nbrandubh.native.uncompiled.install()\n"
        f"{code}\n"
        "from brandubh import native\nfrom brandubh.native import uncompiled\n"
        "ran = [sys.modules[n] for n in uncompiled.COMPILED_MODULES if n in sys.modules]\n"
        "assert ran and not any(map(native.is_compiled, ran)), ran\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def main() -> None:
    """In the second process: read ``inputs()`` as JSON, print ``probe`` of them."""
    print(json.dumps(probe(json.load(sys.stdin))))


if __name__ == "__main__":
    main()
