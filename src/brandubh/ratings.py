"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013). Pure: no I/O.

A rating is (rating, RD, volatility) on the Glicko scale: a new player starts at
1500 / 350 / 0.06. ``update`` rates one player over one rating period from the games of
that period, each against the opponent's rating *before* the period. The service rates
every game as a period of its own (docs/accounts.md), so both players are updated from
their ratings before the game.

A rating is provisional while its RD is at least ``PROVISIONAL_RD`` (shown with a "?").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SCALE: Final = 173.7178  # Glicko-2's internal scale: mu = (r - 1500) / SCALE
DEFAULT_RATING: Final = 1500.0
DEFAULT_RD: Final = 350.0
DEFAULT_VOLATILITY: Final = 0.06
MAX_RD: Final = 350.0  # an RD never grows past a new player's
TAU: Final = 0.5  # how much volatility may change: Glickman suggests 0.3 to 1.2
EPSILON: Final = 0.000001  # convergence of the volatility iteration
PROVISIONAL_RD: Final = 110.0


@dataclass(frozen=True)
class Rating:
    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.rd >= PROVISIONAL_RD


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, games: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period.

    ``games``: (opponent's rating before the period, score) with score 1 for a win,
    0.5 for a draw, 0 for a loss. With no games only the RD grows (step 6).
    """
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not games:
        phi_star = min(math.sqrt(phi * phi + sigma * sigma), MAX_RD / SCALE)
        return Rating(player.rating, phi_star * SCALE, sigma)

    # Step 3: the estimated variance v; step 4: the estimated improvement delta.
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = opponent.rd / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum

    # Step 5: the new volatility, by the Illinois algorithm.
    a = math.log(sigma * sigma)
    d2 = delta * delta
    p2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (d2 - p2 - v - ex) / (2.0 * (p2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if d2 > p2 + v:
        big_b = math.log(d2 - p2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2.0)

    # Steps 6 and 7: the new RD and rating.
    phi_star = math.sqrt(p2 + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    # Step 8: back to the Glicko scale.
    return Rating(mu_new * SCALE + DEFAULT_RATING, min(phi_new * SCALE, MAX_RD), sigma_new)


def rate_game(a: Rating, b: Rating, score_a: float, tau: float = TAU) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them, as a period of its own:
    ``score_a`` is 1 when ``a`` won, 0.5 for a draw, 0 when ``b`` won."""
    return update(a, [(b, score_a)], tau), update(b, [(a, 1.0 - score_a)], tau)
