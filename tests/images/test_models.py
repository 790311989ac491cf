"""Picture inputs (images/models.py): names kept as they are, ranks shown as cards, words."""

from __future__ import annotations

import doctest

import pytest

import images
import images.models
from engine.cards import cards_to_ranks, parse_ranks
from images import ENGLISH, Labels, RenderError, SeatScene, cards_for_ranks
from images.models import MAX_NAME, clean_name


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("王小明", "王小明"),
        ("🔥 max", "🔥 max"),
        ("a\nb\u200fc", "a b c"),  # a newline and a bidi mark do not refuse the scene
        ("x" * 100, "x" * MAX_NAME),
    ],
)
def test_names_are_kept_and_only_cleaned(name: str, kept: str) -> None:
    assert clean_name(name) == kept
    assert SeatScene("P1", name=name).name == kept


def test_a_name_must_be_a_string() -> None:
    with pytest.raises(RenderError, match="name must be a string"):
        SeatScene("P1", name=None)  # type: ignore[arg-type]


def test_labels_refuse_blank_words_and_scenes_refuse_other_labels() -> None:
    assert Labels() == ENGLISH and "lang" not in Labels.words()
    with pytest.raises(RenderError, match="label landlord"):
        Labels(landlord=" ")
    with pytest.raises(RenderError, match="labels must be"):
        images.TableScene(seats=(SeatScene("A"),) * 3, labels={"landlord": "x"})  # type: ignore


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
    assert result.attempted >= 1 and result.failed == 0
