"""The result picture: who won, how the multiplier came about, and each seat's points, beans and
the cards it was left with (RULES.md §4.4, §7, §8)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images.cards import sorted_cards
from images.draw import (
    ALARM,
    GOLD,
    MUTED,
    PANEL,
    WHITE,
    avatar,
    draw_text,
    encode,
    felt,
    pill,
    text_width,
)
from images.fan import draw_cards_block, rows_needed
from images.models import ResultScene, ResultSeat

WIDTH = 1280
TOP = 190
ROW_H = 136
ROW_GAP = 12
LEFT_CARD = 64
#: Cards left that need two rows (a two-deck hand, RULES.md §11) are drawn this small, so that
#: both rows stay inside the seat's row.
LEFT_CARD_SMALL = 46
GAIN = (110, 230, 120)


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


def breakdown(scene: ResultScene) -> list[str]:
    """The multiplier's parts as tags, e.g. ``['BASE 3', 'BOMBS 2 = x4', 'SPRING x2', 'x24']``
    (RULES.md §7)."""
    parts = [f"BASE {scene.base}"]
    if scene.bombs:
        parts.append(f"BOMBS {scene.bombs} = x{2 ** scene.bombs}")
    if scene.spring:
        parts.append("SPRING x2")
    if scene.anti_spring:
        parts.append("ANTI-SPRING x2")
    parts.append(f"x{scene.multiplier}")
    return parts


def _won(scene: ResultScene, seat: ResultSeat) -> bool:
    return (seat.role == "landlord") == (scene.winner == "landlord")


def _row(canvas: Image.Image, scene: ResultScene, seat: ResultSeat, y: int) -> None:
    draw = ImageDraw.Draw(canvas)
    won = _won(scene, seat)
    draw.rounded_rectangle((24, y, WIDTH - 24, y + ROW_H), 20, fill=PANEL,
                           outline=GOLD if won else (44, 96, 64), width=4 if won else 2)
    r = 42
    avatar(canvas, 24 + 28 + r, y + ROW_H / 2 + 6, r, seat.label, seat.role)
    x = 160
    draw_text(canvas, (x, y + 26), seat.role.upper(), 20, GOLD if seat.role == "landlord"
              else MUTED, bold=True)
    tag_x = x
    tags = [("WIN", (40, 150, 70))] if won else [("LOSE", (150, 50, 50))]
    if seat.autoplay:
        tags.append(("AUTO", (90, 100, 96)))
    if seat.escaped:
        tags.append(("LEFT", ALARM))
    for text, color in tags:
        tag_x += pill(canvas, (tag_x, y + 84), text, 16, fill=color, color=WHITE) + 8

    for cx, title, value in ((400, "POINTS", seat.points), (560, "BEANS", seat.beans)):
        draw_text(canvas, (cx, y + 30), title, 16, MUTED, anchor="mm", bold=True)
        color = GAIN if value > 0 else ALARM if value < 0 else WHITE
        draw_text(canvas, (cx, y + 80), _signed(value), 40, color, anchor="mm", bold=True)

    if seat.cards_left:
        room = WIDTH - 48 - 680
        width = LEFT_CARD if rows_needed(len(seat.cards_left), LEFT_CARD, room) == 1 \
            else LEFT_CARD_SMALL
        draw_cards_block(canvas, sorted_cards(seat.cards_left), 680, y + 22,
                         width=width, max_width=room, align="l")
    else:
        draw_text(canvas, (680, y + ROW_H / 2), "PLAYED OUT", 26, GOLD, anchor="lm", bold=True)


def result_image(scene: ResultScene) -> Image.Image:
    """The result as an ``RGB`` image; see :func:`render_result`."""
    height = TOP + len(scene.seats) * (ROW_H + ROW_GAP) + 12
    canvas = felt(WIDTH, height)
    title = "LANDLORD WINS" if scene.winner == "landlord" else "FARMERS WIN"
    draw_text(canvas, (WIDTH / 2, 64), title, 60, GOLD, anchor="mm", bold=True)

    parts = breakdown(scene)
    size, gap = 22, 14
    widths = [text_width(p, size) + size for p in parts]
    x = (WIDTH - sum(widths) - gap * (len(parts) - 1)) // 2
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        x += pill(canvas, (x, 140), part, size, fill=(214, 96, 30) if last else (8, 40, 24),
                  color=WHITE) + gap
    for i, seat in enumerate(scene.seats):
        _row(canvas, scene, seat, TOP + i * (ROW_H + ROW_GAP))
    return canvas


def render_result(scene: ResultScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a finished deal for the group (RULES.md §4.4, §7, §8).

    Draws, 1280 px wide: ``LANDLORD WINS`` / ``FARMERS WIN``; the multiplier's parts (base,
    bombs and rockets played, spring or anti-spring, the final multiplier); then one row per seat
    with its badge, role, ``WIN``/``LOSE``, ``AUTO`` and ``LEFT`` tags, points and beans won or
    lost (green / red), and the cards it was left with face up (``PLAYED OUT`` for none).

    Args:
        scene: the checked :class:`ResultScene`.
        fmt: ``"PNG"`` (default: 256 colours, crisp text, ~30 KB) or ``"JPEG"``.

    Raises:
        RenderError: an unknown format.
    """
    return encode(result_image(scene), fmt)
