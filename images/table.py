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
    text_width,
)
from images.fan import draw_cards_block
from images.models import SeatScene, TableScene

WIDTH, HEIGHT = 1280, 720
PLAY_CARD = 92
SHOWN_CARD = 64
KITTY_CARD = 64
PANEL_W, PANEL_H = 220, 112
COUNT_ICON = 26


@dataclass(frozen=True, slots=True)
class Spot:
    """Where one seat's things go: its panel's top-left corner, then the play and the shown hand
    as ``(x, y, align, max_width)``, ``x`` being the left edge, centre or right edge."""

    panel: tuple[int, int]
    play: tuple[int, int, str, int]
    shown: tuple[int, int, str, int]


_BOTTOM = Spot((530, 584), (640, 420, "m", 640), (776, 604, "l", 480))
LAYOUTS: dict[int, tuple[Spot, ...]] = {
    3: (
        _BOTTOM,
        Spot((1036, 150), (1016, 144, "r", 390), (1256, 300, "r", 500)),
        Spot((24, 150), (264, 144, "l", 390), (24, 300, "l", 500)),
    ),
    4: (
        _BOTTOM,
        Spot((1036, 236), (1016, 238, "r", 300), (1256, 370, "r", 440)),
        Spot((530, 16), (770, 16, "l", 470), (640, 140, "m", 440)),
        Spot((24, 236), (264, 238, "l", 300), (24, 370, "l", 440)),
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


def _panel(canvas: Image.Image, seat: SeatScene, x: int, y: int,
           seconds_left: int | None) -> None:
    """The seat's badge, role, card count (red on alarm), tags and countdown."""
    draw = ImageDraw.Draw(canvas)
    border = HIGHLIGHT if seat.is_turn else (44, 96, 64)
    draw.rounded_rectangle((x, y, x + PANEL_W, y + PANEL_H), 18, fill=PANEL, outline=border,
                           width=4 if seat.is_turn else 2)
    r = 38
    avatar(canvas, x + 16 + r, y + PANEL_H / 2, r, seat.label, seat.role)
    left = x + 2 * r + 30
    if seat.role is not None:
        draw_text(canvas, (left, y + 14), seat.role.upper(), 16,
                  GOLD if seat.role == "landlord" else MUTED, bold=True)
    icon = card_back(COUNT_ICON)
    canvas.paste(icon, (left, y + 40), icon)
    color = ALARM if seat.alarm else WHITE
    draw_text(canvas, (left + COUNT_ICON + 8, y + 40 + icon.height / 2), str(seat.card_count), 34,
              color, anchor="lm", bold=True)
    if seat.alarm:
        cx = left + COUNT_ICON + 16 + text_width(str(seat.card_count), 34) + 14
        cy = y + 40 + icon.height / 2
        draw.ellipse((cx - 12, cy - 12, cx + 12, cy + 12), fill=ALARM)
        draw_text(canvas, (cx, cy), "!", 20, WHITE, anchor="mm", bold=True)
    tag_x = left
    if seat.autoplay:
        tag_x += pill(canvas, (tag_x, y + 94), "AUTO", 14, fill=(90, 100, 96), color=WHITE) + 6
    if seat.doubled:
        pill(canvas, (tag_x, y + 94), "x2", 14, fill=(214, 96, 30), color=WHITE)
    if seat.is_turn and seconds_left is not None:
        cx, cy = x + PANEL_W - 4, y + 4
        urgent = seconds_left <= 5
        draw.ellipse((cx - 26, cy - 26, cx + 26, cy + 26), fill=ALARM if urgent else HIGHLIGHT,
                     outline=WHITE, width=3)
        draw_text(canvas, (cx, cy), str(seconds_left), 24, WHITE if urgent else INK, anchor="mm",
                  bold=True)


def _action(canvas: Image.Image, text: str, x: int, y: int, align: str) -> None:
    """A seat's non-card action (``PASS``, ``BID 2`` …) as a tag where its play would be."""
    pill(canvas, (x, y + card_size(PLAY_CARD)[1] // 2), text.upper(), 26, fill=(8, 40, 24),
         color=WHITE if text != "pass" else MUTED, anchor=align)


def table_image(scene: TableScene) -> Image.Image:
    """The table as an ``RGB`` image; see :func:`render_table`."""
    n = len(scene.seats)
    canvas = table_background(WIDTH, HEIGHT).copy()

    x = 24
    x += pill(canvas, (x, 42), f"BASE {scene.base}" if scene.base else "BASE -", 20,
              fill=(8, 40, 24), color=WHITE) + 10
    pill(canvas, (x, 42), f"x{scene.multiplier}", 20, fill=(214, 96, 30), color=WHITE)

    kx, ky, kalign, kmax = KITTY[n]
    kitty: Sequence[int | None] = [None] * scene.kitty_size
    if scene.kitty is not None:
        kitty = sorted_cards(scene.kitty)
    draw_cards_block(canvas, kitty, kx, ky, width=KITTY_CARD, max_width=kmax, align=kalign,
                     max_step=KITTY_CARD + 8)

    for seat, spot in zip(scene.seats, LAYOUTS[n], strict=True):
        px, py = spot.panel
        _panel(canvas, seat, px, py, scene.seconds_left)
        x, y, align, max_width = spot.play
        if isinstance(seat.last_play, str):
            _action(canvas, seat.last_play, x, y, align)
        elif seat.last_play:
            draw_cards_block(canvas, sorted_cards(seat.last_play), x, y,
                             width=PLAY_CARD, max_width=max_width, align=align)
        if seat.shown_cards:
            x, y, align, max_width = spot.shown
            draw_cards_block(canvas, sorted_cards(seat.shown_cards), x, y,
                             width=SHOWN_CARD, max_width=max_width, align=align)
    return canvas


def render_table(scene: TableScene, *, fmt: str = "JPEG") -> bytes:
    """Picture of the table for the group's table message (RULES.md §1–§4, §7).

    Draws, 1280 × 720 px: each seat's badge (initials or seat number, crown for the landlord),
    role, card count (red with ``!`` on alarm, RULES.md §4.5), ``AUTO`` for auto-play and ``x2``
    for a seat that doubled; each seat's last play of the trick (or ``PASS`` / a bid), the kitty
    (face down until revealed), shown hands face up (RULES.md §3), base and multiplier
    (RULES.md §7), and a yellow frame with the countdown in seconds on the seat to act (red at
    5 s or less).

    Args:
        scene: the checked :class:`TableScene`.
        fmt: ``"JPEG"`` (default: a third of the time of a palette PNG) or ``"PNG"``
            (256-colour palette).

    Raises:
        RenderError: an unknown format (bad scenes are refused when the scene is built).
    """
    return encode(table_image(scene), fmt)
