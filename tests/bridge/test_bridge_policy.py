"""Which challenges the bridge accepts (bridge/policy.py), its settings (bridge/config.py),
the service's lines read as records and the backoff: pure, no server."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from brandubh.bridge import (
    DECLINE_REASONS,
    AcceptRules,
    Backoff,
    BadLine,
    Challenge,
    ConfigError,
    Who,
    challenge_of,
    decide,
    finish_code,
    load_config,
    opponent_move_line,
    think_seconds,
)
from brandubh.engine import Game

TOKEN = "bdl_" + "x" * 43
PERSON = Who("p1", "Ann", bot=False)
BOT = Who("p2", "Knotwork", bot=True)
ME = Who("me", "Engine", bot=True)


def challenge(**terms: Any) -> Challenge:
    base: dict[str, Any] = {
        "id": "c1",
        "status": "created",
        "challenger": PERSON,
        "target": ME,
        "ruleset": "nielsen",
        "move_time": 300,
        "rated": True,
    }
    return Challenge(**{**base, **terms})


def test_a_challenge_within_every_rule_is_accepted() -> None:
    assert decide(challenge(), AcceptRules(), playing=0, stopping=False).accept
    assert decide(challenge(challenger=BOT), AcceptRules(), 0, False).accept


@pytest.mark.parametrize(
    ("terms", "rules", "playing", "reason"),
    [
        ({"ruleset": "common"}, {}, 0, "ruleset"),
        ({"ruleset": "walker"}, {"rulesets": ("nielsen",)}, 0, "ruleset"),
        ({"move_time": 60}, {"min_move_time": 120}, 0, "tooFast"),
        ({"move_time": 86400}, {"max_move_time": 3600}, 0, "tooSlow"),
        ({"rated": True}, {"rated": False}, 0, "casual"),
        ({"rated": False}, {"casual": False}, 0, "rated"),
        ({"challenger": BOT}, {"bots": False}, 0, "noBot"),
        ({"challenger": PERSON}, {"people": False}, 0, "onlyBot"),
        ({}, {"max_games": 2}, 2, "later"),
    ],
)
def test_each_rule_declines_with_its_reason(
    terms: dict[str, Any], rules: dict[str, Any], playing: int, reason: str
) -> None:
    decision = decide(challenge(**terms), AcceptRules(**rules), playing, stopping=False)
    assert not decision.accept
    assert decision.reason == reason and reason in DECLINE_REASONS
    assert decision.why  # a sentence for the log


def test_a_stopping_bridge_declines_everything_later() -> None:
    decision = decide(challenge(), AcceptRules(), 0, stopping=True)
    assert (decision.accept, decision.reason) == (False, "later")


def test_a_challenge_line_is_read_and_a_bad_one_named() -> None:
    line = {
        "id": "g1",
        "url": "/g/g1",
        "status": "created",
        "from": {"id": "p1", "name": "Ann", "bot": False},
        "to": {"id": "me", "name": "Engine", "bot": True},
        "ruleset": "walker",
        "move_time": 120,
        "rated": False,
        "side": "random",
        "created": 1,
    }
    c = challenge_of(line)
    assert (c.id, c.challenger, c.target.bot, c.ruleset, c.move_time, c.rated) == (
        "g1",
        PERSON,
        True,
        "walker",
        120,
        False,
    )
    with pytest.raises(BadLine, match="'move_time' is '120', not a int"):
        challenge_of({**line, "move_time": "120"})
    with pytest.raises(BadLine, match="'rated' is 1, not a bool"):
        challenge_of({**line, "rated": 1})
    with pytest.raises(BadLine, match="'from' is not an account"):
        challenge_of({**line, "from": None})


def test_settings_from_a_file_with_options_over_them(tmp_path: Path) -> None:
    (tmp_path / "token").write_text(TOKEN + "\n")
    path = tmp_path / "bridge.toml"
    path.write_text(
        'url = "https://brandubh.example.org/"\ntoken_file = "token"\n'
        'engine = "brandubh engine --level 3"\n'
        '[accept]\nrulesets = ["walker"]\nmin_move_time = 120\nrated = false\n'
    )
    config = load_config(path, {"max_games": 3, "bots": None}, env={})
    assert config.url == "https://brandubh.example.org"
    assert config.token == TOKEN and TOKEN not in repr(config)
    assert config.engine == ("brandubh", "engine", "--level", "3")
    assert config.accept == AcceptRules(
        rulesets=("walker",), min_move_time=120, rated=False, max_games=3
    )
    # The environment's token wins over the file's.
    env_token = "bdl_" + "y" * 43
    assert load_config(path, {}, env={"BRANDUBH_TOKEN": env_token}).token == env_token


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"url": "brandubh.example.org"}, "url must be the site's address"),
        ({"engine": ""}, "no engine"),
        ({"rulesets": "nielsen,common"}, "'common': an OTEP engine cannot play it"),
        ({"rulesets": "chess"}, "'chess': an OTEP engine cannot play it"),
        ({"min_move_time": 30}, "accept min_move_time is 30: seconds from 60"),
        ({"min_move_time": 600, "max_move_time": 300}, "min_move_time (600) is over"),
        ({"rated": False, "casual": False}, "rated and casual are both false"),
        ({"bots": False, "people": False}, "bots and people are both false"),
        ({"max_games": 0}, "max_games is 0: from 1 to 64"),
        ({"token_file": "/no/such/file"}, "token_file '/no/such/file' cannot be read"),
        ({"transport": "carrier pigeon"}, "transport must be http or socket, not 'carrier pigeon'"),
    ],
)
def test_each_wrong_setting_is_named(options: dict[str, Any], said: str) -> None:
    given = {"url": "http://127.0.0.1:8000", "engine": "brandubh engine", **options}
    env = {} if "token_file" in options else {"BRANDUBH_TOKEN": TOKEN}
    with pytest.raises(ConfigError) as wrong:
        load_config(None, given, env=env)
    assert said in str(wrong.value)


def test_a_missing_token_and_a_wrong_file_are_named(tmp_path: Path) -> None:
    given = {"url": "http://127.0.0.1:8000", "engine": "brandubh engine"}
    with pytest.raises(ConfigError, match="no token: set BRANDUBH_TOKEN"):
        load_config(None, given, env={})
    with pytest.raises(ConfigError, match="does not start with 'bdl_'"):
        load_config(None, given, env={"BRANDUBH_TOKEN": "hunter2"})
    path = tmp_path / "bridge.toml"
    path.write_text("url = \n")
    with pytest.raises(ConfigError, match="is not TOML"):
        load_config(path, {}, env={})
    path.write_text('engines = "x"\n')
    with pytest.raises(ConfigError, match="no setting 'engines'"):
        load_config(path, {}, env={})
    path.write_text("[accept]\nmax_game = 2\n")
    with pytest.raises(ConfigError, match=r"\[accept\] has no setting 'max_game'"):
        load_config(path, {}, env={})


def test_backoff_doubles_with_jitter_up_to_its_cap_and_resets() -> None:
    backoff = Backoff(1.0, 8.0, random.Random(7))
    delays = [backoff.next_delay() for _ in range(7)]
    for delay, ceiling in zip(delays, [1, 2, 4, 8, 8, 8, 8], strict=True):
        assert ceiling / 2 <= delay <= ceiling
    assert len(set(delays)) == len(delays)  # jittered, never the same twice here
    backoff.reset()
    assert backoff.next_delay() <= 1.0


def test_the_engine_s_time_and_the_finish_codes() -> None:
    assert think_seconds(60, 60_000) == 54.0  # a tenth of a minute kept for the way
    assert think_seconds(3600, 3_600_000) == 3590.0  # at most 10 s kept
    assert think_seconds(60, 500) == 1.0  # never less than a second
    assert finish_code({"winner": "attackers", "reason": "king_captured"}) == 2
    assert finish_code({"winner": "defenders", "reason": "resignation"}) == 3
    assert finish_code({"winner": None, "reason": "repetition"}) == 1
    assert finish_code({"winner": None, "reason": "aborted"}) == 0


def test_opponent_moves_are_simple_until_the_engine_asks_for_full_otn() -> None:
    """OTEP's default is simple moves (start-end), as OpenTafl's host sends them; full OTN,
    captures named, only to an engine that said ``simple-moves off``."""
    game = Game("nielsen")
    for text in ("a4-a2", "c4-c1"):
        game.play(text)
    before = game.position
    played = game.play("b4-b1xc1")
    board = "/1t1t3/t2t3/3T3/3KTtt/3T3/3t3/3t3/"
    assert opponent_move_line(game, played, before, simple=True) == f"opponent-move b4-b1 {board}"
    full = opponent_move_line(game, played, before, simple=False)
    assert full == f"opponent-move b4-b1xc1 {board}"
