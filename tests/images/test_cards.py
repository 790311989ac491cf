"""Card faces (images/cards.py): every card distinct and readable, jokers apart, cache bounded;
the court figures and jesters vendored and drawn; corner indices clear of the next card."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from engine.cards import BIG_JOKER, RANK_LABELS, SMALL_JOKER, card_rank
from images import RenderError
from images.cards import (
    ART_DIR,
    INDEX_FRACTION,
    PAPER,
    RED,
    art_code,
    art_name,
    art_size,
    card_art,
    card_face,
    card_size,
    index_box,
    ink_color,
    sorted_cards,
)
from images.fan import card_sprite, fan_step, row_width, rows_needed
from images.hand import CARD_WIDTH, MARGIN, MAX_STEP, MAX_WIDTH, RAISE, hand_image
from images.warm import WIDTHS

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


# --- the court figures and jokers (vendored pictures, images/cards/) -------------------------

#: The deck's gold (``#FC4``), the colour of crowns and robes in every court figure.
FIGURE_GOLD = (255, 204, 68)


def gold_pixels(card: int, width: int = WIDTH) -> int:
    """Pixels of ``card``'s face close to the figures' gold."""
    face = card_face(card, width).convert("RGB")
    return sum(1 for p in face.get_flattened_data()
               if all(abs(a - b) <= 24 for a, b in zip(p, FIGURE_GOLD, strict=True)))


def test_every_picture_is_vendored_for_every_width() -> None:
    """images/cards/build_faces.py rendered each court card and joker at every card width the
    pictures draw, at the size the face pastes it (re-run the script when a width changes)."""
    codes = {art_code(c) for c in range(54)} - {None}
    assert len(codes) == 14
    for code in codes:
        assert code is not None
        for width in WIDTHS:
            path = ART_DIR / art_name(code, width)
            assert path.exists(), f"{path.name} missing: run images/cards/build_faces.py"
            with Image.open(path) as im:
                assert im.size == art_size(code, width)
    assert (ART_DIR / "LICENSE-CC0.txt").read_text().count("CC0 1.0") >= 2


def test_vendored_pictures_stay_small() -> None:
    total = sum(p.stat().st_size for p in ART_DIR.glob("*.png"))
    assert total < 300 * 1024


def blue_pixels(card: int, width: int) -> int:
    """Pixels of ``card``'s face of the figures' blue (no suit's ink is blue)."""
    face = card_face(card, width).convert("RGB")
    return sum(1 for p in face.get_flattened_data() if p[2] - p[0] > 60)


def test_court_cards_show_their_figure_and_number_cards_do_not() -> None:
    """J, Q, K of every suit carry the gold and the blue of their figure, on the smallest card
    too; 2–A have neither."""
    for card in range(52):
        label = RANK_LABELS[card_rank(card)]
        if label in ("J", "Q", "K"):
            assert gold_pixels(card) > 1000, label
            assert blue_pixels(card, 40) > 60, label
        else:
            assert gold_pixels(card) == 0, label
            assert blue_pixels(card, 40) == 0, label


def test_court_faces_differ_by_suit_and_rank_in_the_picture_too() -> None:
    """The figure itself (the middle of the face, without the corners) differs per card."""
    middles = set()
    for card in range(32, 44):  # J, Q, K
        face = card_face(card, WIDTH)
        middles.add(face.crop((60, 40, 100, 184)).tobytes())
    assert len(middles) == 12


def test_big_joker_has_the_colour_jester_and_small_joker_the_black_one() -> None:
    assert gold_pixels(53) > 1500
    assert gold_pixels(52) == 0
    face = card_face(52, WIDTH).convert("RGB").crop((50, 70, 110, 154))
    assert any(max(p) < 60 for p in face.get_flattened_data())  # the black jester's lines and eyes
    assert all(abs(p[0] - p[2]) < 40 for p in face.get_flattened_data())  # and nothing coloured


def test_every_index_ends_before_the_narrowest_step_of_a_fan() -> None:
    """A fan steps at least INDEX_FRACTION of a card (images.fan.rows_needed): at every width
    the pictures draw, every card's corner index ends before that."""
    for width in WIDTHS:
        for card in range(54):
            left, top, right, bottom = index_box(card, width)
            assert 0 < left < right <= width * INDEX_FRACTION, (card, width)


def test_index_box_bounds_the_corner_ink() -> None:
    """Right of the measured index the face is blank paper up to the narrowest step of a fan:
    no ink of the index, nor a court figure or its frame, reaches it (a joker's jester may:
    its letters have a paper rim)."""
    for card in (32, 37, 42, 43, 44, 51):  # J, Q, K, A, 2
        face = card_face(card, WIDTH).convert("RGB")
        left, top, right, bottom = index_box(card, WIDTH)
        strip = face.crop((right, top, round(WIDTH * INDEX_FRACTION), bottom))
        assert set(strip.get_flattened_data()) == {PAPER}, card
        ink = face.crop((left, top, right, bottom))
        assert ink.getextrema()[1][0] < 120  # the ink is there (black or red: low green)


def test_a_hand_of_20_leaves_every_index_untouched_by_the_next_card() -> None:
    """The 20-card hand with the widest indices (the four 10s), every court card and both
    jokers: each card's corner index, in the picture, is exactly the face's (the next card,
    its border and its shadow start beyond it), raised or not."""
    hand = (28, 29, 30, 31, 32, 33, 34, 36, 37, 38, 40, 41, 42, 44, 45, 48, 49, 50, 52, 53)
    ordered = sorted_cards(hand)
    room = MAX_WIDTH - 2 * MARGIN
    assert rows_needed(20, CARD_WIDTH, room) == 1
    step = fan_step(20, CARD_WIDTH, room, MAX_STEP)
    for selected in ((), hand[::2]):
        im = hand_image(hand, selected)
        left = (im.width - row_width(20, CARD_WIDTH, step)) / 2
        for i, card in enumerate(ordered[:-1]):
            raised = card in selected
            x = round(left + i * step)
            y = round(MARGIN + RAISE - (RAISE if raised else 0))
            box = index_box(card, CARD_WIDTH)
            assert x + box[2] < round(left + (i + 1) * step) - 2  # clear of the next card
            got = im.crop((x + box[0], y + box[1], x + box[2], y + box[3]))
            want = card_face(card, CARD_WIDTH, raised).convert("RGB").crop(box)
            assert got.tobytes() == want.tobytes(), (card, raised)


def test_a_width_not_vendored_scales_the_widest_picture() -> None:
    """A card width no picture draws yet still gets its figure (the 160 px one, scaled)."""
    assert 100 not in WIDTHS
    assert card_art("KH", 100).size == art_size("KH", 100)
    assert card_art("joker_big", 100).size == art_size("joker_big", 100)
    assert gold_pixels(42 + 1, 100) > 300  # K♥ on a 100 px card
