"""The leaderboard picture: top players by beans won, games played, win rate (RULES.md §8)."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from images.draw import ALARM, GOLD, MUTED, PANEL, WHITE, draw_text, encode, felt
from images.models import LeaderboardRow, RenderError, check_ascii

WIDTH = 1280
TOP = 150
ROW_H = 64
MAX_ROWS = 25
MAX_TITLE = 40
MEDALS = {1: GOLD, 2: (200, 206, 214), 3: (205, 127, 50)}
GAIN = (110, 230, 120)
#: Column centres (or left edges for the name) and their headings.
COLUMNS = {"rank": 80, "name": 150, "beans": 700, "games": 860, "rate": 1060}


def _row(canvas: Image.Image, row: LeaderboardRow, y: int, shade: bool) -> None:
    draw = ImageDraw.Draw(canvas)
    if shade:
        draw.rounded_rectangle((24, y, WIDTH - 24, y + ROW_H - 6), 14, fill=PANEL)
    mid = y + (ROW_H - 6) / 2
    cx = COLUMNS["rank"]
    medal = MEDALS.get(row.rank)
    if medal:
        draw.ellipse((cx - 22, mid - 22, cx + 22, mid + 22), fill=medal, outline=WHITE, width=2)
    draw_text(canvas, (cx, mid), str(row.rank), 24 if row.rank < 100 else 18,
              (40, 30, 10) if medal else WHITE, anchor="mm", bold=True)
    draw_text(canvas, (COLUMNS["name"], mid), row.name, 28, WHITE, anchor="lm", bold=True)
    beans = f"+{row.beans}" if row.beans > 0 else str(row.beans)
    color = GAIN if row.beans > 0 else ALARM if row.beans < 0 else WHITE
    draw_text(canvas, (COLUMNS["beans"], mid), beans, 30, color, anchor="mm", bold=True)
    draw_text(canvas, (COLUMNS["games"], mid), str(row.games), 28, WHITE, anchor="mm")
    x = COLUMNS["rate"] - 110
    draw.rounded_rectangle((x, mid - 9, x + 140, mid + 9), 9, fill=(8, 40, 24))
    rate = row.win_rate
    if rate is None:
        draw_text(canvas, (x + 156, mid), "-", 26, MUTED, anchor="lm", bold=True)
        return
    if row.wins:
        draw.rounded_rectangle((x, mid - 9, x + max(18, round(140 * rate)), mid + 9), 9,
                               fill=GOLD)
    draw_text(canvas, (x + 156, mid), f"{round(rate * 100)}%", 26, WHITE, anchor="lm",
              bold=True)


def leaderboard_image(rows: Sequence[LeaderboardRow], title: str) -> Image.Image:
    """The leaderboard as an ``RGB`` image; see :func:`render_leaderboard`."""
    check_ascii(title, "title", MAX_TITLE)
    rows = list(rows)
    if len(rows) > MAX_ROWS:
        raise RenderError(f"at most {MAX_ROWS} leaderboard rows fit, not {len(rows)}")
    if not all(isinstance(r, LeaderboardRow) for r in rows):
        raise RenderError("leaderboard rows must be LeaderboardRow values")
    height = TOP + max(1, len(rows)) * ROW_H + 24
    canvas = felt(WIDTH, height)
    draw_text(canvas, (WIDTH / 2, 52), title, 48, GOLD, anchor="mm", bold=True)
    heads = (("rank", "#", "mm"), ("name", "PLAYER", "lm"), ("beans", "BEANS", "mm"),
             ("games", "GAMES", "mm"), ("rate", "WIN RATE", "mm"))
    for key, text, anchor in heads:
        draw_text(canvas, (COLUMNS[key], 118), text, 18, MUTED, anchor=anchor, bold=True)
    if not rows:
        draw_text(canvas, (WIDTH / 2, TOP + ROW_H / 2), "NO GAMES YET", 30, MUTED, anchor="mm",
                  bold=True)
    for i, row in enumerate(rows):
        _row(canvas, row, TOP + i * ROW_H, i % 2 == 0)
    return canvas


def render_leaderboard(rows: Sequence[LeaderboardRow], title: str, *, fmt: str = "PNG") -> bytes:
    """Picture of a leaderboard (RULES.md §8), best first as given.

    Draws, 1280 px wide: ``title``, then per row the place (gold, silver, bronze medals for the
    first three), the name, beans won (green / red), games and a win-rate bar with its percentage
    (``-`` for a row whose wins are not known); ``NO GAMES YET`` when ``rows`` is empty.

    Args:
        rows: up to 25 :class:`LeaderboardRow` values.
        title: up to 40 printable ASCII characters, e.g. ``"LEADERBOARD - THIS WEEK"``.
        fmt: ``"PNG"`` (default: 256 colours, crisp text, ~20 KB) or ``"JPEG"``.

    Raises:
        RenderError: a non-ASCII or too long title, more than 25 rows, or an unknown format.
    """
    return encode(leaderboard_image(rows, title), fmt)
