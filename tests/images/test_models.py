"""Picture inputs (images/models.py): ASCII-safe labels and ranks shown as cards."""

from __future__ import annotations

import doctest

import pytest

import images.models
from engine.cards import cards_to_ranks, parse_ranks
from images import RenderError, cards_for_ranks, safe_label, safe_name


@pytest.mark.parametrize(
    ("name", "fallback", "label"),
    [
        ("Ada Lovelace", "P1", "AL"),
        ("ada", "P1", "A"),
        ("  john   ronald reuel tolkien ", "P1", "JR"),
        ("张三", "P2", "P2"),
        ("🔥🔥", "P3", "P3"),
        ("🔥 max", "P1", "M"),
        ("李 Li", "P1", "L"),
        ("007 Bond", "P1", "0B"),
        ("", "P1", "P1"),
    ],
)
def test_safe_label(name: str, fallback: str, label: str) -> None:
    assert safe_label(name, fallback) == label
    assert label.isascii() and label.isprintable()


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("Ada Lovelace", "Ada Lovelace"),
        ("a  b", "a b"),
        ("Zed the Great Player Of All", "Zed the Great P."),
        ("张三", "#4"),
        ("Mário", "M"),
    ],
)
def test_safe_name(name: str, shown: str) -> None:
    assert safe_name(name, "#4") == shown
    assert len(shown) <= 16


def test_cards_for_ranks_shows_the_same_ranks_in_distinct_cards() -> None:
    ranks = parse_ranks("33334445XD")
    cards = cards_for_ranks(ranks)
    assert cards_to_ranks(cards) == ranks
    assert len(set(cards)) == len(cards)
    assert cards_for_ranks((0, 0, 0, 0, 0)) == (0, 1, 2, 3, 0)  # a fifth 3 with two decks


@pytest.mark.parametrize("bad", [(15,), (-1,), ("3",), (True,)])
def test_cards_for_ranks_refuses_unknown_ranks(bad) -> None:
    with pytest.raises(RenderError, match="unknown rank"):
        cards_for_ranks(bad)


def test_docstring_examples() -> None:
    result = doctest.testmod(images.models)
    assert result.attempted >= 3 and result.failed == 0
