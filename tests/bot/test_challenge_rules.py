"""The duplicate challenge's rules (bot/features/challenge/state.py, RULES.md §10): matchpoints, the
board's order and ties, the prize split and the window."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.features.challenge.state import (
    ChallengeError,
    ChallengeOptions,
    DealPlay,
    Entrant,
    closes_at,
    matchpoints,
    payout,
    standings,
)
from bot.telegram.handlers.challenge import parse_options
from engine.prizes import PrizeTableError

results = st.dictionaries(st.integers(0, 50), st.integers(-96, 96), min_size=1, max_size=12)


@given(results)
def test_a_deal_hands_out_n_times_n_minus_one_matchpoints(deal):
    n = len(deal)
    points = matchpoints(deal)
    assert sum(points.values()) == n * (n - 1)
    assert all(0 <= p <= 2 * (n - 1) for p in points.values())


@given(results)
def test_a_better_result_never_gets_fewer_matchpoints_and_equal_results_equal(deal):
    points = matchpoints(deal)
    for a in deal:
        for b in deal:
            if deal[a] > deal[b]:
                assert points[a] > points[b]
            if deal[a] == deal[b]:
                assert points[a] == points[b]


def test_matchpoints_count_two_per_lower_and_one_per_equal():
    assert matchpoints({1: 6, 2: -3, 3: -3, 4: 12}) == {1: 4, 2: 1, 3: 1, 4: 6}
    assert matchpoints({1: 5}) == {1: 0}


def _play(uid, deal, points, won=False, at=0.0):
    return DealPlay(uid, deal, points, won, at)


ANN, BOB, CY, DI = Entrant(1, "Ann"), Entrant(2, "Bob"), Entrant(3, "Cy"), Entrant(4, "Di")


def test_the_board_sums_matchpoints_over_deals_and_lists_who_has_not_played_last():
    plays = [_play(1, 1, 4, at=10), _play(2, 1, -2, at=11), _play(3, 1, -2, at=12),
             _play(1, 2, -6, at=20), _play(2, 2, 6, True, at=21)]
    board = standings([ANN, BOB, CY, DI], plays)
    # deal 1: Ann 4, Bob 1, Cy 1; deal 2: Bob 2, Ann 0
    assert [(s.name, s.place, s.matchpoints, s.deals) for s in board] == [
        ("Ann", 1, 4, 2), ("Bob", 2, 3, 2), ("Cy", 3, 1, 1), ("Di", None, 0, 0)]


def test_ties_go_to_more_landlord_wins_then_the_earlier_finish_then_share_the_place():
    plays = [_play(1, 1, 2, False, at=5), _play(2, 1, 2, True, at=9), _play(3, 1, 2, False, at=5)]
    board = standings([ANN, BOB, CY], plays)
    assert [(s.name, s.place) for s in board] == [("Bob", 1), ("Ann", 2), ("Cy", 2)]
    plays = [_play(1, 1, 2, at=7), _play(3, 1, 2, at=5)]
    assert [(s.name, s.place) for s in standings([ANN, CY], plays)] == [("Cy", 1), ("Ann", 2)]


def test_the_pool_is_split_by_place_and_refunded_when_nobody_played():
    plays = [_play(1, 1, 4), _play(2, 1, -2), _play(3, 1, -6)]
    board = standings([ANN, BOB, CY, DI], plays)
    paid = payout(100, board)
    assert paid == {1: 200, 2: 120, 3: 80, 4: 0} and sum(paid.values()) == 400
    assert payout(100, standings([ANN, BOB], [])) == {1: 100, 2: 100}
    assert payout(0, board) == {1: 0, 2: 0, 3: 0, 4: 0}
    # fewer placed members: the unused shares go to first
    assert payout(50, standings([ANN, BOB], [_play(2, 1, 1)])) == {2: 100, 1: 0}


def test_options_are_checked():
    assert ChallengeOptions().to_dict() == {"deals": 6, "days": 0, "entry_fee": 0,
                                            "prizes": [50, 30, 20]}
    assert ChallengeOptions.from_dict({"deals": 2, "days": 7, "entry_fee": 5}).days == 7
    for bad in ({"deals": 0}, {"deals": 13}, {"days": 8}, {"entry_fee": -1}, {"deals": True}):
        with pytest.raises(ChallengeError):
            ChallengeOptions(**bad)


def test_the_window_closes_at_the_end_of_the_groups_day_or_after_the_days():
    opened = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)  # 20:00 in Shanghai
    assert closes_at(opened, 0, "Asia/Shanghai") == datetime(2024, 5, 1, 16, 0, tzinfo=UTC)
    assert closes_at(opened, 0, "UTC") == datetime(2024, 5, 2, 0, 0, tzinfo=UTC)
    assert closes_at(opened, 3, "Asia/Shanghai") == datetime(2024, 5, 4, 12, 0, tzinfo=UTC)


def test_a_challenge_pays_by_its_prize_table_and_refuses_a_bad_one():
    board = standings([ANN, BOB, CY], [_play(1, 1, 4), _play(2, 1, 2), _play(3, 1, -2)])
    assert [line.place for line in board] == [1, 2, 3]
    assert payout(100, board, (60, 40)) == {1: 180, 2: 120, 3: 0}
    assert payout(100, board) == {1: 150, 2: 90, 3: 60}
    options = ChallengeOptions(prizes=(60, 40))
    assert ChallengeOptions.from_dict(options.to_dict()) == options
    # a challenge stored before prize tables existed pays 50/30/20
    assert ChallengeOptions.from_dict({"deals": 6, "days": 0, "entry_fee": 5}).prizes == \
        (50, 30, 20)
    for bad in ((60, 30), (30, 70), (10,) * 11):
        with pytest.raises(ChallengeError, match="prizes"):
            ChallengeOptions(prizes=bad)
    parsed = parse_options(["3", "1", "50", "prizes=70,30"])
    assert parsed == ChallengeOptions(3, 1, 50, (70, 30))
    refused = parse_options(["prizes=70,20"])
    assert isinstance(refused, PrizeTableError) and refused.rule == "sum"
    assert parse_options(["prizes=70,30", "prizes=70,30"]) is None
    assert parse_options(["colour=red"]) is None
