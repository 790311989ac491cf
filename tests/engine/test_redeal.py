"""All pass again and again: the house option ``redeal_rule`` (RULES.md §2.3), and the winner
of the last deal bidding first (RULES.md §1.4 option)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import ROB, SCORE, Action, DealState, IllegalAction, apply, new_deal
from engine.deal import auto_action, next_first_bidder
from engine.presets import FOUR, Rules
from engine.redeal import (
    is_penalty_result,
    must_bid_seat,
    penalty_points,
    penalty_result,
    scores_all_pass,
)


def all_pass(state: DealState) -> DealState:
    """Every seat passes (score) or declines (rob) in turn."""
    while state.phase == "bidding":
        seat = state.to_act[0]
        kind = "pass" if state.rules.bidding == "score" else "decline"
        state = apply(state, Action(kind, seat))
    return state


def deals_in_a_row(rules: Rules, first: int, count: int) -> list[DealState]:
    """``count`` deals in a row as a table deals them: each all-pass deal is dealt again with
    the same first bidder and the count one higher; the last one is returned unplayed."""
    states = [new_deal(rules, seed=0, first_bidder=first)]
    for n in range(1, count):
        done = all_pass(states[-1])
        assert done.phase == "redeal"
        states.append(new_deal(rules, seed=n, first_bidder=next_first_bidder(done),
                               all_passed=done.all_passed + 1))
    return states


def test_rules_2_3_redeal_is_the_default_and_deals_again_without_end():
    assert SCORE.redeal_rule == "redeal" and ROB.redeal_rule == "redeal"
    state = new_deal(SCORE, seed=3, first_bidder=1, all_passed=25)
    assert Action("pass", 1) in state.legal_actions(1)
    done = all_pass(state)
    assert (done.phase, done.result, next_first_bidder(done)) == ("redeal", None, 1)


def test_rules_2_3_forced_bid_third_deal_first_bidder_bids_2_or_3():
    rules = SCORE.with_options(redeal_rule="forced_bid")
    first, second, third = deals_in_a_row(rules, 2, 3)
    assert Action("pass", 2) in first.legal_actions(2)
    assert Action("pass", 2) in second.legal_actions(2)
    assert third.bidding.must_bid == 2
    assert third.legal_actions(2) == [Action("bid", 2, value=2), Action("bid", 2, value=3)]
    with pytest.raises(IllegalAction) as info:
        apply(third, Action("pass", 2))
    assert info.value.code == "must_bid"
    with pytest.raises(IllegalAction) as info:
        apply(third, Action("bid", 2, value=1))
    assert info.value.code == "bid_not_allowed"
    state = apply(third, Action("bid", 2, value=2))
    # the others speak freely: Bob may pass or bid 3
    assert state.legal_actions(0) == [Action("bid", 0, value=3), Action("pass", 0)]
    state = apply(apply(state, Action("pass", 0)), Action("pass", 1))
    assert (state.landlord, state.base, state.phase) == (2, 2, "playing")


def test_rules_2_3_forced_bid_rob_preset_first_bidder_must_call():
    rules = ROB.with_options(redeal_rule="forced_bid")
    third = deals_in_a_row(rules, 0, 3)[-1]
    assert third.legal_actions(0) == [Action("call", 0)]
    with pytest.raises(IllegalAction) as info:
        apply(third, Action("decline", 0))
    assert info.value.code == "must_bid"
    state = apply(third, Action("call", 0))
    assert state.bidding.caller == 0
    # the others may rob or not; the forced seat's last chance to rob back stays optional
    state = apply(state, Action("rob", 1))
    state = apply(state, Action("norob", 2))
    assert {a.kind for a in state.legal_actions(0)} == {"rob", "norob"}


def test_rules_2_3_forced_bid_timeout_bids_the_lowest_it_may():
    rules = SCORE.with_options(redeal_rule="forced_bid")
    third = deals_in_a_row(rules, 1, 3)[-1]
    assert auto_action(third, 1) == Action("bid", 1, value=2)
    state = apply(third, Action("timeout", 1))
    assert (state.bidding.high_bid, state.bidding.high_bidder, state.autoplay[1]) == (2, 1, True)
    rob = deals_in_a_row(ROB.with_options(redeal_rule="forced_bid"), 1, 3)[-1]
    assert auto_action(rob, 1) == Action("call", 1)


def test_rules_2_3_forced_bid_never_redeals_a_fourth_time():
    rules = SCORE.with_options(redeal_rule="forced_bid")
    third = deals_in_a_row(rules, 0, 3)[-1]
    assert all_pass(apply(third, Action("bid", 0, value=2))).phase == "playing"


def test_rules_2_3_penalty_third_all_pass_deal_first_bidder_pays_4_others_get_2():
    rules = SCORE.with_options(redeal_rule="penalty")
    first, second, third = deals_in_a_row(rules, 1, 3)
    assert all_pass(first).phase == "redeal" and all_pass(second).phase == "redeal"
    done = all_pass(third)
    assert done.phase == "finished"
    assert done.result == penalty_result(rules, 1)
    assert done.result.points == (2, -4, 2)
    assert is_penalty_result(done.result)
    # then the next seat bids first in a fresh deal
    assert next_first_bidder(done) == 2
    # scored deals survive the store's JSON
    assert DealState.from_json(done.to_json()) == done


def test_rules_2_3_penalty_in_the_rob_preset():
    rules = ROB.with_options(redeal_rule="penalty")
    done = all_pass(deals_in_a_row(rules, 0, 3)[-1])
    assert done.result is not None and done.result.points == (-4, 2, 2)


def test_rules_2_3_a_played_deal_resets_the_count():
    rules = SCORE.with_options(redeal_rule="forced_bid")
    assert must_bid_seat(rules, 0, all_passed=0) is None
    assert new_deal(rules, seed=1, first_bidder=0).bidding.must_bid is None


def test_rules_2_3_none_applies_where_all_pass_forces_a_landlord():
    forced = SCORE.with_options(redeal_rule="penalty", all_pass_forced_landlord=True)
    assert not scores_all_pass(forced, 5)
    assert must_bid_seat(forced.with_options(redeal_rule="forced_bid"), 0, 5) is None
    with pytest.raises(ValueError):
        FOUR.with_options(redeal_rule="penalty")


def test_rules_2_3_unknown_rule_is_refused():
    with pytest.raises(ValueError):
        SCORE.with_options(redeal_rule="sometimes")


def test_an_old_stored_state_reads_with_no_all_pass_deals_before():
    state = new_deal(SCORE, seed=2, first_bidder=0, all_passed=2)
    data = state.to_dict()
    del data["all_passed"]
    del data["bidding"]["must_bid"]
    old = DealState.from_dict(data)
    assert (old.all_passed, old.bidding.must_bid) == (0, None)


@settings(max_examples=60, deadline=None)
@given(first=st.integers(0, 2), seats=st.just(3))
def test_penalty_points_sum_to_zero_and_only_the_first_bidder_pays(first, seats):
    points = penalty_points(SCORE, first)
    assert len(points) == seats and sum(points) == 0
    assert points[first] == -4
    assert all(p == 2 for s, p in enumerate(points) if s != first)


@settings(max_examples=40, deadline=None)
@given(rule=st.sampled_from(["redeal", "forced_bid", "penalty"]),
       rob=st.booleans(), first=st.integers(0, 2), seed=st.integers(0, 10**6),
       passes=st.integers(0, 6))
def test_property_no_rule_lets_all_pass_go_past_its_bound(rule, rob, first, seed, passes):
    """Whatever the rule, a deal after ``passes`` all-pass deals in a row: under
    ``forced_bid`` from the third deal on somebody is landlord when all others pass; under
    ``penalty`` from the third on all passing ends the deal with points summing to zero; under
    ``redeal`` all passing always deals again."""
    rules = (ROB if rob else SCORE).with_options(redeal_rule=rule)
    state = new_deal(rules, seed=seed, first_bidder=first, all_passed=passes)
    while state.phase == "bidding":
        seat = state.to_act[0]
        kinds = {a.kind: a for a in state.legal_actions(seat)}
        action = kinds.get("pass") or kinds.get("decline") or kinds.get("norob") \
            or state.legal_actions(seat)[0]
        state = apply(state, action)
    if rule == "forced_bid" and passes >= 2:
        assert state.landlord == first
    elif rule == "penalty" and passes >= 2:
        assert state.phase == "finished" and state.result is not None
        assert sum(state.result.points) == 0 and state.result.points[first] == -4
    else:
        assert state.phase == "redeal" and next_first_bidder(state) == first


def test_rules_1_4_winner_bids_first_option_travels_with_the_rules():
    rules = SCORE.with_options(winner_bids_first=True)
    state = new_deal(rules, seed=11, first_bidder=0)
    state = apply(state, Action("bid", 0, value=3))
    # finish the deal quickly: the landlord's seat plays out in the replay
    while state.phase != "finished":
        seat = state.to_act[0]
        state = apply(state, auto_action(state, seat))
    winner = state.counts.index(0)
    assert next_first_bidder(state) == winner
    plain = SCORE
    assert plain.winner_bids_first is False
    assert next_first_bidder(state, winner_bids_first=False) == 1


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), rob=st.booleans(),
       level=st.sampled_from(["easy", "normal", "hard"]))
def test_property_the_ai_bids_or_calls_when_it_may_not_pass(seed, rob, level):
    """Bot seats and auto-play (RULES.md §9) never choose a pass the rules refuse (§2.3)."""
    from engine.ai import choose_action

    rules = (ROB if rob else SCORE).with_options(redeal_rule="forced_bid")
    state = new_deal(rules, seed=seed, first_bidder=2, all_passed=2)
    action = choose_action(state.view(2), level=level)
    assert action in state.legal_actions(2)
    assert action.kind in ("bid", "call")
