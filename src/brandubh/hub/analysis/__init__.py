"""Analysis by the bot, the service's side: the hubs ask (``analyses``: a finished game's
analysis queued once, the limits and the queue's bound, board evaluations queued, cached
by position and waited for, and the positions of running games, which no one may have
evaluated) and the workers answer (``worker``: claiming a job under a lease, computing it
with ``brandubh.analysis``, keeping it in PostgreSQL). The analysis itself is pure, in
``brandubh.analysis``; the routes are ``http/analysis.py``."""

from brandubh.hub.analysis.analyses import Analyses
from brandubh.hub.analysis.worker import LeaseLost, Worker

__all__ = ["Analyses", "LeaseLost", "Worker"]
