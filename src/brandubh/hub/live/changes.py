"""What each change does to a game: pure functions from a state to a ``Change``, no I/O.

Each function takes the game's state (and what the actor asked) and either returns the
change to commit (the new state, its event, and what commit.lua must re-check and update)
or raises the ``Refusal`` the actor gets. ``commit.py`` commits a change; ``games.py``
decides which change to build. The checks here that can race (status, ply, turn,
deadline) are repeated by commit.lua against what Redis holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal, NamedTuple

from brandubh.engine import Game, IllegalMove, Result, Side, opponent
from brandubh.hub.errors import Refusal, no_game
from brandubh.hub.live.state import BOT_ID, GameState, Player, pack_snapshot
from brandubh.hub.live.terms import is_live

DRAW_OFFER_GAP: Final = 10  # plies after a declined offer before that player may offer again
CLAIM_REASON: Final = "abandoned"  # a game claimed because the opponent left (a win or a draw)

# What commit.lua checks of the deadline: nothing, not yet passed (a move), passed (a timeout).
DeadlineCheck = Literal["", "before", "after"]
# What it does to the deadline: leave it, set it to now + ``deadline_ms``, set it to
# ``deadline_ms`` itself, or remove it (the game ended).
DeadlineChange = Literal["", "set", "at", "del"]
# What it does to the game's entry in the bot's job queue: leave, add (the bot's turn), drop.
BotJob = Literal["", "add", "del"]

# The fields each kind of change writes (the others stay as they are).
START_FIELDS: Final = ("status", "p2", "p2name", "attacker", "defender", "turn")
MOVE_FIELDS: Final = (
    "ply",
    "snap",
    "turn",
    "status",
    "winner",
    "reason",
    "draw_offer",
    "draw_block_a",
    "draw_block_d",
)
END_FIELDS: Final = ("turn", "status", "winner", "reason", "draw_offer")
DRAW_FIELDS: Final = ("draw_offer", "draw_block_a", "draw_block_d")
# A move that neither ends the game nor declines a draw offer writes only these.
PLAY_FIELDS: Final = ("ply", "snap", "turn")
DECLINING_FIELDS: Final = PLAY_FIELDS + DRAW_FIELDS


class Played(NamedTuple):
    """What a move adds besides its fields: its text, appended to the game's moves, and the
    position it reached, counted for repetitions (afresh after a capture: ``new_run``)."""

    text: str
    position: int
    new_run: bool


class Absence(NamedTuple):
    """What a claim needs of the opponent (commit.lua checks it by Redis's clock): no socket
    following the game, and gone ``grace_ms``, not counting any outage of the service."""

    player: str  # the opponent ("" until changes.claim names them)
    grace_ms: int
    after: int  # the end of the last recorded outage (ms, Redis clock); 0 for none
    beat: int  # the schedulers' last heartbeat (ms): older than ``gap_ms``, an outage
    gap_ms: int


@dataclass(frozen=True, slots=True)
class Change:
    """A validated change to a game, with what commit.lua must check and update."""

    new: GameState
    event: dict[str, object]
    write: tuple[str, ...]
    status: str = "active"  # the status the game must still have
    ply: int | None = None  # the ply it must still be at
    require_turn: bool = False  # the actor must be the player on turn
    deadline_check: DeadlineCheck = ""
    deadline_change: DeadlineChange = ""
    deadline_ms: int = 0
    bot_job: BotJob = ""
    game: Game | None = None  # the engine's game at ``new``, when at hand
    played: Played | None = None  # a move's text and position
    absent: Absence | None = None  # a claim: the opponent must have left (commit.lua)


Build = Callable[[GameState], Change]


# -- refusals shared by several changes ----------------------------------------------------


def not_running(status: str, msg_id: str | None = None) -> Refusal:
    """``game_not_active``, saying whether the game is yet to start or over."""
    what = "has not started yet" if status == "waiting" else "is over"
    return Refusal("game_not_active", f"the game {what}", msg_id)


def not_waiting(status: str, withdrawing: bool) -> Refusal:
    """``game_not_waiting``: a join, or a withdrawal, of a game past waiting (the other of
    the two may have won the race to it)."""
    if not withdrawing:
        return Refusal("game_not_waiting")
    what = "is over" if status == "ended" else "has started: resign or abort it instead"
    return Refusal(
        "game_not_waiting", f"this invitation can no longer be withdrawn: the game {what}"
    )


def stale_ply(asked: int, at: int, msg_id: str | None = None) -> Refusal:
    """``stale_ply``: the ply the move was for, and the game's."""
    return Refusal(
        "stale_ply",
        f"your move was for ply {asked} but the game is at ply {at}: "
        "the board has been brought up to date",
        msg_id,
    )


def playing_side(state: GameState, player_id: str, msg_id: str | None = None) -> Side:
    """The side of a player of a running game; a refusal for anyone or anything else."""
    side = state.side_of(player_id)
    if side is None:
        raise Refusal("not_a_player", msg_id=msg_id)
    if state.status != "active":
        raise not_running(state.status, msg_id)
    return side


def move_refusal(state: GameState, player_id: str, ply: int, msg_id: str) -> Refusal | None:
    """Why a player may not move now, if so; commit.lua repeats the checks that can race
    (``script_refusal`` says its answers in the same words)."""
    if not state.is_player(player_id):
        return Refusal("not_a_player", msg_id=msg_id)
    if state.status != "active":
        return not_running(state.status, msg_id)
    if ply != state.ply:
        return stale_ply(ply, state.ply, msg_id)
    if state.turn != player_id:
        return Refusal("not_your_turn", msg_id=msg_id)
    return None


def script_refusal(code: str, detail: str, change: Change) -> Refusal:
    """What commit.lua's refusal of ``change`` tells the actor: the same refusal as the
    check above it repeats (``detail``: what Redis holds: the status, the ply)."""
    if code == "wrong_status":
        if change.status == "waiting":  # a join or a withdrawal that lost to the other
            return not_waiting(detail, change.event.get("kind") == "withdraw")
        return not_running(detail)
    if code == "stale_ply" and change.ply is not None:
        return stale_ply(change.ply, int(detail))
    if code == "not_found":
        return no_game(change.new.id)
    if code in ("not_your_turn", "deadline_passed", "deadline_not_passed", "id_reused"):
        return Refusal(code)
    if code == "opponent_back":
        return Refusal(code, "your opponent has not left the game") if detail else Refusal(code)
    if code == "claim_too_soon":
        left = -(-int(detail) // 1000)
        return Refusal(code, f"your opponent may still come back: you may claim in {left} s")
    raise RuntimeError(f"commit.lua failed for game {change.new.id}: {code} {detail}")


# -- the changes ----------------------------------------------------------------------------


def ending(
    new: GameState,
    result: Result,
    event: Mapping[str, object],
    *,
    game: Game | None = None,
    write: tuple[str, ...] = END_FIELDS,
    ply: int | None = None,
    require_turn: bool = False,
    deadline_check: DeadlineCheck = "",
    played: Played | None = None,
) -> Change:
    """The change that ends a game: result, no deadline, no bot turn, no open offer."""
    new = new.evolve(status="ended", turn="", result=result, draw_offer="")
    return Change(
        new,
        {**event, "result": {"winner": result.winner, "reason": result.reason}},
        write,
        ply=ply,
        require_turn=require_turn,
        deadline_check=deadline_check,
        deadline_change="del",
        bot_job="del",
        game=game,
        played=played,
    )


def start(
    current: GameState, joiner: Player, attacker: Player, defender: Player, allowance_ms: int
) -> Change:
    """Seat the second player and start the clock of the attackers' first move."""
    if current.status != "waiting":
        raise not_waiting(current.status, withdrawing=False)
    new = current.evolve(
        seq=current.seq + 1,
        status="active",
        joiner=joiner,
        attacker=attacker.id,
        defender=defender.id,
        turn=attacker.id,
    )
    return Change(
        new,
        {"kind": "start"},
        START_FIELDS,
        status="waiting",
        deadline_change="set",
        deadline_ms=allowance_ms,
        bot_job="add" if attacker.id == BOT_ID else "",
    )


def move(
    state: GameState,
    player_id: str,
    ply: int,
    text: str,
    msg_id: str,
    allowance_ms: int,
    game: Game | None = None,
) -> Change:
    """A move played by ``player_id`` for ``ply``: validated by the engine.

    ``game``, when given, is the engine's game at ``state`` (a live one this process kept,
    cache.py): it is played on, so the caller must own it. Without it, it is rebuilt
    from the stored snapshot.
    """
    refusal = move_refusal(state, player_id, ply, msg_id)
    if refusal is not None:
        raise refusal
    if game is None:
        game = state.game()
    try:
        played = game.play(text)
    except IllegalMove as exc:
        raise Refusal("illegal_move", str(exc), msg_id) from None
    mover = opponent(game.side_to_move)
    event: dict[str, object] = {"kind": "move", "move": str(played), "by": mover}
    draw_offer, draw_block = state.draw_offer, state.draw_block
    if draw_offer == opponent(mover):
        # Playing on declines the opponent's offer.
        draw_offer, draw_block = "", declined_block(state.ply + 1, draw_block, state.draw_offer)
        event["draw_declined"] = True
    result = game.result
    next_player = "" if result is not None else state.player_of(game.side_to_move)
    snapshot = game.snapshot()
    text = str(played)
    recent = snapshot.recent
    # One replace for the whole move: it is the hot path.
    new = state.evolve(
        seq=state.seq + 1,
        ply=state.ply + 1,
        snap=pack_snapshot(snapshot),
        moves=(*state.moves, text),
        recent=recent,
        draw_offer=draw_offer,
        draw_block=draw_block,
        turn=next_player,
    )
    # A run of one position: the piece count changed, older positions cannot come again.
    added = Played(text, recent[-1], len(recent) == 1)
    if result is not None:
        return ending(
            new,
            result,
            event,
            game=game,
            write=MOVE_FIELDS,
            ply=state.ply,
            require_turn=True,
            deadline_check="before",
            played=added,
        )
    return Change(
        new,
        event,
        DECLINING_FIELDS if "draw_declined" in event else PLAY_FIELDS,
        ply=state.ply,
        require_turn=True,
        deadline_check="before",
        deadline_change="set",
        deadline_ms=allowance_ms,
        # Only a game against the bot has a bot job to add or drop.
        bot_job="add" if next_player == BOT_ID else "del" if state.opponent == "bot" else "",
        game=game,
        played=added,
    )


def resign(state: GameState, player_id: str, msg_id: str) -> Change:
    side = playing_side(state, player_id, msg_id)
    event = {"kind": "resign", "by": side}
    return ending(state.next(), Result(opponent(side), "resignation"), event)


def abort(state: GameState, player_id: str, msg_id: str) -> Change:
    side = playing_side(state, player_id, msg_id)
    if state.ply >= 2:
        raise Refusal("cannot_abort", msg_id=msg_id)
    event = {"kind": "abort", "by": side}
    return ending(state.next(), Result(None, "aborted"), event)


def withdraw(state: GameState, player_id: str) -> Change:
    """The creator withdraws an invitation nobody has accepted: it ends with no result,
    never started, so it is neither rated nor listed (rater.py keeps it off every list)."""
    if state.creator.id != player_id:
        raise Refusal("not_yours")
    if state.status != "waiting" or state.opponent != "friend":
        raise not_waiting(state.status, withdrawing=True)
    event = {"kind": "withdraw", "by": None}
    return replace(ending(state.next(), Result(None, "aborted"), event), status="waiting")


def decline(state: GameState, player_id: str, reason: str) -> Change:
    """The invitee of a private challenge declines it, giving ``reason``: it ends as a
    withdrawal does (never started, no result, never rated or listed), marked declined."""
    if not state.invitee or state.invitee != player_id:
        raise Refusal("not_invited", "only the player challenged can decline this challenge")
    if state.status != "waiting" or state.opponent != "friend":
        raise not_waiting(state.status, withdrawing=False)
    event = {"kind": "withdraw", "by": None, "declined": reason}
    change = ending(state.next().evolve(declined=reason), Result(None, "aborted"), event)
    return replace(change, status="waiting", write=(*END_FIELDS, "declined"))


def discard(state: GameState) -> Change:
    """End an unwanted, just-created game with no result (a rematch that lost a race)."""
    return ending(state.next(), Result(None, "aborted"), {"kind": "abort", "by": None})


def offer_draw(state: GameState, player_id: str, msg_id: str) -> Change:
    side = playing_side(state, player_id, msg_id)
    if state.opponent == "bot":
        raise Refusal("bot_declines", msg_id=msg_id)
    if state.draw_offer == side:
        raise Refusal("draw_offer_open", "your draw offer is still open", msg_id)
    if state.draw_offer:
        raise Refusal(
            "draw_offer_open", "your opponent has offered a draw: accept or decline it", msg_id
        )
    allowed = state.draw_block[0 if side == "attackers" else 1]
    if state.ply < allowed:
        raise Refusal(
            "draw_offer_too_soon",
            f"your last offer was declined: you may offer again from ply {allowed} "
            f"(the game is at ply {state.ply})",
            msg_id,
        )
    new = state.next().evolve(draw_offer=side)
    return Change(new, {"kind": "draw_offer", "by": side}, DRAW_FIELDS)


def answer_draw(state: GameState, player_id: str, accept: bool, msg_id: str) -> Change:
    side = playing_side(state, player_id, msg_id)
    if state.draw_offer != opponent(side):
        raise Refusal("no_draw_offer", msg_id=msg_id)
    if accept:
        event = {"kind": "draw_agreed", "by": side}
        return ending(state.next(), Result(None, "draw_agreed"), event)
    new = declined(state.next(), state.draw_offer)
    return Change(new, {"kind": "draw_declined", "by": side}, DRAW_FIELDS)


def claim(state: GameState, player_id: str, draw: bool, msg_id: str, absence: Absence) -> Change:
    """A player whose opponent left a live game ends it: a win for the claimant, or a draw
    (``draw``), reason ``abandoned``. commit.lua checks that the opponent is still gone and
    has been for the grace."""
    side = playing_side(state, player_id, msg_id)
    if state.opponent == "bot" or not is_live(state.move_time):
        raise Refusal("not_live", msg_id=msg_id)
    if state.ply < 2:
        raise Refusal(
            "claim_too_soon",
            "fewer than two plies have been played: abort the game instead",
            msg_id,
        )
    other = state.player_of(opponent(side))
    winner = None if draw else side
    event = {"kind": "claim", "by": side, "draw": draw}
    change = ending(state.next(), Result(winner, CLAIM_REASON), event)
    return replace(change, absent=absence._replace(player=other))


def expiry(state: GameState, outages: list[tuple[int, int]]) -> Change:
    """What a due deadline does: move it on for outages, or end the game on time."""
    if state.status != "active" or not state.deadline:
        raise Refusal("game_not_active", "no deadline runs in this game")
    extended = extend_for_outages(state.deadline, state.deadline_set, outages)
    if extended > state.deadline:
        notice = {"kind": "deadline_extended", "deadline": extended}
        return Change(state.next(), notice, (), deadline_change="at", deadline_ms=extended)
    side = state.side_of(state.turn) or "attackers"
    if state.ply < 2:  # a first move that never came: no result
        return ending(
            state.next(),
            Result(None, "aborted"),
            {"kind": "abort", "by": None, "timeout": side},
            deadline_check="after",
        )
    return ending(
        state.next(),
        Result(opponent(side), "timeout"),
        {"kind": "timeout", "side": side},
        deadline_check="after",
    )


# -- helpers ---------------------------------------------------------------------------------


def extend_for_outages(deadline: int, set_at: int, outages: list[tuple[int, int]]) -> int:
    """A deadline moved on by every outage that began before it fell and ended after it was
    set (docs/fair-play.md): the side to move keeps the time it had when the service went
    down. An outage starts at the last heartbeat, so it may seem to start before the
    deadline was set; then the time lost counts from the setting."""
    for begin, end in sorted(outages):
        if begin < deadline and end > set_at:
            deadline += end - max(begin, set_at)
    return deadline


def declined(state: GameState, offerer: str) -> GameState:
    """The state after an offer is declined: closed, and its maker waits DRAW_OFFER_GAP plies."""
    return state.evolve(
        draw_offer="", draw_block=declined_block(state.ply, state.draw_block, offerer)
    )


def declined_block(ply: int, block: tuple[int, int], offerer: str) -> tuple[int, int]:
    """From which ply each side may offer, after ``offerer``'s offer was declined at ``ply``."""
    a, d = block
    until = ply + DRAW_OFFER_GAP
    return (until, d) if offerer == "attackers" else (a, until)


def fingerprint(kind: str, detail: str = "") -> str:
    """What an action asked for, stored with its ack: a message id reused for a different
    action is refused (``id_reused``) rather than acknowledged as a resend."""
    return f"{kind}:{detail}" if detail else kind
