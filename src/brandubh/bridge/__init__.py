"""``brandubh engine-bridge``: any OpenTafl Engine Protocol engine played on the site
through the Bot API with a personal API token, as lichess-bot plays chess engines
(docs/bridge.md).

Modules: ``records`` (the service's lines, typed), ``policy`` (which challenges to accept;
pure), ``config`` (the TOML file and options), ``client`` (HTTP, streams, backoff),
``engine`` (the OTEP child process), ``game`` (one game), ``loop`` (the event stream, the
games, the stop).
"""

from brandubh.bridge.client import Api, Backoff
from brandubh.bridge.config import TOKEN_ENV, BridgeConfig, ConfigError, load_config
from brandubh.bridge.engine import EngineFailure, OtepEngine
from brandubh.bridge.game import GameRunner, finish_code, opponent_move_line, think_seconds
from brandubh.bridge.loop import Bridge, run_bridge
from brandubh.bridge.policy import DECLINE_REASONS, AcceptRules, Decision, decide
from brandubh.bridge.records import BadLine, Challenge, Who, challenge_of

__all__ = [
    "DECLINE_REASONS",
    "TOKEN_ENV",
    "AcceptRules",
    "Api",
    "Backoff",
    "BadLine",
    "Bridge",
    "BridgeConfig",
    "Challenge",
    "ConfigError",
    "Decision",
    "EngineFailure",
    "GameRunner",
    "OtepEngine",
    "Who",
    "challenge_of",
    "decide",
    "finish_code",
    "load_config",
    "opponent_move_line",
    "run_bridge",
    "think_seconds",
]
