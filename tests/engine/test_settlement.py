"""engine.settlement.settle: a deal settled against what the seats hold (RULES.md §8, §10)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.settlement import settle


def test_a_loser_who_cannot_cover_pays_what_they_hold_shared_as_owed() -> None:
    assert settle([-4, 2, 2], 100, [300, 5000, 5000]) == (-300, 150, 150)
    assert settle([4, -2, -2], 10, [0, 20, 5]) == (25, -20, -5)


def test_bad_input_is_refused() -> None:
    for units, base, holdings in (([1, -1], 1, [1]), ([1, 1], 1, [1, 1]),
                                  ([1, -1], 0, [1, 1]), ([1, -1], 1, [1, -1])):
        with pytest.raises(ValueError):
            settle(units, base, holdings)


@given(st.lists(st.integers(-100, 100), min_size=2, max_size=4), st.integers(1, 20),
       st.lists(st.one_of(st.none(), st.integers(0, 300)), min_size=4, max_size=4))
def test_a_settlement_sums_to_zero_and_nobody_pays_more_than_held_or_owed(
        points: list[int], base: int, holdings: list[int | None]) -> None:
    points = [*points[:-1], -sum(points[:-1])]
    holdings = holdings[: len(points)]
    moved = settle(points, base, holdings)
    assert sum(moved) == 0
    for units, held, change in zip(points, holdings, moved, strict=True):
        if held is None:
            assert change == 0
        elif units < 0:
            assert -min(-units * base, held) <= change <= 0
        else:
            assert 0 <= change <= units * base
