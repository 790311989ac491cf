"""Card faces (images/cards.py): every card distinct and readable, jokers apart, cache bounded."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from engine.cards import BIG_JOKER, SMALL_JOKER, card_rank
from images import RenderError
from images.cards import INDEX_FRACTION, RED, card_face, card_size, ink_color
from images.fan import card_sprite

WIDTH = 160


def corner(card: int):
    """The part of a face that stays visible in a fan: the corner index column."""
    face = card_face(card, WIDTH).convert("RGB")
    return face.crop((0, 0, round(WIDTH * INDEX_FRACTION), face.height // 2))


def test_all_54_faces_differ() -> None:
    faces = [card_face(c, WIDTH).tobytes() for c in range(54)]
    assert len(set(faces)) == 54


def test_corner_index_tells_every_rank_apart_within_a_suit() -> None:
    """RULES.md §1.1: 13 ranks a suit and two jokers; the visible corner tells them apart."""
    for suit in range(4):
        corners = {corner(rank * 4 + suit).tobytes() for rank in range(13)}
        assert len(corners) == 13
    jokers = [corner(52), corner(53)]
    assert ImageChops.difference(*jokers).getbbox() is not None


def test_big_joker_is_red_and_small_joker_is_not() -> None:
    assert card_rank(53) == BIG_JOKER and card_rank(52) == SMALL_JOKER
    assert ink_color(53) == RED
    assert ink_color(52) != RED

    def red_pixels(card: int) -> int:
        r, g, b = corner(card).split()
        redness = ImageChops.subtract(r, g)  # red ink: R far above G
        return sum(redness.histogram()[101:])

    assert red_pixels(53) > 200
    assert red_pixels(52) == 0


def test_suit_colours() -> None:
    """Hearts and diamonds red, spades and clubs black (card % 4: S, H, C, D)."""
    assert [ink_color(c) == RED for c in range(4)] == [False, True, False, True]


def test_selected_face_differs_from_plain() -> None:
    assert card_face(7, WIDTH, True).tobytes() != card_face(7, WIDTH).tobytes()


def test_face_size_and_rounded_corners() -> None:
    face = card_face(0, WIDTH)
    assert face.size == card_size(WIDTH) == (160, 224)
    alpha = face.getchannel("A")
    assert alpha.getpixel((0, 0)) == 0  # rounded corner is transparent
    assert alpha.getpixel((WIDTH // 2, 112)) == 255


@pytest.mark.parametrize("bad", [-1, 54, 3.0, "3", None, True])
def test_unknown_card_is_refused(bad) -> None:
    with pytest.raises(RenderError, match="unknown card"):
        card_face(bad, WIDTH)


def test_caches_are_bounded() -> None:
    assert card_face.cache_info().maxsize is not None
    assert card_sprite.cache_info().maxsize is not None
    card_face(5, WIDTH)
    hits = card_face.cache_info().hits
    card_face(5, WIDTH)
    assert card_face.cache_info().hits == hits + 1
