"""Multipliers and points of a deal (RULES.md §3, §7)."""

from __future__ import annotations

from engine import ROB, SCORE, Action, apply, preset
from engine.presets import Rules
from engine.replay import apply_texts, deal_from_strings
from engine.scoring import pair_multipliers, split_evenly

# Seat 0 strong: with the kitty JJJ it holds XD 2222 AAAA KKKK QQQ JJJ.
HANDS = ["XD2222AAAAKKKKQQQ", "3333444455556666Q", "777788889999TTTTJ"]
KITTY = "JJJ"

#: Landlord 0 plays out with three bombs and the rocket; the farmers never play (spring).
SPRING_LINE = ["play JJJQQQ", "pass", "pass", "play KKKK", "pass", "pass", "play AAAA", "pass",
               "pass", "play 2222", "pass", "pass", "play XD"]
#: Landlord 0 plays out holding bombs and the rocket but never playing them; seat 1 plays a Q.
PLAIN_LINE = ["play J", "play Q", "pass", "play K", "pass", "pass", "play JJQQQ", "pass", "pass",
              "play AAKKK", "pass", "pass", "play AA", "pass", "pass", "play 222", "pass", "pass",
              "play 2", "pass", "pass", "play X", "pass", "pass", "play D"]


def finish(rules: Rules, bidding: list[str], line: list[str], first_bidder: int = 0):
    state = apply_texts(deal_from_strings(rules, HANDS, KITTY, first_bidder=first_bidder),
                        bidding + line)
    assert state.phase == "finished"
    return state.result


def finish_with(rules: Rules, hands: list[str], kitty: str, line: list[str]):
    state = apply_texts(deal_from_strings(rules, hands, kitty), ["bid 1", "pass", "pass", *line])
    assert state.phase == "finished"
    return state.result


def test_rules_7_landlord_wins_2_x_base_each_farmer_loses_base():
    result = finish(SCORE, ["bid 3"], PLAIN_LINE)
    assert (result.winner, result.landlord, result.base) == ("landlord", 0, 3)
    assert (result.bombs, result.rockets, result.spring, result.anti_spring) == (0, 0, False, False)
    assert result.multipliers == (1, 1) and result.farmers == (1, 2)
    assert result.points == (6, -3, -3)


def test_rules_7_bombs_and_rockets_count_when_played_and_spring_doubles():
    result = finish(SCORE, ["bid 3"], SPRING_LINE)
    assert (result.bombs, result.rockets, result.spring) == (4, 1, True)
    assert result.multipliers == (32, 32)  # 2^(3 bombs + 1 rocket) × 2 spring
    assert result.points == (192, -96, -96)


def test_rules_7_anti_spring_when_the_landlord_played_only_the_opening_lead():
    line = ["play 3", "pass", "play Q", "pass", "pass", "play QQ", "pass", "pass", "play KKKK",
            "pass", "pass", "play AAAA", "pass", "pass", "play 2222", "pass", "pass", "play XD"]
    result = finish(SCORE, ["bid 1", "pass", "pass"], line, first_bidder=1)
    assert (result.winner, result.landlord, result.anti_spring, result.spring) == (
        "farmers", 1, True, False)
    assert result.multipliers == (32, 32)
    assert result.points == (32, -64, 32)


def test_rules_7_farmers_win_without_anti_spring_when_the_landlord_played_twice():
    line = ["play 3", "play J", "pass", "play Q", "pass", "play K", "pass", "pass",
            "play QQQKKK", "pass", "pass", "play AAA2", "pass", "pass", "play A", "pass", "pass",
            "play 222", "pass", "pass", "play X", "pass", "pass", "play D"]
    result = finish(SCORE, ["bid 1", "pass", "pass"], line, first_bidder=1)
    assert (result.winner, result.anti_spring, result.multipliers) == ("farmers", False, (1, 1))
    assert result.points == (1, -2, 1)


def test_rules_7_multiplier_cap():
    result = finish(preset("score", multiplier_cap=8), ["bid 3"], SPRING_LINE)
    assert result.multipliers == (8, 8)
    assert result.points == (48, -24, -24)


def test_rules_3_7_doubling_is_per_pair_in_points():
    rules = preset("score", doubling=True)
    result = finish(rules, ["bid 3", "double", "nodouble", "double"], PLAIN_LINE)
    assert result.multipliers == (2, 4)
    assert result.points == (18, -6, -12)


def test_rules_3_7_doubling_and_cap_together():
    rules = preset("score", doubling=True, multiplier_cap=64)
    result = finish(rules, ["bid 3", "double", "nodouble", "double"], SPRING_LINE)
    assert result.multipliers == (64, 64)  # uncapped 64 and 128
    assert result.points == (384, -192, -192)


def test_rules_2_2_7_robs_double_the_multiplier_and_base_is_1():
    result = finish(ROB, ["call", "rob", "norob", "rob", "nodouble", "nodouble", "nodouble"],
                    PLAIN_LINE)
    assert (result.landlord, result.base, result.multipliers) == (0, 1, (4, 4))
    assert result.points == (8, -4, -4)


def test_rules_3_7_farmer_show_before_bidding_x4_multiplies_both_pairs():
    state = deal_from_strings(preset("score", show_cards=True), HANDS, KITTY)
    state = apply(state, Action("show", 2))
    state = apply_texts(state, ["bid 3", *PLAIN_LINE])
    assert state.result.multipliers == (4, 4)
    assert state.result.points == (24, -12, -12)


def test_rules_3_7_a_x4_and_a_x2_show_in_one_deal_give_x4():
    state = deal_from_strings(preset("score", show_cards=True), HANDS, KITTY)
    state = apply_texts(apply(state, Action("show", 1)), ["bid 3"])
    state = apply(state, Action("show", 0))  # the landlord after the kitty: ×2
    assert state.shown == (2, 4, 0)
    state = apply_texts(state, PLAIN_LINE)
    assert state.result.multipliers == (4, 4)
    assert state.result.points == (24, -12, -12)


def test_rules_3_7_two_x4_shows_give_x4_not_x16():
    state = deal_from_strings(preset("rob", show_cards=True), HANDS, KITTY)
    state = apply(apply(state, Action("show", 1)), Action("show", 2))
    state = apply_texts(state, ["call", "norob", "norob", "nodouble", "nodouble", "nodouble"])
    assert state.landlord == 1 and state.multipliers() == (4, 4)


def test_rules_3_7_landlord_show_x2_counts_in_both_pairs():
    state = apply_texts(deal_from_strings(preset("score", show_cards=True), HANDS, KITTY),
                        ["bid 2", "pass", "pass"])
    state = apply_texts(apply(state, Action("show", 0)), PLAIN_LINE)
    assert state.result.multipliers == (2, 2)
    assert state.result.points == (8, -4, -4)


def test_pair_multipliers_formula_rules_7():
    rules = SCORE
    got = pair_multipliers(rules, landlord=1, robs=1, doubled=(True, True, False),
                           shown=(4, 0, 2), bombs=2, spring=True)
    # common 2^(1+2+1) × 4 (largest show) × 2 (landlord doubled) = 128; farmer 0 × 2 (doubled)
    assert got == (256, 128)


def test_rules_5_7_four_two_is_bomb_doubles_the_score_like_a_bomb():
    # Landlord 0 holds 2222 with the kickers 33 (kitty): 222233 is a bomb under the option.
    hands = ["XD2222AAAAKKKKQQQ", "4444555566667777Q", "38888999TTTTJJJJ9"]
    line = ["play 222233", "pass", "pass", "play 3QQQ", "pass", "pass", "play AAAA", "pass",
            "pass", "play KKKK", "pass", "pass", "play XD"]
    on = finish_with(preset("score", four_two_is_bomb=True), hands, "333", line)
    assert (on.bombs, on.rockets, on.multipliers) == (4, 1, (32, 32))  # 2^4 × 2 spring
    off = finish_with(SCORE, hands, "333", line)
    assert (off.bombs, off.multipliers) == (3, (16, 16))  # a plain four_two_singles


def test_split_evenly_gives_odd_points_first_in_order():
    assert split_evenly(9, [1, 2]) == {1: 5, 2: 4}
    assert split_evenly(8, [2, 0]) == {2: 4, 0: 4}
    assert split_evenly(5, [0]) == {0: 5}
