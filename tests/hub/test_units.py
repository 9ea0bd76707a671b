"""Pure parts of the hub: frame decoding, origins, keys, the public state (the messages a
client may send: test_protocol.py)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import fields, replace
from pathlib import Path

import msgpack
import pytest
from redis.asyncio.connection import Connection

from brandubh import fairplay
from brandubh.engine import Game
from brandubh.hub.errors import ProtocolError, http_status
from brandubh.hub.live.state import GameState, Player, pack_snapshot, unpack_snapshot
from brandubh.hub.messages.protocol import decode_frame
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis.lane import pack
from brandubh.hub.redis.scripts import PRELUDES, TournamentScripts
from brandubh.hub.wire.origin import origin_allowed, unsafe_request_allowed


def test_decode_refuses_oversized_before_decoding() -> None:
    with pytest.raises(ProtocolError) as err:
        decode_frame(b"\x00" * 5000, 4096)
    assert err.value.code == "frame_too_large" and "5000" in err.value.message


def test_decode_refuses_non_string_map_keys() -> None:
    with pytest.raises(ProtocolError) as err:
        decode_frame(msgpack.packb({1: 2}), 4096)
    assert err.value.code == "bad_frame"


def test_origin_rules() -> None:
    h = {"host": "play.example:8000"}
    assert origin_allowed(h, frozenset())  # no Origin: not a browser
    assert origin_allowed({**h, "origin": "http://play.example:8000"}, frozenset())
    assert not origin_allowed({**h, "origin": "http://evil.example"}, frozenset())
    allow = frozenset({"https://brandubh.live"})
    assert origin_allowed({**h, "origin": "https://brandubh.live"}, allow)
    assert not origin_allowed({**h, "origin": "http://play.example:8000"}, allow)
    assert not unsafe_request_allowed(h, frozenset())
    assert unsafe_request_allowed({**h, "sec-fetch-site": "same-origin"}, frozenset())
    assert not unsafe_request_allowed({**h, "sec-fetch-site": "cross-site"}, frozenset())


def test_a_games_keys_share_one_slot_tag() -> None:
    game_id = "Zq3xK9_abc12"
    names = [
        keys.game(game_id),
        keys.events(game_id),
        keys.acks(game_id),
        keys.moves(game_id),
        keys.repetitions(game_id),
        keys.seed(game_id),
        keys.watchers(game_id),
        keys.bot_jobs(keys.bucket(game_id)),
        keys.game_channel(game_id, "a1b2c3"),
        keys.game_hubs(game_id),
        keys.presence(game_id),
    ]
    tags = {re.search(r"\{[^}]*\}", name).group(0) for name in names}  # type: ignore[union-attr]
    assert len(tags) == 1


def test_a_game_channel_names_its_game_and_its_hub() -> None:
    for game_id in ("Zq3xK9_abc12", "a-b_c", "x"):
        channel = keys.game_channel(game_id, "0f1e2d3c4b5a")
        assert channel.startswith(keys.game_channel_stem(game_id))
        assert channel.endswith(":0f1e2d3c4b5a")
        assert keys.game_of_channel(channel.encode()) == game_id
    assert keys.game_channel("g", "h1") != keys.game_channel("g", "h2")


def test_snapshot_packing_keeps_the_current_position_of_the_recent_ones() -> None:
    game = Game("newsome")
    for move in ("d2-c3", "c4-c5"):
        game.play(move)
    snap = game.snapshot()
    assert len(snap.recent) == 3
    # The counts of the others live in keys.repetitions: the stored snapshot does not grow.
    assert unpack_snapshot(pack_snapshot(snap)) == replace(snap, recent=snap.recent[-1:])


def test_a_state_resumes_the_repetition_counts_from_the_stored_counts() -> None:
    game = Game("nielsen")
    moves = ("a4-a5", "c4-c3", "a5-a4", "c3-c4", "a4-a5")
    for move in moves:
        game.play(move)
    snap = game.snapshot()
    counts = {str(h).encode(): str(n).encode() for h, n in Counter(snap.recent).items()}
    h = {b"snap": pack_snapshot(snap), b"ruleset": b"nielsen", b"status": b"active"}
    state = GameState.from_hash("g1", h, b" ".join(m.encode() for m in moves) + b" ", counts)
    assert state.moves == moves
    assert Counter(state.recent) == Counter(snap.recent)
    assert state.recent[-1] == snap.recent[-1]
    resumed = state.game()
    assert resumed.repetitions == game.repetitions == 2
    # The next return to the start position is its third: a draw by repetition here.
    resumed.play("c4-c3")
    resumed.play("a5-a4")
    resumed.play("c3-c4")
    assert resumed.result is not None and resumed.result.reason == "repetition"


def test_public_state_hides_the_seed_and_the_invite() -> None:
    seed = fairplay.new_seed()
    state = GameState(
        id="abcdefgh",
        ruleset="nielsen",
        status="active",
        seq=1,
        ply=0,
        created=0,
        move_time=600,
        opponent="friend",
        bot_level=0,
        creator=Player("p1", "A"),
        joiner=Player("p2", "B"),
        attacker="p1",
        defender="p2",
        turn="p1",
        snap=pack_snapshot(Game().snapshot()),
        moves=(),
        commitment=fairplay.commitment(seed),
        invite="secret-invite-token",
        result=None,
    )
    packed = msgpack.packb(state.public())
    assert seed not in packed and seed.hex().encode() not in packed
    assert b"secret-invite-token" not in packed
    assert state.public()["seed"] is None
    assert len(state.public()["legal"]) == 40


def test_sides_formula_is_a_fair_coin() -> None:
    wins = sum(fairplay.creator_attacks(fairplay.new_seed(), f"game{i:04d}") for i in range(2000))
    assert 850 < wins < 1150  # binomial(2000, 1/2): outside this is about 6 sigma


def test_refusal_codes_map_to_http_statuses() -> None:
    assert http_status("not_found") == 404 and http_status("rate_limited") == 429
    assert http_status("bad_field") == 400  # anything unlisted is a bad request


def test_evolve_is_dataclasses_replace_and_refuses_an_unknown_field() -> None:
    from dataclasses import replace

    state = GameState(
        id="g1", ruleset="nielsen", status="active", seq=3, ply=2, created=0, move_time=60,
        opponent="friend", bot_level=0, creator=Player("a", "A"), joiner=Player("b", "B"),
        attacker="a", defender="b", turn="a", snap=pack_snapshot(Game().snapshot()), moves=(),
        commitment="c", invite="", result=None,
    )  # fmt: skip
    assert state.evolve(seq=4, turn="b") == replace(state, seq=4, turn="b")
    assert state.seq == 3  # the original is untouched
    with pytest.raises(TypeError, match="no field sqe"):
        state.evolve(sqe=4)


@pytest.mark.parametrize(
    "args",
    [
        ("EVALSHA", "f" * 40, 3, "bd:g:{abc}", "bd:g:{abc}:ev", "k", b"\x00\xff" * 200, b""),
        ("HGETALL", "bd:g:{é}"),
        ("EXISTS", "bd:s:x", 0, -12, 10**20),
    ],
)
def test_the_lane_packs_commands_as_redis_py_does(args: tuple[bytes | str | int, ...]) -> None:
    assert b"".join(pack(args)) == b"".join(Connection().pack_command(*args))


def test_every_lua_file_is_a_script_or_a_prelude() -> None:
    """Scripts.register takes its names from its fields: each a file of lua/, as is each
    prelude; and a prelude goes only before scripts."""
    lua = Path(__file__).resolve().parents[2] / "src" / "brandubh" / "hub" / "redis" / "lua"
    changes = {f"tournament_{f.name}" for f in fields(TournamentScripts)}
    scripts = {f.name for f in fields(Scripts) if f.name != "tournament"} | changes
    assert {p.stem for p in lua.glob("*.lua")} == scripts | set(PRELUDES)
    assert not scripts & set(PRELUDES)
    assert all(users <= scripts for users in PRELUDES.values())
