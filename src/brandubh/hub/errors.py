"""The hub's refusals: what the service declines to do, with a stable code and a message a
person can act on. One tree for the websocket and HTTP alike::

    Refusal                  declined: ``code`` (stable, for programs), ``message`` (for people)
    ├── RateLimited          too many attempts: also says when to try again (``retry_after``)
    └── ProtocolError        a frame that is not one msgpack map of a known shape

``CODES`` is the one registry of codes: each with the HTTP status that answers it and its
message. ``Refusal(code)`` says that message; a raise site gives its own only to add a fact
the person can act on (which ply, which limit, whose invitation). A code not in ``CODES``
cannot be raised. A websocket answers a refusal with an ``error`` frame carrying the code,
the message and the id of the message refused; HTTP answers with ``{"error": code,
"message": message}`` and the code's status. docs/protocol.md §3.5 lists every code;
tests/hub/test_refusals.py holds it, and every code raised anywhere, to this registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Code:
    """One refusal code: the HTTP status that answers it, and what it tells a person."""

    status: int
    message: str
    internal: bool = False  # a signal between the hub's own parts: never sent to a client


CODES: Final[dict[str, Code]] = {
    # -- the frame or request itself -----------------------------------------------------
    "bad_frame": Code(400, "a frame must be one binary msgpack map with a string 't' field"),
    "frame_too_large": Code(400, "the frame is over the size limit (hello's limits)"),
    "unknown_type": Code(400, "that is not a message type a client may send"),
    "bad_field": Code(400, "a field is missing, unexpected, or of the wrong type or range"),
    "bad_request": Code(400, "the request body must be a JSON object"),
    "payload_too_large": Code(413, "the request body is too large"),
    "forbidden": Code(403, "cross-site request refused"),
    "rate_limited": Code(429, "too many attempts: wait a little and try again"),
    "busy": Code(503, "too much is changing at once: try again"),
    "unavailable": Code(503, "the service cannot reach its store: send it again shortly"),
    # -- who may act -----------------------------------------------------------------------
    "session_ended": Code(401, "your session has ended: log in again"),
    "not_logged_in": Code(401, "log in first: this needs an account"),
    "account_required": Code(
        403, "playing a person needs an account: sign up or log in first (the bot needs none)"
    ),
    "verification_required": Code(
        403,
        "confirm your email address first: follow the link we mailed you when you signed "
        "up, or ask for a new one on your account page (the bot needs no confirmation)",
    ),
    "not_a_player": Code(403, "you are watching this game: only its players can act"),
    "not_yours": Code(403, "only the player who sent this invitation can withdraw it"),
    # -- following games -------------------------------------------------------------------
    "not_found": Code(404, "there is nothing by that id"),
    "too_many_games": Code(400, "this socket follows as many games as it may"),
    # Only the last line of a stream whose reader fell behind (docs/protocol.md §2.9, §2.10):
    # no request answers it.
    "too_slow": Code(
        400,
        "the stream's reader fell too far behind and it ended: open it again (a game's stream "
        "with since=<the last n>; the event stream starts with the open challenges and games)",
    ),
    "not_watching": Code(400, "this socket does not follow that game"),
    # -- playing ---------------------------------------------------------------------------
    "game_not_active": Code(400, "the game is not running: no moves now"),
    "stale_ply": Code(400, "the game has moved on: the board has been brought up to date"),
    "not_your_turn": Code(400, "it is your opponent's move"),
    "illegal_move": Code(400, "that move is not legal here"),
    "deadline_passed": Code(400, "the time for this move ran out: the game ends on time"),
    "id_reused": Code(
        400,
        "this message id was already used for another action: send each new action with a new id",
    ),
    "cannot_abort": Code(
        400,
        "both sides have moved, so the game can no longer be aborted: "
        "resign or offer a draw instead",
    ),
    "conditional_live": Code(
        400, "conditional moves are for correspondence games: an hour or more a move"
    ),
    "conditional_illegal": Code(
        400, "a conditional line is not legal from the current position: see which move"
    ),
    "conditional_conflict": Code(
        400, "two conditional lines reply differently to the same moves: keep one reply"
    ),
    "conditional_too_large": Code(
        400, "too many conditional lines or moves: at most 32 lines of 6 moves"
    ),
    "draw_offer_open": Code(400, "a draw offer is open already"),
    "draw_offer_too_soon": Code(400, "your last draw offer was declined too few plies ago"),
    "no_draw_offer": Code(400, "there is no draw offer to answer"),
    "nothing_to_take_back": Code(400, "you have no move to take back yet"),
    "takeback_not_allowed": Code(400, "no takebacks in this game"),
    "takeback_offer_open": Code(400, "a takeback offer is already open"),
    "takeback_offer_too_soon": Code(
        400, "your last takeback offer was declined: ask again after the next move"
    ),
    "no_takeback_offer": Code(400, "there is no takeback offer to answer"),
    "bot_declines": Code(400, "the bot plays every game out: it does not agree to draws"),
    # -- an opponent who left (changes.claim) -----------------------------------------------
    "not_live": Code(
        400,
        "only a live game against a person (under an hour per move) can be claimed when the "
        "opponent leaves",
    ),
    "opponent_back": Code(
        400, "your opponent is in the game (one of their pages follows it): play on"
    ),
    "claim_too_soon": Code(
        400, "your opponent has not been gone long enough yet (30 s) to claim the game"
    ),
    # -- chat ------------------------------------------------------------------------------
    "no_chat": Code(403, "this game has no chat: games against the bot have none"),
    "chat_room": Code(
        403,
        "players write in the player room, everyone else in the spectator room: "
        "that is the one this socket sees",
    ),
    # -- after the end: rematches ----------------------------------------------------------
    "game_not_over": Code(
        400, "the game is not over: a rematch can be asked for or declined after the end"
    ),
    "no_rematch_offer": Code(400, "there is no rematch offer from your opponent to decline"),
    "rematch_declined": Code(400, "your opponent declined the rematch: start a new game instead"),
    "rematch_closed": Code(
        400, "this game is archived, and its rematch offers with it: start a new game instead"
    ),
    # -- creating and joining games --------------------------------------------------------
    "too_many_bot_games": Code(
        409, "you have as many unfinished games against the bot as you may: finish one first"
    ),
    "game_not_waiting": Code(409, "this game already has both its players"),
    "bad_invite": Code(403, "this invite link is not valid for this game"),
    "not_invited": Code(403, "this challenge is for another player: only they can accept it"),
    "invitation_withdrawn": Code(410, "this invitation was withdrawn: ask for a new one"),
    # -- challenges (hub/challenges/) -------------------------------------------------------
    "challenges_closed": Code(
        403, "this player does not take challenges from bot accounts (their setting)"
    ),
    "too_many_challenges": Code(
        409, "you have as many open challenges as you may (10): cancel one, or wait for answers"
    ),
    "too_many_streams": Code(
        429, "this account has as many event streams open as it may: close one first"
    ),
    # -- tournaments ------------------------------------------------------------------------
    "invalid_tournament": Code(400, "a setting of the tournament is not valid"),
    # Shared by tournaments and analyses: each refusal says which in its own message.
    "not_allowed": Code(403, "this is for accounts with a confirmed email address"),
    "too_many_tournaments": Code(
        429, "you run as many tournaments as you may at once: wait for one to finish"
    ),
    "tournament_closed": Code(
        409, "this tournament takes no more players (or changes): it has started or finished"
    ),
    "tournament_full": Code(409, "this tournament has as many players as it takes"),
    "not_joined": Code(409, "you are not a player of this tournament"),
    "too_many_follows": Code(400, "this socket follows as many tournaments as it may"),
    # -- follows and blocks ----------------------------------------------------------------
    "too_many_followed": Code(409, "you follow as many players as you may: unfollow one first"),
    "too_many_blocked": Code(409, "you block as many players as you may: unblock one first"),
    "blocked": Code(403, "this player does not accept that from you"),
    # -- lessons (docs/learn.md) ------------------------------------------------------------
    "unknown_stage": Code(404, "there is no such lesson: see GET /api/learn for the courses"),
    "stage_finished": Code(
        409, "that stage already ended (won or lost) before this move: start it again"
    ),
    "not_a_board": Code(400, "that stage is a game against the bot, not a board to move on"),
    # -- puzzles (hub/puzzles/) ------------------------------------------------------------
    "no_puzzles": Code(404, "no puzzle fits what you asked for: try another theme or rule set"),
    "puzzle_not_started": Code(
        409, "that puzzle is not the one you are solving: start it first (or ask for the next)"
    ),
    "puzzle_finished": Code(409, "this attempt is over: ask for the next puzzle"),
    "puzzle_ply": Code(409, "that is not the move the puzzle awaits now: it is at another ply"),
    # -- the lobby and matches -------------------------------------------------------------
    "too_many_seeks": Code(400, "you have as many open seeks as you may: cancel one first"),
    "seek_gone": Code(400, "that seek is no longer open: someone took it or it was cancelled"),
    "own_seek": Code(400, "that is your own seek: cancel it instead"),
    "already_waiting": Code(
        400, "you are already waiting for a game with other terms: stop waiting first"
    ),
    "not_your_choice": Code(400, "only the player who won by the larger margin chooses sides"),
    # -- accounts and mail -----------------------------------------------------------------
    "bad_email": Code(
        400,
        "that is not an email address we can use: it should look like ann@example.org "
        "(one @, no spaces, a domain with a dot)",
    ),
    "weak_password": Code(400, "that password is too weak: choose another"),
    "bad_name": Code(400, "that name cannot be used: choose another"),
    "bad_credentials": Code(
        401,
        "the email address or the password is not right (a new account logs in once the "
        "link we mailed at sign-up is followed)",
    ),
    "already_verified": Code(409, "this address is confirmed already"),
    "token_unknown": Code(
        404, "this link is not one we sent (it may be mistyped), or it is long past its expiry"
    ),
    "token_expired": Code(410, "this link has expired"),
    "token_used": Code(410, "this link was used already: each works once"),
    # -- personal API tokens (docs/api.md) ------------------------------------------------
    "token_invalid": Code(
        401,
        "send a live personal API token as 'Authorization: Bearer bdl_…' (this one is "
        "missing, malformed, unknown or revoked)",
    ),
    "token_scope": Code(403, "this token lacks the scope this asks for"),
    "unknown_scope": Code(
        400, "that is not a scope a token may have: bot:play, challenge:write, games:read"
    ),
    "too_many_tokens": Code(409, "you have 20 live API tokens, the most you may: revoke one first"),
    # -- bot accounts (docs/api.md, Becoming a bot) -----------------------------------------
    "bot_account": Code(
        403,
        "this is a bot account: it plays through the Bot API only (challenges), never "
        "from the site nor in pairings, seeks or tournaments meant for people",
    ),
    "already_bot": Code(409, "this account is a bot account already"),
    "bot_has_rated_games": Code(
        409,
        "an account that has played a rated game cannot become a bot: make a new account "
        "for the bot",
    ),
    # -- verifying (POST /api/verify: its verdict's "error", answered 200 with "ok": false) --
    "record_invalid": Code(
        400, "the record does not verify: check that it is the whole record, as downloaded"
    ),
    "record_not_played": Code(
        400, "the record holds together, but it is not the game this service played under its id"
    ),
    "no_otn": Code(
        409,
        "this game's rule set has no rules string in OpenTafl notation: only nielsen and "
        "walker have one (docs/otep.md)",
    ),
    "otn_invalid": Code(
        400,
        "the text is not OpenTafl notation that replays: the message names the line, the "
        "move and why",
    ),
    "otn_unsupported": Code(
        400,
        "valid OpenTafl notation that our rule sets cannot play: only nielsen's and walker's "
        "rules have an OTN rules string (docs/otep.md)",
    ),
    "export_invalid": Code(
        400, "the tournament export does not verify: check that it is the whole export"
    ),
    "export_not_run": Code(
        400,
        "the export holds together, but it is not the tournament this service ran under its id",
    ),
    # -- analysis by the bot (docs/analysis.md) ------------------------------------------
    "not_finished": Code(409, "the game is not over yet: it can be analysed once it has ended"),
    "analysis_limit": Code(
        429, "you have asked for as many analyses as the day allows: try again tomorrow"
    ),
    "analysis_busy": Code(503, "the analysis workers are busy: try again in a few minutes"),
    "bad_position": Code(
        400, "that is not a position of this rule set in the project's notation (docs/rules.md)"
    ),
    "own_game": Code(
        403,
        "that is a game you are playing now: no engine help during your own game (analyse "
        "it once it has ended)",
    ),
    "no_moves": Code(
        409, "that game ended before its first move (aborted or withdrawn): nothing to analyse"
    ),
    "not_analysed": Code(
        409, "that game has no analysis yet: ask for it, and try its moves once it is done"
    ),
    "not_a_mistake": Code(
        400,
        "that move was not judged an inaccuracy, mistake or blunder: only those are exercises",
    ),
    "position_in_play": Code(
        403,
        "that position stands on the board of a game in progress, or one move past it: "
        "no engine help for games being played (ask again once that game has moved on)",
    ),
    # -- internal --------------------------------------------------------------------------
    # commit.lua's answer to a timeout whose deadline a move moved on (the scheduler's).
    "deadline_not_passed": Code(400, "the deadline has not passed", internal=True),
}


class Refusal(Exception):
    """A request or message the service declines; nothing was changed. ``message``
    defaults to the code's (``CODES``); give one only to add a fact."""

    def __init__(self, code: str, message: str = "", msg_id: str | None = None) -> None:
        known = CODES.get(code)
        if known is None:
            raise ValueError(f"refusal code {code!r} is not in errors.CODES")
        message = message or known.message
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id  # the refused websocket message's id, when it had one


class RateLimited(Refusal):
    """Too many attempts in a window; ``retry_after`` seconds until one is allowed again."""

    def __init__(self, message: str, retry_after: int, code: str = "rate_limited") -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


class ProtocolError(Refusal):
    """A websocket frame that cannot be decoded, or a message that fits no shape."""


def verification_required() -> Refusal:
    """Playing people and the leaderboards need a confirmed address (accounts/verification.py)."""
    return Refusal("verification_required")


def no_game(game_id: str, msg_id: str | None = None) -> Refusal:
    """``not_found`` for a game, wherever it is looked up: naming the id asked for."""
    return Refusal("not_found", f"there is no game {game_id}", msg_id)


def http_status(code: str) -> int:
    """The HTTP status that answers a refusal with this code."""
    return CODES[code].status
