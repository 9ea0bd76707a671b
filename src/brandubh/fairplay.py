"""Fair play: the game seed, its public commitment, and what is derived from it.

The formulas here are the ones written in docs/fair-play.md; anyone can recompute them
from a finished game's record.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Sequence
from typing import Final, NamedTuple

from brandubh.engine import Game, InvalidRecord, Record, Side, opponent

SEED_BYTES: Final = 32
_SIDES_DOMAIN: Final = b"brandubh-live/sides/v1:"


def new_seed() -> bytes:
    """32 random bytes from the operating system's generator."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: its SHA-256, lower-case hex."""
    return hashlib.sha256(seed).hexdigest()


def creator_attacks(seed: bytes, game_id: str) -> bool:
    """Whether the player who created the game attacks.

    ``SHA-256("brandubh-live/sides/v1:" || seed || game_id)``: the creator attacks when the
    lowest bit of the first byte is 0.
    """
    digest = hashlib.sha256(_SIDES_DOMAIN + seed + game_id.encode()).digest()
    return digest[0] & 1 == 0


class VerificationFailed(ValueError):
    """A finished game's record that does not check out; the message names what."""


# A match game's record says which match and which of its games: "m1a2b3c4d5e game 2".
_MATCH_RE: Final = re.compile(r"^(\S+) game ([123])\Z")
# Of the rule sets, only newsome's source gives a 1-1 match a third game (matches.py).
TIEBREAK_RULESETS: Final = frozenset({"newsome"})


class MatchGame(NamedTuple):
    """Which match a record's game belongs to, and which of its games it is (1 to 3)."""

    match_id: str
    number: int


def match_of(record: Record) -> MatchGame | None:
    """The record's ``Match`` header read, or None when the game is not part of a match."""
    value = dict(record.extra).get("Match")
    if value is None:
        return None
    m = _MATCH_RE.match(value)
    if m is None:
        raise VerificationFailed(
            f'the Match header {value!r} should read "<match id> game <1, 2 or 3>"'
        )
    return MatchGame(m.group(1), int(m.group(2)))


def verify(record: Record, earlier: Sequence[Record] = ()) -> Game:
    """Check a finished game's record: the seed matches the commitment, the sides follow
    from the seed, every move is legal and the result follows. Return the replayed game.

    A match's later game has its sides from the match, not its seed: ``earlier`` must hold
    the records of that match's earlier games, first game first, and they are checked too.
    Raises VerificationFailed naming the first thing that does not hold.
    """
    if record.result is None:
        raise VerificationFailed("the record has no result: only a finished game is verified")
    if not record.seed:
        raise VerificationFailed("the record has no Seed header: the seed is revealed at the end")
    try:
        seed = bytes.fromhex(record.seed)
    except ValueError:
        raise VerificationFailed(f"the Seed header is not hex: {record.seed!r}") from None
    if len(seed) != SEED_BYTES:
        raise VerificationFailed(f"the seed has {len(seed)} bytes, not {SEED_BYTES}")
    if not record.commitment:
        raise VerificationFailed("the record has no Commitment header")
    if commitment(seed) != record.commitment.lower():
        raise VerificationFailed(
            f"the seed does not match the commitment: SHA-256 of the seed is "
            f"{commitment(seed)}, the record commits to {record.commitment}"
        )
    if not record.game_id:
        raise VerificationFailed("the record has no Game header (the sides depend on it)")
    creator = _creator(record)
    match = match_of(record)
    if match is None or match.number == 1:
        if earlier:
            raise VerificationFailed(
                "earlier games were given, but this record is not a later game of a match"
            )
        expected = "attackers" if creator_attacks(seed, record.game_id) else "defenders"
        if creator != expected:
            raise VerificationFailed(
                f"the sides do not follow from the seed: the game's creator should have been "
                f"the {expected}, the record says the {creator}"
            )
    else:
        _check_match_sides(record, match, earlier)
    return _replay(record)


def _creator(record: Record) -> Side:
    creator = dict(record.extra).get("Creator")
    if creator == "attackers":
        return "attackers"
    if creator == "defenders":
        return "defenders"
    raise VerificationFailed('the record needs a Creator header: "attackers" or "defenders"')


def _replay(record: Record) -> Game:
    try:
        game = record.replay()
    except InvalidRecord as exc:
        raise VerificationFailed(str(exc)) from None
    _check_ending(game)
    return game


def _check_ending(game: Game) -> None:
    """An ending the service decides must agree with the position the moves reach, as the
    service decides it (live/changes.py): only the side to move runs out of time, and not
    before two plies (a first move that never came aborts the game); only a game of fewer
    than two plies is aborted; a resignation has a winner and an agreed draw none; a game
    claimed when the opponent left (abandoned, a win or a draw) had both sides move."""
    result, plies = game.result, len(game.moves)
    assert result is not None
    reason, winner, mover = result.reason, result.winner, game.side_to_move
    if reason == "timeout":
        if plies < 2:
            raise VerificationFailed(
                f"the record says a timeout after {plies} plies: a game whose first moves "
                f"never came is aborted, not lost"
            )
        if winner != opponent(mover):
            raise VerificationFailed(
                f"the record says the {winner or 'nobody'} won on time, but the {mover} were "
                f"to move after ply {plies}: only the side to move runs out of time"
            )
    elif reason == "aborted" and (plies >= 2 or winner is not None):
        raise VerificationFailed(
            f"the record says aborted after {plies} plies: only a game of fewer than two "
            f"plies is aborted, with no winner"
        )
    elif reason == "resignation" and winner is None:
        raise VerificationFailed("the record says a resignation, but names no winner")
    elif reason == "draw_agreed" and winner is not None:
        raise VerificationFailed(f"the record says an agreed draw, but the {winner} won")
    elif reason == "abandoned" and plies < 2:
        raise VerificationFailed(
            f"the record says abandoned after {plies} plies: a game is claimed only after "
            f"both sides moved (before, it is aborted)"
        )


def _check_match_sides(record: Record, match: MatchGame, earlier: Sequence[Record]) -> None:
    """A match's second game swaps the first's sides. A third (newsome's tie-breaker) has
    the sides its chooser picked, so it is checked to be a game the first two called for."""
    label = f"this record is game {match.number} of match {match.match_id}"
    if len(earlier) != match.number - 1:
        raise VerificationFailed(
            f"{label}: its sides follow from the match, not its seed, so it is verified with "
            f"the record of each earlier game of the match, first game first "
            f"({len(earlier)} given, {match.number - 1} needed)"
        )
    games = []
    for i, previous in enumerate(earlier):
        if match_of(previous) != MatchGame(match.match_id, i + 1):
            raise VerificationFailed(
                f"{label}, but earlier record {i + 1} is not game {i + 1} of that match"
            )
        if previous.ruleset != record.ruleset:
            raise VerificationFailed(
                f"{label} ({record.ruleset}), but game {i + 1} is {previous.ruleset}: "
                f"a match keeps one rule set"
            )
        try:
            games.append(verify(previous, earlier[:i]))
        except VerificationFailed as exc:
            raise VerificationFailed(f"game {i + 1} of match {match.match_id}: {exc}") from None
    first = earlier[0]
    if match.number == 2:
        expected = opponent(_creator(first))
        if _creator(record) != expected:
            raise VerificationFailed(
                f"the sides do not follow from the match: game 2 swaps game 1's sides, so its "
                f"creator should have been the {expected}, the record says the "
                f"{_creator(record)}"
            )
        _same_players(record, first, swapped=True)
        return
    _same_players(record, first, swapped=False)
    if record.ruleset not in TIEBREAK_RULESETS:
        raise VerificationFailed(f"{label}, but a {record.ruleset} match has only two games")
    # The creator of every game of a match is the same player (matches.py), so the
    # creator's side in each game tells whose win it was.
    creator_won = []
    for i, (previous, game) in enumerate(zip(earlier, games, strict=True)):
        assert game.result is not None
        if game.result.winner is None:
            raise VerificationFailed(f"{label}, but game {i + 1} was drawn: no tie-breaker")
        creator_won.append(game.result.winner == _creator(previous))
    if creator_won[0] == creator_won[1]:
        raise VerificationFailed(f"{label}, but one player won both earlier games")
    if _margin(games[0]) == _margin(games[1]):
        raise VerificationFailed(
            f"{label}, but both wins left {_margin(games[0])} pieces: with equal margins "
            f"the match is drawn and has no third game"
        )


def _margin(game: Game) -> int:
    """The winner's pieces left on the board (the king counts for the defenders)."""
    board, result = game.board, game.result
    assert result is not None
    if result.winner == "attackers":
        return board.att.bit_count()
    return board.dfn.bit_count() + (board.king >= 0)


def _same_players(record: Record, first: Record, *, swapped: bool) -> None:
    """The players' names, where both records give them, are game 1's: with the sides
    swapped (game 2), or either way round (a tie-breaker, whose sides were chosen)."""
    names = (record.attackers, record.defenders)
    before = (first.attackers, first.defenders)
    if None in names or None in before:
        return
    if names == before[::-1] or (not swapped and names == before):
        return
    raise VerificationFailed(
        f"the players do not follow from the match: game 1 was {before[0]} (attackers) "
        f"against {before[1]} (defenders), this record has {names[0]} against {names[1]}"
    )
