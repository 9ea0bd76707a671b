"""What each message a client sends does, by what it asks of the socket: following
(games, the lobby, the heartbeat: any socket), acting on a game (the socket's player,
checked by each game), acting in the lobby (an account). Each handler takes the typed
message ``protocol.parse`` made, never the decoded map.

``handle`` answers one message: an acting one (a game action, a chat line or report, a
lobby action) is stamped on arrival and needs a live
session, then the player it acts for; the refusals a client sees are docs/protocol.md's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, assert_never

from brandubh.hub.errors import Refusal, verification_required
from brandubh.hub.live import Player
from brandubh.hub.messages import (
    Abort,
    AcceptSeek,
    Acting,
    AnswerDraw,
    AnswerTakeback,
    CancelQuick,
    CancelSeek,
    Chat,
    ChatAction,
    ChooseSides,
    Claim,
    ClientMessage,
    DeclineRematch,
    FollowAnalysis,
    Following,
    FollowLobby,
    FollowTournament,
    GameAction,
    GetConditional,
    LobbyAction,
    Move,
    OfferDraw,
    OfferTakeback,
    Ping,
    Pong,
    Quick,
    Rematch,
    Report,
    Resign,
    Seek,
    SetConditional,
    Takeback,
    Unwatch,
    Watch,
    frames,
)
from brandubh.hub.wire.sockets import MAX_ANALYSES
from brandubh.hub.wire.subscription import Subscription

if TYPE_CHECKING:
    from brandubh.hub.wire.connection import Connection

MAX_GAMES_PER_SOCKET: Final = 16


async def handle(conn: Connection, msg: ClientMessage) -> None:
    """Answer one message from this socket (a Refusal is answered by the reader)."""
    if isinstance(msg, Acting):
        # Stamped on arrival, before any wait (a stale session is read first): a move
        # received by its deadline is in time whatever stalls after, and the hold keeps
        # this hub's watermark from passing it (clock.py).
        received = conn.services.stamp()
        with conn.services.hold(received):
            if not conn.session_fresh():
                await conn.check_session()
            if isinstance(msg, GameAction):
                await act_on_game(conn, _player(conn), msg, received)
            elif isinstance(msg, ChatAction):
                await talk(conn, _account_player(conn), msg)
            else:
                await act_in_lobby(conn, _account_player(conn), msg)
    else:
        await follow(conn, msg)


# -- following: any socket ----------------------------------------------------------------


async def follow(conn: Connection, msg: Following) -> None:
    match msg:
        case Watch():
            await _watch(conn, msg)
        case Unwatch():
            sub = conn.subs.pop(msg.game, None)
            if sub is None:
                raise Refusal("not_watching", f"this socket does not follow game {msg.game}")
            await sub.leave()
        case FollowLobby():
            conn.services.sockets.follow_lobby(conn, msg.on)
            if msg.on:
                lobby = conn.services.lobby
                conn.send(frames.lobby(await lobby.seek_list(), await lobby.watch_list()))
        case FollowAnalysis():
            if not conn.services.sockets.follow_analysis(conn, msg.game, msg.on):
                raise Refusal(
                    "too_many_games",
                    f"a socket may follow the analysis of at most {MAX_ANALYSES} games",
                )
            # Told where it stands now: a job that ended just before the follow arrived
            # would otherwise never be announced to this socket.
            now = conn.services.analysis_frame
            if msg.on and now is not None:
                told = await now(msg.game)
                if told is not None:
                    conn.send(told)
        case FollowTournament():
            # Read first: an unknown id is refused (not_found) before anything is followed.
            now_of = conn.services.tournament_frame
            view = await now_of(msg.tournament) if msg.on and now_of is not None else None
            if not conn.services.sockets.follow_tournament(conn, msg.tournament, msg.on):
                raise Refusal("too_many_follows")
            if view is not None:
                conn.send(view)
        case Ping():
            conn.send(frames.pong(msg.n))
        case Pong():
            pass  # its arrival was noted by the reader (last_seen)
        case _:
            assert_never(msg)


async def _watch(conn: Connection, msg: Watch) -> None:
    game_id = msg.game
    sub = conn.subs.get(game_id)
    if sub is None:
        if len(conn.subs) >= MAX_GAMES_PER_SOCKET:
            raise Refusal(
                "too_many_games", f"a socket may follow at most {MAX_GAMES_PER_SOCKET} games"
            )
        state = await conn.services.games.load(game_id)
        spectator = conn.player is None or not state.is_player(conn.player.id)
        sub = Subscription(conn, game_id, spectator)
        sub.syncing = True  # events arriving while it subscribes wait for the catch-up
        conn.subs[game_id] = sub
        # Subscribed before the catch-up is read, or an event could fall between the two.
        try:
            await conn.services.fanout.add(game_id, sub)
        except BaseException:
            del conn.subs[game_id]  # followed nothing: the client may ask again
            raise
        await sub.enter()
    elif sub.task is not None and not sub.task.done():
        sub.task.cancel()
        sub.pending.clear()
    sub.start(msg.since)


# -- acting on a game: the socket's player ------------------------------------------------


def _player(conn: Connection) -> Player:
    if conn.player is None:  # a visitor who has not played yet: a spectator
        raise Refusal("not_a_player")
    return conn.player


async def act_on_game(conn: Connection, player: Player, msg: GameAction, received: int) -> None:
    """An action on a game; the game refuses a player who is not one of its own. A move is
    judged against its deadline by ``received``: when its frame arrived (``handle``'s stamp,
    Redis clock, ms)."""
    games = conn.services.games
    match msg:
        case Move():
            of = "move"
            done = await games.move(player.id, msg.game, msg.ply, msg.move, msg.id, received)
        case Resign():
            of, done = "resign", await games.resign(player.id, msg.game, msg.id)
        case Abort():
            of, done = "abort", await games.abort(player.id, msg.game, msg.id)
        case OfferDraw():
            of, done = "offer_draw", await games.offer_draw(player.id, msg.game, msg.id)
        case AnswerDraw():
            of = "answer_draw"
            done = await games.answer_draw(player.id, msg.game, msg.accept, msg.id)
        case Takeback():
            of, done = "takeback", await games.takeback(player.id, msg.game, msg.ply, msg.id)
        case OfferTakeback():
            of, done = "takeback_offer", await games.offer_takeback(player.id, msg.game, msg.id)
        case AnswerTakeback():
            of = "takeback_answer"
            done = await games.answer_takeback(player.id, msg.game, msg.accept, msg.id)
        case Claim():
            of, done = "claim", await games.claim(player.id, msg.game, msg.draw, msg.id)
        case Rematch():
            # A newcomer plays only the game it was invited to (and the bot) until it confirms.
            if conn.pending and (await games.load(msg.game)).opponent == "friend":
                raise verification_required()
            if conn.account:  # a bot account starts no game from the site, rematches included
                await conn.services.require_person(player.id, verified=False)
            outcome, next_game = await games.rematch(player.id, msg.game)
            conn.send(frames.ack(msg.id, "rematch", game=msg.game, outcome=outcome, next=next_game))
            return
        case DeclineRematch():
            agreed = await games.decline_rematch(player.id, msg.game, msg.id)
            conn.send(frames.ack(msg.id, "decline_rematch", game=msg.game, next=agreed))
            return
        case SetConditional() | GetConditional():
            await _conditional(conn, player, msg)
            return
        case _:
            assert_never(msg)
    conn.send(frames.ack(msg.id, of, game=msg.game, n=done.n, duplicate=done.duplicate))


async def _conditional(
    conn: Connection, player: Player, msg: SetConditional | GetConditional
) -> None:
    """Store or read the player's conditional moves: the answer goes to this socket alone,
    never to the game's channel (docs/protocol.md §3.5)."""
    conditionals = conn.services.conditionals
    ply: int | None
    if isinstance(msg, SetConditional):
        of, ply = "conditional", msg.ply
        lines = await conditionals.store(player.id, msg.game, msg.ply, msg.lines)
    else:
        of, tree = "get_conditional", await conditionals.read(player.id, msg.game)
        ply, lines = (tree.ply, tree.lines) if tree is not None else (None, [])
    conn.send(frames.ack(msg.id, of, game=msg.game, ply=ply, lines=lines))


# -- chat: an account, in a game it plays or watches --------------------------------------


async def talk(conn: Connection, player: Player, msg: ChatAction) -> None:
    """A chat line (a confirmed account's), or a report of one (any account's)."""
    services = conn.services
    state = await services.games.load(msg.game)
    match msg:
        case Chat():
            await services.require_verified(player.id)
            n = await services.chat.say(state, player, msg.room, msg.text)
            conn.send(frames.ack(msg.id, "chat", game=msg.game, room=msg.room, n=n))
        case Report():
            new = await services.chat.report(state, player, msg.room, msg.line)
            conn.send(frames.ack(msg.id, "report", game=msg.game, duplicate=not new))
        case _:
            assert_never(msg)


# -- acting in the lobby: an account -------------------------------------------------------


def _account_player(conn: Connection) -> Player:
    """The player behind a seek or pairing: games against people need an account."""
    if conn.pending:  # a newcomer seated from an invitation: the same either way
        raise verification_required()
    if not conn.account or conn.player is None:  # (a first visit has no session yet)
        raise Refusal("account_required")
    return conn.player


async def act_in_lobby(conn: Connection, player: Player, msg: LobbyAction) -> None:
    """A seek, a pairing or a match's sides; a new seek or pairing needs a confirmed
    address (``verification_required``) and a person (``bot_account``: bots play through
    the Bot API's challenges only)."""
    services = conn.services
    lobby = services.lobby
    match msg:
        case Seek():
            await services.require_person(player.id)
            seek_id = await lobby.open_seek(
                player, msg.ruleset, msg.move_time, msg.rated, msg.match, conn.id
            )
            conn.lobby_player = player
            conn.send(frames.ack(msg.id, "seek", seek=seek_id))
        case CancelSeek():
            await lobby.cancel_seek(player, msg.seek)
            conn.send(frames.ack(msg.id, "cancel_seek"))
        case AcceptSeek():
            await services.require_person(player.id)
            pairing = await lobby.accept_seek(player, msg.seek)
            conn.send(frames.ack(msg.id, "accept_seek", game=pairing.game))
        case Quick():
            await services.require_person(player.id)
            pairs = await lobby.quick(player, msg.ruleset, msg.move_time, conn.id)
            conn.lobby_player = player
            conn.send(frames.ack(msg.id, "quick", game=pairs[0].game if pairs else None))
        case CancelQuick():
            left = await lobby.leave_quick(player)
            conn.send(frames.ack(msg.id, "cancel_quick", left=left))
        case ChooseSides():
            game = await services.matches.choose_sides(player.id, msg.match, msg.side)
            conn.send(frames.ack(msg.id, "choose_sides", game=game))
        case _:
            assert_never(msg)
