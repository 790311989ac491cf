"""The four-player game's combinations, comparison and legal plays (RULES.md §11)."""

from __future__ import annotations

import doctest
import random
from collections import Counter

import pytest

import engine.four.allowance
import engine.four.moves
import engine.four.reader
import engine.play
from engine import FOUR, SCORE, classify, legal_moves, parse_ranks
from engine.four.moves import legal_moves_four
from engine.four.reader import classify_four
from engine.play import ComboType, beat_reason, beats, body_size, play_groups

TWO_DECKS = [r for r in range(13) for _ in range(8)] + [13, 13, 14, 14]


def read(text: str):
    readings = classify(parse_ranks(text, decks=2), FOUR)
    return [(p.type.value, p.main_char, p.n) for p in readings]


def play(text: str):
    (reading,) = classify(parse_ranks(text, decks=2), FOUR)
    return reading


@pytest.mark.parametrize("module", [engine.play, engine.four.reader, engine.four.moves,
                                    engine.four.allowance])
def test_docstring_examples_hold(module):
    assert doctest.testmod(module).failed == 0


def test_rules_11_only_the_types_of_the_variant():
    assert read("3334") == []  # no trio with a single
    assert read("XD") == []  # no rocket
    assert read("333345") == [] and read("33334455") == []  # no four with two
    assert read("33344455") == []  # no plane with single wings
    assert read("XX") == [("pair", "X", 1)] and read("DD") == [("pair", "D", 1)]
    assert read("XXDD") == [("joker_bomb", "D", 1)]
    assert read("333XX") == [("trio_pair", "3", 1)]


def test_rules_11_chains_run_a_low_or_high_and_2_only_low():
    assert read("A2345") == [("straight", "5", 5)]
    assert read("23456") == [("straight", "6", 5)]
    assert read("TJQKA") == [("straight", "A", 5)]
    assert read("QKA23") == [] and read("JQKA2") == []
    assert read("AA2233") == [("pair_chain", "3", 3)]
    assert read("AAA222333") == [("plane", "3", 3)]
    # all thirteen ranks fit A…K and 2…A: the higher window
    assert read("3456789TJQKA2") == [("straight", "A", 13)]


def test_rules_11_plane_wings_are_consecutive_pairs_outside_the_body():
    assert read("3334446677") == [("plane_pair", "4", 2)]
    assert read("3334446688") == []
    assert read("33KKKAAA22") == [("plane_pair", "A", 2)]  # wings 2 3, A high in the body
    assert read("TTTJJJAA22") == [("plane_pair", "J", 2)]  # wings A 2, A low
    assert read("3333344444") == []  # a wing may not share the body's rank


def test_rules_11_bombs_by_size_then_rank_and_the_joker_bomb_on_top():
    assert read("88888888") == [("bomb", "8", 8)]
    assert beats(play("33333"), play("2222"))
    assert beat_reason(play("2222"), play("33333")) == "too_low"
    assert beats(play("44444"), play("33333")) and not beats(play("33333"), play("44444"))
    assert beats(play("XXDD"), play("88888888"))
    assert beat_reason(play("88888888"), play("XXDD")) == "too_low"
    assert beats(play("3333"), play("3456789TJQKA2"))


def test_rules_11_chains_compare_in_chain_order():
    assert beats(play("23456"), play("A2345")) and not beats(play("A2345"), play("23456"))
    assert beats(play("TJQKA"), play("9TJQK"))
    assert beat_reason(play("AA2233"), play("QQKKAA")) == "too_low"
    assert beat_reason(play("34567"), play("345678")) == "length_mismatch"
    assert beats(play("DD"), play("XX")) and beats(play("XX"), play("22"))
    assert beats(play("KKK22"), play("QQQAA"))


def test_play_groups_and_body_size_read_chains_in_chain_order():
    assert play_groups(play("A2345")) == ((11,), (12,), (0,), (1,), (2,))
    assert play_groups(play("TTTJJJAA22")) == ((7, 7, 7), (8, 8, 8), (11, 11), (12, 12))
    assert play_groups(play("55555")) == ((2,) * 5,)
    assert play_groups(play("XXDD")) == ((13, 13), (14, 14))
    assert body_size(play("55555")) == 5 and body_size(play("TTTJJJAA22")) == 6


def test_three_player_rules_are_untouched_by_the_variant():
    assert [p.type for p in classify(parse_ranks("3333"), SCORE)] == [ComboType.BOMB]
    assert classify(parse_ranks("3333"), SCORE)[0].n == 1
    assert classify(parse_ranks("A2345"), SCORE) == []
    assert [p.type for p in classify(parse_ranks("XD"), SCORE)] == [ComboType.ROCKET]


# ---------------------------------------------------------------- legal plays


def every_beating_subset(hand: list[int], prev) -> set[tuple]:
    """Ground truth: every sub-multiset of the hand that reads as a play beating ``prev``."""
    counts = Counter(hand)
    ranks = sorted(counts)
    out: set[tuple] = set()

    def walk(i: int, chosen: list[int]) -> None:
        if i == len(ranks):
            for p in classify_four(chosen) if chosen else []:
                if prev is None or beats(p, prev):
                    out.add((p.cards, p.type, p.main, p.n))
            return
        for k in range(counts[ranks[i]] + 1):
            walk(i + 1, chosen + [ranks[i]] * k)

    walk(0, [])
    return out


def random_hands(seed: int, count: int) -> list[list[int]]:
    rng = random.Random(seed)
    hands = []
    for i in range(count):
        if i % 2:
            deck = TWO_DECKS[:]
            rng.shuffle(deck)
            hands.append(sorted(deck[:rng.randint(6, 13)]))
        else:  # few ranks, many copies: bombs of every size, long wings
            hand = []
            for r in rng.sample(range(15), rng.randint(3, 7)):
                hand += [r] * rng.randint(1, 2 if r >= 13 else 8)
            hands.append(sorted(hand)[:22])
    return hands


@pytest.mark.parametrize("seed", range(4))
def test_property_legal_moves_are_exactly_the_beating_subsets(seed):
    rng = random.Random(seed)
    for hand in random_hands(seed, 12):
        others = TWO_DECKS[:]
        rng.shuffle(others)
        pool = legal_moves_four(others[:30])
        for prev in [None] + [rng.choice(pool) for _ in range(4)]:
            got = legal_moves_four(hand, prev)
            keys = {(p.cards, p.type, p.main, p.n) for p in got}
            assert len(keys) == len(got), "a play listed twice"
            assert keys == every_beating_subset(hand, prev), (hand, prev)


def test_every_generated_play_is_its_cards_reading():
    deck = TWO_DECKS[:]
    random.Random(5).shuffle(deck)
    for start in range(0, 99, 33):
        for p in legal_moves(deck[start:start + 33], None, FOUR):
            assert classify_four(p.cards) == [p]


def test_a_thirteen_rank_hand_leads_13_singles_and_53_straights():
    moves = legal_moves(parse_ranks("3456789TJQKA2"), None, FOUR)
    kinds = Counter(p.type for p in moves)
    # windows of 5…13 positions in A 2 3 … K A (14 positions), the two 13-rank windows once
    windows = sum(15 - n for n in range(5, 14)) - 1
    assert kinds == {ComboType.SINGLE: 13, ComboType.STRAIGHT: windows} and windows == 53
