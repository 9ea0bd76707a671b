"""The hub: live games in Redis, pushed over websockets to players and spectators.

The modules of its hot path are compiled with mypyc (docs/architecture.md, Compiled).
"""

from brandubh import native

# Every compiled module of the hub, checked before any is imported: one older than its
# source would run code that is not there.
native.check_build(__name__)
