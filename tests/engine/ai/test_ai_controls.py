"""The chance that a combination wins the lead back (issue 17)."""

from __future__ import annotations

import random

from engine.ai.hand import counts_of, minus
from engine.ai.knowledge import Knowledge, knowledge_from_view
from engine.ai.play import HARD, _controls, lead_candidates, unbeaten_chance
from engine.cards import parse_ranks
from engine.combos import ComboType, Play
from tests.engine.ai.helpers import position

# Everything but 8-K is gone except two of the Ks: the farmers hold 8888 9999 TTTT JJJJ QQ KK.
GONE = [(1, "3333"), (2, "4444"), (1, "5555"), (2, "6666"), (1, "7777"), (2, "AAAA"),
        (1, "2222"), (2, "XD"), (1, "KK")]


def _pair(text: str) -> Play:
    ranks = parse_ranks(text)
    return Play(ComboType.PAIR, ranks[0], 1, ranks)


def _single(text: str) -> Play:
    ranks = parse_ranks(text)
    return Play(ComboType.SINGLE, ranks[0], 1, ranks)


def test_a_pair_is_safe_for_the_landlord_when_the_two_higher_cards_are_split():
    k = knowledge_from_view(position(0, "QQ", (2, 10, 10), played=GONE))
    # Only KK beats QQ: it does unless the two Ks lie one in each farmer's hand.
    split = 2 * 10 * 10 / (20 * 19)
    assert abs(unbeaten_chance(k, _pair("QQ"), HARD) - split) < 1e-9
    assert unbeaten_chance(k, _pair("KK"), HARD) == 1.0


def test_a_single_below_an_unseen_card_is_never_safe_for_the_landlord():
    # The farmers share every unseen card: one of them holds the K.
    k = knowledge_from_view(position(0, "QQ", (2, 10, 10), played=GONE))
    assert unbeaten_chance(k, _single("Q"), HARD) == 0.0
    assert unbeaten_chance(k, _single("K"), HARD) == 1.0


def test_a_farmer_weighs_how_many_cards_the_landlord_holds():
    view = position(1, "Q", (3, 1, 19), played=[(0, "XD"), (0, "2222"), (0, "AAAA")],
                    landlord=0)
    k = knowledge_from_view(view)
    # Kings beat a single Q: the chance that none of the four is among the landlord's cards
    # it drew besides the kitty cards it still holds.
    kept = sum(k.landlord_kitty)
    pool = sum(k.unseen) - kept
    drawn = k.counts[0] - kept
    kings = k.unseen[parse_ranks("K")[0]] - k.landlord_kitty[parse_ranks("K")[0]]
    expected = 1.0
    for i in range(drawn):
        expected *= (pool - kings - i) / (pool - i)
    if k.landlord_kitty[parse_ranks("K")[0]]:
        expected = 0.0
    assert abs(unbeaten_chance(k, _single("Q"), HARD) - expected) < 1e-9
    assert 0.0 <= expected < 1.0


def test_the_shared_memo_of_a_ranking_gives_each_hand_its_own_value():
    # One ranking shares the chances between the hands it values: each hand still gets the
    # value computed alone, in the order the hands come.
    rng = random.Random(17)
    deck = [r for r in range(15) for _ in range(4 if r < 13 else 1)]
    for _ in range(20):
        rng.shuffle(deck)
        hand = tuple(counts_of(deck[:20]))
        k = Knowledge(seat=0, landlord=0, hand=hand, counts=(20, 17, 17), prev=None,
                      prev_seat=None, unseen=tuple(counts_of(deck[20:])),
                      known=(None, None, None), landlord_kitty=(0,) * 15,
                      played_by=((0,) * 15,) * 3)
        memo: dict = {}
        for p in lead_candidates(hand):
            rest = minus(hand, p.cards)
            if any(rest):
                assert _controls(k, rest, HARD, memo) == _controls(k, rest, HARD)
        assert memo  # the chances were shared
