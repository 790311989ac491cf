"""A match counts each seat's deals lost as landlord; three bar the seat from bidding in the
four-player game (RULES.md §11, seed 004 rule 5: 做了三副大地主失败，以后不得再争叫地主，
逼打除外)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.match import (
    FIXED,
    KNOCKOUT,
    LANDLORD_LOSSES_BAR,
    MatchError,
    MatchOptions,
    MatchState,
)

FOUR_HUMANS = (True, True, True, True)


def fixed(deals: int = 12) -> MatchState:
    return MatchState(MatchOptions(FIXED, deals=deals), FOUR_HUMANS, started_at=1000.0)


def test_lost_landlord_deals_are_counted_per_seat_and_three_bar_the_seat():
    state = fixed()
    state = state.record(1, (-3, 1, 1, 1), landlord=0)  # seat 0 lost as landlord
    state = state.record(2, (1, 1, -3, 1), landlord=2)
    state = state.record(3, (-6, 2, 2, 2), landlord=0)
    state = state.record(4, (-1, 3, -1, -1), landlord=1)  # seat 1 won as landlord
    assert state.landlord_losses() == [2, 0, 1, 0]
    assert state.barred() == (False,) * 4
    state = state.record(5, (-3, 1, 1, 1), landlord=0)  # a forced 逼打 landlord counts too
    assert LANDLORD_LOSSES_BAR == 3
    assert state.landlord_losses() == [3, 0, 1, 0]
    assert state.barred() == (True, False, False, False)
    state = state.record(6, (3, -1, -1, -1), landlord=0)  # a win later does not lift it
    assert state.barred() == (True, False, False, False)


def test_no_landlord_and_a_landlord_who_left_and_lost():
    state = fixed()
    state = state.record(1, (-6, 2, 2, 2), left=(0,))  # left during the bidding: no landlord
    assert state.landlord_losses() == [0, 0, 0, 0]
    knockout = MatchState(MatchOptions(KNOCKOUT), FOUR_HUMANS, started_at=1000.0)
    knockout = knockout.record(1, (3, -9, 3, 3), left=(1,), bid=1, landlord=1)
    assert knockout.landlord_losses() == [0, 1, 0, 0]


def test_a_landlord_seat_must_exist():
    with pytest.raises(MatchError):
        fixed().record(1, (-3, 1, 1, 1), landlord=4)


def test_the_landlord_is_stored_and_an_old_match_loads_with_no_losses():
    state = fixed()
    for n in range(1, 4):
        state = state.record(n, (-3, 1, 1, 1), landlord=0)
    data = state.to_dict()
    assert [d["landlord"] for d in data["deals"]] == [0, 0, 0]
    back = MatchState.from_dict(data)
    assert back == state and back.barred() == (True, False, False, False)
    for deal in data["deals"]:  # a match stored before the landlord was recorded
        del deal["landlord"]
    old = MatchState.from_dict(data)
    assert old.landlord_losses() == [0, 0, 0, 0] and old.barred() == (False,) * 4
    assert old.scores() == state.scores()


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 6), st.booleans()), max_size=12))
def test_property_the_bar_is_three_losses_as_landlord(deals):
    state = fixed(12)
    losses = [0] * 4
    for n, (landlord, base, won) in enumerate(deals, start=1):
        points = [-base if won else base] * 4
        points[landlord] = 3 * base if won else -3 * base
        state = state.record(n, points, landlord=landlord)
        losses[landlord] += not won
        assert state.landlord_losses() == losses
        assert state.barred() == tuple(x >= 3 for x in losses)
