"""Every frame the server sends, each built by one named function (docs/protocol.md §1).

A few notices are built inside Lua, in the same step as the change they announce:
``watchers`` (lua/watchers.lua), ``presence`` when it changes (lua/presence.lua),
``rematch`` (lua/rematch.lua, lua/rematch_decline.lua), ``chat`` (lua/chat.lua), ``seek_removed``
(lua/seek_take.lua, lua/quick.lua), and the deadline inside an ``event`` frame
(lua/commit.lua fills in live/events.py's placeholder). docs/protocol.md gives every shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import msgpack


def encode(msg: Mapping[str, object]) -> bytes:
    return cast(bytes, msgpack.packb(msg, use_bin_type=True))


# -- the socket's own ---------------------------------------------------------------------


def hello(
    player: dict[str, str] | None, ping_interval: float, now: int, limits: Mapping[str, object]
) -> bytes:
    return encode(
        {"t": "hello", "player": player, "ping_interval": ping_interval, "now": now,
         "limits": limits}
    )  # fmt: skip


def ping(n: int, now: int) -> bytes:
    return encode({"t": "ping", "n": n, "now": now})


def pong(n: int) -> bytes:
    return encode({"t": "pong", "n": n})


def ack(msg_id: str, of: str, **fields: object) -> bytes:
    """The one answer to a client message with an id that was carried out."""
    return encode({"t": "ack", "id": msg_id, "of": of, **fields})


def error(code: str, message: str, msg_id: str | None = None, game: str | None = None) -> bytes:
    """A refusal: ``id`` names the message refused, ``game`` the game it concerned."""
    frame: dict[str, object] = {"t": "error", "code": code, "message": message}
    if msg_id is not None:
        frame["id"] = msg_id
    if game is not None:
        frame["game"] = game
    return encode(frame)


# -- games ----------------------------------------------------------------------------------


def event(game_id: str, n: int, event: Mapping[str, object], state: Mapping[str, object]) -> bytes:
    """A numbered event of a game, with the public state after it."""
    return encode({"t": "event", "game": game_id, "n": n, **event, "state": state})


def snapshot(
    game_id: str, n: int, state: Mapping[str, object], moves: list[str], watchers: int
) -> bytes:
    return encode(
        {"t": "snapshot", "game": game_id, "n": n, "state": state, "moves": moves,
         "watchers": watchers}
    )  # fmt: skip


def chat_lines(game_id: str, room: str | None, lines: Sequence[Mapping[str, object]]) -> bytes:
    """The latest lines of the chat room a socket sees in a game (``room`` None: it sees
    none), sent with every snapshot and catch-up; each line as a ``chat`` frame has it."""
    return encode({"t": "chat_lines", "game": game_id, "room": room, "lines": lines})


def presence(game_id: str, online: list[str], gone: dict[str, int] | None = None) -> bytes:
    """Which of the game's players have a socket following it now, and since when (ms,
    Redis clock) each player who left has had none (``gone``, absent when nobody left)."""
    frame: dict[str, object] = {"t": "presence", "game": game_id, "online": sorted(online)}
    if gone:
        frame["gone"] = gone
    return encode(frame)


def turn(
    game_id: str, ply: int, last: str | None, deadline: int | None, opponent: str | None
) -> bytes:
    """To a player's sockets that do not follow the game: it is now their move there."""
    return encode(
        {"t": "turn", "game": game_id, "ply": ply, "last": last, "deadline": deadline,
         "opponent": opponent}
    )  # fmt: skip


def match(game_id: str, summary: Mapping[str, object]) -> bytes:
    """A match moved on after one of its games (published on that game's channel)."""
    return encode({"t": "match", "game": game_id, "match": summary})


# -- the lobby --------------------------------------------------------------------------------


def lobby(seeks: Sequence[Mapping[str, object]], games: Sequence[Mapping[str, object]]) -> bytes:
    return encode({"t": "lobby", "seeks": seeks, "games": games})


def games(games: Sequence[Mapping[str, object]]) -> bytes:
    return encode({"t": "games", "games": games})


def seek_added(seek: Mapping[str, object]) -> bytes:
    return encode({"t": "seek_added", "seek": seek})


def paired(game_id: str, players: list[str], match: str | None) -> bytes:
    return encode({"t": "paired", "game": game_id, "players": players, "match": match})


def tournament(tournament_id: str, view: Mapping[str, object], version: int) -> bytes:
    """A tournament's view (GET /api/tournaments/{id} without "me"), to its followers, as
    of ``version`` (the count of its frames: a ``tournament_delta`` goes on from it)."""
    return encode({**view, "t": "tournament", "tournament": tournament_id, "version": version})


def tournament_delta(tournament_id: str, version: int, delta: Mapping[str, object]) -> bytes:
    """What changed in a tournament's view from ``version - 1`` (hub/tournaments/delta.py)."""
    return encode(
        {
            **delta,
            "t": "tournament_delta",
            "tournament": tournament_id,
            "version": version,
            "base": version - 1,
        }
    )


def tournament_game(tournament_id: str, game_id: str, side: str, player_id: str) -> bytes:
    """To a player just paired in an arena: their next game (and side). ``player`` routes
    it, on the lobby channel, to that player's sockets on every hub."""
    return encode(
        {
            "t": "tournament_game",
            "tournament": tournament_id,
            "game": game_id,
            "side": side,
            "player": player_id,
        }
    )


def challenge(challenge: Mapping[str, object]) -> bytes:
    """To every socket of a challenge's two players: it was made (docs/protocol.md §2.10)."""
    return encode({"t": "challenge", "challenge": challenge})


def challenge_gone(challenge: Mapping[str, object]) -> bytes:
    """To every socket of a challenge's two players: it was accepted, declined or
    cancelled (its ``status`` says which)."""
    return encode({"t": "challenge_gone", "challenge": challenge})


# -- between hubs -----------------------------------------------------------------------------


def turn_for(hub: str, game_id: str, player_id: str, frame: bytes) -> bytes:
    """On the hubs' channel: hand a player's ``turn`` frame to their sockets on any hub
    (those that do not follow the game)."""
    return encode(
        {"t": "turn_for", "hub": hub, "game": game_id, "player": player_id, "frame": frame}
    )


def account_notice(hub: str, players: list[str], kind: str, body: Mapping[str, object]) -> bytes:
    """On the hubs' channel: a notice for these accounts' event streams and sockets on any
    hub (hub/challenges/notices.py): ``kind`` a line type of the event stream, ``body``
    the challenge or the game it is about."""
    return encode(
        {"t": "account_notice", "hub": hub, "players": players, "kind": kind, "body": body}
    )


def sessions_ended(session_ids: list[str]) -> bytes:
    """On the hubs' channel: close the sockets of these sessions (4004)."""
    return encode({"t": "sessions_ended", "sessions": session_ids})


def analysis_progress(game_id: str, ply: int, of: int) -> bytes:
    """To the sockets that follow a game's analysis: a worker has analysed ``ply`` of
    ``of`` plies (published by the worker on the hubs' channel, passed on as it is)."""
    return encode({"t": "analysis_progress", "game": game_id, "ply": ply, "of": of})


def analysis_done(game_id: str) -> bytes:
    """To the sockets that follow a game's analysis: it is kept; GET it."""
    return encode({"t": "analysis_done", "game": game_id})


def analysis_evaluated(digest: str) -> bytes:
    """On the hubs' channel: a worker cached the board evaluation of this digest, which a
    request on some hub may be waiting for (analysis/analyses.py)."""
    return encode({"t": "analysis_evaluated", "key": digest})
