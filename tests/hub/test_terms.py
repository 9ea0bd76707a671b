"""One place for each rule: the terms of a game (time per move, bot levels, live or
correspondence) are stated once, in live/terms.py, which everything that enforces or
shows them reads; the docs and the client agree with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from brandubh.bot import LEVEL_NAMES, LEVELS
from brandubh.hub.errors import Refusal
from brandubh.hub.live import terms
from brandubh.hub.lobby import lobby

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "brandubh"
HUB = SRC / "hub"
PROTOCOL = ROOT / "docs" / "protocol.md"
CLIENT = ROOT / "client" / "src"


def test_the_bot_levels_are_the_bots() -> None:
    assert tuple(sorted(LEVELS)) == terms.BOT_LEVELS
    for level in terms.BOT_LEVELS:
        terms.check_bot_level(level)
    for level in (0, max(LEVELS) + 1):
        with pytest.raises(Refusal, match=f"{min(LEVELS)} to {max(LEVELS)}"):
            terms.check_bot_level(level)


@pytest.mark.parametrize("move_time", [0, 30, 90, terms.MAX_MOVE_TIME + 60])
def test_terms_refuse_a_move_time_not_offered_naming_the_bounds(move_time: int) -> None:
    with pytest.raises(Refusal) as refused:
        terms.check_terms("nielsen", move_time)
    assert refused.value.code == "bad_field"
    assert f"from {terms.MIN_MOVE_TIME} to {terms.MAX_MOVE_TIME}" in refused.value.message


def test_quick_pairing_is_for_live_games_only() -> None:
    terms.check_quick("nielsen", terms.LIVE_UNDER_S - 60)
    with pytest.raises(Refusal, match=f"under {terms.LIVE_UNDER_S} seconds"):
        terms.check_quick("nielsen", terms.LIVE_UNDER_S)
    assert terms.is_live(terms.LIVE_UNDER_S - 60) and not terms.is_live(terms.LIVE_UNDER_S)


def test_no_module_but_terms_states_a_term() -> None:
    """The bounds, the levels and the hour between live and correspondence are read from
    live/terms.py; nothing else compares a move time with a number or lists the levels:
    the messages a client sends check a move time's type, and the lobby refuses terms
    not offered through live/terms.py."""
    wrong = []
    for path in sorted(HUB.rglob("*.py")):
        if path == HUB / "live" / "terms.py":
            continue
        text = path.read_text()
        for pattern in (
            r"move_time\s*[<>]=?\s*\d",
            r"\d\s*[<>]=?\s*move_time",
            r"range\(1, 6\)",
            r"\b(MIN_MOVE_TIME|MAX_MOVE_TIME|BOT_LEVELS|LIVE_UNDER_S)\b\s*(:\s*\w+\s*)?=",
            r"\b604800\b|\b604_800\b",
            r"\b60 <= \w+ <=",  # a range check of a move time (messages only check types)
        ):
            wrong += [f"{path.relative_to(SRC)}: {m.group(0)}" for m in re.finditer(pattern, text)]
    assert wrong == []


def test_whoever_enforces_or_tells_a_term_reads_it_from_terms() -> None:
    """The games' service (rule set, time, bot level), the lobby (seeks, quick pairing, live
    seeks), turn notices and move reminders (live or correspondence) take the terms' names."""
    readers = {
        "live/games.py": {"check_terms", "check_bot_level"},
        "lobby/lobby.py": {"check_terms", "check_quick", "is_live"},
        "wire/presence.py": {"is_live"},
        "mail/reminders.py": {"is_live"},
    }
    for where, names in readers.items():
        text = (HUB / where).read_text()
        imported = set()
        for line in re.findall(r"^from brandubh\.hub\.live(?:\.terms)? import (.+)$", text, re.M):
            imported |= {name.strip() for name in line.split(",")}
        assert names <= imported, where
        for name in names:
            assert re.search(rf"\b{name}\(", text), (where, name)


def test_the_docs_state_the_terms_as_they_are() -> None:
    text = PROTOCOL.read_text()
    low, high = re.findall(r"whole number of minutes from (\d+) \(one minute\) to (\d+)", text)[0]
    assert (int(low), int(high)) == (terms.MIN_MOVE_TIME, terms.MAX_MOVE_TIME)
    first, last = re.findall(r"`bot_level` is (\d+) to (\d+)", text)[0]
    assert (int(first), int(last)) == (terms.BOT_LEVELS[0], terms.BOT_LEVELS[-1])
    assert f"60..{terms.MAX_MOVE_TIME}" in text  # seek
    assert f"under one hour: 60..{terms.LIVE_UNDER_S - 60}" in text  # quick
    assert f"under an hour a move ({terms.LIVE_UNDER_S} s) is *live*" in text


def test_the_client_offers_the_terms_of_the_server() -> None:
    lobby_ts = (CLIENT / "logic" / "lobby.ts").read_text()
    home_ts = (CLIENT / "pages" / "home.ts").read_text()

    def const(text: str, name: str) -> str:
        found = re.search(rf"export const {name} = (.+);", text)
        assert found, name
        return found.group(1)

    assert int(const(lobby_ts, "LIVE_UNDER_S")) == terms.LIVE_UNDER_S
    assert int(const(lobby_ts, "MAX_SEEKS")) == lobby.MAX_SEEKS
    for name in ("WINDOW_BASE", "WINDOW_PER_S", "WINDOW_WIDEST"):
        assert int(const(lobby_ts, name)) == getattr(lobby, name), name
    for times in (const(lobby_ts, "SEEK_TIMES"), const(home_ts, "MOVE_TIMES")):
        for seconds in (int(s.replace("_", "")) for s in re.findall(r"[\d_]+", times)):
            terms.check_terms("nielsen", seconds)
    names = re.search(r"const BOT_LEVEL_NAMES = \[(.*?)\];", home_ts)
    assert names and re.findall(r"\"([^\"]+)\"", names.group(1)) == [
        LEVEL_NAMES[n] for n in terms.BOT_LEVELS
    ]
