"""The tournament core's errors: each names what is wrong and, where it helps, the fix."""

from __future__ import annotations


class TournamentError(ValueError):
    """Something about a tournament's settings, players or export does not hold."""


class InvalidSettings(TournamentError):
    """A setting out of range or of the wrong type; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class PairingImpossible(TournamentError):
    """No pairing satisfies the rules (e.g. more Swiss rounds than opponents to meet)."""


class InvalidExport(TournamentError):
    """A tournament export that cannot be read: a missing or ill-typed field."""


class InvalidSeed(TournamentError):
    """A published seed that is not 32 bytes of hex, or does not match its commitment."""


class TallyError(TournamentError):
    """An arena game paired or ended out of order (twice, unknown, a player in two games)."""
