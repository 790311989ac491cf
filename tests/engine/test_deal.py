"""The deal state machine: dealing, play, views, show cards, doubling, and properties
(RULES.md §1, §3, §4, §5 readings, §6; §9 meta actions in random walks)."""

from __future__ import annotations

import doctest
import random
from collections import Counter
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine.action
import engine.ai.simple
import engine.bidding
import engine.deal
import engine.replay
import engine.scoring
import engine.trick
from engine import (
    ROB,
    SCORE,
    Action,
    ComboType,
    DealState,
    IllegalAction,
    Play,
    apply,
    new_deal,
    preset,
)
from engine.cards import DECK, card_rank, cards_to_ranks, parse_ranks
from engine.replay import apply_texts, deal_from_strings

# Seat 0 is strong; the kitty JJJ makes its hand XD 2222 AAAA KKKK QQQ JJJ.
STRONG = ["XD2222AAAAKKKKQQQ", "3333444455556666Q", "777788889999TTTTJ"]
STRONG_KITTY = "JJJ"


def strong(rules=SCORE, first_bidder=0):
    return deal_from_strings(rules, STRONG, STRONG_KITTY, first_bidder=first_bidder)


def code_of(state, seat, text):
    with pytest.raises(IllegalAction) as info:
        apply(state, Action.parse(seat, text))
    return info.value.code


@pytest.mark.parametrize("module", [engine.action, engine.bidding, engine.deal, engine.replay,
                                    engine.scoring, engine.trick, engine.ai.simple])
def test_docstring_examples_hold(module):
    assert doctest.testmod(module).failed == 0


# --- RULES.md §1 dealing ----------------------------------------------------------------------


def test_rules_1_3_new_deal_gives_17_17_17_and_a_kitty_of_3_from_one_deck():
    state = new_deal(SCORE, seed=5, first_bidder=2)
    assert state.counts == (17, 17, 17) and len(state.kitty) == 3
    assert Counter(c for h in state.hands for c in h) + Counter(state.kitty) == Counter(DECK)
    assert (state.phase, state.to_act, state.version, state.first_bidder) == ("bidding", (2,), 0, 2)


def test_rules_1_new_deal_is_reproducible_from_the_seed():
    assert new_deal(SCORE, seed=42) == new_deal(SCORE, seed=42)
    assert new_deal(SCORE, seed=42).hands != new_deal(SCORE, seed=43).hands


def test_rules_1_new_deal_with_given_hands_and_default_kitty():
    hands = [list(range(0, 17)), list(range(17, 34)), list(range(34, 51))]
    state = new_deal(SCORE, hands=hands)
    assert state.kitty == (51, 52, 53)


@pytest.mark.parametrize("hands, kitty", [
    ([list(range(0, 17)), list(range(17, 34)), list(range(33, 50))], None),  # a card twice
    ([list(range(0, 17)), list(range(17, 34))], None),  # two hands
    ([list(range(0, 17)), list(range(17, 34)), list(range(34, 51))], [51, 52]),  # short kitty
])
def test_rules_1_new_deal_rejects_cards_that_are_not_one_deck(hands, kitty):
    with pytest.raises(ValueError):
        new_deal(SCORE, hands=hands, kitty=kitty)


def test_new_deal_rejects_a_bad_first_bidder():
    with pytest.raises(ValueError):
        new_deal(SCORE, seed=1, first_bidder=3)


# --- RULES.md §4 play ------------------------------------------------------------------------


def test_rules_4_1_landlord_leads_and_may_not_pass():
    state = apply_texts(strong(first_bidder=1), ["pass", "pass", "bid 1"])
    assert (state.landlord, state.to_act) == (0, (0,))
    assert code_of(state, 0, "pass") == "leader_cannot_pass"
    assert code_of(state, 1, "play 3") == "not_your_turn"


def test_rules_4_play_checks_cards_in_hand_and_combination():
    state = apply_texts(strong(), ["bid 3"])
    assert code_of(state, 0, "play 3") == "not_in_hand"
    assert code_of(state, 0, "play QQQQ") == "not_in_hand"
    assert code_of(state, 0, "play JQ") == "invalid_combination"
    assert code_of(state, 0, "play JJJQQQXD") == "invalid_combination"  # RULES §5: no XD wings


def test_rules_6_following_must_beat_with_the_same_type_or_a_bomb():
    state = apply_texts(strong(), ["bid 3", "play JJJQQQ"])
    assert state.trick.play is not None and state.trick.play.type == ComboType.PLANE
    assert code_of(state, 1, "play 333444") == "cannot_beat"  # lower plane
    assert code_of(state, 1, "play 3") == "cannot_beat"  # other type
    after = apply_texts(state, ["play 3333"])
    assert (after.bombs, after.trick.seat, after.to_act) == (1, 1, (2,))


def test_rules_4_3_trick_ends_after_two_passes_and_the_last_player_leads():
    state = apply_texts(strong(), ["bid 3", "play J", "play Q", "pass"])
    assert state.to_act == (0,) and state.trick.passes == 1
    state = apply_texts(state, ["play K", "pass", "pass"])
    assert state.trick.play is None and state.to_act == (0,)
    # seat 2 passed twice but may play in a later trick
    state = apply_texts(state, ["play J", "pass", "play 7777"])
    assert (state.trick.seat, state.bombs) == (2, 1)


def test_rules_4_4_deal_ends_when_a_hand_empties():
    state = apply_texts(strong(), ["bid 3", "play JJJQQQ", "pass", "pass", "play KKKK", "pass",
                                   "pass", "play AAAA", "pass", "pass", "play 2222", "pass",
                                   "pass"])
    assert state.counts[0] == 2
    state = apply_texts(state, ["play XD"])
    assert (state.phase, state.to_act, state.result.winner) == ("finished", (), "landlord")
    assert code_of(state, 1, "play 3") == "wrong_phase"
    assert code_of(state, 1, "autoplay 1") == "wrong_phase"


def test_play_removes_one_card_of_each_rank_whatever_the_suit():
    state = apply_texts(strong(), ["bid 3"])
    after = apply_texts(state, ["play KKKK"])
    assert after.counts[0] == 16
    assert all(card_rank(c) != 10 for c in after.hands[0])
    assert after.history[-1] == Action("play", 0, cards=parse_ranks("KKKK"))


def test_rules_4_last_cards_are_the_very_cards_each_play_took_from_the_hand():
    state = apply_texts(strong(), ["bid 3"])
    assert state.last_cards == (None, None, None)
    queens = [c for c in state.hands[0] if card_rank(c) == 9]
    after = apply_texts(state, ["play Q"])
    assert after.last_cards == ((queens[0],), None, None)
    assert set(state.hands[0]) - set(after.hands[0]) == {queens[0]}
    after = apply_texts(after, ["play 3333"])
    bomb = tuple(sorted(set(state.hands[1]) - set(after.hands[1])))
    assert after.last_cards == ((queens[0],), bomb, None) and len(bomb) == 4
    after = apply_texts(after, ["pass", "pass", "play 4"])
    assert after.last_cards[1] == (next(c for c in state.hands[1] if card_rank(c) == 1),)
    # Played cards are public: every seat's view shows the same cards.
    assert all(after.view(s).last_cards == after.last_cards for s in range(3))


def test_rules_5_reading_follows_the_trick_type(monkeypatch):
    """RULES.md §5: with several readings, following uses the one of the trick's type; leading
    uses the first reading or the one named in the action."""
    import engine.combos as combos

    cards = parse_ranks("JJJQQQ")
    plane = Play(ComboType.PLANE, 9, 2, cards)
    odd = Play(ComboType.TRIO_PAIR, 9, 1, cards)  # an invented second reading
    real = combos.classify

    def two_readings(ranks, rules=SCORE):
        return [odd, plane] if tuple(ranks) == cards else real(ranks, rules)

    monkeypatch.setattr(combos, "classify", two_readings)
    state = apply_texts(strong(), ["bid 3"])
    assert apply_texts(state, ["play JJJQQQ"]).trick.play == odd
    assert apply_texts(state, ["play JJJQQQ plane"]).trick.play == plane
    with pytest.raises(IllegalAction) as info:
        apply_texts(state, ["play JJJQQQ straight"])
    assert info.value.code == "invalid_combination"


def test_version_counts_applied_actions_and_history_keeps_them():
    state = apply_texts(strong(), ["bid 3", "play J", "play Q"])
    assert state.version == 3
    assert [str(a) for a in state.history] == ["bid 3", "play J", "play Q"]
    assert [a.seat for a in state.history] == [0, 0, 1]


# --- views (RULES.md §1.3, §3, §4.5) ----------------------------------------------------------


def test_view_holds_own_hand_counts_and_public_information_only():
    state = apply_texts(strong(), ["bid 3", "play JJJQQQ"])
    view = state.view(1)
    assert view.hand == state.hands[1] and view.counts == (14, 17, 17)
    assert view.kitty == state.kitty and view.landlord == 0 and view.base == 3
    assert view.played == parse_ranks("JJJQQQ")
    assert view.shown_hands == (None, None, None)
    others = {c for s in (0, 2) for c in state.hands[s]}
    for f in fields(view):
        value = getattr(view, f.name)
        if isinstance(value, tuple) and value and all(isinstance(c, int) for c in value):
            assert not (set(value) & others) or f.name in ("counts", "to_act", "played", "kitty")


def test_rules_4_5_alarm_at_two_cards_or_option_three():
    moves = ["bid 3", "play JJJQQQ", "pass", "pass", "play KKKK", "pass", "pass",
             "play AAAA", "pass", "pass", "play 222", "pass", "pass"]
    state = apply_texts(strong(), moves)
    assert state.counts[0] == 3 and state.view(1).alarm == (False, False, False)
    state = apply_texts(strong(preset("score", alarm_at=3)), moves)
    assert state.view(1).alarm == (True, False, False)


# --- RULES.md §3 show cards -------------------------------------------------------------------


SHOW = preset("score", show_cards=True)


def test_rules_3_show_before_bidding_is_x4_and_visible_to_all():
    state = apply_texts(strong(SHOW), ["pass"])
    state = apply(state, Action("show", 2))  # out of turn, before the first bid
    assert state.shown == (0, 0, 4)
    assert all(state.view(s).shown_hands[2] == state.hands[2] for s in range(3))
    state = apply_texts(state, ["bid 1", "pass"])
    assert state.multipliers() == (4, 4)  # RULES §3: a show multiplies every pair
    assert code_of(state, 2, "show") == "already_decided"


def test_rules_3_no_show_x4_after_the_first_bid():
    state = apply_texts(strong(SHOW), ["bid 1"])
    assert code_of(state, 2, "show") == "not_allowed"
    assert Action("show", 2) not in state.legal_actions(2)


def test_rules_3_landlord_show_after_kitty_is_x2_before_first_play_only():
    state = apply_texts(strong(SHOW), ["bid 3"])
    assert Action("show", 0) in state.legal_actions(0)
    assert code_of(state, 1, "show") == "not_allowed"
    shown = apply(state, Action("show", 0))
    assert shown.shown == (2, 0, 0) and shown.multipliers() == (2, 2)
    assert shown.view(2).shown_hands[0] == shown.hands[0]
    assert code_of(apply_texts(state, ["play J"]), 0, "show") == "not_allowed"


def test_rules_3_landlord_may_show_x2_after_a_x4_show_and_the_deal_stays_x4():
    state = apply_texts(apply(strong(SHOW), Action("show", 1)), ["bid 3"])
    assert Action("show", 0) in state.legal_actions(0)
    shown = apply(state, Action("show", 0))
    assert shown.shown == (2, 4, 0) and shown.multipliers() == (4, 4)


ROB_SHOW = preset("rob", show_cards=True)


def test_rules_3_rob_first_shower_before_any_call_calls_first():
    state = apply(strong(ROB_SHOW, first_bidder=0), Action("show", 2))
    assert state.to_act == (2,) and state.bidding.queue == (2, 0, 1)
    assert [str(a) for a in state.legal_actions(2)] == ["call", "decline"]
    later = apply(state, Action("show", 1))  # a second shower changes nothing
    assert later.to_act == (2,) and later.bidding.queue == (2, 0, 1)
    state = apply_texts(state, ["call", "norob", "norob"])
    assert state.landlord == 2


def test_rules_3_rob_shower_calls_next_after_a_decline_and_decliners_keep_it():
    state = apply_texts(strong(ROB_SHOW, first_bidder=0), ["decline"])
    state = apply(state, Action("show", 2))
    assert state.to_act == (2,) and state.bidding.queue == (2, 1)
    state = apply(apply_texts(strong(ROB_SHOW, first_bidder=0), ["decline"]), Action("show", 0))
    assert state.to_act == (1,) and state.bidding.queue == (1, 2)  # seat 0 already declined


def test_rules_3_rob_show_does_not_reorder_score_bidding():
    state = apply(strong(SHOW, first_bidder=0), Action("show", 2))
    assert state.to_act == (0,)


def test_rules_2_2_rob_all_decline_after_a_show_redeals_with_the_dealt_first_caller():
    state = apply(strong(ROB_SHOW, first_bidder=0), Action("show", 1))
    state = apply_texts(state, ["decline", "decline", "decline"])
    assert state.phase == "redeal"
    assert engine.deal.next_first_bidder(state) == 0


def test_rules_3_show_cards_is_a_room_option():
    assert code_of(strong(), 0, "show") == "not_allowed"


# --- RULES.md §3 doubling ---------------------------------------------------------------------


DOUBLING = preset("score", doubling=True)


def test_rules_3_doubling_round_every_seat_decides_independently():
    state = apply_texts(strong(DOUBLING, first_bidder=1), ["bid 1", "bid 2", "bid 3"])
    assert (state.phase, state.landlord, state.to_act) == ("doubling", 0, (0, 1, 2))
    state = apply(state, Action("double", 2))
    assert state.to_act == (0, 1) and state.doubled == (None, None, True)
    assert code_of(state, 2, "nodouble") == "already_decided"
    assert code_of(state, 0, "play J") == "wrong_phase"
    state = apply(apply(state, Action("nodouble", 0)), Action("double", 1))
    assert (state.phase, state.to_act, state.multipliers()) == ("playing", (0,), (2, 2))


def test_rules_3_landlord_doubling_doubles_both_pairs_farmer_only_own():
    state = apply_texts(strong(DOUBLING), ["bid 3", "double", "nodouble", "double"])
    assert state.multipliers() == (2, 4)


def test_rules_3_no_doubling_round_without_the_option():
    state = apply_texts(strong(), ["bid 3"])
    assert state.phase == "playing" and code_of(state, 0, "double") == "wrong_phase"


# --- properties: random walks with legal, meta and illegal actions ---------------------------


RULE_SETS = [SCORE, ROB, preset("score", doubling=True, show_cards=True, third_min_two=True),
             preset("rob", show_cards=True, all_pass_forced_landlord=True, multiplier_cap=16)]


def random_action(state: DealState, rng: random.Random) -> Action:
    """A legal decision most of the time, sometimes a meta action (RULES.md §9)."""
    seat = rng.choice(state.to_act)
    roll = rng.random()
    if roll < 0.03:
        return Action("timeout", seat)
    present = [s for s in range(3) if not state.escaped[s]]
    if roll < 0.06 and present:
        other = rng.choice(present)
        return Action("autoplay", other, value=0 if state.autoplay[other] else 1)
    if roll < 0.07 and present:
        return Action("leave", rng.choice(present))
    return rng.choice(state.legal_actions(seat))


def random_illegal(state: DealState, rng: random.Random) -> Action:
    kind = rng.choice(["bid", "pass", "call", "rob", "double", "play", "play", "show"])
    seat = rng.randrange(3)
    if kind == "play":
        return Action("play", seat, cards=tuple(sorted(rng.sample(range(15), rng.randint(1, 4)))))
    return Action(kind, seat, value=rng.randint(0, 4) if kind == "bid" else None)


def full_deck_ranks(state: DealState) -> Counter:
    ranks = Counter(r for h in state.hands for r in cards_to_ranks(h))
    ranks.update(r for a in state.history if a.kind == "play" for r in a.cards or ())
    if state.landlord is None:
        ranks.update(cards_to_ranks(state.kitty))
    return ranks


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), rules_index=st.integers(0, len(RULE_SETS) - 1))
def test_property_random_deals_conserve_cards_never_mutate_and_sum_to_zero(seed, rules_index):
    rng = random.Random(seed)
    state = new_deal(RULE_SETS[rules_index], seed=seed, first_bidder=seed % 3)
    deck = Counter(cards_to_ranks(DECK))
    while state.to_act:
        bad = random_illegal(state, rng)
        before = state.to_json()
        try:
            apply(state, bad)
        except IllegalAction as exc:
            assert exc.code and exc.message
        assert state.to_json() == before
        action = random_action(state, rng)
        new = apply(state, action)
        assert state.to_json() == before  # the old state is untouched
        assert new.version == state.version + 1
        assert full_deck_ranks(new) == deck  # RULES §1: 54 cards, always
        state = new
    assert state.phase in ("finished", "redeal")
    if state.phase == "finished":
        assert sum(state.result.points) == 0  # RULES §7: a zero-sum game


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), rules_index=st.integers(0, len(RULE_SETS) - 1))
def test_property_every_listed_action_is_legal_and_unlisted_plays_are_not(seed, rules_index):
    rng = random.Random(seed)
    state = new_deal(RULE_SETS[rules_index], seed=seed, first_bidder=seed % 3)
    while state.to_act and state.phase != "finished":
        for seat in range(3):
            listed = state.legal_actions(seat)
            for action in rng.sample(listed, min(5, len(listed))):
                apply(state, action)
            if state.phase == "playing" and seat in state.to_act:
                hand = list(cards_to_ranks(state.hands[seat]))
                cards = tuple(sorted(rng.sample(hand, rng.randint(1, min(6, len(hand))))))
                plays = {a.cards for a in listed if a.kind == "play"}
                if cards not in plays:
                    with pytest.raises(IllegalAction) as info:
                        apply(state, Action("play", seat, cards=cards))
                    assert info.value.code in ("invalid_combination", "cannot_beat")
        seat = state.to_act[0]
        state = apply(state, rng.choice(state.legal_actions(seat)))
