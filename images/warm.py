"""Drawing every card the pictures use once, before the first deal (:func:`warm_up`).

A card face is drawn three times larger and scaled down, then cached with its shadow as a
sprite (:func:`images.fan.card_sprite`); after that a picture is only compositing. Drawn
lazily, the faces cost the first deals' pictures about 1.5 s of CPU in all (a slow first hand,
table and result); a process that calls :func:`warm_up` at start-up pays it before any player
waits.
"""

from __future__ import annotations

from images import hand, result, table
from images.fan import card_sprite

#: Every card width the pictures draw: the hand's, the table's (plays, narrower long plays,
#: shown hands, the kitty) and the result's (cards left, narrower).
WIDTHS = tuple(sorted({hand.CARD_WIDTH, table.PLAY_CARD, *table.NARROW_PLAY_CARDS,
                       table.SHOWN_CARD, table.KITTY_CARD, result.LEFT_CARD,
                       *result.NARROW_LEFT_CARDS}))


def warm_up() -> None:
    """Draw and cache every card sprite at every width the pictures use (faces, the hand's
    selected faces, backs) and the hand palette. Pure CPU, no I/O; safe in a worker thread."""
    for width in WIDTHS:
        card_sprite(None, width)
        for card in range(54):
            card_sprite(card, width)
    for card in range(54):
        card_sprite(card, hand.CARD_WIDTH, True)
    hand.hand_palette()
