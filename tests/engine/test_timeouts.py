"""Timeouts, auto-play (托管), its penalty and leaving (逃跑) (RULES.md §9; seeds 000, 003)."""

from __future__ import annotations

import pytest

from engine import ROB, SCORE, Action, IllegalAction, apply, auto_action, preset
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


def test_rules_9_no_penalty_when_control_was_taken_back_before_the_end():
    state = run(start(), ["bid 3", on(2), "play J"])
    assert state.autoplayed == (False, False, True)
    state = run(state, [off(2)])
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
