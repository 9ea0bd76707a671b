"""A game's record with its analysis written in as comments (docs/record-format.md)."""

from __future__ import annotations

from dataclasses import replace

from brandubh.analysis.analyse import GameAnalysis, PlyAnalysis, PositionEval
from brandubh.engine import ENGINE_REASONS, Record, format_record


def _eval_words(ev: PositionEval) -> str:
    """``defenders 62 %, +0.43``: the chance and the score in soldiers, or the forced win."""
    head = f"defenders {round(ev.chance * 100)} %"
    if ev.forced is not None:
        return f"{head}, {ev.forced.text}"
    return f"{head}, {ev.score / 100:+.2f}"


def _ply_words(ply: PlyAnalysis, ending: str | None) -> str:
    """The evaluation after the move (or how the game ended, after its last move), then its
    judgment with the better move and line."""
    words = _eval_words(ply.eval) if ending is None else ending
    if ply.judgment is not None:
        words += f"; {ply.judgment}"
        if ply.best is not None:
            words += f"; better {ply.best}"
            if len(ply.line) > 1:
                words += " (" + " ".join(ply.line) + ")"
    return words


def record_with_analysis(record: Record, analysis: GameAnalysis) -> str:
    """The record's text with a comment after each move: the evaluation after it, and for a
    judged move its judgment, the better move and line; the first comment says how.

    Raises ValueError if the analysis is not of the record's moves.
    """
    if analysis.ruleset != record.ruleset or len(analysis.plies) != len(record.moves):
        raise ValueError(
            f"the analysis ({analysis.ruleset}, {len(analysis.plies)} plies) is not of this "
            f"record ({record.ruleset}, {len(record.moves)} moves)"
        )
    for ply, move in zip(analysis.plies, record.moves, strict=True):
        if ply.move != move:
            raise ValueError(f"ply {ply.ply}: the analysis has {ply.move}, the record {move}")
    intro = (
        f"analysis by the bot (version {analysis.version}, {analysis.nodes} nodes a ply): "
        + _eval_words(analysis.start)
    )
    result = record.result
    last = len(record.moves)
    ending = f"the game is over: {result}" if result and result.reason in ENGINE_REASONS else None
    comments = [(0, intro)]
    comments += [(p.ply, _ply_words(p, ending if p.ply == last else None)) for p in analysis.plies]
    # Comments are words separated by single spaces (docs/record-format.md, Comments).
    clean = tuple((ply, " ".join(text.split())) for ply, text in comments)
    return format_record(replace(record, comments=clean))
