"""Glicko-2 (brandubh/ratings.py) against Glickman's worked example and its own rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brandubh.ratings import MAX_RD, PROVISIONAL_RD, Rating, rate_game, update


def test_glickmans_worked_example() -> None:
    """ "Example of the Glicko-2 system" (Glickman, 2013), tau = 0.5."""
    player = Rating(1500, 200, 0.06)
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = update(player, games, tau=0.5)
    assert new.rating == pytest.approx(1464.05, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_new_player_starts_provisional_at_1500() -> None:
    r = Rating()
    assert (r.rating, r.rd, r.volatility) == (1500, 350, 0.06)
    assert r.provisional
    assert not Rating(1500, PROVISIONAL_RD - 0.1).provisional
    assert Rating(1500, PROVISIONAL_RD).provisional


def test_a_period_without_games_only_widens_the_rd_up_to_a_new_players() -> None:
    r = update(Rating(1600, 100, 0.06), [])
    assert r.rating == 1600 and r.volatility == 0.06
    assert r.rd == pytest.approx((100**2 + (0.06 * 173.7178) ** 2) ** 0.5)
    assert update(Rating(1600, 349.9, 0.06), []).rd == MAX_RD


def test_one_game_between_new_players_is_symmetric() -> None:
    a, b = rate_game(Rating(), Rating(), 1.0)
    assert a.rating == pytest.approx(1662.31, abs=0.01)
    assert a.rating - 1500 == pytest.approx(1500 - b.rating)
    assert a.rd == pytest.approx(b.rd) and a.rd < 350
    d1, d2 = rate_game(Rating(), Rating(), 0.5)
    assert d1.rating == pytest.approx(1500) and d2.rating == pytest.approx(1500)


def test_fifteen_games_make_a_rating_established() -> None:
    a, b = Rating(), Rating()
    for i in range(15):
        a, b = rate_game(a, b, 1.0 if i % 3 else 0.0)
    assert not a.provisional and not b.provisional


ratings = st.builds(
    Rating,
    st.floats(800, 2600),
    st.floats(30, 350),
    st.floats(0.03, 0.1),
)


@given(ratings, ratings)
def test_winning_never_lowers_a_rating_and_losing_never_raises_it(a: Rating, b: Rating) -> None:
    won, lost = rate_game(a, b, 1.0)
    assert won.rating >= a.rating - 1e-9 and lost.rating <= b.rating + 1e-9
    assert 0 < won.rd <= MAX_RD and 0 < lost.rd <= MAX_RD
