"""A four-player deal: dealing, bidding with 逼打, bomb allowances, score, timeouts, leaving and
JSON (RULES.md §9, §11)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engine import FOUR, Action, DealState, IllegalAction, apply, auto_action, new_deal, preset
from engine.cards import card_rank
from engine.four.score import score_four
from engine.replay import apply_texts, deal_from_strings

# Seat 0: 3s, 4s, 5s ×8 and a 6; the kitty 66666667 makes a landlord who plays out by bombs.
HANDS = ["3333333344444444555555556", "77777778888888899999999TT",
         "TTTTTTJJJJJJJJQQQQQQQQKKK", "KKKKKAAAAAAAA22222222XXDD"]
KITTY = "66666667"
BOMB_LINE = ["play 7", "pass", "pass", "pass", "play 33333333", "pass", "pass", "pass",
             "play 44444444", "pass", "pass", "pass", "play 55555555", "pass", "pass", "pass",
             "play 66666666"]


def deal(rules=FOUR, first_bidder=0) -> DealState:
    return deal_from_strings(rules, HANDS, KITTY, first_bidder=first_bidder)


def code_of(state: DealState, text: str) -> str:
    with pytest.raises(IllegalAction) as info:
        apply_texts(state, [text])
    return info.value.code


def test_rules_11_two_decks_four_hands_of_25_and_a_kitty_of_8():
    state = new_deal(FOUR, seed=4, first_bidder=2)
    assert state.counts == (25, 25, 25, 25) and len(state.kitty) == 8
    ranks = sorted(card_rank(c) for h in (*state.hands, state.kitty) for c in h)
    assert ranks == sorted([r for r in range(13) for _ in range(8)] + [13, 13, 14, 14])
    assert state.to_act == (2,) and state.phase == "bidding"
    assert [str(a) for a in state.legal_actions(2)] == ["bid 1", "bid 2", "bid 3", "pass"]


def test_rules_11_a_3_ends_the_bidding_and_the_kitty_goes_to_the_landlord_face_up():
    state = apply_texts(deal(first_bidder=1), ["bid 1", "bid 3"])
    assert (state.phase, state.landlord, state.base, state.to_act) == ("playing", 2, 3, (2,))
    assert state.counts == (25, 25, 33, 25)
    assert all(state.view(s).kitty == state.kitty for s in range(4))


def test_rules_11_a_bid_must_be_higher_and_each_seat_speaks_once():
    state = apply_texts(deal(), ["bid 2"])
    assert code_of(state, "bid 2") == "bid_too_low"
    state = apply_texts(state, ["pass", "pass", "pass"])
    assert (state.landlord, state.base) == (0, 2)


def test_rules_11_all_four_pass_forces_the_first_bidder_at_base_1():
    state = apply_texts(deal(first_bidder=3), ["pass"] * 4)
    assert (state.phase, state.landlord, state.base) == ("playing", 3, 1)
    # 逼打: the landlord's 上家 (seat 2) may play no bomb, the other two farmers 1 each
    assert state.bomb_limits == (1, 1, 0, None)
    assert state.view(0).bomb_limits == state.bomb_limits  # public


def test_rules_11_allowances_follow_each_farmers_own_bid():
    state = apply_texts(deal(first_bidder=0), ["bid 1", "bid 2", "pass", "pass"])
    assert state.landlord == 1 and state.bomb_limits == (1, None, 1, 1)
    state = apply_texts(deal(first_bidder=0), ["pass", "bid 1", "bid 2", "bid 3"])
    assert state.landlord == 3 and state.bomb_limits == (1, 1, 2, None)


def test_rules_11_head_bid_lets_every_farmer_bomb_freely():
    state = apply_texts(deal(first_bidder=2), ["bid 3"])
    assert state.bomb_limits == (None,) * 4
    assert preset("four", farmer_bomb_limits=False) != FOUR
    state = apply_texts(deal(preset("four", farmer_bomb_limits=False)), ["pass"] * 4)
    assert state.bomb_limits == (None,) * 4


def test_rules_11_a_farmer_at_the_limit_is_offered_no_bomb_and_a_forged_one_is_refused():
    state = apply_texts(deal(first_bidder=0), ["bid 1", "bid 2", "pass", "pass", "play 6",
                                              "play TTTT"])
    view = state.view(3)
    assert view.bombs_left() == 1 and view.bombs_left(2) == 0 and view.bombs_left(1) is None
    state = apply_texts(state, ["play KKKK", "play 33333", "play 77777777", "pass"])
    assert state.seat_bombs == (1, 1, 1, 1) and state.to_act == (3,)
    view = state.view(3)
    assert view.bombs_left() == 0
    plays = [a for a in view.legal_actions() if a.kind == "play"]
    assert plays == [] and [str(a) for a in view.legal_actions()] == ["pass"]
    with pytest.raises(IllegalAction) as info:
        apply_texts(state, ["play XXDD"])  # 天尊 counts as a bomb
    assert info.value.code == "bomb_limit" and "no more" in info.value.message
    assert code_of(state, "play AAAAAAAA") == "bomb_limit"


def test_rules_11_the_landlord_bombs_without_limit_and_upstream_of_a_forced_one_never():
    state = apply_texts(deal(first_bidder=1), ["pass"] * 4 + ["play 6", "play TTTT", "pass"])
    assert state.to_act == (0,) and state.view(0).bombs_left() == 0
    assert code_of(state, "play 33333") == "bomb_limit"
    assert state.view(0).legal_plays() == []


def test_rules_11_score_head_bid_bonus_for_a_winning_landlord():
    state = apply_texts(deal(), ["bid 3", *BOMB_LINE])
    result = state.result
    assert (result.winner, result.landlord, result.base, result.bombs) == ("landlord", 0, 3, 4)
    assert (result.multipliers, result.bonus, result.spring) == ((1, 1, 1), 1, False)
    assert result.points == (12, -4, -4, -4)


def test_rules_11_no_head_bid_bonus_without_a_first_3():
    state = apply_texts(deal(first_bidder=3), ["pass", "bid 3", *BOMB_LINE])
    assert state.result.bonus == 0 and state.result.points == (9, -3, -3, -3)


def test_rules_11_bomb_doubling_house_option_and_cap():
    rules = preset("four", bomb_doubling=True, multiplier_cap=8)
    state = apply_texts(deal(rules), ["bid 3", *BOMB_LINE[:-1]])
    assert state.multipliers() == (8, 8, 8)  # 2^3 so far
    state = apply_texts(state, BOMB_LINE[-1:])
    assert state.result.multipliers == (8, 8, 8) and state.result.points == (75, -25, -25, -25)


def test_rules_11_farmers_win_together_and_the_landlord_pays_each():
    # Seat 3 holds two straights and the big joker; it takes the lead with D and plays out.
    hands = ["3333334444445555556666667", "77777888888999999TTTTTTJJ",
             "JJJJQQQQQQKKKKKKAAAAAAA22", "3456789TJQKA23456789TJQKD"]
    state = deal_from_strings(FOUR, hands, "22222XXD", first_bidder=1)
    state = apply_texts(state, ["bid 1", "pass", "pass", "pass", "play 7", "pass", "play D",
                                "pass", "pass", "pass", "play 3456789TJQKA2", "pass", "pass",
                                "pass", "play 3456789TJQK"])
    assert (state.result.winner, state.result.landlord, state.result.bonus) == ("farmers", 1, 0)
    assert state.result.points == (1, -3, 1, 1)


def test_rules_11_the_only_legal_option_names_the_variant():
    with pytest.raises(ValueError, match="four-player"):
        preset("four", show_cards=True)
    with pytest.raises(ValueError, match="four-player"):
        replace(FOUR, seats=3)


# ---------------------------------------------------------------- §9 with four seats


def test_rules_9_timeout_leads_the_smallest_single_and_follows_with_pass():
    state = apply_texts(deal(), ["bid 3"])
    assert auto_action(state, 0) == Action("play", 0, cards=(0,))
    state = apply(state, Action("timeout", 0))
    assert state.autoplay[0] and state.trick.play is not None and state.trick.play.cards == (0,)
    assert auto_action(state, 1) == Action("pass", 1)
    state = apply(state, Action("timeout", 1))
    assert state.to_act == (2,) and state.trick.passes == 1


def test_rules_9_auto_play_penalty_with_three_farmers():
    state = apply_texts(deal(), ["bid 3"])
    state = apply(state, Action("autoplay", 2, value=1))
    state = apply_texts(state, BOMB_LINE)
    # the farmers lost 4 each; the farmer on auto-play bears the whole loss of 12
    assert state.result.autoplay_penalized == (2,)
    assert state.result.points == (12, 0, -12, 0)


def test_rules_9_leaving_a_four_seat_deal():
    state = apply_texts(deal(), ["bid 1"])
    left = apply(state, Action("leave", 2))
    assert left.phase == "finished" and left.result.points == (2, 2, -6, 2)
    state = apply_texts(deal(), ["bid 3"])
    state = apply(state, Action("leave", 1))
    state = apply_texts(state, BOMB_LINE)
    assert state.result.escaped == (1,) and sum(state.result.points) == 0
    assert state.result.points[1] == -9  # 3 × base 3 × multiplier 1


# ---------------------------------------------------------------- whole deals, JSON


def random_deal(seed: int) -> list[DealState]:
    """Every state of a deal of random legal decisions and meta actions."""
    rng = random.Random(seed)
    state = new_deal(FOUR, seed=seed, first_bidder=seed % 4)
    states = [state]
    while state.to_act:
        seat = state.to_act[0]
        roll = rng.random()
        if roll < 0.03:
            action = Action("timeout", seat)
        elif roll < 0.05 and not state.escaped[seat]:
            action = Action("autoplay", seat, value=0 if state.autoplay[seat] else 1)
        elif roll < 0.053 and state.phase == "playing" and not state.escaped[seat]:
            action = Action("leave", seat)
        else:
            legal = state.legal_actions(seat)
            assert legal, "a seat to act always has a legal action"
            plays = [a for a in legal if a.kind == "play"]
            action = rng.choice(plays if plays and rng.random() < 0.7 else legal)
        state = apply(state, action)
        states.append(state)
    return states


@pytest.mark.parametrize("seed", range(12))
def test_property_random_four_seat_deals_end_and_sum_to_zero(seed):
    states = random_deal(seed)
    final = states[-1]
    assert final.phase == "finished" and sum(final.result.points) == 0
    if len(final.result.escaped) < 4:
        assert final.result == score_four(final)
    for state in states:
        for seat in range(4):
            limit, used = state.bomb_limits[seat], state.seat_bombs[seat]
            assert limit is None or used <= limit


@pytest.mark.parametrize("seed", range(3))
def test_json_round_trip_of_four_seat_states(seed):
    for state in random_deal(seed)[::7]:
        text = state.to_json()
        back = DealState.from_json(text)
        assert back == state and back.to_json() == text and back.view(3) == state.view(3)


def test_a_state_stored_before_bomb_allowances_existed_reads_with_none():
    from engine import SCORE

    state = apply_texts(new_deal(SCORE, seed=3), ["bid 3"])
    data = json.loads(state.to_json())
    del data["seat_bombs"], data["bomb_limits"]
    for key in ("variant", "farmer_bomb_limits", "bomb_doubling"):
        del data["rules"][key]
    assert DealState.from_json(json.dumps(data)) == state


def test_rules_11_alarm_from_10_cards_down():
    state = apply_texts(deal(), ["bid 3"])
    hands = list(state.hands)
    hands[2], hands[3] = hands[2][:10], hands[3][:11]
    view = replace(state, hands=tuple(hands)).view(1)
    assert view.alarm == (False, False, True, False)
