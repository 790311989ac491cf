"""Timeouts, auto-play (托管), its penalty and leaving (逃跑) (RULES.md §9; seeds 000, 003)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    ROB,
    SCORE,
    Action,
    DealState,
    IllegalAction,
    apply,
    auto_action,
    new_deal,
    preset,
)
from engine.presets import FOUR
from engine.replay import apply_texts, deal_from_strings

HANDS = ["XD2222AAAAKKKKQQQ", "3333444455556666Q", "777788889999TTTTJ"]
KITTY = "JJJ"
#: Landlord 0 (bid 3) wins; seat 1 plays one Q.
PLAIN_LINE = ["play J", "play Q", "pass", "play K", "pass", "pass", "play JJQQQ", "pass", "pass",
              "play AAKKK", "pass", "pass", "play AA", "pass", "pass", "play 222", "pass", "pass",
              "play 2", "pass", "pass", "play X", "pass", "pass", "play D"]
#: Landlord 1 (first bidder 1, "bid 1", "pass", "pass") loses to farmer 0: points (1, -2, 1).
FARMERS_LINE = ["play 3", "play J", "pass", "play Q", "pass", "play K", "pass", "pass",
                "play QQQKKK", "pass", "pass", "play AAA2", "pass", "pass", "play A", "pass",
                "pass", "play 222", "pass", "pass", "play X", "pass", "pass", "play D"]


def start(rules=SCORE, first_bidder=0):
    return deal_from_strings(rules, HANDS, KITTY, first_bidder=first_bidder)


def run(state, items):
    """Apply items in order: a string is played by the seat to act, an Action as given."""
    for item in items:
        state = apply(state, item) if isinstance(item, Action) else apply_texts(state, [item])
    return state


def code_of(state, action):
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    return info.value.code


def on(seat):
    return Action("autoplay", seat, value=1)


def off(seat):
    return Action("autoplay", seat, value=0)


# --- timeouts: the seeds' default action, then auto-play --------------------------------------


def test_rules_9_timeout_in_score_bidding_passes_and_turns_on_autoplay():
    state = apply(start(first_bidder=1), Action("timeout", 1))
    assert state.autoplay == (False, True, False)
    assert [str(a) for a in state.history] == ["timeout", "pass"]
    assert state.to_act == (2,) and state.version == 1


def test_rules_9_timeout_in_rob_bidding_declines_or_does_not_rob():
    state = apply(start(ROB), Action("timeout", 0))
    assert str(state.history[-1]) == "decline"
    state = apply(apply_texts(state, ["call"]), Action("timeout", 2))
    assert str(state.history[-1]) == "norob" and state.landlord == 1


def test_rules_9_timeout_in_doubling_does_not_double():
    state = apply_texts(start(ROB), ["call", "norob", "norob"])
    state = apply(state, Action("timeout", 2))
    assert state.doubled == (None, None, False) and state.to_act == (0, 1)


def test_rules_9_timeout_only_for_a_seat_to_act():
    assert code_of(start(), Action("timeout", 1)) == "not_your_turn"


def test_rules_9_timeout_when_leading_plays_the_smallest_single():
    state = apply(apply_texts(start(), ["bid 3"]), Action("timeout", 0))
    assert [str(a) for a in state.history] == ["bid 3", "timeout", "play J"]
    assert state.autoplay[0] and state.autoplayed[0]


def test_rules_9_timeout_when_following_passes():
    state = apply(apply_texts(start(), ["bid 3", "play J"]), Action("timeout", 1))
    assert str(state.history[-1]) == "pass" and state.to_act == (2,)


def test_seed_003_autoplay_with_the_last_card_follows_and_scores_normally():
    """Seed 003: 如果剩下最后1张牌托管，系统自动跟牌; 剩下最后1张牌托管…输赢得分正常计算."""
    state = apply_texts(start(first_bidder=1), [
        "bid 1", "pass", "pass", "play 3", "pass", "play Q", "pass", "pass", "play QQ", "pass",
        "pass", "play KKKK", "pass", "pass", "play AAAA", "pass", "pass", "play 2222", "pass",
        "pass", "play X", "play 4444", "pass"])
    assert state.counts[0] == 1 and state.to_act == (0,)
    state = apply(state, Action("timeout", 0))  # D cannot beat a bomb: pass
    assert str(state.history[-1]) == "pass" and state.autoplay[0]
    state = apply_texts(state, ["play Q", "pass"])
    assert auto_action(state, 0) == Action("play", 0, cards=(14,))
    state = apply(state, Action("timeout", 0))
    result = state.result
    assert (result.winner, result.bombs, result.autoplay_penalized) == ("farmers", 4, ())
    assert result.points == (16, -32, 16)


# --- switching auto-play ----------------------------------------------------------------------


def test_rules_9_autoplay_switches_at_any_time_by_any_seat():
    state = apply(start(), on(2))
    assert state.autoplay == (False, False, True) and state.to_act == (0,)
    assert code_of(state, on(2)) == "not_allowed"
    state = apply(state, off(2))
    assert state.autoplay == (False, False, False)
    assert code_of(state, off(2)) == "not_allowed"
    finished = run(start(), ["bid 3", *PLAIN_LINE])
    assert code_of(finished, on(1)) == "wrong_phase"


# --- auto-play penalty -------------------------------------------------------------------------


def test_rules_9_penalty_farmers_lose_the_autoplay_farmer_bears_both_losses():
    result = run(start(), ["bid 3", "play J", on(1), *PLAIN_LINE[1:]]).result
    assert result.points == (6, -6, 0) and result.autoplay_penalized == (1,)


def test_rules_9_taking_back_control_does_not_undo_the_penalty():
    """RULES.md §9: seat 1's Q was played by auto-play; it takes back control at once and plays
    the rest itself, yet still bears both farmers' losses (it used to go free)."""
    state = run(start(), ["bid 3", "play J", on(1), "play Q"])
    assert state.autoplayed == (False, True, False)
    state = run(state, [off(1)])
    assert state.autoplay == (False, False, False) and state.autoplayed == (False, True, False)
    result = run(state, PLAIN_LINE[2:]).result
    assert result.points == (6, -6, 0) and result.autoplay_penalized == (1,)


def test_rules_9_the_mark_is_stored_with_the_deal_and_outlives_a_restart():
    """The bot stores the deal as JSON and restores it after a restart: the mark goes along."""
    state = run(start(), ["bid 3", "play J", on(1), "play Q"])
    restored = DealState.from_json(state.to_json())
    assert restored.autoplayed == (False, True, False)
    result = run(restored, [off(1), *PLAIN_LINE[2:]]).result
    assert result.points == (6, -6, 0) and result.autoplay_penalized == (1,)


def test_rules_9_a_timed_out_pass_counts_even_after_taking_back():
    """A timeout while following passes by auto-play (RULES.md §9): the mark stays after the
    seat takes back control and plays out itself; the farmers win, seat 0 (on auto-play once)
    gains nothing and seat 2 takes the whole win."""
    state = run(start(first_bidder=1), ["bid 1", "pass", "pass", *FARMERS_LINE[:2]])
    state = apply(state, Action("timeout", 0))  # FARMERS_LINE[2] is seat 0's pass
    assert str(state.history[-1]) == "pass" and state.autoplayed == (True, False, False)
    state = run(state, [off(0)])
    assert state.autoplay == (False, False, False) and state.autoplayed == (True, False, False)
    result = run(state, FARMERS_LINE[3:]).result
    assert result.winner == "farmers" and result.autoplay_penalized == (0,)
    assert result.points == (0, -2, 2)


def test_rules_9_autoplay_switched_off_before_its_turn_does_not_count():
    """On auto-play for a while, but no play or pass of the seat was made by it: no penalty."""
    state = run(start(), ["bid 3", on(2), "play J", off(2)])
    assert state.autoplayed == (False, False, False)
    result = run(state, PLAIN_LINE[1:]).result
    assert result.points == (6, -3, -3)
    assert result.autoplay_penalized == ()


def test_rules_9_penalty_farmers_win_the_autoplay_farmer_gains_nothing():
    state = run(start(first_bidder=1), ["bid 1", "pass", "pass", on(2), *FARMERS_LINE])
    assert state.result.points == (2, -2, 0)
    state = run(start(first_bidder=1), ["bid 1", "pass", "pass", on(0), *FARMERS_LINE])
    assert state.result.points == (0, -2, 2)


def test_rules_9_both_farmers_on_autoplay_or_landlord_on_autoplay_score_normally():
    result = run(start(), ["bid 3", on(1), on(2), *PLAIN_LINE]).result
    assert result.points == (6, -3, -3) and result.autoplay_penalized == ()
    result = run(start(), ["bid 3", on(0), *PLAIN_LINE]).result
    assert result.points == (6, -3, -3)


def test_rules_9_penalty_is_a_room_option():
    rules = preset("score", autoplay_penalty=False)
    result = run(start(rules), ["bid 3", on(1), *PLAIN_LINE]).result
    assert result.points == (6, -3, -3) and result.autoplay_penalized == ()


def test_rules_9_autoplay_only_during_bidding_does_not_count():
    result = run(start(), ["bid 1", on(1), "pass", off(1), "pass", *PLAIN_LINE]).result
    assert result.points == (2, -1, -1) and result.autoplay_penalized == ()


def test_rules_9_autoplay_from_bidding_still_on_at_the_end_counts():
    result = run(start(), [on(1), "bid 3", *PLAIN_LINE]).result
    assert result.points == (6, -6, 0) and result.autoplay_penalized == (1,)


# --- leaving (逃跑) -----------------------------------------------------------------------------


def test_seed_000_leaving_during_bidding_cancels_the_deal_and_costs_6():
    state = run(start(), ["bid 1", Action("leave", 2)])
    result = state.result
    assert (state.phase, state.to_act, result.winner, result.landlord) == (
        "finished", (), None, None)
    assert result.points == (3, 3, -6) and result.escaped == (2,)
    assert code_of(state, Action("leave", 0)) == "wrong_phase"


def test_rules_9_leaving_farmer_pays_3_x_base_x_own_multiplier_shared_by_the_others():
    state = run(start(), ["bid 3", "play J", Action("leave", 1)])
    assert state.escaped == (False, True, False) and state.autoplay[1]
    assert code_of(state, off(1)) == "not_allowed"
    assert code_of(state, Action("leave", 1)) == "not_allowed"
    result = run(state, PLAIN_LINE[1:]).result
    # 3 × 3 × 1 = 9 points; the seat after the leaver (2) gets the odd point
    assert result.winner == "landlord" and result.escaped == (1,)
    assert result.points == (4, -9, 5)


def test_rules_9_leaving_landlord_pays_with_the_larger_pair_multiplier():
    rules = preset("score", doubling=True)
    state = run(start(rules), ["bid 3", "double", "nodouble", "double", Action("leave", 0)])
    result = run(state, PLAIN_LINE).result
    assert result.multipliers == (2, 4)
    assert result.points == (-36, 18, 18)  # 3 × 3 × 4


def test_rules_9_when_every_seat_leaves_the_deal_ends_with_zero_points():
    state = run(start(), ["bid 3", Action("leave", 0), Action("leave", 1)])
    assert state.phase == "playing"
    state = apply(state, Action("leave", 2))
    assert state.phase == "finished" and state.result.points == (0, 0, 0)
    assert state.result.escaped == (0, 1, 2)


# --- leaving during the bidding: 6 points, or 3 × highest bid × multiplier so far -------------


def leave_cost(state, seat):
    """What ``seat`` pays if it leaves now, during the bidding (RULES.md §9)."""
    result = apply(state, Action("leave", seat)).result
    assert result.winner is None and result.escaped == (seat,) and sum(result.points) == 0
    return -result.points[seat]


def test_rules_9_leaving_after_two_robs_costs_3_x_base_x_4():
    """Seed 000's flat 6 is for leaving before anyone called; after a call and two robs (×4)
    the leaver pays 3 × 1 × 4 = 12, after the caller robs back (×8) 24."""
    state = start(ROB)
    assert leave_cost(state, 1) == 6
    state = apply_texts(state, ["call"])
    assert leave_cost(state, 1) == 6  # max(6, 3 × 1 × 1)
    state = apply_texts(state, ["rob"])
    assert leave_cost(state, 1) == 6  # max(6, 3 × 1 × 2)
    state = apply_texts(state, ["rob"])
    assert state.bidding.robs == 2 and state.to_act == (0,)  # the caller's last chance
    result = apply(state, Action("leave", 1)).result
    assert result.points == (6, -12, 6) and result.base == 1 and result.landlord is None
    state = apply_texts(state, ["rob"])
    assert state.phase == "doubling"  # the bidding is over: an escape of the whole deal now
    before_last = apply_texts(start(ROB), ["call", "rob"])
    assert leave_cost(apply_texts(before_last, ["rob"]), 2) == 12


def test_rules_9_leaving_after_a_bid_in_the_score_preset():
    state = start(first_bidder=1)
    assert leave_cost(state, 0) == 6  # nobody bid yet
    state = apply_texts(state, ["bid 1"])
    assert leave_cost(state, 0) == 6  # max(6, 3 × 1)
    state = apply_texts(state, ["bid 2"])
    result = apply(state, Action("leave", 0)).result
    assert result.points == (-6, 3, 3) and result.base == 2  # max(6, 3 × 2)


def test_rules_9_a_show_before_the_bidding_counts_in_the_multiplier_so_far():
    """Shown cards (×4, RULES.md §3) are part of the multiplier so far; before anyone bid the
    leaver still pays the flat 6."""
    rules = preset("score", show_cards=True)
    state = apply(start(rules, first_bidder=1), Action("show", 2))
    assert state.shown == (0, 0, 4)
    assert leave_cost(state, 2) == 6
    state = apply_texts(state, ["bid 1"])
    assert leave_cost(state, 2) == 12  # 3 × 1 × 4
    state = apply_texts(state, ["bid 2"])
    assert leave_cost(state, 0) == 24  # 3 × 2 × 4
    rob = apply(start(preset("rob", show_cards=True)), Action("show", 1))
    rob = apply_texts(rob, ["call"])  # the seat that showed calls first (seed 003)
    assert rob.bidding.caller == 1 and leave_cost(rob, 0) == 12  # 3 × 1 × 4


def test_rules_9_the_multiplier_so_far_is_capped():
    rules = preset("rob", multiplier_cap=2)
    state = apply_texts(start(rules), ["call", "rob", "rob"])
    assert leave_cost(state, 2) == 6  # 3 × 1 × min(4, 2)


def test_rules_9_leaving_during_the_bidding_of_the_four_player_game_costs_6():
    """RULES.md §11 has no robs or shows: the multiplier in its bidding is 1, a bid of 2 is the
    highest that leaves the bidding open, so a leave costs 6 there."""
    state = new_deal(FOUR, seed=4, first_bidder=0)
    assert leave_cost(state, 3) == 6
    for text in ("bid 1", "bid 2"):
        state = apply_texts(state, [text])
        assert leave_cost(state, 3) == 6


BIDDING_WALK_RULES = [SCORE, ROB, preset("score", show_cards=True, third_min_two=True),
                  preset("rob", show_cards=True), preset("rob", show_cards=True,
                                                         multiplier_cap=8)]


def expected_bidding_cost(state) -> int:
    """RULES.md §9 written out from the history alone: 6 before any bid or call, else
    max(6, 3 × highest bid × 2^robs × 4 if someone showed), the multiplier capped."""
    kinds = [a.kind for a in state.history]
    if state.rules.bidding == "score":
        bid = max((a.value for a in state.history if a.kind == "bid"), default=0)
    else:
        bid = 1 if "call" in kinds else 0
    if bid == 0:
        return 6
    m = 2 ** kinds.count("rob") * (4 if "show" in kinds else 1)
    cap = state.rules.multiplier_cap
    return max(6, 3 * bid * (m if cap is None else min(m, cap)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), rules_index=st.integers(0, len(BIDDING_WALK_RULES) - 1))
def test_property_leaving_later_in_the_bidding_never_costs_less(seed, rules_index):
    """RULES.md §9: along any bidding (bids, calls, robs, shows), what a leaver pays is the
    rule's amount and never falls from one moment to the next; it starts at 6."""
    rng = random.Random(seed)
    state = new_deal(BIDDING_WALK_RULES[rules_index], seed=seed, first_bidder=seed % 3)
    costs = []
    while state.phase == "bidding":
        seat = rng.randrange(3)
        cost = leave_cost(state, seat)
        assert cost == expected_bidding_cost(state)
        costs.append(cost)
        choices = [a for s in range(3) for a in state.legal_actions(s)]  # shows out of turn
        state = apply(state, rng.choice(choices))
    assert costs[0] == 6
    assert costs == sorted(costs)


# --- property: an auto-played play or pass with 2+ cards marks the seat for good --------------


PENALTY_WALK_RULES = [SCORE, ROB, preset("score", doubling=True, show_cards=True)]


def random_meta_walk(rules, seed: int):
    """A deal of random decisions in which random seats time out and switch auto-play on and
    off at random moments; yields ``(state, action)`` before each action, then the final state
    with ``None``."""
    rng = random.Random(seed)
    state = new_deal(rules, seed=seed, first_bidder=seed % 3)
    while state.to_act:
        roll = rng.random()
        seat = state.to_act[0]
        if roll < 0.01:
            action = Action("timeout", seat)
        elif roll < 0.03:
            other = rng.randrange(3)
            action = Action("autoplay", other, value=0 if state.autoplay[other] else 1)
        else:
            action = rng.choice(state.legal_actions(seat))
        yield state, action
        state = apply(state, action)
    yield state, None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), rules_index=st.integers(0, len(PENALTY_WALK_RULES) - 1))
def test_property_a_farmer_ever_auto_played_with_two_cards_bears_the_penalty(seed, rules_index):
    """RULES.md §9: a seat is marked exactly when one of its plays or passes was made by
    auto-play (a timeout, or while switched on) with 2+ cards in hand; the mark never goes away
    whatever it does after; at the end, a lone marked farmer bears the penalty."""
    marked = [False, False, False]
    previous = (False, False, False)
    for state, action in random_meta_walk(PENALTY_WALK_RULES[rules_index], seed):
        kept = zip(previous, state.autoplayed, strict=True)
        assert all(now or not before for before, now in kept)  # a mark never goes away
        assert tuple(marked) == state.autoplayed
        previous = state.autoplayed
        if action is None:
            final = state
            break
        seat = action.seat
        by_auto = action.kind == "timeout" or (action.kind in ("play", "pass")
                                               and state.autoplay[seat])
        if state.phase == "playing" and by_auto and len(state.hands[seat]) >= 2:
            marked[seat] = True
    if final.phase != "finished":
        return  # everybody passed: a redeal
    result = final.result
    lone = [f for f in result.farmers if marked[f]]
    if len(lone) == 1:
        (farmer,) = lone
        (other,) = [f for f in result.farmers if f != farmer]
        assert result.autoplay_penalized == (farmer,)
        if result.winner == "landlord":
            assert result.points[other] == 0 and result.points[farmer] < 0
        else:
            assert result.points[farmer] == 0 and result.points[other] > 0
    else:
        assert result.autoplay_penalized == ()
    assert sum(result.points) == 0
