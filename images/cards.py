"""Card faces and backs (RULES.md §1.1), each drawn once per size and cached.

A face is a white rounded card with a thin border: the rank (``10`` for ten, never ``T``) and the
suit in the top-left corner, the same turned round in the bottom-right one, pips, a framed letter
for J/Q/K, one big pip for an ace. Hearts and diamonds are red, spades and clubs black. The jokers
read ``JOKER`` down the corner; the big joker is red with a filled gold-and-red star, the small
joker black with an outlined grey star, so they differ in colour and in shape.

Faces are drawn three times larger and scaled down (smooth edges), then kept in a bounded
``functools.lru_cache``; a picture is only compositing after that.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.cards import RANK_LABELS, card_rank, card_suit
from images.draw import GOLD, INK, RED, RGB, glyph_mask
from images.models import RenderError
from images.suits import star_points, suit_mask

SS = 3  # supersampling factor
RATIO = 1.4  # height / width
#: Width of the corner index (rank and suit) as a fraction of the card width: the part of a card
#: that must stay visible when cards overlap.
INDEX_FRACTION = 0.34

PAPER = (253, 253, 250)
PAPER_SELECTED = (226, 239, 255)
BORDER = (150, 150, 150)
BORDER_SELECTED = (38, 120, 228)
SMALL_JOKER_INK = (40, 40, 46)
SMALL_JOKER_STAR = (150, 150, 158)
BACK = (170, 28, 40)
BACK_LINE = (214, 80, 86)

# Pip centres as (column, row): column -1/0/1 = left/centre/right, row 0..1 top to bottom.
_PIPS: dict[str, tuple[tuple[int, float], ...]] = {
    "2": ((0, 0), (0, 1)),
    "3": ((0, 0), (0, 0.5), (0, 1)),
    "4": ((-1, 0), (1, 0), (-1, 1), (1, 1)),
    "5": ((-1, 0), (1, 0), (0, 0.5), (-1, 1), (1, 1)),
    "6": ((-1, 0), (1, 0), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)),
    "7": ((-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)),
    "8": ((-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (0, 0.75), (-1, 1), (1, 1)),
    "9": ((-1, 0), (1, 0), (-1, 1 / 3), (1, 1 / 3), (0, 0.5), (-1, 2 / 3), (1, 2 / 3), (-1, 1),
          (1, 1)),
    "10": ((-1, 0), (1, 0), (0, 1 / 6), (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3),
           (0, 5 / 6), (-1, 1), (1, 1)),
}


def card_size(width: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of a card ``width`` pixels wide."""
    return width, round(width * RATIO)


def sort_key(card: int) -> tuple[int, int]:
    """Order cards by rank (RULES.md §1.1: 3 low … big joker high), then by card id."""
    return card_rank(card), card


def sorted_cards(cards: Iterable[int]) -> list[int]:
    """``cards`` from low to high rank (:func:`sort_key`)."""
    return sorted(cards, key=sort_key)


def ink_color(card: int) -> RGB:
    """Red for hearts, diamonds and the big joker; black for the rest."""
    if card == 52:
        return SMALL_JOKER_INK
    return RED if card == 53 or card_suit(card) in ("hearts", "diamonds") else INK


def _paste_mask(ink: Image.Image, mask: Image.Image, cx: float, cy: float,
                flip: bool = False) -> None:
    """Add ``mask`` to the ink layer centred at ``(cx, cy)``, turned round when ``flip``."""
    if flip:
        mask = mask.rotate(180)
    ink.paste(255, (round(cx - mask.width / 2), round(cy - mask.height / 2)), mask)


def _index(ink: Image.Image, card: int, W: int) -> None:
    """Rank over suit in the top-left corner (``JOKER`` down the corner for the jokers)."""
    col = W * INDEX_FRACTION * 0.52  # centre of the index column
    if card >= 52:
        letter = round(W * 0.115)
        y = W * 0.07
        for ch in "JOKER":
            m = glyph_mask(ch, letter, round(W * 0.2))
            ink.paste(255, (round(col - m.width / 2), round(y)), m)
            y += letter * 1.3
        return
    top, height = W * 0.06, round(W * 0.235)
    rank = glyph_mask(RANK_LABELS[card_rank(card)], height, round(W * 0.29))
    ink.paste(255, (round(col - rank.width / 2), round(top)), rank)
    pip = round(W * 0.2)
    _paste_mask(ink, suit_mask(card_suit(card), pip), col, top + height + W * 0.05 + pip / 2)


def _centre(draw: ImageDraw.ImageDraw, ink: Image.Image, card: int, W: int, H: int,
            color: RGB, paper: RGB) -> None:
    """Pips, a framed letter (J/Q/K), a big pip (A) or the joker star in the middle."""
    if card >= 52:
        r = W * 0.27
        outer = star_points(W / 2, H / 2, r)
        if card == 53:
            draw.polygon(outer, fill=RED, outline=GOLD, width=round(W * 0.025))
            draw.polygon(star_points(W / 2, H / 2, r * 0.5), fill=GOLD)
        else:
            draw.polygon(outer, fill=paper, outline=SMALL_JOKER_STAR, width=round(W * 0.03))
            draw.polygon(star_points(W / 2, H / 2, r * 0.45), fill=SMALL_JOKER_STAR)
        return
    suit = card_suit(card)
    label = RANK_LABELS[card_rank(card)]
    assert suit is not None
    if label == "A":
        big = round(W * (0.36 if suit == "spades" else 0.3))
        _paste_mask(ink, suit_mask(suit, big), W / 2, H / 2)
    elif label in ("J", "Q", "K"):
        box = (W * 0.31, H * 0.1, W * 0.69, H * 0.9)
        tint = (252, 230, 226) if color == RED else (228, 234, 246)
        draw.rounded_rectangle(box, radius=W * 0.03, fill=tint, outline=color,
                               width=round(W * 0.018))
        letter = glyph_mask(label, round(W * 0.2), round(W * 0.3))
        ink.paste(255, (round(W / 2 - letter.width / 2), round(H / 2 - letter.height / 2)), letter)
        pip = round(W * 0.13)
        _paste_mask(ink, suit_mask(suit, pip), W / 2, H * 0.28)
        _paste_mask(ink, suit_mask(suit, pip), W / 2, H * 0.72, flip=True)
    else:
        pip = round(W * 0.14)
        top, bottom = H * 0.19, H * 0.81
        for col, row in _PIPS[label]:
            cy = top + (bottom - top) * row
            _paste_mask(ink, suit_mask(suit, pip), W / 2 + col * W * 0.115, cy, flip=row > 0.5)


@lru_cache(maxsize=64, typed=True)  # typed: 3.0 and True must not hit the entries of 3, 1
def card_face(card: int, width: int, selected: bool = False) -> Image.Image:
    """The ``RGBA`` face of ``card`` (``0..53``), ``width`` px wide (cached, do not modify).

    ``selected`` gives the pale blue face with a blue border used for the current selection.

    Raises:
        RenderError: an unknown card.
    """
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 53:
        raise RenderError(f"unknown card {card!r} (card ids are 0..53)")
    w, h = card_size(width)
    W, H = w * SS, h * SS
    paper = PAPER_SELECTED if selected else PAPER
    color = ink_color(card)
    im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    border = round(W * (0.022 if selected else 0.009)) + SS
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=W * 0.08, fill=paper,
                           outline=BORDER_SELECTED if selected else BORDER, width=border)
    ink = Image.new("L", (W, H), 0)
    _index(ink, card, W)
    ink.paste(ink.rotate(180), (0, 0), ink.rotate(180))
    _centre(draw, ink, card, W, H, color, paper)
    im.paste(color, (0, 0), ink)
    return im.reduce(SS)


@lru_cache(maxsize=16)
def card_back(width: int) -> Image.Image:
    """The ``RGBA`` back of a card, ``width`` px wide: red with a white frame and a lattice."""
    w, h = card_size(width)
    W, H = w * SS, h * SS
    im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=W * 0.08, fill=(250, 250, 250),
                           outline=BORDER, width=SS * 2)
    m = round(W * 0.08)
    inner = Image.new("RGBA", (W - 2 * m, H - 2 * m), BACK)
    d = ImageDraw.Draw(inner)
    step = W * 0.16
    line = max(SS, round(W * 0.012))
    for i in range(-12, 24):
        x = i * step
        d.line((x, 0, x + inner.height, inner.height), fill=BACK_LINE, width=line)
        d.line((x, inner.height, x + inner.height, 0), fill=BACK_LINE, width=line)
    mask = Image.new("L", inner.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, inner.width - 1, inner.height - 1),
                                           radius=W * 0.05, fill=255)
    im.paste(inner, (m, m), mask)
    return im.reduce(SS)
