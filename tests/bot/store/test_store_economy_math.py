"""bot.core.beans: settlement arithmetic (RULES.md §8), check-in amounts, day boundaries."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.beans import EconomyRules, local_day, period_bounds, settle_beans
from engine.prizes import largest_remainder

# largest_remainder


def test_largest_remainder_gives_leftover_to_largest_remainders_then_lower_index():
    assert largest_remainder(10, [1, 1, 1]) == [4, 3, 3]
    assert largest_remainder(10, [1, 2, 3]) == [2, 3, 5]  # 1.67, 3.33, 5.0
    assert largest_remainder(7, [0, 5, 5]) == [0, 4, 3]
    assert largest_remainder(0, [3, 4]) == [0, 0]
    assert largest_remainder(0, [0, 0]) == [0, 0]


def test_largest_remainder_refuses_bad_input():
    with pytest.raises(ValueError):
        largest_remainder(5, [0, 0])
    with pytest.raises(ValueError):
        largest_remainder(-1, [1])
    with pytest.raises(ValueError):
        largest_remainder(1, [1, -1])


@settings(max_examples=200)
@given(
    st.integers(0, 10**6),
    st.lists(st.integers(0, 10**5), min_size=1, max_size=6).filter(lambda ws: sum(ws) > 0),
)
def test_largest_remainder_parts_sum_to_total_and_stay_within_one_of_the_share(total, weights):
    parts = largest_remainder(total, weights)
    assert sum(parts) == total
    for part, weight in zip(parts, weights, strict=True):
        exact = total * weight / sum(weights)
        assert exact - 1 < part < exact + 1
        if weight == 0:
            assert part == 0


# settle_beans (RULES.md §8)


def test_everyone_can_pay_so_beans_are_points_times_stake():
    assert settle_beans([4, -2, -2], 20, [500, 500, 500]) == [80, -40, -40]
    assert settle_beans([-6, 3, 3], 10, [1000, 0, 0]) == [-60, 30, 30]


def test_loser_pays_at_most_their_balance_and_the_winner_gets_what_was_paid():
    # landlord wins 2×2 points at 50/point: farmer 2 holds only 35 beans
    assert settle_beans([4, -2, -2], 50, [0, 1000, 35]) == [135, -100, -35]


def test_winners_share_a_short_payment_in_proportion_to_what_they_were_owed():
    # landlord owes 30 + 10 (one farmer doubled) but holds 25: 25 × 3/4 = 18.75, 25 × 1/4 = 6.25
    assert settle_beans([-4, 3, 1], 10, [25, 0, 0]) == [-25, 19, 6]
    # equal shares of an odd payment: the leftover bean goes to the lower seat
    assert settle_beans([-2, 1, 1], 10, [5, 0, 0]) == [-5, 3, 2]


def test_a_player_with_nothing_pays_nothing():
    assert settle_beans([-2, 1, 1], 10, [0, 100, 100]) == [0, 0, 0]


def test_bot_seats_neither_pay_nor_receive_and_humans_settle_with_each_other():
    # human landlord beats a human farmer and a bot farmer: only the human's 10 change hands
    assert settle_beans([2, -1, -1], 10, [1000, 1000, None]) == [10, -10, 0]
    # human landlord loses: pays the human farmer's pair only
    assert settle_beans([-2, 1, 1], 10, [1000, 1000, None]) == [-10, 10, 0]
    # bot landlord: two human farmers on one side, nobody human to settle with
    assert settle_beans([2, -1, -1], 10, [None, 1000, 1000]) == [0, 0, 0]
    assert settle_beans([-2, 1, 1], 10, [None, 1000, 1000]) == [0, 0, 0]
    # one human and two bots: a practice deal
    assert settle_beans([4, -2, -2], 10, [1000, None, None]) == [0, 0, 0]


def test_four_seat_deal_with_a_short_loser():
    # RULES.md §11: landlord wins against three farmers, one of whom holds 5 beans
    assert settle_beans([6, -2, -2, -2], 10, [0, 100, 5, 100]) == [45, -20, -5, -20]


def test_settle_beans_refuses_inconsistent_input():
    with pytest.raises(ValueError, match="sum to zero"):
        settle_beans([2, -1, 0], 10, [1, 1, 1])
    with pytest.raises(ValueError, match="one entry per seat"):
        settle_beans([2, -1, -1], 10, [1, 1])
    with pytest.raises(ValueError, match="stake"):
        settle_beans([2, -1, -1], 0, [1, 1, 1])
    with pytest.raises(ValueError, match="negative"):
        settle_beans([2, -1, -1], 10, [1, -1, 1])


@st.composite
def deals(draw):
    """Points summing to zero for 3 or 4 seats, a stake, balances with some bots."""
    seats = draw(st.integers(3, 4))
    points = draw(st.lists(st.integers(-400, 400), min_size=seats - 1, max_size=seats - 1))
    points.append(-sum(points))
    balances = draw(st.lists(st.none() | st.integers(0, 20_000), min_size=seats, max_size=seats))
    return points, draw(st.sampled_from([1, 10, 20, 50, 7])), balances


@settings(max_examples=300)
@given(deals())
def test_settlement_properties(deal):
    points, stake, balances = deal
    beans = settle_beans(points, stake, balances)
    assert sum(beans) == 0
    humans = [i for i, b in enumerate(balances) if b is not None]
    for p, b, d in zip(points, balances, beans, strict=True):
        if b is None:
            assert d == 0
            continue
        assert b + d >= 0  # never below zero
        assert abs(d) <= abs(p) * stake  # never more than owed, either way
        assert d == 0 or (d > 0) == (p > 0)  # nobody pays who won or gains who lost
    owed_to_humans = sum(p * stake for i, p in enumerate(points) if i in humans and p > 0)
    payable = sum(
        min(-p * stake, balances[i]) for i, p in enumerate(points) if i in humans and p < 0
    )
    assert sum(d for d in beans if d > 0) == min(owed_to_humans, payable)
    if all(b is not None and b >= abs(p) * stake for p, b in zip(points, balances, strict=True)):
        assert beans == [p * stake for p in points]
    assert settle_beans(points, stake, balances) == beans  # deterministic


# check-in and relief amounts


def test_daily_amount_grows_with_the_streak_up_to_the_cap():
    rules = EconomyRules()
    assert [rules.daily_amount(day) for day in (1, 2, 7, 8, 30)] == [200, 220, 320, 320, 320]
    with pytest.raises(ValueError):
        rules.daily_amount(0)


def test_relief_tops_up_only_below_the_threshold():
    rules = EconomyRules()
    assert rules.relief_amount(0) == 500
    assert rules.relief_amount(99) == 401
    assert rules.relief_amount(100) == 0


# days in a group's time zone


def test_local_day_in_two_time_zones():
    before = datetime(2024, 5, 1, 15, 59, 59, tzinfo=UTC)  # 23:59:59 in Shanghai
    after = datetime(2024, 5, 1, 16, 0, tzinfo=UTC)  # 00:00 in Shanghai
    assert local_day(before, "Asia/Shanghai") == date(2024, 5, 1)
    assert local_day(after, "Asia/Shanghai") == date(2024, 5, 2)
    assert local_day(after, "America/New_York") == date(2024, 5, 1)  # 12:00 EDT
    assert local_day(datetime(2024, 5, 2, 4, 0, tzinfo=UTC), "America/New_York") == date(2024, 5, 2)
    with pytest.raises(ValueError):
        local_day(datetime(2024, 5, 1), "Asia/Shanghai")


def test_period_bounds_are_whole_local_days():
    moment = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)  # Wednesday 20:00 in Shanghai
    assert period_bounds("today", moment, "Asia/Shanghai") == (
        datetime(2024, 4, 30, 16, 0, tzinfo=UTC),
        datetime(2024, 5, 1, 16, 0, tzinfo=UTC),
    )
    assert period_bounds("yesterday", moment, "Asia/Shanghai") == (
        datetime(2024, 4, 29, 16, 0, tzinfo=UTC),
        datetime(2024, 4, 30, 16, 0, tzinfo=UTC),
    )
    # the week starts on Monday 2024-04-29, local time
    assert period_bounds("week", moment, "America/New_York") == (
        datetime(2024, 4, 29, 4, 0, tzinfo=UTC),
        datetime(2024, 5, 6, 4, 0, tzinfo=UTC),
    )
    assert period_bounds("all", moment) == (None, None)
    with pytest.raises(ValueError):
        period_bounds("month", moment)  # type: ignore[arg-type]


def test_a_day_with_a_daylight_saving_change_is_23_hours_long():
    start, end = period_bounds(
        "today", datetime(2024, 3, 10, 12, 0, tzinfo=UTC), "America/New_York"
    )
    assert (end - start).total_seconds() == 23 * 3600
