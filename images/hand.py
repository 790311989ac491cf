"""The hand picture: a player's cards fanned in rank order, the current selection raised; an
empty hand (the seat played out) says so instead."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from functools import lru_cache

from PIL import Image

from images.cards import card_size, sorted_cards
from images.draw import GOLD, draw_text, encode, felt
from images.fan import draw_row, fan_step, row_width, rows_needed, split_rows
from images.labels import ENGLISH, Labels
from images.models import RenderError, check_cards

CARD_WIDTH = 160
MAX_WIDTH = 1280
MIN_WIDTH = 640
MARGIN = 24
RAISE = 32
ROW_OFFSET = 0.55  # second row, in card heights: keeps the first row's corners in sight
MAX_STEP = CARD_WIDTH * 0.5
PALETTE_CARD = 40


@lru_cache(maxsize=1)
def hand_palette() -> Image.Image:
    """The 256 colours of every hand picture, taken once from all 54 faces, plain and selected,
    with their shadows on the felt (cards this small draw quickly and blend the same colours).
    Mapping a hand to a ready palette is ~10× quicker than finding one per picture."""
    w, h = card_size(PALETTE_CARD)
    ref = felt(54 * w // 2 + w + 20, 2 * h + 30)
    for row in range(2):
        draw_row(ref, range(54), 10, 10 + row * (h + 10), PALETTE_CARD, w / 2,
                 raised=[row == 1] * 54)
    return ref.quantize(256, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def hand_image(cards: Sequence[int], selected: Collection[int] = (),
               labels: Labels = ENGLISH) -> Image.Image:
    """The hand as an ``RGB`` image; see :func:`render_hand`."""
    hand = check_cards(cards, "hand")
    chosen = Counter(check_cards(selected, "selection"))
    w, h = card_size(CARD_WIDTH)
    if not hand:
        if chosen:
            raise RenderError("an empty hand has no card to select")
        canvas = felt(MIN_WIDTH, 2 * MARGIN + RAISE + h)
        draw_text(canvas, (MIN_WIDTH / 2, canvas.height / 2), labels.played_out, 48, GOLD,
                  anchor="mm", lang=labels.lang, max_width=MIN_WIDTH - 2 * MARGIN)
        return canvas
    missing = chosen - Counter(hand)
    if missing:
        raise RenderError(f"selected cards {sorted(missing.elements())} are not in the hand")
    ordered = sorted_cards(hand)
    raised = []
    for c in ordered:
        raised.append(chosen[c] > 0)
        chosen[c] -= 1

    room = MAX_WIDTH - 2 * MARGIN
    rows = split_rows(range(len(ordered)), rows_needed(len(ordered), CARD_WIDTH, room))
    step = fan_step(len(rows[0]), CARD_WIDTH, room, MAX_STEP)
    fan = row_width(len(rows[0]), CARD_WIDTH, step)
    width = max(MIN_WIDTH, fan + 2 * MARGIN)
    height = 2 * MARGIN + RAISE + h + round((len(rows) - 1) * h * ROW_OFFSET)
    canvas = felt(width, height)
    for r, row in enumerate(rows):
        draw_row(canvas, [ordered[i] for i in row], (width - fan) / 2,
                 MARGIN + RAISE + r * h * ROW_OFFSET, CARD_WIDTH, step,
                 raised=[raised[i] for i in row], raise_by=RAISE)
    return canvas


def render_hand(cards: Sequence[int], selected: Collection[int] = (), *, fmt: str = "PNG",
                labels: Labels = ENGLISH) -> bytes:
    """Picture of a hand, for the player's private chat.

    Args:
        cards: card ids ``0..53`` in any order (ids repeat in the two-deck variant, RULES.md §11);
            drawn from low to high rank (RULES.md §1.1), left to right, overlapping.
        selected: card ids of the current selection, each raised by 32 px and tinted blue; a
            card id listed twice raises two copies.
        fmt: ``"PNG"`` (256 colours, see :func:`hand_palette`) or ``"JPEG"``.

    Up to 20 cards form one row 1280 px wide at most; more (33 for the landlord of the two-deck
    variant) are drawn in two rows, the first row's corners left in sight. An empty hand (the
    seat played out, RULES.md §4.4) draws ``labels.played_out`` on the felt, nothing raised.

    Raises:
        RenderError: an unknown card, a selected card not in the hand, or an unknown format.
    """
    return encode(hand_image(cards, selected, labels), fmt, hand_palette())
