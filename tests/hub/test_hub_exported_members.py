"""Each hub package's public face is pinned: its ``__all__`` is exactly the list here, each
name exists, and the rest of its modules are its own (tests/hub/test_architecture.py)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

EXPORTED = {
    "redis": [
        "UNREACHABLE",
        "Lane",
        "Orphan",
        "ReplicaWait",
        "Scripts",
        "client",
        "keys",
        "lua_source",
        "outage",
    ],
    "messages": [
        "CLOSE_HEARTBEAT",
        "CLOSE_INTERNAL_ERROR",
        "CLOSE_INVALID_DATA",
        "CLOSE_ORIGIN_REFUSED",
        "CLOSE_SERVER_SHUTDOWN",
        "CLOSE_SESSION_ENDED",
        "CLOSE_TOO_MANY_ERRORS",
        "CLOSE_TOO_SLOW",
        "CLOSE_TRY_AGAIN_LATER",
        "GAME_ID_RE",
        "MESSAGES",
        "PLAYER_ID_RE",
        "Abort",
        "AcceptSeek",
        "Acting",
        "AnswerDraw",
        "CancelQuick",
        "CancelSeek",
        "Chat",
        "ChatAction",
        "ChooseSides",
        "Claim",
        "ClientMessage",
        "DeclineRematch",
        "FollowAnalysis",
        "FollowLobby",
        "FollowTournament",
        "Following",
        "GameAction",
        "GetConditional",
        "LobbyAction",
        "Move",
        "OfferDraw",
        "Ping",
        "Pong",
        "Quick",
        "Rematch",
        "Report",
        "Resign",
        "Seek",
        "SetConditional",
        "Unwatch",
        "Watch",
        "decode_frame",
        "frames",
        "parse",
        "reply_to",
    ],
    "live": [
        "BOT_ID",
        "CONDITIONAL_POLL_S",
        "LIVE_UNDER_S",
        "RECONCILE_POLL_S",
        "BotWorker",
        "Change",
        "ConditionalWorker",
        "Conditionals",
        "Endings",
        "GameService",
        "GameState",
        "Hash",
        "Listings",
        "Marks",
        "MatchService",
        "Player",
        "Rater",
        "Reconciler",
        "RedisClock",
        "Scheduler",
        "check_quick",
        "check_terms",
        "is_live",
        "mygames",
        "unpack_snapshot",
    ],
    "chat": ["ChatService"],
    "exports": [
        "FORMATS",
        "MAX_GAMES",
        "ExportFormat",
        "ExportQuery",
        "Exports",
        "content_type",
        "line",
        "parse_query",
    ],
    "analysis": ["Analyses", "LeaseLost", "Worker"],
    "mail": [
        "PRESENCE_EVERY_S",
        "TOKEN_RE",
        "Holder",
        "MailSettingsError",
        "Outbox",
        "Reminders",
        "Tokens",
        "mails",
        "transport_for",
    ],
    "accounts": [
        "COOKIE",
        "TTL_S",
        "Accounts",
        "Resets",
        "Session",
        "Sessions",
        "Verification",
        "check_signup",
        "confirming_logs_in",
        "not_logged_in",
        "reachable",
        "unsaved_guest",
    ],
    "lobby": ["Lobby"],
    "wire": [
        "RENEW_S",
        "Fanout",
        "Follower",
        "GuardedHttp",
        "GuardedWebSocket",
        "Heartbeat",
        "Presence",
        "SessionGuard",
        "SharedBudgets",
        "Sockets",
        "Subscription",
        "TurnNotices",
        "Watchers",
        "connection",
        "unsafe_request_allowed",
    ],
    "botapi": ["KEEPALIVE_S", "BotGames", "GameStream", "Line", "line_of", "move_id"],
    "http": [
        "GZIP_MIN_BYTES",
        "DatabaseHealth",
        "MailServices",
        "RedactSecrets",
        "SecurityHeaders",
        "WebServices",
        "exception_handlers",
        "refusal_json",
        "routes",
    ],
    "tournaments": ["TournamentRunner", "TournamentService"],
    "tokens": ["MAX_LIVE", "PREFIX", "SCOPES", "ApiTokens", "Bearer", "check_name", "check_scopes"],
}


@pytest.mark.parametrize("package", sorted(EXPORTED))
def test_all_is_the_pinned_list(package: str) -> None:
    assert importlib.import_module(f"brandubh.hub.{package}").__all__ == EXPORTED[package]


@pytest.mark.parametrize("package", sorted(EXPORTED))
def test_every_exported_name_exists(package: str) -> None:
    module = importlib.import_module(f"brandubh.hub.{package}")
    assert [name for name in module.__all__ if not hasattr(module, name)] == []


def test_every_package_is_pinned() -> None:
    hub = Path(importlib.import_module("brandubh.hub").__file__ or "").parent
    assert {p.name for p in hub.iterdir() if (p / "__init__.py").is_file()} == set(EXPORTED)
