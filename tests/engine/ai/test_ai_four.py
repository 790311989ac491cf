"""The four-player AI (RULES.md §11): always legal, keeps bombs, respects the allowance,
cooperates, plans its hand."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import FOUR, Action, apply, new_deal, parse_ranks
from engine.ai import LEVELS, choose_action, hints
from engine.ai.four import bid_strength
from engine.ai.four_plan import plan, plan_cost
from engine.combos import ComboType, classify
from engine.replay import apply_texts, deal_from_strings
from engine.trick import Trick

HANDS = ["3333333344444444555555556", "77777778888888899999999TT",
         "TTTTTTJJJJJJJJQQQQQQQQKKK", "KKKKKAAAAAAAA22222222XXDD"]
KITTY = "66666667"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(4))
def test_every_decision_and_hint_is_legal_and_within_the_allowance(level, seed):
    state = new_deal(FOUR, seed=seed, first_bidder=seed % 4)
    while state.to_act:
        seat = state.to_act[0]
        view = state.view(seat)
        action = choose_action(view, level)
        assert action in view.legal_actions(), action
        legal_plays = set(view.legal_plays())
        assert all(h in legal_plays for h in hints(view, 5))
        state = apply(state, action)
    assert all(limit is None or used <= limit
               for limit, used in zip(state.bomb_limits, state.seat_bombs, strict=True))


def test_plan_covers_the_hand_and_keeps_bombs_whole():
    ranks = parse_ranks("33334444455678999TJQKA2XXDD", decks=2)
    parts = plan(ranks)
    assert sorted(r for p in parts for r in p.cards) == sorted(ranks)
    bombs = {str(p) for p in parts if p.type in (ComboType.BOMB, ComboType.JOKER_BOMB)}
    assert bombs == {"3333", "44444", "XXDD"}
    assert any(p.type is ComboType.STRAIGHT for p in parts)  # 5…A, the 2 left alone


def test_plan_keeps_a_and_2_out_of_low_chains_and_uses_planes_with_wings():
    parts = {(str(p), p.type) for p in plan(parse_ranks("A2345", decks=2))}
    assert all(kind is ComboType.SINGLE for _, kind in parts) and len(parts) == 5
    parts = {(str(p), p.type) for p in plan(parse_ranks("TJQKA", decks=2))}
    assert parts == {("TJQKA", ComboType.STRAIGHT)}
    parts = {(str(p), p.type) for p in plan(parse_ranks("3334446677", decks=2))}
    assert parts == {("3334446677", ComboType.PLANE_PAIR)}
    plane = plan_cost(parse_ranks("3334446677", decks=2))
    assert plane < plan_cost(parse_ranks("3346677", decks=2))


def test_bid_strength_ranks_bomb_heavy_hands_above_scattered_ones():
    strong = parse_ranks("3333333344444444555555556", decks=2)
    weak = parse_ranks("3456789TJQK3456789TJQK3579", decks=2)[:25]
    assert bid_strength(strong) > bid_strength(weak)
    state = deal_from_strings(FOUR, HANDS, KITTY, first_bidder=0)
    assert choose_action(state.view(0)) == Action("bid", 0, value=3)


def test_a_low_a_chain_that_is_the_whole_hand_is_played_out():
    state = apply_texts(deal_from_strings(FOUR, HANDS, KITTY), ["bid 3"])
    hands = list(state.hands)
    hands[0] = tuple(sorted([44, 48, 0, 4, 8]))  # A 2 3 4 5
    view = replace(state, hands=tuple(hands)).view(0)
    assert choose_action(view) == Action("play", 0, cards=(0, 1, 2, 11, 12),
                                         type=ComboType.STRAIGHT)


def test_a_hand_that_is_one_play_is_played_out():
    state = apply_texts(deal_from_strings(FOUR, HANDS, KITTY), ["bid 3", *(
        ["play 7", "pass", "pass", "pass", "play 33333333", "pass", "pass", "pass",
         "play 44444444", "pass", "pass", "pass", "play 55555555", "pass", "pass", "pass"])])
    assert choose_action(state.view(0)) == Action("play", 0, cards=(3,) * 8,
                                                  type=ComboType.BOMB)


def test_a_farmer_does_not_beat_a_partner():
    state = apply_texts(deal_from_strings(FOUR, HANDS, KITTY), ["bid 3", "play 7", "play 8"])
    assert state.to_act == (2,)
    assert choose_action(state.view(2)) == Action("pass", 2)  # seat 1 is a partner


def test_a_farmer_at_the_allowance_never_bombs():
    state = apply_texts(deal_from_strings(FOUR, HANDS, KITTY, first_bidder=1),
                        ["pass", "pass", "pass", "pass", "play 6", "play TTTT", "pass"])
    view = state.view(0)  # 逼打: seat 0 is the landlord's 上家, no bomb allowed
    assert view.bombs_left() == 0
    assert choose_action(view) == Action("pass", 0)
    # even leading a hand of bombs only, it breaks one up instead of bombing
    lead = replace(state, trick=replace(state.trick, play=None, seat=None, passes=0))
    action = choose_action(lead.view(0))
    assert action.kind == "play" and len(action.cards or ()) < 4


def test_the_landlord_bombs_only_a_farmer_close_to_playing_out():
    state = apply_texts(deal_from_strings(FOUR, HANDS, KITTY), ["bid 3"])
    two = classify(parse_ranks("2"), FOUR)[0]
    landlord_hand = tuple(sorted([0, 8, 16, 24, 32, *[40] * 4]))  # 3 5 7 9 J and KKKK

    def facing(farmer_cards: int):
        hands = list(state.hands)
        hands[0], hands[1] = landlord_hand, state.hands[1][:farmer_cards]
        return replace(state, hands=tuple(hands), trick=Trick(two, 1, 2), to_act=(0,))

    assert choose_action(facing(20).view(0)) == Action("pass", 0)
    action = choose_action(facing(2).view(0))
    assert action == Action("play", 0, cards=(10,) * 4, type=ComboType.BOMB)


def test_random_seeded_deals_finish_with_the_ai_everywhere():
    rng = random.Random(9)
    for seed in range(3):
        state = new_deal(FOUR, seed=seed, first_bidder=rng.randrange(4))
        while state.to_act:
            state = apply(state, choose_action(state.view(state.to_act[0]), "hard"))
        assert state.phase == "finished" and sum(state.result.points) == 0
