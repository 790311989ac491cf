"""The competitions' own rules (RULES.md §10, issue 11): standings, extra deals, knock-out
chips, time limits, rising base, prizes."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.knockout import PER_DEAL, PER_POINT
from engine.match import (
    FIRST_TO,
    FIXED,
    KNOCKOUT,
    MatchError,
    MatchOptions,
    MatchState,
    payout,
    prizes,
)

HUMANS = (True, True, True)


def fixed(deals: int = 3, fee: int = 0, humans: tuple[bool, ...] = HUMANS) -> MatchState:
    return MatchState(MatchOptions(FIXED, deals=deals, entry_fee=fee), humans, started_at=1000.0)


def knockout(**options: int | str) -> MatchState:
    """A knock-out charged per point without a rising base (the numbers before the defaults
    changed), unless ``options`` say otherwise."""
    numbers: dict[str, int | str] = {"base_per": PER_POINT, "rise_every": 0, **options}
    return MatchState(MatchOptions(KNOCKOUT, **numbers), HUMANS,  # type: ignore[arg-type]
                      started_at=1000.0)


def play(state: MatchState, *deals: tuple[int, ...], first_id: int = 1) -> MatchState:
    for n, points in enumerate(deals):
        state = state.record(first_id + n, points)
    return state


def test_defaults_follow_rules_section_10() -> None:
    options = MatchOptions(FIXED)
    assert (options.deals, options.chips, options.chip_base, options.threshold,
            options.time_limit, options.entry_fee) == (9, 20, 2, 1, 0, 0)
    # seed 002: 20 chips, 2 a deal whatever the bid; the base doubles every 5 deals
    assert (options.base_per, options.rise_every) == (PER_DEAL, 5)


def test_options_stored_before_the_chip_base_unit_existed_keep_their_numbers() -> None:
    old = {"format": "knockout", "deals": 9, "chips": 20, "chip_base": 2, "threshold": 1,
           "time_limit": 0, "rise_every": 0, "entry_fee": 0}
    options = MatchOptions.from_dict(old)
    assert (options.chips, options.chip_base, options.base_per, options.rise_every) == \
        (20, 2, PER_POINT, 0)
    state = MatchState(options, HUMANS, 1000.0).record(1, (6, -3, -3), bid=3)
    assert state.scores() == [32, 14, 14]  # 3 points × 2 chips, as before
    stored = {"v": 1, "options": old, "humans": [True] * 3, "started_at": 1000.0,
              "deals": [{"deal_id": 1, "points": [6, -3, -3], "chip_base": 2,
                         "chips": [12, -6, -6], "left": []}], "forfeited": [False] * 3}
    restored = MatchState.from_dict(stored)
    assert restored == state and restored.to_dict()["options"]["base_per"] == PER_POINT


def test_the_chip_base_per_deal_leaves_the_bid_out_and_the_bombs_in() -> None:
    state = MatchState(MatchOptions(KNOCKOUT, rise_every=0), HUMANS, 1000.0)
    state = state.record(1, (6, -3, -3), bid=3)  # landlord bid 3, no bomb
    assert state.scores() == [24, 18, 18] and state.deals[-1].chips == (4, -2, -2)
    state = state.record(2, (-24, 12, 12), bid=3)  # bid 3, two bombs: 4 × 2 chips a farmer
    assert state.scores() == [8, 26, 26]


@pytest.mark.parametrize("name,value", [("deals", 2), ("deals", 19), ("chip_base", 0),
                                        ("entry_fee", -1), ("time_limit", 241), ("chips", 4),
                                        ("chips", 201), ("threshold", 0), ("threshold", 21),
                                        ("base_per", "hand")])
def test_options_out_of_limits_are_refused(name: str, value: int) -> None:
    with pytest.raises(MatchError):
        MatchOptions(FIXED).with_option(name, value)
    with pytest.raises(MatchError):
        MatchOptions("duplicate")


def test_fixed_match_ranks_by_total_points_and_ends_after_n_deals() -> None:
    state = play(fixed(), (4, -2, -2), (-2, 1, 1), (6, -3, -3))
    assert state.scores() == [8, -4, -4]
    assert state.is_over(0)
    standings = state.standings()
    assert [(s.seat, s.place, s.score, s.deals) for s in standings] == \
        [(0, 1, 8, 3), (1, 2, -4, 3), (2, 2, -4, 3)]  # shared second place
    assert state.places() == [1, 2, 2]


def test_fixed_match_tie_for_first_plays_extra_deals_until_broken() -> None:
    state = play(fixed(), (2, -1, -1), (-2, 1, 1), (-1, 2, -1))
    assert state.scores() == [-1, 2, -1]
    assert state.is_over(0)  # seat 1 alone first
    state = play(fixed(), (2, -1, -1), (-1, 2, -1), (-1, -1, 2))
    assert state.scores() == [0, 0, 0]
    assert not state.is_over(0) and state.next_is_extra(0)
    state = state.record(4, (2, -4, 2))  # still tied: seats 0 and 2 on 2
    assert state.scores() == [2, -4, 2] and not state.is_over(0)
    state = state.record(5, (-2, 4, -2))
    assert state.scores() == [0, 0, 0] and not state.is_over(0)
    state = state.record(6, (1, 1, -2))
    assert state.scores() == [1, 1, -2] and not state.is_over(0)
    state = state.record(7, (-4, 2, 2))
    assert state.scores() == [-3, 3, 0] and state.is_over(0)
    assert [(s.seat, s.place) for s in state.standings()] == [(1, 1), (2, 2), (0, 3)]
    with pytest.raises(MatchError):
        state.record(8, (2, -1, -1))


def test_the_same_deal_counts_once() -> None:
    state = fixed().record(7, (2, -1, -1))
    assert state.record(7, (2, -1, -1)) is state
    assert state.played == 1


def test_a_deal_must_fit_the_match() -> None:
    with pytest.raises(MatchError):
        fixed().record(1, (2, -1))
    with pytest.raises(MatchError):
        fixed().record(1, (2, -1, 0))


def test_leaver_is_ranked_last_and_wins_nothing() -> None:
    state = fixed(fee=100).record(1, (-6, 3, 3), left=(0,))
    state = play(state, (2, -4, 2), (-4, 2, 2), first_id=2)
    assert state.scores() == [-8, 1, 7]
    assert state.forfeited == (True, False, False)
    assert [(s.seat, s.place, s.forfeited) for s in state.standings()] == \
        [(2, 1, False), (1, 2, False), (0, 3, True)]
    assert state.places() == [None, 2, 1]
    # 300 beans: 50 % + the unused 20 % to first, 30 % to second
    assert payout(state) == [0, 90, 210]


def test_knockout_chips_follow_points_times_base_and_end_when_a_seat_is_out() -> None:
    state = knockout()  # 20 chips, base 2
    state = state.record(1, (4, -2, -2))  # landlord won base 1 with a bomb: 2 points per farmer
    assert state.scores() == [28, 16, 16]
    assert not state.is_over(0)
    state = state.record(2, (-16, 9, 7))  # landlord lost with ×8: owes 32, holds 28
    assert state.scores() == [0, 32, 28]
    assert state.deals[-1].chips == (-28, 16, 12)
    assert state.out() == [True, False, False]
    assert state.is_over(0)
    assert [(s.seat, s.place, s.out) for s in state.standings()] == \
        [(1, 1, False), (2, 2, False), (0, 3, True)]


def test_knockout_survivors_tied_for_first_play_it_off() -> None:
    """RULES.md §10.1 (seed 002 每桌只能一名胜出): a landlord who loses every chip pays both
    farmers alike; they play extra deals until one leads, the seat that is out played on
    without chips."""
    state = knockout().record(1, (-12, 6, 6))  # 20 − 24: pays 20, 10 to each farmer
    assert state.scores() == [0, 30, 30] and state.out() == [True, False, False]
    assert not state.is_over(0) and state.next_is_extra(0)
    assert [(s.seat, s.place) for s in state.standings()] == [(1, 1), (2, 1), (0, 3)]
    state = state.record(2, (4, -2, -2))  # the out seat wins as landlord: no chip moves
    assert state.scores() == [0, 30, 30] and state.deals[-1].chips == (0, 0, 0)
    assert not state.is_over(0)
    state = state.record(3, (-2, 4, -2))  # seat 1 wins as landlord: seat 2 pays it 4
    assert state.scores() == [0, 34, 26] and state.deals[-1].chips == (0, 4, -4)
    assert state.is_over(0) and not state.next_is_extra(0)
    assert [(s.seat, s.place, s.out) for s in state.standings()] == \
        [(1, 1, False), (2, 2, False), (0, 3, True)]
    assert state.places() == [3, 1, 2]


def test_a_seat_once_out_stays_out_and_below_the_seats_still_in() -> None:
    state = knockout(threshold=5).record(1, (-8, 4, 4))  # 20 − 16 = 4 < 5: out, tie behind
    state = state.record(2, (1, 1, -2), left=())  # farmers 0 and 1 won: only seat 1 is paid
    assert state.scores() == [4, 30, 26] and state.out() == [True, False, False]
    assert state.is_over(0)


def test_knockout_threshold_is_below_the_threshold_or_zero() -> None:
    state = knockout(threshold=5).record(1, (-12, 6, 6))  # 20 − 24 → pays 20
    assert state.scores() == [0, 30, 30] and state.out() == [True, False, False]
    state = knockout(threshold=5).record(1, (-8, 4, 4))  # 20 − 16 = 4 < 5
    assert state.scores() == [4, 28, 28] and state.out()[0]
    state = knockout(threshold=5).record(1, (-7, 4, 3))  # 20 − 14 = 6: stays in
    assert state.scores() == [6, 28, 26] and not any(state.out())


def test_knockout_rising_base_doubles_every_k_deals() -> None:
    state = knockout(chips=100, rise_every=2)
    assert [state.chip_base_of(n) for n in range(1, 7)] == [2, 2, 4, 4, 8, 8]
    state = play(state, (2, -1, -1), (2, -1, -1), (2, -1, -1))
    assert [d.chip_base for d in state.deals] == [2, 2, 4]
    assert state.scores() == [100 + 4 + 4 + 8, 100 - 8, 100 - 8]
    assert state.chip_base == 4


def test_knockout_time_limit_finishes_then_ties_play_on() -> None:
    state = knockout(time_limit=45)
    limit = 1000.0 + 45 * 60
    state = state.record(1, (2, -1, -1))
    assert state.scores() == [24, 18, 18]
    assert not state.is_over(limit - 1) and state.is_over(limit)
    tied = knockout(time_limit=45).record(1, (1, 1, -2))
    assert tied.scores() == [22, 22, 16]
    assert not tied.is_over(limit) and tied.next_is_extra(limit)
    tied = tied.record(2, (-1, 2, -1))
    assert tied.scores() == [20, 26, 14] and tied.is_over(limit)
    assert tied.places() == [2, 1, 3]


def test_leaver_in_a_knockout_is_out_at_once() -> None:
    state = knockout().record(1, (-6, 4, 2), left=(0,))
    assert state.scores() == [8, 28, 24]
    assert state.out() == [True, False, False] and state.is_over(0)
    state = knockout().record(1, (-6, 3, 3), left=(0,))  # the two left tie: they play it off
    assert state.scores() == [8, 26, 26] and state.out() == [True, False, False]
    assert not state.is_over(0) and state.next_is_extra(0)


def test_prize_split_and_bot_seats() -> None:
    assert prizes(300, [1, 2, 3]) == [150, 90, 60]
    assert prizes(100, [2, 1, 3]) == [30, 50, 20]
    assert prizes(200, [1, None, 2]) == [140, 0, 60]  # a bot seat: two human places
    assert prizes(100, [1, None, None]) == [100, 0, 0]
    assert prizes(301, [1, 1, 3]) == [121, 120, 60]  # two firsts share 151 + 90
    assert prizes(10, [1, 2, 2]) == [5, 3, 2]
    assert prizes(0, [1, 2, 3]) == [0, 0, 0]
    assert prizes(90, [None, None, None]) == [0, 0, 0]
    state = fixed(fee=50, humans=(True, False, True))
    state = play(state, (-2, 4, -2), (-2, 4, -2), (4, -2, -2))
    assert state.scores() == [0, 6, -6]
    assert state.places() == [1, None, 2]  # the bot won, the best human is first for prizes
    assert payout(state) == [70, 0, 30]


def test_nobody_to_win_the_pool_refunds_every_fee() -> None:
    state = fixed(fee=40, humans=(True, False, False)).record(1, (-6, 3, 3), left=(0,))
    assert state.is_over(0)  # the one human forfeited: bots alone would play on for nothing
    assert payout(state) == [40, 0, 0]


def test_state_round_trips_through_json_dicts() -> None:
    state = knockout(rise_every=3, entry_fee=10).record(5, (4, -2, -2), left=(2,))
    assert MatchState.from_dict(state.to_dict()) == state
    with pytest.raises(MatchError):
        MatchState.from_dict({**state.to_dict(), "v": 9})


@given(pool=st.integers(0, 10**9),
       places=st.lists(st.one_of(st.none(), st.integers(1, 4)), min_size=2, max_size=4))
def test_prizes_sum_to_the_pool(pool: int, places: list[int | None]) -> None:
    ranked = sorted(p for p in places if p is not None)
    # competition ranking: a place is 1 + how many rank strictly ahead
    places = [None if p is None else 1 + sum(q < p for q in ranked) for p in places]
    paid = prizes(pool, places)
    assert all(a >= 0 for a in paid)
    assert sum(paid) == (pool if ranked else 0)
    for i, p in enumerate(places):
        for j, q in enumerate(places):
            if p is not None and q is not None and p < q:
                assert paid[i] >= paid[j]


@given(st.lists(st.tuples(st.integers(-48, 48), st.integers(-48, 48)), min_size=1,
                max_size=20))
def test_knockout_chips_are_conserved_and_never_negative(deals: list[tuple[int, int]]) -> None:
    state = knockout(rise_every=2)
    for n, (a, b) in enumerate(deals):
        if state.is_over(0):
            break
        state = state.record(n, (a, b, -a - b))
        assert sum(state.scores()) == 60
        assert min(state.scores()) >= 0
    assert payout(state) == [0, 0, 0]


def test_a_knockout_with_the_default_numbers_lasts() -> None:
    """``bench/knockout.py`` in small: AI seats at the default numbers play a median of at
    least 6 deals (the old 20 chips at 2 per point: 3, often 1 or 2; issue: both knock-outs
    testers played ended after one deal). Deterministic: seeded deals and AI."""
    from bench.knockout import OLD, new_setting, one_knockout

    def median(setting: object) -> float:
        deals = sorted(one_knockout((setting, seed, "normal"))[0] for seed in range(11))
        return deals[len(deals) // 2]

    assert median(new_setting()) >= 6 > median(OLD)


# --- Fixed deals up to 18 and a time limit; the first-to-N match; prize tables ------------------


def first_to(target: int = 30, time_limit: int = 0, fee: int = 0) -> MatchState:
    return MatchState(MatchOptions(FIXED, target=target, time_limit=time_limit, entry_fee=fee),
                      HUMANS, started_at=1000.0)


def test_a_fixed_match_plays_up_to_18_deals() -> None:
    """Seed 000's final plays 18 deals."""
    state = fixed(deals=18)
    for n in range(17):
        state = state.record(n + 1, (2, -1, -1))
        assert not state.is_over(0)
    assert state.record(18, (2, -1, -1)).is_over(0)
    with pytest.raises(MatchError):
        MatchOptions(FIXED, deals=19)


def test_a_fixed_match_with_a_time_limit_ends_after_the_deal_in_progress() -> None:
    """Seed 001: 15 minutes; the deal in progress is the last, a tie for first plays on."""
    state = MatchState(MatchOptions(FIXED, deals=9, time_limit=15), HUMANS, started_at=1000.0)
    state = state.record(1, (4, -2, -2))
    before, after = 1000.0 + 15 * 60 - 1, 1000.0 + 15 * 60
    assert not state.is_over(before) and not state.next_is_extra(before)
    assert state.is_over(after)
    tied = state.record(2, (-2, 4, -2))  # seats 0 and 1 on 2
    assert not tied.is_over(after) and tied.next_is_extra(after)
    assert tied.record(3, (2, -1, -1)).is_over(after)
    # without a limit the same deals are nowhere near the end
    assert not fixed(deals=9).record(1, (4, -2, -2)).is_over(after + 10_000)


def test_first_to_n_ends_when_a_seat_reaches_the_target() -> None:
    """Seed 000: 先得30分者胜出."""
    state = first_to(30)
    assert state.options.kind == FIRST_TO and state.first_to
    state = play(state, (24, -12, -12), (4, -2, -2))
    assert state.scores() == [28, -14, -14] and not state.is_over(0)
    assert not state.next_is_extra(0)
    state = state.record(3, (2, -1, -1))  # exactly 30
    assert state.is_over(0) and state.places() == [1, 2, 2]
    # many deals and nobody at 30: it plays on (no deal count)
    state = play(first_to(30), *[(2, -1, -1), (-1, 2, -1), (-1, -1, 2)] * 10)
    assert state.played == 30 and not state.is_over(0)


def test_first_to_n_a_tie_for_first_plays_on_until_broken() -> None:
    state = play(first_to(30), (12, -24, 12), (12, -24, 12), (6, -12, 6))
    assert state.scores() == [30, -60, 30]
    assert not state.is_over(0) and state.next_is_extra(0)
    state = state.record(4, (-4, 2, 2))  # both below the target again: still decided
    assert state.scores() == [26, -58, 32] and state.is_over(0)
    assert [s.seat for s in state.standings()][0] == 2


def test_first_to_n_time_up_the_most_points_win() -> None:
    """Seed 000: 或时间到分数最多者胜出."""
    state = first_to(30, time_limit=30).record(1, (4, -2, -2))
    assert not state.is_over(1000.0 + 30 * 60 - 1)
    assert state.is_over(1000.0 + 30 * 60)
    tied = state.record(2, (-4, 8, -4))  # seats 0 and 1: 0 and 6
    assert tied.scores() == [0, 6, -6] and tied.is_over(1000.0 + 30 * 60)


def test_first_to_options_round_trip_and_old_dicts_load_as_before() -> None:
    options = MatchOptions(FIXED, target=50, time_limit=15, prizes=(60, 40))
    assert MatchOptions.from_dict(options.to_dict()) == options
    state = first_to(50).record(1, (2, -1, -1))
    assert MatchState.from_dict(state.to_dict()) == state
    old = {"format": "fixed", "deals": 6, "chips": 20, "chip_base": 2, "threshold": 1,
           "time_limit": 0, "rise_every": 0, "entry_fee": 100}
    loaded = MatchOptions.from_dict(old)
    assert (loaded.kind, loaded.target, loaded.prizes) == (FIXED, 0, (50, 30, 20))
    for bad in ({"target": 4}, {"target": 301}, {"target": True}):
        with pytest.raises(MatchError):
            MatchOptions(FIXED, **bad)  # type: ignore[arg-type]
    with pytest.raises(MatchError):
        MatchOptions(KNOCKOUT, target=30)


def test_the_prize_table_pays_the_pool() -> None:
    state = MatchState(MatchOptions(FIXED, deals=3, entry_fee=100, prizes=(60, 40)), HUMANS,
                       started_at=1000.0)
    state = play(state, (4, -2, -2), (2, -4, 2), (4, -2, -2))
    assert state.scores() == [10, -8, -2] and state.places() == [1, 3, 2]
    assert payout(state) == [180, 0, 120]
    winner_takes_all = replace(state, options=replace(state.options, prizes=(100,)))
    assert payout(winner_takes_all) == [300, 0, 0]


@pytest.mark.parametrize("table", [(60, 30), (40, 60), (0, 100), (101,), (10,) * 11, (),
                                   (50.5, 49.5)])
def test_a_bad_prize_table_is_refused(table: tuple[int, ...]) -> None:
    with pytest.raises(MatchError, match="prizes"):
        MatchOptions(FIXED, prizes=table)
    with pytest.raises(MatchError):
        MatchOptions.from_dict({"format": "fixed", "prizes": list(table)})


@given(st.lists(st.integers(1, 30), min_size=1, max_size=10).filter(lambda t: sum(t) <= 100),
       st.lists(st.tuples(st.integers(-12, 12), st.integers(-12, 12)), max_size=40),
       st.integers(0, 1000))
def test_first_to_ends_exactly_when_reached_and_untied_and_pays_the_pool(
        shares: list[int], deals: list[tuple[int, int]], fee: int) -> None:
    """Property: a first-to match is over exactly when some seat's total reached the target
    after some deal and one seat leads alone; its payout under any valid prize table sums to
    the pool."""
    table = sorted(shares, reverse=True)
    table[0] += 100 - sum(table)
    state = MatchState(MatchOptions(FIXED, target=20, entry_fee=fee, prizes=tuple(table)),
                       HUMANS, started_at=0.0)
    totals, reached = [0, 0, 0], False
    for n, (a, b) in enumerate(deals):
        if state.is_over(0):
            break
        state = state.record(n + 1, (a, b, -a - b))
        totals = [totals[0] + a, totals[1] + b, totals[2] - a - b]
        reached = reached or max(totals) >= 20
        assert state.is_over(0) == (reached and totals.count(max(totals)) == 1)
    paid = payout(state)
    assert sum(paid) == 3 * fee and min(paid) >= 0
