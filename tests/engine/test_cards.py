"""Cards, ranks and the deck (RULES.md §1)."""

from __future__ import annotations

import doctest
import random
import re

import pytest

import engine.cards
from engine.cards import (
    DECK,
    RANK_LABELS,
    CardError,
    card_rank,
    card_suit,
    cards_to_ranks,
    check_ranks,
    format_ranks,
    parse_ranks,
    rank_counts,
    shuffled_deck,
)


def test_rank_order_rules_1_1() -> None:
    """RULES.md §1.1: 3 < 4 < … < K < A < 2 < X < D."""
    assert parse_ranks("3456789TJQKA2XD") == tuple(range(15))
    assert parse_ranks("D2A3") == (0, 11, 12, 14)


@pytest.mark.parametrize(
    ("text", "ranks"),
    [
        ("10jq", (7, 8, 9)),
        ("t", (7,)),
        ("x d", (13, 14)),
        ("3, 3, 4", (0, 0, 1)),
        ("", ()),
        ("2222", (12, 12, 12, 12)),
    ],
)
def test_parse_ranks_accepts_ten_lower_case_spaces(text: str, ranks: tuple[int, ...]) -> None:
    assert parse_ranks(text) == ranks


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3Z", "unknown card 'Z'"),
        ("1", "unknown card '1'"),
        ("33333", "too many 3: 5 (at most 4)"),
        ("XX", "too many X: 2 (at most 1)"),
        ("DD", "too many D: 2 (at most 1)"),
    ],
)
def test_parse_ranks_rejects_what_one_deck_cannot_hold(text: str, message: str) -> None:
    with pytest.raises(CardError, match=re.escape(message)):
        parse_ranks(text)


def test_parse_ranks_rejects_non_strings() -> None:
    with pytest.raises(CardError, match="must be a string"):
        parse_ranks(["3"])  # type: ignore[arg-type]


def test_two_decks_allow_eight_of_a_rank_rules_11() -> None:
    """RULES.md §11: the four-player variant uses two decks."""
    assert parse_ranks("33333333XXDD", decks=2) == (0,) * 8 + (13, 13, 14, 14)
    with pytest.raises(CardError):
        parse_ranks("XXX", decks=2)


def test_check_ranks() -> None:
    check_ranks([0, 0, 14])
    with pytest.raises(CardError, match="unknown rank 15"):
        check_ranks([15])
    with pytest.raises(CardError, match="unknown rank"):
        check_ranks(["3"])  # type: ignore[list-item]


def test_format_ranks_is_canonical_low_to_high() -> None:
    assert format_ranks((14, 0, 0, 7, 13, 12)) == "33T2XD"
    assert format_ranks(()) == ""
    assert format_ranks(parse_ranks("d x 2 10 3")) == "3T2XD"


def test_rank_labels_show_ten() -> None:
    assert RANK_LABELS[7] == "10"
    assert len(RANK_LABELS) == 15


def test_rank_counts() -> None:
    counts = rank_counts(parse_ranks("333445XD"))
    assert counts == [3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]


def test_card_encoding_rules_1_1() -> None:
    """54 cards: 13 ranks × 4 suits, then small joker 52 and big joker 53."""
    assert [card_rank(c) for c in (0, 3, 4, 51, 52, 53)] == [0, 0, 1, 12, 13, 14]
    assert [card_suit(c) for c in (0, 1, 2, 3)] == ["spades", "hearts", "clubs", "diamonds"]
    assert card_suit(52) is None and card_suit(53) is None
    assert cards_to_ranks((53, 0, 50)) == (0, 12, 14)
    assert rank_counts(cards_to_ranks(DECK)) == [4] * 13 + [1, 1]


def test_shuffled_deck_is_a_permutation_and_reproducible() -> None:
    deck = shuffled_deck(random.Random(7))
    assert sorted(deck) == list(DECK)
    assert deck == shuffled_deck(random.Random(7))
    assert deck != shuffled_deck(random.Random(8))
    assert sorted(shuffled_deck(random.Random(1), decks=2)) == sorted(DECK * 2)


def test_doctests() -> None:
    assert doctest.testmod(engine.cards).failed == 0
