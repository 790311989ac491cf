"""The simple baseline AI (RULES.md §2–§4): always legal, plus its documented habits."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import ROB, SCORE, Action, apply, new_deal, parse_ranks, preset
from engine.ai.simple import choose_action, hand_strength, hints
from engine.cards import DECK, cards_to_ranks
from engine.replay import apply_texts, deal_from_strings

# Seat 0 strong (strength 17), seat 1 weak (0), seat 2 middling; kitty KA2.
AI_HANDS = ["XD222AAAKKQQJJT98", "33445566778899TJQ", "334455667789TTJQK"]
AI_KITTY = "KA2"
# Seat 0 holds three bombs and the rocket once it takes the kitty JJJ.
STRONG = ["XD2222AAAAKKKKQQQ", "3333444455556666Q", "777788889999TTTTJ"]


def ai_deal(rules=SCORE, first_bidder=0):
    return deal_from_strings(rules, AI_HANDS, AI_KITTY, first_bidder=first_bidder)


def strong(texts):
    return apply_texts(deal_from_strings(SCORE, STRONG, "JJJ"), texts)


def decide(state, seat=None):
    seat = state.to_act[0] if seat is None else seat
    return choose_action(state.view(seat))


# --- bidding and doubling (RULES.md §2, §3) ---------------------------------------------------


def test_hand_strength_counts_jokers_twos_aces_and_bombs():
    assert hand_strength(parse_ranks(AI_HANDS[0])) == 17
    assert hand_strength(parse_ranks(AI_HANDS[1])) == 0
    assert hand_strength(parse_ranks("X2A3333")) == 3 + 2 + 1 + 6


def test_score_bidding_strong_bids_3_weak_passes():
    assert decide(ai_deal()) == Action("bid", 0, value=3)
    assert decide(ai_deal(first_bidder=1)) == Action("pass", 1)


def test_rob_bidding_strong_calls_weak_declines_and_does_not_rob():
    assert decide(ai_deal(ROB)) == Action("call", 0)
    assert decide(ai_deal(ROB, first_bidder=1)) == Action("decline", 1)
    state = apply_texts(ai_deal(ROB, first_bidder=2), ["call"])
    assert decide(state) == Action("rob", 0)
    assert decide(apply_texts(state, ["rob"])) == Action("norob", 1)


def test_doubling_strong_landlord_doubles_weak_farmer_does_not():
    state = apply_texts(ai_deal(preset("score", doubling=True)), ["bid 3"])
    assert choose_action(state.view(0)) == Action("double", 0)
    assert choose_action(state.view(1)) == Action("nodouble", 1)


# --- play (RULES.md §4, §6) -------------------------------------------------------------------


def test_lead_is_the_lowest_play_that_keeps_bombs_and_rocket():
    action = decide(strong(["bid 3"]))
    assert action.kind == "play" and set(action.cards) <= {8, 9}  # only J and Q
    assert min(action.cards) == 8


def test_follow_with_the_cheapest_play_that_does_not_break_a_bomb():
    assert decide(strong(["bid 3", "play J"])) == Action("play", 1, cards=(9,), type="single")


def test_no_bomb_without_an_alarm_but_bomb_an_opponent_at_the_alarm():
    state = strong(["bid 3", "play JJJQQQ", "pass", "pass", "play KKKK", "pass", "pass",
                    "play AAAA", "pass", "pass", "play 22"])
    assert state.counts[0] == 4 and decide(state) == Action("pass", 1)
    state = apply_texts(state, ["pass", "pass", "play 22"])
    assert state.view(1).alarm[0]
    action = decide(state)
    assert (action.kind, action.cards) == ("play", parse_ranks("3333"))


def test_partner_farmer_is_beaten_only_cheaply():
    state = apply_texts(ai_deal(), ["bid 3", "play 8", "play Q"])
    assert decide(state) == Action("pass", 2)  # K on the partner's Q is too dear
    state = apply_texts(ai_deal(), ["bid 3", "play 8", "play 9"])
    assert decide(state) == Action("play", 2, cards=(7,), type="single")  # T is cheap


def test_opponent_play_is_beaten():
    state = apply_texts(ai_deal(), ["bid 3", "play Q", "pass"])
    assert decide(state) == Action("play", 2, cards=(10,), type="single")


def test_not_to_act_is_an_error():
    with pytest.raises(ValueError):
        choose_action(ai_deal().view(1))


# --- hints ------------------------------------------------------------------------------------


def test_hints_are_legal_best_first_and_limited():
    state = strong(["bid 3"])
    got = hints(state.view(0), limit=3)
    legal = {a.cards for a in state.legal_actions(0) if a.kind == "play"}
    assert len(got) == 3 and all(p.cards in legal for p in got)
    assert all(set(p.cards) <= {8, 9} for p in got)
    assert hints(state.view(1)) == []


def test_hints_put_the_play_that_empties_the_hand_first():
    state = strong(["bid 3", "play JJJQQQ", "pass", "pass", "play KKKK", "pass", "pass",
                    "play AAAA", "pass", "pass", "play 2222", "pass", "pass"])
    assert str(hints(state.view(0))[0]) == "XD"


# --- property: AI against AI ------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), rob=st.booleans())
def test_property_ai_plays_whole_deals_legally_conserving_cards(seed, rob):
    # forced landlord: every example plays a whole deal instead of ending in a redeal
    rules = preset("rob" if rob else "score", doubling=rob or seed % 2 == 0,
                   all_pass_forced_landlord=True)
    state = new_deal(rules, seed=seed, first_bidder=seed % 3)
    deck = Counter(cards_to_ranks(DECK))
    while state.to_act:
        seat = state.to_act[-1]
        action = choose_action(state.view(seat))
        assert action in state.legal_actions(seat)
        state = apply(state, action)
        held = Counter(r for h in state.hands for r in cards_to_ranks(h))
        held.update(r for a in state.history if a.kind == "play" for r in a.cards or ())
        if state.landlord is None:
            held.update(cards_to_ranks(state.kitty))
        assert held == deck
    assert state.phase == "finished" and state.result.winner in ("landlord", "farmers")
    assert sum(state.result.points) == 0
