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
from typing import Final, NotRequired, TypeAlias, TypedDict

__all__ = [
    "RANKED",
    "ROWS",
    "BadDelta",
    "CountsChange",
    "Delta",
    "Key",
    "Row",
    "RowsChange",
    "apply",
    "diff",
]

# A row of the view's lists (a JSON object), and what keys it: a standings row's player's
# id, a game's id, a round's number.
Row: TypeAlias = Mapping[str, object]
Key: TypeAlias = str | int


class RowsChange(TypedDict):
    """A list of rows' changes: rows changed or added (whole, in the new order), the keys
    of rows gone, and the keys in their new order when keeping the old order (rows added at
    the end) would not give it. The standings' ranks apart: every row's, in the new order,
    when any changed (one player's points move many rows' ranks, nothing else of them)."""

    changed: list[Row]
    gone: list[Key]
    order: NotRequired[list[Key]]
    ranks: NotRequired[list[object]]


class CountsChange(TypedDict):
    """A map's changes: entries set (changed or added) and keys gone."""

    set: dict[str, object]
    gone: list[str]


class Delta(TypedDict, total=False):
    """From one frame view to a newer one; each part present only when something changed."""

    set: dict[str, object]  # top-level fields changed or added, whole
    unset: list[str]  # top-level fields gone
    standings: RowsChange
    games: RowsChange
    rounds: RowsChange
    game_counts: CountsChange


class BadDelta(ValueError):
    """A row without its key, or a delta's part not of its shape (docs/protocol.md)."""


def _key(value: object, what: str) -> Key:
    if isinstance(value, str | int):
        return value
    raise BadDelta(f"{what} is neither a string nor a number")


def _player(row: Row) -> Key:
    player = row["player"]
    if not isinstance(player, Mapping):
        raise BadDelta("a standings row's player is not an object")
    return _key(player["id"], "a standings row's player id")


def _id(row: Row) -> Key:
    return _key(row["id"], "a game's id")


def _round(row: Row) -> Key:
    return _key(row["round"], "a round's number")


# The view's lists changed row by row, each with how a row is keyed.
ROWS: Final[Mapping[str, Callable[[Row], Key]]] = {
    "standings": _player,
    "games": _id,
    "rounds": _round,
}
# The field of each row of these lists that goes apart, as one list (RowsChange.ranks).
RANKED: Final[Mapping[str, str]] = {"standings": "rank"}
COUNTS: Final = "game_counts"
_MISSING: Final = object()


def _bare(row: Row, column: str | None) -> Row:
    if column is None or not isinstance(row, dict):
        return row
    return {k: v for k, v in row.items() if k != column}


def _rows(
    old: Sequence[Row], new: Sequence[Row], key: Callable[[Row], Key], column: str | None
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


def _has(row: Row, column: str | None) -> bool:
    return column is not None and isinstance(row, dict) and column in row


def _column(row: Row | None, column: str) -> object:
    return row.get(column) if isinstance(row, dict) else None


def _counts(old: Mapping[str, object], new: Mapping[str, object]) -> CountsChange | None:
    changed = {k: v for k, v in new.items() if k not in old or old[k] != v}
    gone = [k for k in old if k not in new]
    if not changed and not gone:
        return None
    return {"set": changed, "gone": gone}


def _list(value: object, what: str) -> list[object]:
    if not isinstance(value, list):
        raise BadDelta(f"{what} is not a list")
    return value


def _object(value: object, what: str) -> dict[str, object]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise BadDelta(f"{what} is not an object")
    return value


def _row_list(value: list[object], what: str) -> list[Row]:
    """A list of a view's rows, each an object (a JSON array of objects)."""
    return [_object(r, f"a row of {what}") for r in value]


def diff(old: Mapping[str, object], new: Mapping[str, object]) -> Delta:
    """What turns ``old`` into ``new`` (apply(old, diff(old, new)) == new)."""
    out: Delta = {}
    changed: dict[str, object] = {}
    for name, value in new.items():
        before = old.get(name, _MISSING)
        if name in ROWS and isinstance(before, list) and isinstance(value, list):
            rows = _rows(
                _row_list(before, name), _row_list(value, name), ROWS[name], RANKED.get(name)
            )
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


def _rows_change(value: object, name: str) -> RowsChange:
    """A delta's part for one of the view's lists, as it came (from another hub)."""
    part = _object(value, name)
    out: RowsChange = {
        "changed": _row_list(_list(part["changed"], f"{name}.changed"), name),
        "gone": [_key(k, f"a key of {name}.gone") for k in _list(part["gone"], f"{name}.gone")],
    }
    if "order" in part:
        order = _list(part["order"], f"{name}.order")
        out["order"] = [_key(k, f"a key of {name}.order") for k in order]
    if "ranks" in part:
        out["ranks"] = _list(part["ranks"], f"{name}.ranks")
    return out


def _apply_rows(
    rows: Sequence[Row], change: RowsChange, key: Callable[[Row], Key], column: str | None
) -> list[Row]:
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


def apply(view: Mapping[str, object], delta: Mapping[str, object]) -> dict[str, object]:
    """``view`` with ``delta`` applied (a new dict; ``view`` is untouched). ``delta`` is a
    ``Delta``, or a frame's body from another hub: a part not of its shape raises BadDelta."""
    out = dict(view)
    for name in _list(delta.get("unset", []), "unset"):
        if not isinstance(name, str):
            raise BadDelta("a field of unset is not a string")
        out.pop(name, None)
    out.update(_object(delta.get("set", {}), "set"))
    for name, key in ROWS.items():
        if delta.get(name) is not None:
            change = _rows_change(delta[name], name)
            current = out.get(name)
            rows = _row_list(current, name) if isinstance(current, list) else []
            out[name] = _apply_rows(rows, change, key, RANKED.get(name))
    counts = delta.get("game_counts")
    if counts is not None:
        part = _object(counts, COUNTS)
        current = out.get(COUNTS)
        merged = dict(current) if isinstance(current, dict) else {}
        for k in _list(part["gone"], f"{COUNTS}.gone"):
            merged.pop(k, None)
        merged.update(_object(part["set"], f"{COUNTS}.set"))
        out[COUNTS] = merged
    return out
