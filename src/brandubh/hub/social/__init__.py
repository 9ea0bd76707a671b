"""Follows and blocks between accounts: the limits and refusals (pure, rules.py), and the
service the routes call, with the questions chat, the lobby and challenges ask of blocks."""

from brandubh.hub.social import rules
from brandubh.hub.social.service import Followed, Listed, Relation, Social, WatchableGame

__all__ = ["Followed", "Listed", "Relation", "Social", "WatchableGame", "rules"]
