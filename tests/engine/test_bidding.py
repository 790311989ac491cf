"""Bidding for the landlord, both presets (RULES.md §2.1 score, §2.2 rob, §1.3 kitty)."""

from __future__ import annotations

import pytest

from engine import ROB, SCORE, Action, IllegalAction, apply, new_deal, next_first_bidder, preset
from engine.replay import apply_texts


def deal(rules=SCORE, first_bidder=0):
    return new_deal(rules, seed=11, first_bidder=first_bidder)


def code_of(state, seat, text):
    with pytest.raises(IllegalAction) as info:
        apply(state, Action.parse(seat, text))
    return info.value.code


# --- RULES.md §2.1 score bidding -------------------------------------------------------------


def test_score_rules_2_1_highest_bid_wins_and_is_the_base():
    state = apply_texts(deal(first_bidder=1), ["bid 1", "bid 2", "pass"])
    assert (state.landlord, state.base, state.phase) == (2, 2, "playing")
    assert state.to_act == (2,)


def test_score_rules_2_1_a_bid_of_3_ends_bidding_at_once():
    state = apply_texts(deal(first_bidder=2), ["bid 3"])
    assert (state.landlord, state.base, state.phase, state.to_act) == (2, 3, "playing", (2,))


def test_score_rules_2_1_every_seat_speaks_once_then_the_bid_stands():
    state = apply_texts(deal(), ["bid 1", "pass", "pass"])
    assert (state.landlord, state.base) == (0, 1)


def test_score_rules_2_1_bid_must_be_higher():
    state = apply_texts(deal(), ["bid 2"])
    assert code_of(state, 1, "bid 2") == "bid_too_low"
    assert code_of(state, 1, "bid 1") == "bid_too_low"
    assert [str(a) for a in state.legal_actions(1)] == ["bid 3", "pass"]


def test_score_rules_2_1_only_bids_1_to_3():
    state = deal()
    assert code_of(state, 0, "bid 4") == "bid_not_allowed"
    assert code_of(state, 0, "bid 0") == "bid_not_allowed"
    assert [str(a) for a in state.legal_actions(0)] == ["bid 1", "bid 2", "bid 3", "pass"]


def test_score_rules_2_1_all_pass_is_a_redeal_with_the_same_first_bidder():
    state = apply_texts(deal(first_bidder=1), ["pass", "pass", "pass"])
    assert (state.phase, state.to_act, state.landlord, state.result) == ("redeal", (), None, None)
    assert next_first_bidder(state) == 1
    assert code_of(state, 1, "bid 1") == "wrong_phase"


def test_score_rules_2_1_option_all_pass_forced_landlord_at_base_1():
    rules = preset("score", all_pass_forced_landlord=True)
    state = apply_texts(deal(rules, first_bidder=2), ["pass", "pass", "pass"])
    assert (state.phase, state.landlord, state.base) == ("playing", 2, 1)
    assert len(state.hands[2]) == 20


def test_score_rules_2_1_third_min_two_after_two_passes():
    rules = preset("score", third_min_two=True)
    state = apply_texts(deal(rules), ["pass", "pass"])
    assert code_of(state, 2, "bid 1") == "bid_not_allowed"
    assert [str(a) for a in state.legal_actions(2)] == ["bid 2", "bid 3", "pass"]
    assert apply_texts(state, ["bid 2"]).landlord == 2


def test_score_rules_2_1_third_min_two_does_not_apply_after_a_bid():
    rules = preset("score", third_min_two=True)
    state = apply_texts(deal(rules), ["pass", "bid 1"])
    assert [str(a) for a in state.legal_actions(2)] == ["bid 2", "bid 3", "pass"]
    state = apply_texts(deal(rules), ["bid 1"])
    assert [str(a) for a in state.legal_actions(1)] == ["bid 2", "bid 3", "pass"]


def test_score_rules_2_1_third_seat_may_bid_1_without_the_option():
    state = apply_texts(deal(), ["pass", "pass", "bid 1"])
    assert (state.landlord, state.base) == (2, 1)


def test_score_rules_2_turn_order_and_kinds():
    state = deal(first_bidder=1)
    assert code_of(state, 0, "bid 1") == "not_your_turn"
    assert code_of(state, 1, "call") == "not_allowed"
    assert code_of(state, 1, "play 3") == "wrong_phase"
    assert code_of(state, 1, "double") == "wrong_phase"


# --- RULES.md §1.3 kitty ----------------------------------------------------------------------


def test_kitty_rules_1_3_hidden_until_landlord_then_added_to_landlord_hand():
    state = deal()
    assert all(state.view(s).kitty is None for s in range(3))
    after = apply_texts(state, ["pass", "bid 3"])
    assert after.counts == (17, 20, 17)
    assert set(state.kitty) <= set(after.hands[1])
    assert all(after.view(s).kitty == state.kitty for s in range(3))


# --- RULES.md §2.2 rob bidding ----------------------------------------------------------------


def test_rob_rules_2_2_caller_is_landlord_when_nobody_robs():
    state = apply_texts(deal(ROB), ["call", "norob", "norob"])
    assert (state.landlord, state.base, state.bidding.robs) == (0, 1, 0)
    assert state.phase == "doubling"
    assert state.multipliers() == (1, 1)


def test_rob_rules_2_2_caller_robs_back_last():
    state = apply_texts(deal(ROB), ["call", "rob", "norob"])
    assert state.to_act == (0,) and state.bidding.stage == "last"
    state = apply_texts(state, ["rob"])
    assert (state.landlord, state.bidding.robs) == (0, 2)
    assert state.multipliers() == (4, 4)


def test_rob_rules_2_2_last_robber_is_landlord():
    state = apply_texts(deal(ROB), ["call", "rob", "rob", "norob"])
    assert (state.landlord, state.bidding.robs, state.multipliers()) == (2, 2, (4, 4))


def test_rob_rules_2_2_every_rob_doubles():
    state = apply_texts(deal(ROB), ["call", "rob", "rob", "rob"])
    assert (state.landlord, state.bidding.robs, state.multipliers()) == (0, 3, (8, 8))


def test_rob_rules_2_2_a_decliner_may_not_rob():
    state = apply_texts(deal(ROB), ["decline", "call"])
    assert state.to_act == (2,)
    state = apply_texts(state, ["rob"])
    # seat 0 declined: no rob chance; the caller (1) gets the last word
    assert state.to_act == (1,)
    assert code_of(state, 0, "rob") == "not_your_turn"
    state = apply_texts(state, ["norob"])
    assert (state.landlord, state.bidding.robs) == (2, 1)


def test_rob_rules_2_2_call_after_two_declines_ends_bidding():
    state = apply_texts(deal(ROB, first_bidder=1), ["decline", "decline", "call"])
    assert (state.landlord, state.phase, state.bidding.robs) == (0, "doubling", 0)


def test_rob_rules_2_2_all_decline_is_a_redeal_and_the_same_seat_calls_first():
    state = apply_texts(deal(ROB, first_bidder=2), ["decline", "decline", "decline"])
    assert (state.phase, state.landlord, state.result) == ("redeal", None, None)
    first = next_first_bidder(state)
    assert first == 2
    again = new_deal(ROB, seed=12, first_bidder=first)
    assert again.to_act == (2,) and again.bidding.queue == (2, 0, 1)
    assert [str(a) for a in again.legal_actions(2)] == ["call", "decline"]


def test_rob_rules_2_2_all_decline_forced_landlord_option():
    rules = preset("rob", all_pass_forced_landlord=True)
    state = apply_texts(deal(rules, first_bidder=2), ["decline", "decline", "decline"])
    assert (state.landlord, state.base, state.phase) == (2, 1, "doubling")


def test_rob_rules_2_2_choices_per_stage():
    state = deal(ROB)
    assert [str(a) for a in state.legal_actions(0)] == ["call", "decline"]
    assert code_of(state, 0, "rob") == "not_allowed"
    assert code_of(state, 0, "bid 1") == "not_allowed"
    assert code_of(state, 0, "pass") == "not_allowed"
    state = apply_texts(state, ["call"])
    assert [str(a) for a in state.legal_actions(1)] == ["rob", "norob"]
    assert code_of(state, 1, "call") == "not_allowed"
    assert state.legal_actions(0) == []


def test_rules_1_4_first_bidder_rotates_after_a_played_deal():
    state = apply_texts(deal(first_bidder=2), ["bid 3"])
    assert next_first_bidder(state) == 0
