"""The record with the analysis as comments reads back as the same game."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from brandubh.analysis import analyse_game, record_with_analysis
from brandubh.engine import Game, Record, parse_record


def finished_record() -> Record:
    rng, game = random.Random(11), Game("nielsen")
    while game.result is None:
        game.play(rng.choice(game.legal_texts()))
    return Record.from_game(game, game_id="g-1", attackers="ann", defenders="bo")


def test_the_record_with_analysis_parses_back_to_the_same_game() -> None:
    record = finished_record()
    analysis = analyse_game(record.ruleset, list(record.moves), nodes=2_000)
    text = record_with_analysis(record, analysis)
    again = parse_record(text)
    assert replace(again, comments=()) == record
    assert again.replay().result == record.result
    by_ply = dict(again.comments)
    assert sorted(by_ply) == list(range(len(record.moves) + 1))
    assert by_ply[0].startswith("analysis by the bot (version 1, 2000 nodes a ply)")
    for ply in analysis.plies:
        comment = by_ply[ply.ply]
        if ply.ply < len(record.moves):
            assert comment.startswith(f"defenders {round(ply.eval.chance * 100)} %")
        else:
            assert comment.startswith(f"the game is over: {record.result}")
        if ply.judgment is not None:
            assert f"; {ply.judgment}; better {ply.best}" in comment


def test_an_analysis_of_other_moves_is_refused() -> None:
    record = finished_record()
    analysis = analyse_game(record.ruleset, list(record.moves[:-1]), nodes=2_000)
    with pytest.raises(ValueError, match="is not of this record"):
        record_with_analysis(record, analysis)
