"""The leaderboard picture: players by beans won or by balance, deals played, win rate
(RULES.md §8)."""

from __future__ import annotations

from PIL import Image, ImageDraw

from images.draw import ALARM, GOLD, MUTED, PANEL, WHITE, draw_text, encode, felt
from images.labels import Labels
from images.models import LeaderboardRow, LeaderboardScene, RenderError
from images.text import drawable, fit_name

WIDTH = 1280
TOP = 150
ROW_H = 64
MEDALS = {1: GOLD, 2: (200, 206, 214), 3: (205, 127, 50)}
GAIN = (110, 230, 120)
#: Column centres (or left edges for the name) and their headings.
COLUMNS = {"rank": 80, "name": 150, "beans": 700, "games": 860, "rate": 1060}
#: The value column's widest figure (a wider one is drawn smaller) and the least room between
#: a name and it: a name is cut to the rest (:data:`NAME_ROOM` px at :data:`NAME_SIZE`).
VALUE_W, NAME_GAP = 190, 20
NAME_SIZE = 28
NAME_ROOM = COLUMNS["beans"] - VALUE_W // 2 - NAME_GAP - COLUMNS["name"]
#: The win-rate bar's empty track on each row background (the shaded panel, the felt): a
#: lighter green on the dark panel, a darker one on the felt, so a 0 % bar shows on both.
TRACK = {True: (44, 104, 70), False: (8, 40, 24)}


def value_text(value: int, balances: bool) -> str:
    """A row's value: a balance as it is, beans won with a sign (``+12``, ``-3``), zero as
    ``0``; digits grouped by three as the texts write beans (``12,400``)."""
    if balances or value <= 0:
        return f"{value:,d}"
    return f"{value:+,d}"


def row_start(canvas: Image.Image, y: int, shade: bool) -> tuple[ImageDraw.ImageDraw, float]:
    """Begin a board row (leaderboard, challenge board, match standings) at ``y``: its dark
    panel when ``shade`` (every other row); returns the drawing and the row's middle."""
    draw = ImageDraw.Draw(canvas)
    if shade:
        draw.rounded_rectangle((24, y, WIDTH - 24, y + ROW_H - 6), 14, fill=PANEL)
    return draw, y + (ROW_H - 6) / 2


def place_badge(canvas: Image.Image, draw: ImageDraw.ImageDraw, cx: float, mid: float,
                label: str, medal: tuple[int, int, int] | None, size: int = 24) -> None:
    """A row's place: ``label`` centred on ``cx``, on a gold, silver or bronze disc when
    ``medal`` (:data:`MEDALS`) is given."""
    if medal:
        draw.ellipse((cx - 22, mid - 22, cx + 22, mid + 22), fill=medal, outline=WHITE, width=2)
    draw_text(canvas, (cx, mid), label, size, (40, 30, 10) if medal else WHITE, anchor="mm")


def _row(canvas: Image.Image, scene: LeaderboardScene, row: LeaderboardRow, y: int,
         shade: bool) -> None:
    lang = scene.labels.lang
    draw, mid = row_start(canvas, y, shade)
    cx = COLUMNS["rank"]
    place_badge(canvas, draw, cx, mid, str(row.rank), MEDALS.get(row.rank),
                24 if row.rank < 100 else 18)
    name = fit_name(row.name, NAME_SIZE, NAME_ROOM, lang) or "?"
    draw_text(canvas, (COLUMNS["name"], mid), name, NAME_SIZE, WHITE, anchor="lm", lang=lang,
              max_width=NAME_ROOM)
    if scene.balances:
        color = ALARM if row.beans < 0 else WHITE
    else:
        color = GAIN if row.beans > 0 else ALARM if row.beans < 0 else WHITE
    draw_text(canvas, (COLUMNS["beans"], mid), value_text(row.beans, scene.balances), 30, color,
              anchor="mm", max_width=VALUE_W)
    draw_text(canvas, (COLUMNS["games"], mid), str(row.games), 28, WHITE, anchor="mm")
    rate = row.win_rate
    x = COLUMNS["rate"] - 110
    if rate is None:
        draw_text(canvas, (COLUMNS["rate"], mid), "-", 26, MUTED, anchor="mm")
        return
    draw.rounded_rectangle((x, mid - 9, x + 140, mid + 9), 9, fill=TRACK[shade])
    if row.wins:
        draw.rounded_rectangle((x, mid - 9, x + max(18, round(140 * rate)), mid + 9), 9,
                               fill=GOLD)
    draw_text(canvas, (x + 156, mid), f"{round(rate * 100)}%", 26, WHITE, anchor="lm")


def leaderboard_image(scene: LeaderboardScene) -> Image.Image:
    """The leaderboard as an ``RGB`` image; see :func:`render_leaderboard`."""
    if not isinstance(scene, LeaderboardScene):
        raise RenderError(f"a leaderboard is drawn from a LeaderboardScene, not {scene!r}")
    words: Labels = scene.labels
    lang = words.lang
    height = TOP + max(1, len(scene.rows)) * ROW_H + 24
    canvas = felt(WIDTH, height)
    draw_text(canvas, (WIDTH / 2, 52), drawable(scene.title, lang), 44, GOLD, anchor="mm",
              lang=lang, max_width=WIDTH - 80)
    value_head = words.balance if scene.balances else words.net_beans
    heads = (("rank", words.place, "mm"), ("name", words.player, "lm"),
             ("beans", value_head, "mm"), ("games", words.deals, "mm"),
             ("rate", words.win_rate, "mm"))
    for key, text, anchor in heads:
        draw_text(canvas, (COLUMNS[key], 118), text, 20, MUTED, anchor=anchor, lang=lang,
                  max_width=150 if key != "name" else 400)
    if not scene.rows:
        draw_text(canvas, (WIDTH / 2, TOP + ROW_H / 2), words.no_rows, 30, MUTED, anchor="mm",
                  lang=lang, max_width=WIDTH - 80)
    for i, row in enumerate(scene.rows):
        _row(canvas, scene, row, TOP + i * ROW_H, i % 2 == 0)
    return canvas


def render_leaderboard(scene: LeaderboardScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a leaderboard (RULES.md §8), best first as given.

    Draws, 1280 px wide, in the scene's words: the title, the column heads, then per row the
    place (gold, silver, bronze medals for the first three), the name (cut to fit), the value
    (a balance without a sign, beans won as ``+12`` / ``-3`` / ``0``), the deals and a win-rate
    bar with its percentage (``-`` for a row without a deal or whose wins are not known); the
    ``no_rows`` words for an empty board.

    Args:
        scene: the checked :class:`LeaderboardScene`.
        fmt: ``"PNG"`` (default: 256 colours, crisp text, ~25 KB) or ``"JPEG"``.

    Raises:
        RenderError: not a :class:`LeaderboardScene`, or an unknown format.
    """
    return encode(leaderboard_image(scene), fmt)
