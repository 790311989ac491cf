"""Hand picture (images/hand.py): fan in rank order, selection raised, fits, bad input refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from images import RenderError, render_hand
from images.cards import INDEX_FRACTION
from images.hand import CARD_WIDTH, MARGIN, MAX_STEP, MAX_WIDTH, RAISE, hand_image
from tests.images import scenes

FELT_PIXEL = hand_image([0]).getpixel((2, 2))


def card_top(im: Image.Image, x: int) -> int:
    """The first row from the top where column ``x`` is not felt (a card's top edge)."""
    for y in range(im.height):
        if im.getpixel((x, y)) != FELT_PIXEL:
            return y
    return im.height


def fan_left(n: int, width: int) -> float:
    step = min(MAX_STEP, (MAX_WIDTH - 2 * MARGIN - CARD_WIDTH) / (n - 1))
    return (width - (CARD_WIDTH + step * (n - 1))) / 2


def test_20_cards_fit_in_1280_px_with_every_corner_visible() -> None:
    for selected in ((), scenes.HAND_20):
        im = hand_image(scenes.HAND_20, selected)
        assert im.width <= 1280
        assert im.height < 400
    step = (MAX_WIDTH - 2 * MARGIN - CARD_WIDTH) / 19
    assert step >= CARD_WIDTH * INDEX_FRACTION


def test_33_cards_fit_in_two_rows() -> None:
    im = hand_image(scenes.HAND_33, scenes.HAND_33_SELECTED)
    assert im.width <= 1280
    one_row = hand_image(scenes.HAND_20)
    assert im.height > one_row.height + 100


def test_selected_cards_are_raised_30_px_or_so() -> None:
    """Cards 0 and 1 (two 3s) are selected: the first card's top is RAISE px higher."""
    plain = hand_image(scenes.HAND_20)
    chosen = hand_image(scenes.HAND_20, (0,))
    x = round(fan_left(20, plain.width)) + 40
    assert card_top(plain, x) - card_top(chosen, x) == RAISE
    assert 25 <= RAISE <= 40


def test_cards_are_sorted_by_rank_whatever_the_input_order() -> None:
    shuffled = list(reversed(scenes.HAND_20))
    assert hand_image(shuffled).tobytes() == hand_image(scenes.HAND_20).tobytes()


def test_duplicate_ids_select_one_copy_each() -> None:
    """Two decks (RULES.md §11): selecting id 52 twice raises both small jokers."""
    once = hand_image(scenes.HAND_33, (52,))
    twice = hand_image(scenes.HAND_33, (52, 52))
    assert once.tobytes() != twice.tobytes()
    with pytest.raises(RenderError, match="not in the hand"):
        hand_image(scenes.HAND_33, (52, 52, 52))


def test_png_and_jpeg_bytes_small_and_deterministic() -> None:
    png = render_hand(scenes.HAND_20, scenes.HAND_20_SELECTED)
    assert png.startswith(b"\x89PNG")
    assert png == render_hand(scenes.HAND_20, scenes.HAND_20_SELECTED)
    jpeg = render_hand(scenes.HAND_20, scenes.HAND_20_SELECTED, fmt="JPEG")
    assert jpeg.startswith(b"\xff\xd8")
    for data in (png, jpeg, render_hand(scenes.HAND_33, (), fmt="JPEG")):
        assert len(data) < 150 * 1024
    assert Image.open(io.BytesIO(png)).size == hand_image(scenes.HAND_20).size


def test_one_card_hand() -> None:
    im = hand_image([53])
    assert im.width >= CARD_WIDTH + 2 * MARGIN


@pytest.mark.parametrize(
    ("cards", "selected", "message"),
    [
        ([], (0,), "empty hand has no card"),
        ([0, 54], (), "unknown card 54"),
        ([0, -1], (), "unknown card -1"),
        ([0, "3"], (), "unknown card '3'"),
        ("334", (), "not a string"),
        ([0, 1], (2,), "not in the hand"),
        ([0, 1], (99,), "unknown card 99"),
    ],
)
def test_bad_input_raises_a_clear_error(cards, selected, message) -> None:
    with pytest.raises(RenderError, match=message):
        render_hand(cards, selected)


def test_unknown_format_is_refused() -> None:
    with pytest.raises(RenderError, match="format"):
        render_hand([0], fmt="GIF")
