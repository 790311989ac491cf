"""Legal plays from a hand (RULES.md §4–§6)."""

from __future__ import annotations

import doctest
from collections import Counter
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import engine.moves
from engine.cards import DECK, card_rank, format_ranks, parse_ranks, rank_counts
from engine.combos import ComboType, Play, beats, classify
from engine.moves import legal_moves
from engine.presets import SCORE, preset

FULL_DECK = tuple(sorted(card_rank(c) for c in DECK))


def play(text: str) -> Play:
    (reading,) = classify(parse_ranks(text))
    return reading


def moves(hand: str, prev: str | None = None, rules=SCORE) -> set[tuple[str, str]]:
    found = legal_moves(parse_ranks(hand), play(prev) if prev else None, rules)
    return {(str(p), p.type.value) for p in found}


def contained(cards: tuple[int, ...], hand: tuple[int, ...]) -> bool:
    have = rank_counts(hand)
    return all(k <= have[r] for r, k in enumerate(rank_counts(cards)))


# ---------------------------------------------------------------- leading (RULES.md §4.1)


def test_rules_4_1_leads_from_a_small_hand() -> None:
    assert moves("33XD") == {
        ("3", "single"),
        ("33", "pair"),
        ("X", "single"),
        ("D", "single"),
        ("XD", "rocket"),
    }


def test_rules_5_leads_with_kickers() -> None:
    assert moves("3334") == {
        ("3", "single"),
        ("4", "single"),
        ("33", "pair"),
        ("333", "trio"),
        ("3334", "trio_single"),
    }
    assert moves("33334") == {
        ("3", "single"),
        ("4", "single"),
        ("33", "pair"),
        ("333", "trio"),
        ("3334", "trio_single"),
        ("3333", "bomb"),
    }


def test_rules_5_leads_never_put_both_jokers_among_kickers() -> None:
    found = moves("3333XD")
    assert ("3333XD", "four_two_singles") not in found
    assert ("333X", "trio_single") in found
    assert ("XD", "rocket") in found
    loose = preset("score", rocket_kickers=True)
    assert ("3333XD", "four_two_singles") in moves("3333XD", rules=loose)


def test_rules_5_plane_leads_respect_trio_adjacency() -> None:
    found = moves("333444555666")
    assert ("333444555666", "plane") in found
    assert not any(kind == "plane_single" and len(cards) == 12 for cards, kind in found)
    assert ("33344455", "plane_single") in found  # a pair of the next rank is fine
    assert ("33344456", "plane_single") in found
    assert ("333444555777", "plane_single") in moves("333444555777")


def test_rules_5_house_option_four_two_is_bomb_in_moves() -> None:
    rules = preset("score", four_two_is_bomb=True)
    found = moves("333345", rules=rules)
    assert ("333345", "bomb") in found and ("3333", "bomb") in found
    assert not any(kind.startswith("four_two") for _, kind in found)
    assert moves("444456", "3333", rules=rules) == {("4444", "bomb"), ("444456", "bomb")}
    assert moves("444456", "AA", rules=rules) == {("4444", "bomb"), ("444456", "bomb")}


def test_rules_5_the_whole_deck_holds_27471_plays() -> None:
    """RULES.md §5: the rule set of RLCard, whose action space has 27,471 plays (+ pass)."""
    found = legal_moves(FULL_DECK)
    assert len(found) == 27471
    assert len({(p.cards, p.type) for p in found}) == 27471
    assert Counter(p.type.value for p in found) == {
        "single": 15,
        "pair": 13,
        "trio": 13,
        "trio_single": 182,
        "trio_pair": 156,
        "straight": 36,
        "pair_chain": 52,
        "plane": 45,
        "plane_single": 21822,
        "plane_pair": 2939,
        "four_two_singles": 1326,
        "four_two_pairs": 858,
        "bomb": 13,
        "rocket": 1,
    }
    assert all(classify(p.cards) == [p] for p in found)


# ---------------------------------------------------------------- following (RULES.md §4.2, §6)


def test_rules_6_follow_same_type_higher_main() -> None:
    assert moves("3456789TT", "34567") == {
        ("45678", "straight"),
        ("56789", "straight"),
        ("6789T", "straight"),
    }
    assert moves("A84Q82A968J3A9JTQ", "6") == {
        (c, "single") for c in ["8", "9", "T", "J", "Q", "A", "2"]
    }
    assert moves("3344556677", "445566") == {("556677", "pair_chain")}


def test_rules_6_follow_kickers_do_not_matter() -> None:
    assert moves("3334445", "KKKA") == set()
    assert moves("JJJ345", "TTTA") == {("3JJJ", "trio_single"), ("4JJJ", "trio_single"),
                                       ("5JJJ", "trio_single")}
    assert moves("JJJ3345", "TTT22") == {("33JJJ", "trio_pair")}


def test_rules_6_follow_with_bombs_and_rocket() -> None:
    assert moves("44445XD", "AA") == {("4444", "bomb"), ("XD", "rocket")}
    assert moves("44445XD", "3333") == {("4444", "bomb"), ("XD", "rocket")}
    assert moves("44445XD", "5555") == {("XD", "rocket")}
    assert moves("44445XD", "XD") == set()


def test_rules_6_follow_planes_same_length() -> None:
    """Wings of the 444555 body: 666 is adjacent, so at most 66 of it (RULES.md §5)."""
    assert moves("4445556669", "33344456") == {
        ("44455566", "plane_single"),
        ("44455569", "plane_single"),
        ("44555666", "plane_single"),
        ("45556669", "plane_single"),
    }
    assert moves("4445556669", "333444555JQK") == set()
    assert moves("444555666", "333444") == {("444555", "plane"), ("555666", "plane")}


def test_rules_6_four_two_singles_and_pairs_never_beat_each_other() -> None:
    assert moves("55556677", "444489") == {("5555", "bomb"), ("555567", "four_two_singles"),
                                          ("555566", "four_two_singles"),
                                          ("555577", "four_two_singles")}
    assert moves("55556677", "44448899") == {("5555", "bomb"), ("55556677", "four_two_pairs")}


# ---------------------------------------------------------------- properties

HANDS = st.lists(st.sampled_from(DECK), unique=True, max_size=20).map(
    lambda cards: tuple(sorted(card_rank(c) for c in cards))
)
SMALL_HANDS = st.lists(st.sampled_from(DECK), unique=True, max_size=10).map(
    lambda cards: tuple(sorted(card_rank(c) for c in cards))
)


def sub_multisets(hand: tuple[int, ...]):
    counts = Counter(hand)
    ranks = sorted(counts)
    for choice in product(*(range(counts[r] + 1) for r in ranks)):
        cards = tuple(r for r, k in zip(ranks, choice, strict=True) for _ in range(k))
        if cards:
            yield cards


@settings(max_examples=150, deadline=None)
@given(HANDS)
def test_every_lead_classifies_as_generated_and_is_in_the_hand(hand: tuple[int, ...]) -> None:
    found = legal_moves(hand)
    assert len({(p.cards, p.type) for p in found}) == len(found)
    for p in found:
        assert contained(p.cards, hand)
        assert p in classify(p.cards)


@settings(max_examples=80, deadline=None)
@given(SMALL_HANDS)
def test_leads_are_exactly_the_sub_multisets_that_classify(hand: tuple[int, ...]) -> None:
    expected = {(cards, p.type) for cards in sub_multisets(hand) for p in classify(cards)}
    assert {(p.cards, p.type) for p in legal_moves(hand)} == expected


@settings(max_examples=150, deadline=None)
@given(st.permutations(FULL_DECK), st.integers(0, 10_000))
def test_follows_are_exactly_the_leads_that_beat_prev(deck: list[int], pick: int) -> None:
    hand, others = tuple(sorted(deck[:17])), deck[17:34]
    candidates = legal_moves(others)
    prev = candidates[pick % len(candidates)]
    found = legal_moves(hand, prev)
    assert all(beats(p, prev) for p in found)
    expected = {(p.cards, p.type) for p in legal_moves(hand) if beats(p, prev)}
    assert {(p.cards, p.type) for p in found} == expected


@settings(max_examples=60, deadline=None)
@given(HANDS, st.booleans(), st.booleans())
def test_house_options_keep_moves_consistent_with_classify(
    hand: tuple[int, ...], rocket_kickers: bool, four_two_is_bomb: bool
) -> None:
    rules = preset("score", rocket_kickers=rocket_kickers, four_two_is_bomb=four_two_is_bomb)
    for p in legal_moves(hand, rules=rules):
        assert p in classify(p.cards, rules)


def test_format_of_moves_is_canonical() -> None:
    assert [str(p) for p in legal_moves(parse_ranks("D3X"))] == ["3", "X", "D", "XD"]
    assert all(str(p) == format_ranks(p.cards) for p in legal_moves(parse_ranks("33344456")))


def test_plays_are_shared_between_calls() -> None:
    first = {p: p for p in legal_moves(parse_ranks("333444567"))}
    for p in legal_moves(parse_ranks("333444567")):
        assert first[p] is p
    assert ComboType.PLANE_SINGLE in {p.type for p in first}


def test_doctests() -> None:
    assert doctest.testmod(engine.moves).failed == 0
