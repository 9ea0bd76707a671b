"""What changed between two of a tournament's frame views (``diff``), and a view with a
change applied (``apply``): the ``tournament_delta`` frame's body (docs/protocol.md).

Pure. The view's lists of rows (the standings by player id, an arena's games by game id, a
round robin's or Swiss's rounds by number) change row by row, ``game_counts`` entry by
entry, every other field whole. Applying a delta to the view it was taken against gives the
newer view exactly, and applying it again changes nothing (each part says what a row or field
is, never what to add): client/src/logic/tournamentdelta.ts is the same ``apply``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NotRequired, TypedDict

__all__ = ["RANKED", "ROWS", "CountsChange", "Delta", "RowsChange", "apply", "diff"]


class RowsChange(TypedDict):
    """A list of rows' changes: rows changed or added (whole, in the new order), the keys
    of rows gone, and the keys in their new order when keeping the old order (rows added at
    the end) would not give it. The standings' ranks apart: every row's, in the new order,
    when any changed (one player's points move many rows' ranks, nothing else of them)."""

    changed: list[Any]
    gone: list[Any]
    order: NotRequired[list[Any]]
    ranks: NotRequired[list[Any]]


class CountsChange(TypedDict):
    """A map's changes: entries set (changed or added) and keys gone."""

    set: dict[str, Any]
    gone: list[str]


class Delta(TypedDict, total=False):
    """From one frame view to a newer one; each part present only when something changed."""

    set: dict[str, Any]  # top-level fields changed or added, whole
    unset: list[str]  # top-level fields gone
    standings: RowsChange
    games: RowsChange
    rounds: RowsChange
    game_counts: CountsChange


def _player(row: Mapping[str, Any]) -> Any:
    return row["player"]["id"]


def _id(row: Mapping[str, Any]) -> Any:
    return row["id"]


def _round(row: Mapping[str, Any]) -> Any:
    return row["round"]


# The view's lists changed row by row, each with how a row is keyed.
ROWS: Final[Mapping[str, Callable[[Mapping[str, Any]], Any]]] = {
    "standings": _player,
    "games": _id,
    "rounds": _round,
}
# The field of each row of these lists that goes apart, as one list (RowsChange.ranks).
RANKED: Final[Mapping[str, str]] = {"standings": "rank"}
COUNTS: Final = "game_counts"
_MISSING: Final = object()


def _bare(row: Any, column: str | None) -> Any:
    if column is None or not isinstance(row, dict):
        return row
    return {k: v for k, v in row.items() if k != column}


def _rows(
    old: Sequence[Any], new: Sequence[Any], key: Callable[[Any], Any], column: str | None
) -> RowsChange | None:
    before = {key(r): r for r in old}
    keys = [key(r) for r in new]
    changed = [
        r
        for k, r in zip(keys, new, strict=True)
        if k not in before
        or _bare(before[k], column) != _bare(r, column)
        or _has(before[k], column) != _has(r, column)
    ]
    now = set(keys)
    gone = [k for k in before if k not in now]
    # What apply gives without an order: the old rows kept where they were, new ones after.
    kept = [k for k in before if k in now]
    added = [k for k in keys if k not in before]
    out: RowsChange = {"changed": changed, "gone": gone}
    if kept + added != keys:
        out["order"] = keys
    if column is not None:
        mine = {key(r): r for r in changed}
        made = [mine.get(k, before.get(k)) for k in keys]
        if [_column(r, column) for r in made] != [_column(r, column) for r in new]:
            out["ranks"] = [_column(r, column) for r in new]
    if out == {"changed": [], "gone": []}:
        return None
    return out


def _has(row: Any, column: str | None) -> bool:
    return column is not None and isinstance(row, dict) and column in row


def _column(row: Any, column: str) -> Any:
    return row.get(column) if isinstance(row, dict) else None


def _counts(old: Mapping[str, Any], new: Mapping[str, Any]) -> CountsChange | None:
    changed = {k: v for k, v in new.items() if k not in old or old[k] != v}
    gone = [k for k in old if k not in new]
    if not changed and not gone:
        return None
    return {"set": changed, "gone": gone}


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> Delta:
    """What turns ``old`` into ``new`` (apply(old, diff(old, new)) == new)."""
    out: Delta = {}
    changed: dict[str, Any] = {}
    for name, value in new.items():
        before = old.get(name, _MISSING)
        if name in ROWS and isinstance(before, list) and isinstance(value, list):
            rows = _rows(before, value, ROWS[name], RANKED.get(name))
            if rows is not None:
                out[name] = rows  # type: ignore[literal-required]
        elif name == COUNTS and isinstance(before, dict) and isinstance(value, dict):
            counts = _counts(before, value)
            if counts is not None:
                out["game_counts"] = counts
        elif before is _MISSING or before != value:
            changed[name] = value
    if changed:
        out["set"] = changed
    gone = [name for name in old if name not in new]
    if gone:
        out["unset"] = gone
    return out


def _apply_rows(
    rows: Sequence[Any], change: RowsChange, key: Callable[[Any], Any], column: str | None
) -> list[Any]:
    gone = set(change["gone"])
    out = [r for r in rows if key(r) not in gone]
    at = {key(r): i for i, r in enumerate(out)}
    for r in change["changed"]:
        k = key(r)
        if k in at:
            out[at[k]] = r
        else:
            at[k] = len(out)
            out.append(r)
    order = change.get("order")
    if order is not None:
        by_key = {key(r): r for r in out}
        out = [by_key[k] for k in order if k in by_key]
    ranks = change.get("ranks")
    if column is not None and ranks is not None and len(ranks) == len(out):
        out = [
            r if _column(r, column) == v else {**r, column: v}
            for r, v in zip(out, ranks, strict=True)
        ]
    return out


def apply(view: Mapping[str, Any], delta: Delta) -> dict[str, Any]:
    """``view`` with ``delta`` applied (a new dict; ``view`` is untouched)."""
    out = dict(view)
    for name in delta.get("unset", []):
        out.pop(name, None)
    out.update(delta.get("set", {}))
    for name, key in ROWS.items():
        change: RowsChange | None = delta.get(name)  # type: ignore[assignment]
        if change is not None:
            current = out.get(name)
            rows = current if isinstance(current, list) else []
            out[name] = _apply_rows(rows, change, key, RANKED.get(name))
    counts = delta.get("game_counts")
    if counts is not None:
        current = out.get(COUNTS)
        merged = dict(current) if isinstance(current, dict) else {}
        for k in counts["gone"]:
            merged.pop(k, None)
        merged.update(counts["set"])
        out[COUNTS] = merged
    return out
