"""Drawing every card the pictures use once, before the first deal (:func:`warm_up`).

A card face is drawn three times larger and scaled down, then cached with its shadow as a
sprite (:func:`images.fan.card_sprite`); after that a picture is only compositing. Drawn
lazily, the faces cost the first deals' pictures about 1.5 s of CPU in all (a slow first hand,
table and result); a process that calls :func:`warm_up` at start-up pays it before any player
waits. It then draws one table, hand and result picture (:func:`warm_pictures`): their fonts,
the felt and the shadows are loaded and cached once per process (about 0.1 s each the first
time), not while the first deal's players wait; a later :func:`warm_up` in the same process
(a process that starts bots anew, such as the test suite) skips those pictures.
"""

from __future__ import annotations

from images import hand, result, table
from images.fan import card_sprite
from images.hand import render_hand
from images.models import ResultScene, ResultSeat, SeatScene, TableScene
from images.result import render_result
from images.table import render_table

#: Every card width the pictures draw: the hand's, the table's (plays, narrower long plays,
#: shown hands, the kitty) and the result's (cards left, narrower).
WIDTHS = tuple(sorted({hand.CARD_WIDTH, table.PLAY_CARD, *table.NARROW_PLAY_CARDS,
                       table.SHOWN_CARD, table.KITTY_CARD, result.LEFT_CARD,
                       *result.NARROW_LEFT_CARDS}))
#: Whether :func:`warm_pictures` ran in this process (what it loads stays cached).
_pictures_warm = False


def warm_up() -> None:
    """Draw and cache every card sprite at every width the pictures use (faces, the hand's
    selected faces, backs) and the hand palette. Pure CPU, no I/O; safe in a worker thread."""
    # called as the pictures call it (fan.paste_card: three positional arguments): the cache
    # is keyed by the call, so card_sprite(card, width) would not be found by them
    for width in WIDTHS:
        card_sprite(None, width, False)
        for card in range(54):
            card_sprite(card, width, False)
    for card in range(54):
        card_sprite(card, hand.CARD_WIDTH, True)
    hand.hand_palette()
    warm_pictures()


def warm_pictures() -> None:
    """Draw a table (bidding and playing), a hand and a result picture once, as the bot draws
    them (PNG), and throw them away: what they load (fonts at every size, the felt, shadows,
    text layouts of the fixed words) is cached for the deals. Once per process: a second call
    returns at once (0.1-0.2 s of CPU per Application start of the test suite otherwise)."""
    global _pictures_warm
    if _pictures_warm:
        return
    _pictures_warm = True
    bidding = TableScene(seats=(
        SeatScene("P1", None, 17, name="Player 1", last_play="1 point"),
        SeatScene("B2", None, 17, name="Bot 2", last_play="No bid"),
        SeatScene("P3", None, 17, name="Player 3", is_turn=True)), seconds_left=9)
    playing = TableScene(seats=(
        SeatScene("P1", "landlord", 12, name="Player 1", last_play=(0, 1, 2, 4)),
        SeatScene("B2", "farmer", 2, name="Bot 2", alarm=True, last_play="Pass",
                  autoplay=True, doubled=True),
        SeatScene("P3", "farmer", 15, name="Player 3", is_turn=True)),
        kitty=(5, 40, 52), base=3, multiplier=12, seconds_left=17)
    for scene in (bidding, playing):
        render_table(scene, fmt="PNG")
    render_hand(tuple(range(0, 54, 3)), (0, 3))
    render_hand(())
    render_result(ResultScene(
        winner="landlord",
        seats=(ResultSeat("P1", "landlord", 4, 40, name="Player 1"),
               ResultSeat("B2", "farmer", -2, -20, (8, 9), name="Bot 2", doubled=True),
               ResultSeat("P3", "farmer", -2, -20, (30,), name="Player 3")),
        base=1, multiplier=2, bombs=1))
