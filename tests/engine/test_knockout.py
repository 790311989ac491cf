"""The knock-out's chips (打立出局, RULES.md §10): a deal's units, the settlement, who is out,
when it is decided."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.knockout import (
    PER_DEAL,
    PER_POINT,
    Chips,
    KnockoutRules,
    after_deal,
    deal_units,
    decided,
    leaders,
)
from engine.prizes import largest_remainder
from engine.settlement import settle


def test_per_deal_units_leave_the_bid_out() -> None:
    # seed 002: 每把以2个为基础开局 … 有炸弹，一个翻一倍，需付4个
    assert deal_units([6, -3, -3], 3, PER_DEAL) == (2, -1, -1)
    assert deal_units([-24, 12, 12], 3, PER_DEAL) == (-8, 4, 4)  # two bombs still double
    assert deal_units([-24, 12, 12], 3, PER_POINT) == (-24, 12, 12)
    assert deal_units([-6, 3, 3], 2, PER_DEAL) == (-6, 3, 3)  # 6-point escape: as it is
    with pytest.raises(ValueError):
        deal_units([1, 1, 1], 1, PER_DEAL)
    with pytest.raises(ValueError):
        deal_units([0, 0, 0], 1, "hand")


def test_a_loser_pays_what_they_hold_and_winners_share_it() -> None:
    assert settle([-4, 2, 2], 2, [5, 20, 20]) == (-5, 3, 2)
    assert settle([-12, 7, 5], 2, [20, 20, 20]) == (-20, 12, 8)
    assert settle([4, -2, -2], 2, [28, 20, 1]) == (5, -4, -1)


def test_a_seat_that_is_out_neither_pays_nor_receives() -> None:
    assert settle([4, -2, -2], 2, [None, 30, 30]) == (0, 0, 0)  # out landlord won
    assert settle([-4, 2, 2], 2, [None, 30, 30]) == (0, 0, 0)  # out landlord lost
    assert settle([2, -1, -1], 2, [30, None, 30]) == (2, 0, -2)  # only the live pair
    assert settle([-2, 1, 1], 2, [30, None, 30]) == (-2, 0, 2)


def test_the_rising_base_doubles_every_k_deals() -> None:
    rules = KnockoutRules(chip_base=2, rise_every=5)
    assert [rules.chip_base_of(n) for n in (1, 5, 6, 10, 11, 16)] == [2, 2, 4, 4, 8, 16]
    assert KnockoutRules(chip_base=3).chip_base_of(40) == 3


def test_out_at_zero_or_below_the_threshold() -> None:
    assert KnockoutRules(threshold=1).is_out(0) and not KnockoutRules(threshold=1).is_out(1)
    assert KnockoutRules(threshold=5).is_out(4) and not KnockoutRules(threshold=5).is_out(5)
    with pytest.raises(ValueError):
        KnockoutRules(threshold=0)


def test_decided_when_one_seat_still_in_leads_after_someone_is_out() -> None:
    assert not decided([20, 20, 20], [False] * 3)
    assert not decided([0, 30, 30], [True, False, False])  # a tie for first plays on
    assert decided([0, 31, 29], [True, False, False])
    assert decided([40, 20, 0], [False, True, True])
    assert decided([3, 2, 1], [True, True, True])
    assert leaders([0, 30, 30], [True, False, False]) == [1, 2]


def test_after_deal_moves_chips_and_marks_the_out_for_good() -> None:
    rules = KnockoutRules(chips=10, chip_base=2, per=PER_DEAL)
    now = Chips.start(rules, 3)
    now, moved = after_deal(rules, now, [-12, 6, 6], 3)  # 2 units a farmer: 8 owed, 10 held
    assert moved == (-8, 4, 4) and now.chips == (2, 14, 14) and now.out == (False,) * 3
    now, moved = after_deal(rules, now, [-2, 1, 1], 1)
    assert moved == (-2, 1, 1) and now.out == (True, False, False) and not now.decided
    now, moved = after_deal(rules, now, [2, -1, -1], 1)  # the out seat wins: nothing moves
    assert moved == (0, 0, 0) and now.chips == (0, 15, 15) and now.deals == 3
    now, _ = after_deal(rules, now, [1, -2, 1], 1, forfeit=(1,))
    assert now.out == (True, True, False) and now.decided


@given(st.integers(5, 200), st.integers(1, 10), st.sampled_from([PER_DEAL, PER_POINT]),
       st.integers(0, 6), st.integers(1, 5),
       st.lists(st.tuples(st.integers(0, 2), st.sampled_from([1, 2, 3]), st.integers(0, 4),
                          st.booleans()), min_size=1, max_size=30))
def test_chips_are_conserved_never_negative_and_out_is_for_good(
        chips: int, base: int, per: str, rise: int, threshold: int,
        deals: list[tuple[int, int, int, bool]]) -> None:
    rules = KnockoutRules(chips, base, per, rise, min(threshold, chips))
    now = Chips.start(rules, 3)
    for landlord, bid, bombs, landlord_won in deals:
        pair = bid * 2 ** bombs * (1 if landlord_won else -1)
        points = [-pair] * 3
        points[landlord] = 2 * pair
        before = now
        now, moved = after_deal(rules, now, points, bid)
        assert sum(moved) == 0 and sum(now.chips) == 3 * chips
        assert min(now.chips) >= 0
        for seat in range(3):
            if before.out[seat]:
                assert now.out[seat] and moved[seat] == 0
            if rules.is_out(now.chips[seat]):
                assert now.out[seat]


@given(st.integers(0, 10**6), st.lists(st.integers(0, 1000), min_size=1, max_size=4))
def test_largest_remainder_sums_to_the_total(total: int, weights: list[int]) -> None:
    if sum(weights) == 0:
        return
    parts = largest_remainder(total, weights)
    assert sum(parts) == total
    assert all(p == 0 for p, w in zip(parts, weights, strict=True) if w == 0)
