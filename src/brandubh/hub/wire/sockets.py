"""This process's sockets: by player, by session, and those following the lobby, a game's
analysis or a tournament.

The one registry of local sockets. Fan-out hooks use it to tell players (``tell``), lobby
followers (``tell_lobby``) and the followers of a game's analysis (``tell_analysis``); the
session guard closes the sockets of sessions that
ended (``close_sessions``); the lifespan closes them all at shutdown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Protocol

from brandubh.hub.accounts import Sessions
from brandubh.hub.messages import CLOSE_SESSION_ENDED

MAX_ANALYSES: Final = 16  # games whose analysis one socket follows at once
# Tournaments one socket may follow at once (a page follows one).
MAX_TOURNAMENTS: Final = 8


class Socket(Protocol):
    """What the registry needs of a socket (connection.Connection is one)."""

    def send(self, frame: bytes) -> None: ...
    def close(self, code: int, reason: str) -> None: ...
    def follows(self, game_id: str) -> bool: ...


class Sockets:
    """The registry; sockets are added when accepted and discarded when they close."""

    def __init__(self) -> None:
        self.all: set[Socket] = set()
        self._by_player: dict[str, set[Socket]] = {}
        self._by_session: dict[Socket, str] = {}
        self._lobby: set[Socket] = set()
        self._analysis: dict[str, set[Socket]] = {}  # game -> the sockets following its analysis
        self._analyses_of: dict[Socket, set[str]] = {}
        # Tournament id -> the sockets that follow it, and each socket's tournaments.
        self._tournaments: dict[str, set[Socket]] = {}
        self._following: dict[Socket, set[str]] = {}

    def add(self, sock: Socket, player_id: str | None, session_id: str | None) -> None:
        self.all.add(sock)
        if player_id is not None:
            self._by_player.setdefault(player_id, set()).add(sock)
        if session_id is not None:
            self._by_session[sock] = session_id

    def discard(self, sock: Socket, player_id: str | None) -> None:
        self.all.discard(sock)
        self._by_session.pop(sock, None)
        self._lobby.discard(sock)
        for game_id in self._analyses_of.pop(sock, ()):
            self._unfollow_analysis(sock, game_id)
        for tid in self._following.pop(sock, ()):
            self._unfollow(sock, tid)
        if player_id is not None:
            mine = self._by_player.get(player_id)
            if mine is not None:
                mine.discard(sock)
                if not mine:
                    del self._by_player[player_id]

    def follow_lobby(self, sock: Socket, on: bool) -> None:
        if on:
            self._lobby.add(sock)
        else:
            self._lobby.discard(sock)

    def follow_analysis(self, sock: Socket, game_id: str, on: bool) -> bool:
        """Follow a game's analysis (or stop); False when the socket follows as many as
        it may (``MAX_ANALYSES``)."""
        mine = self._analyses_of.setdefault(sock, set())
        if not on:
            if game_id in mine:
                mine.discard(game_id)
                self._unfollow_analysis(sock, game_id)
            return True
        if game_id not in mine and len(mine) >= MAX_ANALYSES:
            return False
        mine.add(game_id)
        self._analysis.setdefault(game_id, set()).add(sock)
        return True

    def _unfollow_analysis(self, sock: Socket, game_id: str) -> None:
        followers = self._analysis.get(game_id)
        if followers is not None:
            followers.discard(sock)
            if not followers:
                del self._analysis[game_id]

    def tell_analysis(self, game_id: str, frame: bytes) -> None:
        for sock in list(self._analysis.get(game_id, ())):
            sock.send(frame)

    def follow_tournament(self, sock: Socket, tournament_id: str, on: bool) -> bool:
        """Follow a tournament's frames (or stop); False when the socket follows as many
        tournaments as it may already."""
        mine = self._following.setdefault(sock, set())
        if not on:
            mine.discard(tournament_id)
            self._unfollow(sock, tournament_id)
            return True
        if tournament_id not in mine and len(mine) >= MAX_TOURNAMENTS:
            return False
        mine.add(tournament_id)
        self._tournaments.setdefault(tournament_id, set()).add(sock)
        return True

    def _unfollow(self, sock: Socket, tournament_id: str) -> None:
        followers = self._tournaments.get(tournament_id)
        if followers is not None:
            followers.discard(sock)
            if not followers:
                del self._tournaments[tournament_id]

    def tell_tournament(self, tournament_id: str, frame: bytes) -> None:
        for sock in list(self._tournaments.get(tournament_id, ())):
            sock.send(frame)

    @property
    def lobby_followers(self) -> int:
        return len(self._lobby)

    def tell(self, player_ids: Iterable[str], frame: bytes, unless_following: str = "") -> None:
        """Send a frame to every local socket of these players; with ``unless_following``,
        not to those that follow that game (they have its event)."""
        for pid in player_ids:
            for sock in list(self._by_player.get(pid, ())):
                if not unless_following or not sock.follows(unless_following):
                    sock.send(frame)

    def tell_lobby(self, frame: bytes) -> None:
        for sock in list(self._lobby):
            sock.send(frame)

    def player_ids(self) -> list[str]:
        """The players with a socket open here (for presence: mail/reminders.py)."""
        return list(self._by_player)

    def session_ids(self) -> set[str]:
        return set(self._by_session.values())

    def close_sessions(self, ended: set[str]) -> int:
        """Close (4004) the sockets of sessions that ended; how many were closed."""
        n = 0
        for sock, sid in list(self._by_session.items()):
            if sid in ended:
                sock.close(CLOSE_SESSION_ENDED, "session ended")
                del self._by_session[sock]
                n += 1
        return n

    def close_all(self, code: int, reason: str) -> None:
        for sock in list(self.all):
            sock.close(code, reason)


class SessionGuard:
    """Closes this hub's sockets of sessions that ended (4004): at once on the hubs' notice,
    and by a periodic re-check in case a notice was lost."""

    RECHECK_S: Final[float] = 10.0

    def __init__(self, sessions: Sessions, sockets: Sockets) -> None:
        self.sessions = sessions
        self.sockets = sockets

    def on_notice(self, msg: dict[str, object]) -> None:
        """Fan-out hook for the hubs' channel."""
        if msg.get("t") == "sessions_ended":
            sessions = msg.get("sessions")
            ended = sessions if isinstance(sessions, list) else ()
            self.sockets.close_sessions({s for s in ended if isinstance(s, str)})

    async def recheck(self) -> None:
        sids = self.sockets.session_ids()
        if sids:
            self.sockets.close_sessions(sids - await self.sessions.alive(sids))
