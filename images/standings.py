"""The standings of a match (定局积分 or 打立出局, RULES.md §10): place, name, points or chips,
deals played or "out", and at the end the champion (冠军) and the prizes; drawn like the
leaderboard (:mod:`images.leaderboard`). After each deal the standings are drawn under the deal's
result picture (:func:`render_result_with_standings`), at the end alone (:func:`render_standings`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image

from images.draw import GOLD, MUTED, WHITE, crown, draw_text, encode, felt
from images.errors import RenderError
from images.labels import ENGLISH, Labels
from images.leaderboard import MEDALS, place_badge, row_start
from images.models import ResultScene, check_text, clean_name
from images.result import result_image
from images.text import drawable, fit_name

WIDTH = 1280
TOP = 150
ROW_H = 64
NOTE_H = 52
MAX_ROWS = 4
MAX_TEXT = 60
#: Column centres (left edge for the name).
COLUMNS = {"place": 80, "name": 150, "score": 700, "progress": 920, "prize": 1140}
#: The score column's widest figure (a wider one is drawn smaller) and the least room between a
#: name and it: a name is cut to the rest (:func:`images.text.fit_name`).
SCORE_W, NAME_GAP = 220, 20
NAME_SIZE = 28


@dataclass(frozen=True, slots=True)
class StandingsRow:
    """One seat: ``place`` (1 = first; equal places share), ``name``, ``score`` and
    ``progress`` as the group reads them (``+12 分``, ``20 筹码``; ``第 3/9 局``, ``出局``),
    ``prize`` in beans (≥ 0, the final standings only), ``out``: knocked out or forfeited
    (drawn muted)."""

    place: int
    name: str
    score: str
    progress: str
    prize: int = 0
    out: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_name(self.name))
        check_text(self.score, "score", MAX_TEXT)
        check_text(self.progress, "progress", MAX_TEXT)
        if isinstance(self.place, bool) or not isinstance(self.place, int) or self.place < 1:
            raise RenderError(f"place must be a whole number ≥ 1, not {self.place!r}")
        if isinstance(self.prize, bool) or not isinstance(self.prize, int) or self.prize < 0:
            raise RenderError(f"prize must be a whole number of beans ≥ 0, not {self.prize!r}")


@dataclass(frozen=True, slots=True)
class StandingsScene:
    """A match's standings: ``title`` in the group's language, one row per seat best first (up
    to 4), ``note`` under the rows (the next chip base, an extra deal; may be empty),
    ``final``: the match is over (the champions get a crown, the prize column is drawn),
    ``chips``: the scores are chips (a knock-out), else points; the ``labels``."""

    title: str
    rows: tuple[StandingsRow, ...] = field(default=())
    note: str = ""
    final: bool = False
    labels: Labels = ENGLISH
    chips: bool = False

    def __post_init__(self) -> None:
        check_text(self.title, "title", MAX_TEXT)
        if self.note:
            check_text(self.note, "note", MAX_TEXT)
        rows = tuple(self.rows)
        if not 1 <= len(rows) <= MAX_ROWS or not all(isinstance(r, StandingsRow) for r in rows):
            raise RenderError(f"standings hold 1 to {MAX_ROWS} StandingsRow values")
        object.__setattr__(self, "rows", rows)


def _row(canvas: Image.Image, scene: StandingsScene, row: StandingsRow, y: int,
         shade: bool) -> None:
    lang = scene.labels.lang
    draw, mid = row_start(canvas, y, shade)
    champion = scene.final and row.place == 1 and not row.out
    place_badge(canvas, draw, COLUMNS["place"], mid, str(row.place),
                None if row.out else MEDALS.get(row.place))
    name_x = COLUMNS["name"]
    if champion:
        crown(draw, name_x + 18, mid + 12, 36)
        name_x += 48
    color = MUTED if row.out else WHITE
    room = COLUMNS["score"] - SCORE_W // 2 - NAME_GAP - name_x
    draw_text(canvas, (name_x, mid), fit_name(row.name, NAME_SIZE, room, lang) or "?",
              NAME_SIZE, color, anchor="lm", lang=lang, max_width=room)
    draw_text(canvas, (COLUMNS["score"], mid), drawable(row.score, lang), 30,
              GOLD if row.place == 1 and not row.out else color, anchor="mm", lang=lang,
              max_width=SCORE_W)
    draw_text(canvas, (COLUMNS["progress"], mid), drawable(row.progress, lang), 26, color,
              anchor="mm", lang=lang, max_width=200)
    if scene.final and row.prize:
        draw_text(canvas, (COLUMNS["prize"], mid), f"+{row.prize}", 28, GOLD, anchor="mm",
                  max_width=200)


def standings_image(scene: StandingsScene) -> Image.Image:
    """The standings as an ``RGB`` image; see :func:`render_standings`."""
    if not isinstance(scene, StandingsScene):
        raise RenderError(f"standings are drawn from a StandingsScene, not {scene!r}")
    words = scene.labels
    lang = words.lang
    height = TOP + len(scene.rows) * ROW_H + (NOTE_H if scene.note else 0) + 24
    canvas = felt(WIDTH, height)
    draw_text(canvas, (WIDTH / 2, 52), drawable(scene.title, lang), 44, GOLD, anchor="mm",
              lang=lang, max_width=WIDTH - 80)
    heads = [("place", words.place, "mm"), ("name", words.player, "lm"),
             ("score", words.chips if scene.chips else words.score, "mm"),
             ("progress", words.deals, "mm")]
    if scene.final:
        heads.append(("prize", words.prize, "mm"))
    for key, text, anchor in heads:
        draw_text(canvas, (COLUMNS[key], 118), text, 20, MUTED, anchor=anchor, lang=lang,
                  max_width=400 if key == "name" else 200)
    for i, row in enumerate(scene.rows):
        _row(canvas, scene, row, TOP + i * ROW_H, i % 2 == 0)
    if scene.note:
        draw_text(canvas, (WIDTH / 2, TOP + len(scene.rows) * ROW_H + NOTE_H / 2),
                  drawable(scene.note, lang), 26, MUTED, anchor="mm", lang=lang,
                  max_width=WIDTH - 80)
    return canvas


def render_standings(scene: StandingsScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a match's standings (RULES.md §10), 1280 px wide: the title, the column heads
    (place, player, score, deals; prize at the end), then per seat its place (medals for the
    first three, none for a seat out), the name (a crown for the champion once ``final``), the
    points or chips, the deals played or "out", and the prize won; the note under the rows.

    Raises:
        RenderError: not a :class:`StandingsScene`, or an unknown format.
    """
    return encode(standings_image(scene), fmt)


def render_result_with_standings(result: ResultScene, standings: StandingsScene, *,
                                 fmt: str = "PNG") -> bytes:
    """A match deal's result picture (:func:`images.result.render_result`) with the match's
    standings after it (:func:`standings_image`) below, in one picture of 1280 px wide.

    Raises:
        RenderError: not a :class:`StandingsScene`, or an unknown format.
    """
    top = result_image(result)
    bottom = standings_image(standings)
    canvas = Image.new("RGB", (WIDTH, top.height + bottom.height))
    canvas.paste(top, (0, 0))
    canvas.paste(bottom, (0, top.height))
    return encode(canvas, fmt)
