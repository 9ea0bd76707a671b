"""Which positions no one may have evaluated: a running game's board in any form, either side
to move, or one move past it; never the start (hub/analysis/inplay.py). Pure."""

from __future__ import annotations

import re

from brandubh.engine import Game
from brandubh.hub.analysis.inplay import START_BOARDS, board, forms, in_play, one_move_apart


def mirrored(position: str) -> str:
    board_text, side = position.split()
    ranks = []
    for rank in board_text.split("/"):
        cells = "".join("." * int(ch) if ch.isdigit() else ch for ch in rank)[::-1]
        ranks.append(re.sub(r"\.+", lambda m: str(len(m.group())), cells))
    return "/".join(ranks) + " " + side


def other_side(position: str) -> str:
    return position[:-1] + ("d" if position.endswith("a") else "a")


def played(*moves: str) -> Game:
    game = Game("nielsen")
    for move in moves:
        game.play(move)
    return game


def test_every_form_of_a_running_board_and_either_side_to_move_is_in_play() -> None:
    running = played("g4-g3", "e4-e6")
    now = [board(running.position)]
    for asked in (running.position, mirrored(running.position), other_side(running.position)):
        assert in_play(asked, now), asked
    assert len(forms(running.position)) == 8


def test_each_position_one_legal_move_past_is_in_play_and_two_moves_past_is_not() -> None:
    running = played("g4-g3")
    now = [board(running.position)]
    for move in running.legal_texts():
        after = played("g4-g3", move)
        assert in_play(after.position, now), move
        assert in_play(mirrored(after.position), now), move
    two_past = played("g4-g3", "e4-e6", "d7-f7")
    assert not in_play(two_past.position, now)


def test_a_capture_one_move_past_is_in_play() -> None:
    line = ["b4-b6", "e4-e1", "d6-g6", "e1-e5", "g4-g3", "e5-f5", "b6-b5"]
    before, after = played(*line), played(*line, "f5-g5xg6")
    assert bin(board(after.position)[0]).count("1") < bin(board(before.position)[0]).count("1")
    assert one_move_apart(board(before.position), board(after.position))
    assert in_play(after.position, [board(before.position)])


def test_the_start_is_never_in_play_nor_what_follows_a_game_at_its_start() -> None:
    start = Game("nielsen").position
    assert board(start) in START_BOARDS
    assert not in_play(start, [board(start)])
    first = played("g4-g3").position
    assert not in_play(first, [board(start)])


def test_an_unrelated_position_is_not_in_play() -> None:
    running = played("b4-b6", "e4-e1", "d6-g6", "e1-e5")
    elsewhere = played("g4-g3", "c4-c2", "a4-a5")
    assert not in_play(elsewhere.position, [board(running.position)])
    assert not in_play(running.position, [])
