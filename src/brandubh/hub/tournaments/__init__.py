"""Tournaments in play: a tournament's state in Redis under its own hash tag (``state``;
its typed records, ``records``), each change through its own script (``changes``), the
runner that starts them, pairs each arena wave and each round and ends them exactly once
from any hub (``runner``), the one door to the pure core's pairings and standings
(``pairing``), and the service the routes call (``service``). Built on the games in
play (``live``) and mail; the routes (``http``) and the composition root use it."""

from brandubh.hub.tournaments.runner import Runner as TournamentRunner
from brandubh.hub.tournaments.service import TournamentService

__all__ = ["TournamentRunner", "TournamentService"]
