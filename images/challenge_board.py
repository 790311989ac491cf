"""The board of a duplicate challenge (复式挑战, RULES.md §10): place, name, matchpoints and
deals played out of the challenge's deals; drawn like the leaderboard
(:mod:`images.leaderboard`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image

from images.draw import GOLD, MUTED, WHITE, draw_text, encode, felt, pill
from images.errors import RenderError
from images.labels import ENGLISH, Labels
from images.leaderboard import MEDALS, place_badge, row_start
from images.models import check_text, clean_name
from images.text import drawable, fit_name

WIDTH = 1280
TOP = 150
ROW_H = 64
MAX_ROWS = 25
MAX_TITLE = 60
#: Column centres (left edge for the name).
COLUMNS = {"place": 80, "name": 150, "matchpoints": 820, "deals": 1080}


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One member: ``place`` (``None``: no deal played yet, drawn ``-``), ``name``,
    ``matchpoints`` (≥ 0), ``deals`` played out of ``total``."""

    place: int | None
    name: str
    matchpoints: int
    deals: int
    total: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_name(self.name))
        for what in ("matchpoints", "deals", "total"):
            value = getattr(self, what)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RenderError(f"{what} must be a whole number ≥ 0, not {value!r}")
        if self.deals > self.total:
            raise RenderError(f"deals ({self.deals}) cannot exceed the total ({self.total})")
        if self.place is not None and (isinstance(self.place, bool)
                                       or not isinstance(self.place, int) or self.place < 1):
            raise RenderError(f"place must be ≥ 1 or None, not {self.place!r}")


@dataclass(frozen=True, slots=True)
class BoardScene:
    """A challenge's board: ``title`` in the group's language, up to 25 ``rows`` best first,
    the ``labels``; ``mark``: a closed board's mark at the top right (``labels.final``,
    ``labels.cancelled``), empty while it is open."""

    title: str
    rows: tuple[BoardRow, ...] = field(default=())
    labels: Labels = ENGLISH
    mark: str = ""

    def __post_init__(self) -> None:
        check_text(self.title, "title", MAX_TITLE)
        check_text(self.mark, "mark", MAX_TITLE, empty=True)
        rows = tuple(self.rows)
        if len(rows) > MAX_ROWS or not all(isinstance(r, BoardRow) for r in rows):
            raise RenderError(f"a board holds up to {MAX_ROWS} BoardRow values")
        object.__setattr__(self, "rows", rows)


def _row(canvas: Image.Image, row: BoardRow, y: int, shade: bool, lang: str) -> None:
    draw, mid = row_start(canvas, y, shade)
    place_badge(canvas, draw, COLUMNS["place"], mid, str(row.place) if row.place else "-",
                MEDALS.get(row.place or 0))
    room = COLUMNS["matchpoints"] - 120 - COLUMNS["name"]  # 20 px short of the widest figure
    draw_text(canvas, (COLUMNS["name"], mid), fit_name(row.name, 28, room, lang) or "?", 28,
              WHITE, anchor="lm", lang=lang, max_width=room)
    draw_text(canvas, (COLUMNS["matchpoints"], mid), str(row.matchpoints), 30,
              GOLD if row.place == 1 else WHITE, anchor="mm", max_width=200)
    draw_text(canvas, (COLUMNS["deals"], mid), f"{row.deals}/{row.total}", 28,
              WHITE if row.deals else MUTED, anchor="mm")


def render_challenge_board(scene: BoardScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a challenge's board (RULES.md §10), 1280 px wide: the title, the column heads
    (place, player, matchpoints, deals), then per member the place (medals for the first
    three, ``-`` before their first deal), the name (cut to fit), the matchpoints and
    ``deals/total``; the ``no_entrants`` words on an empty board; a closed challenge's board
    has its ``mark`` at the top right.

    Raises:
        RenderError: not a :class:`BoardScene`, or an unknown format.
    """
    if not isinstance(scene, BoardScene):
        raise RenderError(f"a board is drawn from a BoardScene, not {scene!r}")
    words = scene.labels
    lang = words.lang
    canvas = felt(WIDTH, TOP + max(1, len(scene.rows)) * ROW_H + 24)
    mark = 0
    if scene.mark.strip():
        mark = pill(canvas, (WIDTH - 32, 52), scene.mark, 26, fill=(214, 96, 30), color=WHITE,
                    anchor="r", lang=lang) + 16
    draw_text(canvas, (WIDTH / 2, 52), drawable(scene.title, lang), 44, GOLD, anchor="mm",
              lang=lang, max_width=WIDTH - 80 - 2 * mark)
    heads = (("place", words.place, "mm"), ("name", words.player, "lm"),
             ("matchpoints", words.matchpoints, "mm"), ("deals", words.boards, "mm"))
    for key, text, anchor in heads:
        draw_text(canvas, (COLUMNS[key], 118), text, 20, MUTED, anchor=anchor, lang=lang,
                  max_width=400 if key == "name" else 220)
    if not scene.rows:
        draw_text(canvas, (WIDTH / 2, TOP + ROW_H / 2), words.no_entrants, 30, MUTED,
                  anchor="mm", lang=lang, max_width=WIDTH - 80)
    for i, row in enumerate(scene.rows):
        _row(canvas, row, TOP + i * ROW_H, i % 2 == 0, lang)
    return encode(canvas, fmt)
