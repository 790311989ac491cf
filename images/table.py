"""The table picture: the seats around a green table, their last plays, the kitty and the stakes.

Seat 0 sits at the bottom; turn order runs counter-clockwise (RULES.md §1.2), so with three seats
seat 1 is on the right and seat 2 on the left, and with four (RULES.md §11) seat 2 is at the top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from images.cards import card_back, card_size, sorted_cards
from images.draw import (
    ALARM,
    FELT,
    FLOOR,
    GOLD,
    HIGHLIGHT,
    INK,
    MUTED,
    PANEL,
    TABLE_RIM,
    WHITE,
    avatar,
    draw_text,
    encode,
    pill,
)
from images.fan import draw_cards_block
from images.labels import Labels
from images.models import SeatScene, TableScene
from images.text import shorten

WIDTH, HEIGHT = 1280, 720
PLAY_CARD = 92
SHOWN_CARD = 64
KITTY_CARD = 64
PANEL_W, PANEL_H = 264, 112
COUNT_ICON = 26
#: Narrower widths a long play (a 12-card straight, a big plane) is drawn at to stay one row.
NARROW_PLAY_CARDS = (78, 64, 52)
#: Badge radius and where the panel's text column starts (from the panel's left edge).
BADGE_R = 38
TEXT_LEFT = 2 * BADGE_R + 28
NAME_SIZE = 22


@dataclass(frozen=True, slots=True)
class Spot:
    """Where one seat's things go: its panel's top-left corner, then the play and the shown hand
    as ``(x, y, align, max_width)``, ``x`` being the left edge, centre or right edge."""

    panel: tuple[int, int]
    play: tuple[int, int, str, int]
    shown: tuple[int, int, str, int]


#: The bottom seat's shown hand starts level with its panel's top, so that two rows (a landlord's
#: 20 cards, 33 with four seats) end above the picture's bottom edge, and right of the countdown.
_BOTTOM = Spot((508, 584), (640, 420, "m", 640), (800, 576, "l", 456))
LAYOUTS: dict[int, tuple[Spot, ...]] = {
    3: (
        _BOTTOM,
        Spot((992, 150), (972, 144, "r", 390), (1256, 300, "r", 500)),
        Spot((24, 150), (308, 144, "l", 390), (24, 300, "l", 500)),
    ),
    4: (
        _BOTTOM,
        Spot((992, 236), (972, 238, "r", 300), (1256, 370, "r", 440)),
        Spot((508, 16), (792, 16, "l", 464), (640, 140, "m", 440)),
        Spot((24, 236), (308, 238, "l", 300), (24, 370, "l", 440)),
    ),
}
#: Where the kitty goes, ``(x, y, align, max_width)``: top centre, or top left with 4 seats.
KITTY = {3: (640, 16, "m", 400), 4: (24, 80, "l", 300)}


@lru_cache(maxsize=2)
def table_background(width: int, height: int) -> Image.Image:
    """An oval felt table with a wooden rim on a dark floor (cached; callers must ``copy()`` it).

    Drawn 2× larger and scaled down for a smooth rim.
    """
    big = Image.new("RGB", (width * 2, height * 2), FLOOR)
    draw = ImageDraw.Draw(big)
    box = (150, 190, width * 2 - 150, height * 2 - 60)
    draw.ellipse(box, fill=TABLE_RIM)
    draw.ellipse((box[0] + 28, box[1] + 28, box[2] - 28, box[3] - 28), fill=FELT,
                 outline=(150, 100, 60), width=4)
    return big.reduce(2)


def _panel(canvas: Image.Image, seat: SeatScene, x: int, y: int, seconds_left: int | None,
           labels: Labels) -> None:
    """The seat's badge, name, card count (red on alarm), role, tags and countdown."""
    lang = labels.lang
    draw = ImageDraw.Draw(canvas)
    border = HIGHLIGHT if seat.is_turn else (44, 96, 64)
    draw.rounded_rectangle((x, y, x + PANEL_W, y + PANEL_H), 18, fill=PANEL, outline=border,
                           width=4 if seat.is_turn else 2)
    avatar(canvas, x + 16 + BADGE_R, y + PANEL_H / 2, BADGE_R, seat.label, seat.role, lang)
    left = x + TEXT_LEFT
    room = PANEL_W - TEXT_LEFT - (34 if seat.is_turn and seconds_left is not None else 12)
    name = shorten(seat.name, lang=lang)
    if name:
        draw_text(canvas, (left, y + 22), name, NAME_SIZE, WHITE, anchor="lm", lang=lang,
                  max_width=room)
    icon = card_back(COUNT_ICON)
    row = y + 42
    canvas.paste(icon, (left, row), icon)
    mid = row + icon.height / 2
    count = str(seat.card_count)
    end = left + COUNT_ICON + 8 + draw_text(canvas, (left + COUNT_ICON + 8, mid), count, 34,
                                            ALARM if seat.alarm else WHITE, anchor="lm")
    if seat.alarm:  # on the card icon's corner, so the role word keeps its size
        cx, cy = left + icon.width - 2, row + 2
        draw.ellipse((cx - 11, cy - 11, cx + 11, cy + 11), fill=ALARM, outline=PANEL, width=2)
        draw_text(canvas, (cx, cy), "!", 18, WHITE, anchor="mm")
    if seat.role is not None:
        word = labels.landlord if seat.role == "landlord" else labels.farmer
        right = x + PANEL_W - 12
        draw_text(canvas, (right, mid), word, 18, GOLD if seat.role == "landlord" else MUTED,
                  anchor="rm", lang=lang, max_width=max(24, right - end - 10))
    tag_x = left
    if seat.autoplay:
        tag_x += pill(canvas, (tag_x, y + 94), labels.autoplay, 14, fill=(90, 100, 96),
                      color=WHITE, lang=lang) + 6
    if seat.doubled:
        tag_x += pill(canvas, (tag_x, y + 94), labels.doubled, 14, fill=(214, 96, 30),
                      color=WHITE, lang=lang) + 6
    if seat.bombs_left is not None:
        pill(canvas, (tag_x, y + 94), labels.allowance.format(n=seat.bombs_left), 14,
             fill=(120, 60, 40) if seat.bombs_left else (70, 70, 70), color=WHITE, lang=lang)
    if seat.is_turn and seconds_left is not None:
        cx, cy = x + PANEL_W - 4, y + 4
        urgent = seconds_left <= 5
        draw.ellipse((cx - 26, cy - 26, cx + 26, cy + 26), fill=ALARM if urgent else HIGHLIGHT,
                     outline=WHITE, width=3)
        draw_text(canvas, (cx, cy), str(seconds_left), 24, WHITE if urgent else INK, anchor="mm")


def _action(canvas: Image.Image, text: str, x: int, y: int, align: str, lang: str) -> None:
    """A seat's non-card action (不出, 叫地主 …) as a tag where its play would be."""
    pill(canvas, (x, y + card_size(PLAY_CARD)[1] // 2), text, 26, fill=(8, 40, 24),
         color=WHITE, anchor=align, lang=lang)


def multiplier_words(scene: TableScene) -> str:
    """The table's multiplier tag: ``×64``, or each distinct pair multiplier in seat order,
    ``×64 / ×32``, when the pairs differ (RULES.md §3, §7), as the result picture writes them.

    >>> multiplier_words(TableScene(seats=(SeatScene("A"),) * 3, multiplier=64,
    ...                             multipliers=(64, 32)))
    '×64 / ×32'
    """
    values = list(dict.fromkeys(scene.multipliers)) or [scene.multiplier]
    return " / ".join(scene.labels.multiplier.format(n=m) for m in values)


def table_image(scene: TableScene) -> Image.Image:
    """The table as an ``RGB`` image; see :func:`render_table`."""
    n = len(scene.seats)
    canvas = table_background(WIDTH, HEIGHT).copy()

    labels = scene.labels
    lang = labels.lang
    x = 24
    base = labels.base.format(base=scene.base) if scene.base else labels.base_unset
    x += pill(canvas, (x, 42), base, 20, fill=(8, 40, 24), color=WHITE, lang=lang) + 10
    pill(canvas, (x, 42), multiplier_words(scene), 20, fill=(214, 96, 30), color=WHITE,
         lang=lang)

    kx, ky, kalign, kmax = KITTY[n]
    kitty: Sequence[int | None] = [None] * scene.kitty_size
    if scene.kitty is not None:
        kitty = sorted_cards(scene.kitty)
    draw_cards_block(canvas, kitty, kx, ky, width=KITTY_CARD, max_width=kmax, align=kalign,
                     max_step=KITTY_CARD + 8)

    for seat, spot in zip(scene.seats, LAYOUTS[n], strict=True):
        px, py = spot.panel
        _panel(canvas, seat, px, py, scene.seconds_left, labels)
        x, y, align, max_width = spot.play
        if isinstance(seat.last_play, str):
            _action(canvas, seat.last_play, x, y, align, lang)
        elif seat.last_play:
            draw_cards_block(canvas, list(seat.last_play), x, y,
                             width=PLAY_CARD, max_width=max_width, align=align,
                             narrower=NARROW_PLAY_CARDS)
        if seat.shown_cards:
            x, y, align, max_width = spot.shown
            draw_cards_block(canvas, sorted_cards(seat.shown_cards), x, y,
                             width=SHOWN_CARD, max_width=max_width, align=align)
    return canvas


def render_table(scene: TableScene, *, fmt: str = "JPEG") -> bytes:
    """Picture of the table for the group's table message (RULES.md §1–§4, §7).

    Draws, 1280 × 720 px: each seat's badge (crown for the landlord), name, role, card count
    (red with ``!`` on alarm, RULES.md §4.5), tags for auto-play and for a seat that doubled;
    each seat's last play of the trick, in one row (a long play's cards are drawn narrower), or
    its action word (不出, 叫地主 …), the kitty
    (face down until revealed), shown hands face up (RULES.md §3), base and multiplier
    (RULES.md §7), and a yellow frame with the countdown in seconds on the seat to act (red at
    5 s or less). Every word is the scene's (:class:`~images.labels.Labels`, names, actions).

    Args:
        scene: the checked :class:`TableScene`.
        fmt: ``"JPEG"`` (default: a third of the time of a palette PNG) or ``"PNG"``
            (256-colour palette).

    Raises:
        RenderError: an unknown format (bad scenes are refused when the scene is built).
    """
    return encode(table_image(scene), fmt)
