"""Hand planning, the AI's move generation, bidding and the endgame search (RULES.md §2, §5, §6)."""

from __future__ import annotations

import random
import time
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.action import Action
from engine.ai import bidding
from engine.ai.decompose import hand_turns, plan_hand
from engine.ai.endgame import Budget, Solver, forced_win, sample_hands
from engine.ai.hand import ALL_TYPES, all_moves, counts_of, follow_moves, moves_of_type
from engine.ai.knowledge import FULL_DECK, Knowledge, knowledge_from_view
from engine.cards import parse_ranks
from engine.combos import beats, classify
from engine.moves import legal_moves
from engine.trick import Trick
from tests.engine.ai.helpers import position

ZERO = (0,) * 15


def counts(text: str) -> tuple[int, ...]:
    return tuple(counts_of(parse_ranks(text)))


def plan_strings(text: str) -> list[str]:
    return sorted(str(p) for p in plan_hand(counts(text)).combos)


def test_plan_keeps_a_straight_a_plane_with_wings_and_the_rocket():
    assert plan_strings("34567") == ["34567"]
    assert plan_strings("33344456") == ["33344456"]  # RULES.md §5 plane_single
    assert plan_strings("3456789XD") == ["3456789", "XD"]
    assert hand_turns(counts("33344456")) == 1


def test_plan_attaches_the_lowest_single_to_a_trio():
    assert plan_strings("3KKK9") == ["3KKK", "9"]


def test_plan_keeps_a_bomb_whole():
    assert "8888" in plan_strings("38888Q")


def test_plan_covers_the_hand_exactly():
    rng = random.Random(4)
    for _ in range(30):
        deck = [r for r in range(15) for _ in range(FULL_DECK[r])]
        rng.shuffle(deck)
        hand = sorted(deck[:20])
        plan = plan_hand(counts_of(hand))
        assert sorted(r for p in plan.combos for r in p.cards) == hand
        for p in plan.combos:  # every planned combination is a legal reading (RULES.md §5)
            assert any(c.type == p.type and c.main == p.main for c in classify(p.cards))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([r for r in range(15) for _ in range(FULL_DECK[r])]),
                min_size=1, max_size=12).filter(
    lambda h: all(h.count(r) <= FULL_DECK[r] for r in set(h))))
def test_ai_moves_are_legal_and_complete_on_types(hand):
    hand = sorted(hand)
    c = counts_of(hand)
    legal = {(p.type, p.cards) for p in legal_moves(hand)}
    ours = all_moves(c)
    assert {(p.type, p.cards) for p in ours} <= legal
    # Every legal play without kickers is generated.
    plain = {x for x in legal if not x[0].value.startswith(("trio_", "plane_", "four_"))}
    assert plain <= {(p.type, p.cards) for p in ours}
    for prev in legal_moves(hand)[:5]:
        for m in follow_moves(c, prev):
            assert beats(m, prev)


def test_wings_limit_keeps_the_lowest_kicker_choices_of_each_body_in_order():
    c = counts("33344455567789TJQK")
    full = [p for kind in ALL_TYPES for p in moves_of_type(c, kind)]
    limited = [p for kind in ALL_TYPES for p in moves_of_type(c, kind, wings=2)]
    seen: dict[tuple, int] = {}
    expected = []
    for p in full:
        key = (p.type, p.main, p.n)
        if p.type.value.startswith(("trio_", "plane_", "four_")):
            if seen.get(key, 0) == 2:
                continue
            seen[key] = seen.get(key, 0) + 1
        expected.append(p)
    assert limited == expected
    assert len(limited) < len(full)
    trio_singles = [p for p in limited if p.type.value == "trio_single" and p.main == 0]
    assert [p.cards for p in trio_singles] == [(0, 0, 0, 1), (0, 0, 0, 2)]


def test_bidding_follows_hand_strength():
    strong = parse_ranks("XD2222AAKKQQJ9876")
    weak = parse_ranks("33557799JJKK46TQA")  # no control, 8 plays
    assert bidding.bid_value(strong) == 3
    assert bidding.bid_value(weak) == 0
    assert bidding.wants_call(strong) and not bidding.wants_call(weak)
    assert bidding.hand_strength(strong) > bidding.hand_strength(weak)


def _knowledge(hand: str, counts_: tuple[int, int, int], seat: int = 1,
               kitty: str = "", played: str = "") -> Knowledge:
    h = counts(hand)
    gone = counts(played) if played else ZERO
    unseen = tuple(FULL_DECK[r] - h[r] - gone[r] for r in range(15))
    return Knowledge(seat=seat, landlord=0, hand=h, counts=counts_, prev=None, prev_seat=None,
                     unseen=unseen, known=(None, None, None),
                     landlord_kitty=counts(kitty) if kitty else ZERO,
                     played_by=(ZERO, ZERO, ZERO))


def test_sampled_deals_respect_counts_and_the_landlords_kitty():
    k = _knowledge("3456789TJQKA2", (9, 13, 11), kitty="XD2", played="333444555666777888999")
    rng = random.Random(1)
    for _ in range(20):
        hands = sample_hands(k, rng)
        assert hands[1] == k.hand
        assert [sum(h) for h in hands] == [9, 13, 11]
        assert hands[0][13] == hands[0][14] == 1 and hands[0][12] >= 1
        for r in range(15):
            assert hands[0][r] + hands[2][r] == k.unseen[r]


def test_endgame_search_stops_at_its_node_budget():
    # Many safe pair plays against a one-card landlord, but the 3 and the 2 are two losable
    # singles: no win exists; the full search visits 376 positions to show it.
    k = _knowledge("366778899TTJJQQKK2", (1, 18, 17))
    full = Budget(10_000)
    assert forced_win(k, full) is None
    assert 10_000 - full.nodes == 376
    cut = Budget(200)
    assert forced_win(k, cut) is None
    assert cut.nodes < 0
    start = time.perf_counter()
    forced_win(k, Budget(10**9, time.perf_counter() + 0.02))  # the deadline stops it
    assert time.perf_counter() - start < 0.5


def test_exact_solver_sees_a_simple_win():
    # Landlord to lead with a rocket and a single: rocket, then the single (RULES.md §6).
    hands = (counts("3XD"), counts("44"), counts("55"))
    solver = Solver(0, Budget(10_000))
    assert solver.landlord_wins(hands, 0, None, None)
    # A farmer to lead with one card plays out at once.
    assert not solver.landlord_wins((counts("3XD"), counts("4"), counts("55")), 1, None, None)



def test_passes_narrow_what_a_seat_likely_holds():
    # Farmer seat 1 leads a single 9, its partner and then the landlord (seat 0) pass: the
    # landlord likely holds no card above 9 (seat 2 holds one of each of T..2 and the small
    # joker, so no bomb or rocket above 9 is possible). The partner's pass says nothing.
    base = position(2, "TJQKA2X", (20, 16, 7), landlord=0)
    nine = parse_ranks("9")
    history = base.history + (Action("play", 1, cards=nine), Action("pass", 2),
                              Action("pass", 0))
    k = knowledge_from_view(replace(base, history=history, trick=Trick(), played=nine))
    assert [(seat, str(play)) for seat, play, _ in k.passes] == [(0, "9")]
    likely = k.likely_cards_of(0)
    # Above the 9 it holds only what it took from the kitty (a Q and a 2).
    assert [likely[r] for r in range(7, 15)] == [0, 0, 1, 0, 0, 1, 0, 0]
    assert [k.landlord_kitty[r] for r in range(7, 15)] == [0, 0, 1, 0, 0, 1, 0, 0]
    assert likely[:7] == k.unseen[:7]
    assert k.likely_cards_of(1) == k.unseen == k.cards_of(0)


def _landlord_beat_a_five_with_a_king() -> Knowledge:
    # Farmer seat 1 leads a 5 and the landlord (seat 0) answers with a K. Seat 2 holds two of
    # each of 6..Q, so none of those ranks can be a landlord's bomb; the kitty showed the
    # landlord a 5, a Q and a 2.
    view = position(2, "66778899TTJJQQA2X", (19, 16, 17), played=[(1, "5"), (0, "K")])
    return knowledge_from_view(view)


def test_a_follow_says_the_seat_held_no_lower_single_that_beats():
    k = _landlord_beat_a_five_with_a_king()
    assert [(seat, str(play), top) for seat, play, top, _ in k.follows] == [(0, "5", 10)]
    likely = k.likely_cards_of(0)
    assert k.landlord_kitty[2] == k.landlord_kitty[9] == k.landlord_kitty[12] == 1
    assert likely[3:10] == (0,) * 6 + (1,)  # no 6..J, only the kitty's Q
    assert likely[:3] == k.unseen[:3] and likely[10:] == k.unseen[10:]
    assert k.likely_cards_of(1) == k.unseen  # the farmer led: nothing to read


def test_capped_deals_give_no_seat_a_card_its_plays_rule_out():
    from engine.ai.endgame import capped_hands, likely_deals

    k = _landlord_beat_a_five_with_a_king()
    rng = random.Random(5)
    seen = set()
    for _ in range(50):
        hands = capped_hands(k, rng)
        assert hands is not None and hands[2] == k.hand
        assert [sum(h) for h in hands] == [19, 16, 17]
        assert hands[0][3:10] == (0,) * 6 + (1,)
        assert all(hands[0][r] + hands[1][r] == k.unseen[r] for r in range(15))
        seen.add(hands[0])
    assert len(seen) > 10  # the 2 cards left to chance are drawn, not fixed
    # A uniform deal almost never fits; the deals the search uses all do.
    assert sum(sample_hands(k, rng)[0][3:10] == (0,) * 6 + (1,) for _ in range(50)) == 0
    assert all(h[0][3:10] == (0,) * 6 + (1,) for h in likely_deals(k, rng, 12))
