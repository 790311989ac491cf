"""Laying out overlapping rows of cards (a fan) and pasting them onto a picture."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar

from PIL import Image

from images.cards import INDEX_FRACTION, card_back, card_face, card_size
from images.draw import shadow_mask

T = TypeVar("T")

SHADOW_BLUR = 3
SHADOW_OFFSET = (2, 3)
#: Transparent room around a card for its shadow, on every side.
SPRITE_MARGIN = 2 * SHADOW_BLUR + max(SHADOW_OFFSET)

#: Cards narrower than this paste in one piece (splitting pays only for big cards).
SPLIT_WIDTH = 120

Piece = tuple[Image.Image, tuple[int, int], Image.Image | None]


def fan_step(n: int, card_width: int, max_width: int, max_step: float) -> float:
    """Horizontal distance between the left edges of ``n`` overlapping cards.

    As wide as ``max_step`` allows, but the row stays within ``max_width`` pixels.
    """
    if n <= 1:
        return 0.0
    return min(max_step, (max_width - card_width) / (n - 1))


def rows_needed(n: int, card_width: int, max_width: int) -> int:
    """Fewest rows that keep every card's corner index visible within ``max_width`` pixels."""
    min_step = card_width * INDEX_FRACTION
    per_row = max(1, int((max_width - card_width) // min_step) + 1)
    return max(1, math.ceil(n / per_row))


def one_row_width(n: int, widths: Sequence[int], max_width: int) -> int:
    """The widest of ``widths`` (card widths, widest first) at which ``n`` cards fit one row of
    ``max_width`` pixels with every corner index visible; the narrowest if none does. A few
    fixed widths keep the card sprite cache small."""
    for width in widths:
        if n <= 1 or width * (1 + (n - 1) * INDEX_FRACTION) <= max_width:
            return width
    return widths[-1]


def split_rows(items: Sequence[T], rows: int) -> list[Sequence[T]]:
    """Split ``items`` into ``rows`` consecutive rows, the first rows one longer when uneven."""
    per = math.ceil(len(items) / rows)
    return [items[i:i + per] for i in range(0, len(items), per)]


def row_width(n: int, card_width: int, step: float) -> int:
    """Width in pixels of a row of ``n`` cards laid ``step`` apart."""
    return round(card_width + step * (n - 1)) if n else 0


@lru_cache(maxsize=640)
def card_sprite(card: int | None, width: int, selected: bool = False) -> tuple[Piece, ...]:
    """A card face (``None``: its back) over its drop shadow, cut into pieces that paste fast.

    The opaque middle is a plain ``RGB`` piece (no mask: pasting it is a copy); only the rim,
    where the rounded corners and the shadow are, is blended through a mask. Small cards stay
    one masked piece. Each piece is ``(image, offset from the card's top-left corner, mask)``.
    Cached (640 sprites: every width the pictures use, :mod:`images.warm`, fits).
    """
    face = card_back(width) if card is None else card_face(card, width, selected)
    w, h = face.size
    m = SPRITE_MARGIN
    sw, sh = w + 2 * m, h + 2 * m
    sprite = Image.new("RGBA", (sw, sh), (0, 0, 0, 0))
    shadow = shadow_mask(w, h, round(w * 0.08), SHADOW_BLUR)
    sprite.paste((0, 0, 0, 255), (m - 2 * SHADOW_BLUR + SHADOW_OFFSET[0],
                                  m - 2 * SHADOW_BLUR + SHADOW_OFFSET[1]), shadow)
    sprite.alpha_composite(face, (m, m))
    if w < SPLIT_WIDTH:
        return ((sprite, (-m, -m), sprite),)
    rim = m + round(w * 0.1)  # margin plus the rounded corner
    core = sprite.crop((rim, rim, sw - rim, sh - rim)).convert("RGB")
    pieces: list[Piece] = [(core, (rim - m, rim - m), None)]
    for box in ((0, 0, sw, rim), (0, sh - rim, sw, sh), (0, rim, rim, sh - rim),
                (sw - rim, rim, sw, sh - rim)):
        band = sprite.crop(box)
        pieces.append((band, (box[0] - m, box[1] - m), band))
    return tuple(pieces)


def paste_card(canvas: Image.Image, card: int | None, width: int, x: float, y: float, *,
               selected: bool = False, visible: int | None = None) -> None:
    """Paste a card face (``None``: its back) ``width`` px wide, with its shadow, at ``(x, y)``.

    ``visible`` limits the paste to the card's left ``visible`` pixels, for a card that the next
    one covers (pasting less is what keeps a fan of 20 cards fast).
    """
    x, y = round(x), round(y)
    for im, (dx, dy), mask in card_sprite(card, width, selected):
        if visible is not None and dx + im.width > visible:
            if dx >= visible:
                continue
            im = im.crop((0, 0, visible - dx, im.height))
            mask = im if mask is not None else None
        canvas.paste(im, (x + dx, y + dy), mask)


def draw_row(
    canvas: Image.Image,
    cards: Sequence[int | None],
    x: float,
    y: float,
    width: int,
    step: float,
    *,
    raised: Sequence[bool] = (),
    raise_by: int = 0,
) -> None:
    """Draw ``cards`` left to right from ``(x, y)``; ``None`` draws a card back.

    ``raised[i]`` lifts card ``i`` by ``raise_by`` pixels and shows it as selected.
    """
    up = [i < len(raised) and raised[i] for i in range(len(cards))]
    # A card hidden behind its right neighbour at the same height shows only a strip: the step
    # plus the neighbour's rounded corner.
    strip = math.ceil(step) + round(width * 0.1)
    for i, card in enumerate(cards):
        covered = i + 1 < len(cards) and up[i + 1] == up[i]
        paste_card(canvas, card, width, x + i * step, y - (raise_by if up[i] else 0),
                   selected=up[i], visible=strip if covered else None)


def draw_cards_block(
    canvas: Image.Image,
    cards: Sequence[int | None],
    x: int,
    y: int,
    *,
    width: int,
    max_width: int,
    align: str,
    max_step: float | None = None,
    row_offset: float = 0.42,
    narrower: Sequence[int] = (),
) -> None:
    """Draw ``cards`` as one or more overlapping rows in a box ``max_width`` wide.

    ``x`` is the box's left edge (``align="l"``), centre (``"m"``) or right edge (``"r"``) and
    ``y`` its top; cards are at most ``max_step`` apart (default: a little over half a card)
    and each extra row is ``row_offset`` card heights lower. Cards that do not fit one row are
    drawn at the widest of the ``narrower`` widths at which they do, so that a play of up to 20
    cards stays one readable row instead of rows drawn over each other.
    """
    if not cards:
        return
    if narrower:
        width = one_row_width(len(cards), (width, *narrower), max_width)
    _, h = card_size(width)
    max_step = max_step or width * 0.55
    rows = split_rows(cards, rows_needed(len(cards), width, max_width))
    for r, row in enumerate(rows):
        step = fan_step(len(rows[0]), width, max_width, max_step)
        w = row_width(len(row), width, step)
        left = {"l": x, "m": x - w / 2, "r": x - w}[align]
        draw_row(canvas, row, left, y + r * h * row_offset, width, step)
