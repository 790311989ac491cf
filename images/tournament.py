"""The pictures of a group tournament (锦标赛, RULES.md §10.1): the sign-up message
(:func:`render_tournament_signup`), the group's board of a stage
(:func:`render_tournament_board`) and the final ranking with the champion crowned and the
seed revealed (:func:`render_tournament_final`); drawn like the other boards
(:mod:`images.leaderboard`).

Every word comes from the scene, already in the group's language (the bot builds the scenes
from its catalogues, ``bot.features.tournament.views``); names are cut to their room and
characters the fonts lack (a title's emoji) are left out. The trophy and the crown are drawn,
not taken from an emoji font.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from images.draw import GOLD, MUTED, PANEL, WHITE, crown, draw_text, encode, felt, pill
from images.errors import RenderError
from images.labels import ENGLISH, Labels
from images.leaderboard import MEDALS, place_badge, row_start
from images.models import check_text, clean_name
from images.text import drawable, fit_name

WIDTH = 1280
#: Height of the title band (the trophy, the title, a closed message's mark).
HEAD_H = 100
#: Longest title, line or mark a scene carries, in characters.
MAX_TEXT = 200
#: Most members a sign-up picture lists (the rest are counted, ``more``).
MAX_MEMBERS = 99
#: Most tables a board draws, rows a final ranking draws.
MAX_TABLES = 40
MAX_ROWS = 100
#: The sign-up's members: columns and row height.
MEMBER_COLUMNS = 3
MEMBER_H = 46
#: A board's tables: two panels a row; a seat's line and a panel's header.
PANEL_W = (WIDTH - 3 * 24) // 2
SEAT_H = 44
PANEL_HEAD = 56
#: The final ranking's rows.
ROW_H = 64
THROUGH = (110, 230, 120)
OUT = (150, 170, 158)
DARK = (120, 80, 10)


def _text(value: str, what: str, *, empty: bool = False) -> str:
    return check_text(value, what, MAX_TEXT, empty=empty)


def _whole(value: int, what: str, low: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise RenderError(f"{what} must be a whole number >= {low}, not {value!r}")


def trophy(draw: ImageDraw.ImageDraw, cx: float, top: float, height: float) -> None:
    """A gold cup with two handles on a base, ``height`` px tall, centred on ``cx`` (the
    tournament's mark: drawn, no emoji font needed)."""
    w = height * 0.8
    line = max(2, round(height / 18))
    bowl = [(cx - w * 0.42, top), (cx + w * 0.42, top), (cx + w * 0.36, top + height * 0.34),
            (cx + w * 0.14, top + height * 0.56), (cx - w * 0.14, top + height * 0.56),
            (cx - w * 0.36, top + height * 0.34)]
    for side in (-1, 1):  # the handles: rings half hidden behind the bowl
        x = cx + side * w * 0.42
        r = height * 0.16
        draw.ellipse((x - r, top + height * 0.04, x + r, top + height * 0.04 + 2 * r),
                     outline=GOLD, width=line + 1)
    draw.polygon(bowl, fill=GOLD, outline=DARK, width=line)
    draw.rectangle((cx - w * 0.07, top + height * 0.56, cx + w * 0.07, top + height * 0.78),
                   fill=GOLD, outline=DARK, width=line)
    draw.rounded_rectangle((cx - w * 0.3, top + height * 0.78, cx + w * 0.3, top + height),
                           radius=max(2, round(height / 12)), fill=GOLD, outline=DARK,
                           width=line)
    star = height * 0.12  # a star on the bowl
    mid = top + height * 0.24
    points = []
    for i in range(10):
        r = star if i % 2 == 0 else star * 0.45
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + r * math.cos(angle), mid + r * math.sin(angle)))
    draw.polygon(points, fill=WHITE)


def _head(canvas: Image.Image, title: str, mark: str, lang: str) -> None:
    """The title band: the trophy at the left, the title, a mark at the top right."""
    trophy(ImageDraw.Draw(canvas), 64, 22, 60)
    right = 0
    if mark.strip():
        right = pill(canvas, (WIDTH - 32, 52), drawable(mark, lang), 26, fill=(214, 96, 30),
                     color=WHITE, anchor="r", lang=lang) + 16
    room = WIDTH - 2 * max(120, right + 32)
    draw_text(canvas, (WIDTH / 2, 52), drawable(title, lang), 42, GOLD, anchor="mm", lang=lang,
              max_width=room)


# --- The sign-up ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PrizeSlot:
    """One place of the prize table: ``place`` (1 = first), its ``share`` of the pool in
    percent, and ``beans``: what it pays with the field signed up so far (``None``: no entry
    fee, or nobody signed up)."""

    place: int
    share: int
    beans: int | None = None

    def __post_init__(self) -> None:
        _whole(self.place, "place", 1)
        _whole(self.share, "share")
        if self.beans is not None:
            _whole(self.beans, "beans")


@dataclass(frozen=True, slots=True)
class SignupScene:
    """The sign-up message's picture (RULES.md §10.1).

    Attributes:
        title: the tournament's number and format.
        stages: one line per stage of the plan (field, tables, byes, format, who goes through).
        fee: the entry fee's line; ``prizes`` the prize table's places, ``prizes_head`` its
            heading, ``prize_beans`` a template of the beans a place pays (``{beans}``).
        start: when it starts; ``seed``: the committed seed's SHA-256 line (shortened).
        signed: the heading of the members (how many of how many).
        members: the names signed up, in sign-up order; ``none``: what an empty list says;
            ``more``: a template (``{n}``) for the members past :data:`MAX_MEMBERS`.
        mark: a closed sign-up's mark at the top right (started, cancelled), else empty.
    """

    title: str
    stages: tuple[str, ...]
    fee: str
    prizes: tuple[PrizeSlot, ...]
    start: str
    seed: str
    signed: str
    members: tuple[str, ...] = ()
    prizes_head: str = "Prizes"
    prize_beans: str = "{beans} beans"
    none: str = "Nobody has signed up yet"
    more: str = "+{n} more"
    mark: str = ""
    lang: str = "en"

    def __post_init__(self) -> None:
        for what in ("title", "fee", "start", "seed", "signed", "prizes_head", "prize_beans",
                     "none", "more"):
            _text(getattr(self, what), what)
        _text(self.mark, "mark", empty=True)
        stages = tuple(self.stages)
        if not stages or len(stages) > 12:
            raise RenderError("a sign-up shows 1 to 12 stages")
        for line in stages:
            _text(line, "stage")
        prizes = tuple(self.prizes)
        if not prizes or not all(isinstance(p, PrizeSlot) for p in prizes) or len(prizes) > 10:
            raise RenderError("a prize table has 1 to 10 PrizeSlot places")
        object.__setattr__(self, "stages", stages)
        object.__setattr__(self, "prizes", prizes)
        object.__setattr__(self, "members", tuple(clean_name(m) for m in self.members))


def _signup_height(scene: SignupScene) -> int:
    shown = min(len(scene.members), MAX_MEMBERS)
    rows = max(1, -(-shown // MEMBER_COLUMNS)) + (len(scene.members) > MAX_MEMBERS)
    return HEAD_H + 40 * len(scene.stages) + 24 + 120 + 2 * 40 + 40 + 56 + rows * MEMBER_H + 24


def signup_image(scene: SignupScene) -> Image.Image:
    """The sign-up picture as an ``RGB`` image; see :func:`render_tournament_signup`."""
    if not isinstance(scene, SignupScene):
        raise RenderError(f"a sign-up is drawn from a SignupScene, not {scene!r}")
    lang = scene.lang
    canvas = felt(WIDTH, _signup_height(scene))
    draw = ImageDraw.Draw(canvas)
    _head(canvas, scene.title, scene.mark, lang)
    y = HEAD_H
    for line in scene.stages:  # the plan, one stage a line
        draw.ellipse((44, y + 13, 58, y + 27), fill=GOLD)
        draw_text(canvas, (74, y + 20), drawable(line, lang), 24, WHITE, anchor="lm",
                  lang=lang, max_width=WIDTH - 74 - 40)
        y += 40
    y += 24
    # the prize table: a medal and its share (and beans) per place
    draw.rounded_rectangle((24, y, WIDTH - 24, y + 104), 16, fill=PANEL)
    draw_text(canvas, (48, y + 52), drawable(scene.prizes_head, lang), 26, MUTED, anchor="lm",
              lang=lang, max_width=200)
    slot_w = min(220, (WIDTH - 300) // len(scene.prizes))
    for i, slot in enumerate(scene.prizes):
        x = 280 + i * slot_w
        place_badge(canvas, draw, x + 24, y + 52, str(slot.place), MEDALS.get(slot.place))
        draw_text(canvas, (x + 58, y + (36 if slot.beans is not None else 52)),
                  f"{slot.share}%", 30, GOLD if slot.place == 1 else WHITE, anchor="lm",
                  max_width=slot_w - 64)
        if slot.beans is not None:
            draw_text(canvas, (x + 58, y + 72),
                      drawable(scene.prize_beans.format(beans=f"{slot.beans:,d}"), lang), 22,
                      MUTED, anchor="lm", lang=lang, max_width=slot_w - 64)
    y += 120
    for line in (scene.fee, scene.start):
        draw_text(canvas, (48, y + 20), drawable(line, lang), 26, WHITE, anchor="lm", lang=lang,
                  max_width=WIDTH - 96)
        y += 40
    draw_text(canvas, (48, y + 12), drawable(scene.seed, lang), 22, MUTED, anchor="lm",
              lang=lang, max_width=WIDTH - 96)
    y += 24 + 16
    draw_text(canvas, (48, y + 24), drawable(scene.signed, lang), 30, GOLD, anchor="lm",
              lang=lang, max_width=WIDTH - 96)
    y += 56
    if not scene.members:
        draw_text(canvas, (WIDTH / 2, y + MEMBER_H / 2), drawable(scene.none, lang), 28, MUTED,
                  anchor="mm", lang=lang, max_width=WIDTH - 96)
    column_w = (WIDTH - 48) // MEMBER_COLUMNS
    shown = scene.members[:MAX_MEMBERS]
    per_column = -(-len(shown) // MEMBER_COLUMNS)
    for i, name in enumerate(shown):  # in sign-up order, down each column
        col, row = divmod(i, per_column)
        x, mid = 24 + col * column_w, y + row * MEMBER_H + MEMBER_H / 2
        draw.rounded_rectangle((x + 4, mid - 19, x + column_w - 4, mid + 19), 12, fill=PANEL)
        draw_text(canvas, (x + 40, mid), str(i + 1), 22, GOLD, anchor="mm")
        room = column_w - 76
        draw_text(canvas, (x + 64, mid), fit_name(name, 26, room, lang) or "?", 26, WHITE,
                  anchor="lm", lang=lang, max_width=room)
    if len(scene.members) > MAX_MEMBERS:
        draw_text(canvas, (WIDTH / 2, y + per_column * MEMBER_H + MEMBER_H / 2),
                  drawable(scene.more.format(n=len(scene.members) - MAX_MEMBERS), lang), 26,
                  MUTED, anchor="mm", lang=lang, max_width=WIDTH - 96)
    return canvas


def render_tournament_signup(scene: SignupScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a tournament's sign-up (RULES.md §10.1), 1280 px wide: the trophy and the
    title, the stages of the plan, the prize table (a medal, the share and the beans it pays
    now per place), the fee, the start, the committed seed's SHA-256, then the members signed
    up in order (numbered, in three columns); a closed sign-up's mark at the top right.

    Raises:
        RenderError: not a :class:`SignupScene`, or an unknown format.
    """
    return encode(signup_image(scene), fmt)


# --- The board -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardSeat:
    """A player at a board's table: ``name``, ``score`` and ``wins`` as the group reads them
    (``+12 points``, ``2 won``), ``tag``: through (``"Through"``, or a provisional mark) or
    empty, ``out``: left the tournament (drawn muted, with the ``tag`` saying so)."""

    name: str
    score: str
    wins: str = ""
    tag: str = ""
    out: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_name(self.name))
        _text(self.score, "score")
        _text(self.wins, "wins", empty=True)
        _text(self.tag, "tag", empty=True)


@dataclass(frozen=True, slots=True)
class BoardTable:
    """One table of the stage: its ``header`` (number, deals played, playing or finished),
    ``done``: it has finished, its ``seats`` best first."""

    header: str
    seats: tuple[BoardSeat, ...]
    done: bool = False

    def __post_init__(self) -> None:
        _text(self.header, "header")
        seats = tuple(self.seats)
        if not 1 <= len(seats) <= 4 or not all(isinstance(s, BoardSeat) for s in seats):
            raise RenderError("a board's table has 1 to 4 BoardSeat seats")
        object.__setattr__(self, "seats", seats)


@dataclass(frozen=True, slots=True)
class TournamentBoardScene:
    """The group's board of a stage (RULES.md §10.1): ``title`` (tournament, stage), its
    ``tables``, ``byes``: the line naming the byes (through without playing; empty: none),
    ``note``: a line under the tables (how "through" is meant now, or empty), ``mark``: a
    closed tournament's mark (over, cancelled), else empty."""

    title: str
    tables: tuple[BoardTable, ...]
    byes: str = ""
    note: str = ""
    mark: str = ""
    lang: str = "en"

    def __post_init__(self) -> None:
        _text(self.title, "title")
        for what in ("byes", "note", "mark"):
            _text(getattr(self, what), what, empty=True)
        tables = tuple(self.tables)
        if not 1 <= len(tables) <= MAX_TABLES or not all(isinstance(x, BoardTable)
                                                          for x in tables):
            raise RenderError(f"a board has 1 to {MAX_TABLES} BoardTable tables")
        object.__setattr__(self, "tables", tables)


def _panel_h(table: BoardTable) -> int:
    return PANEL_HEAD + len(table.seats) * SEAT_H + 12


def _board_table(canvas: Image.Image, table: BoardTable, x: int, y: int, height: int,
                 lang: str, width: int = PANEL_W) -> None:
    draw = ImageDraw.Draw(canvas)
    draw.rounded_rectangle((x, y, x + width, y + height), 16, fill=PANEL,
                           outline=OUT if table.done else GOLD, width=2)
    draw.ellipse((x + 18, y + 20, x + 34, y + 36), fill=OUT if table.done else THROUGH)
    draw_text(canvas, (x + 46, y + 28), drawable(table.header, lang), 24,
              MUTED if table.done else GOLD, anchor="lm", lang=lang, max_width=width - 64)
    top = y + PANEL_HEAD
    for i, seat in enumerate(table.seats):
        mid = top + i * SEAT_H + SEAT_H / 2
        color = OUT if seat.out else WHITE
        right = x + width - 16
        tag_w = 0
        if seat.tag:
            tag_w = pill(canvas, (right, round(mid)), drawable(seat.tag, lang), 18,
                         fill=(60, 66, 62) if seat.out else (36, 128, 72), color=WHITE,
                         anchor="r", lang=lang) + 10
        wins_x = right - tag_w
        if seat.wins:
            wins_x -= draw_text(canvas, (wins_x, mid), drawable(seat.wins, lang), 20, MUTED,
                                anchor="rm", lang=lang, max_width=110) + 14
        score_x = min(x + max(330, width // 2), wins_x - 120)
        draw_text(canvas, (score_x, mid), drawable(seat.score, lang), 24,
                  GOLD if i == 0 and not seat.out else color, anchor="lm", lang=lang,
                  max_width=wins_x - score_x - 8)
        room = score_x - 12 - (x + 24)
        draw_text(canvas, (x + 24, mid), fit_name(seat.name, 26, room, lang) or "?", 26, color,
                  anchor="lm", lang=lang, max_width=room)


def tournament_board_image(scene: TournamentBoardScene) -> Image.Image:
    """The board as an ``RGB`` image; see :func:`render_tournament_board`."""
    if not isinstance(scene, TournamentBoardScene):
        raise RenderError(f"a tournament board is drawn from a TournamentBoardScene, not "
                          f"{scene!r}")
    lang = scene.lang
    rows = [scene.tables[i:i + 2] for i in range(0, len(scene.tables), 2)]
    heights = [max(_panel_h(t) for t in row) for row in rows]
    extra = (56 if scene.byes else 0) + (40 if scene.note else 0)
    canvas = felt(WIDTH, HEAD_H + sum(h + 20 for h in heights) + extra + 12)
    _head(canvas, scene.title, scene.mark, lang)
    y = HEAD_H
    alone = len(scene.tables) == 1  # one table (a final): the whole width
    for row, height in zip(rows, heights, strict=True):
        for j, table in enumerate(row):
            _board_table(canvas, table, 24 + j * (PANEL_W + 24), y, height, lang,
                         WIDTH - 48 if alone else PANEL_W)
        y += height + 20
    if scene.byes:
        ImageDraw.Draw(canvas).rounded_rectangle((24, y, WIDTH - 24, y + 44), 14, fill=PANEL)
        draw_text(canvas, (48, y + 22), drawable(scene.byes, lang), 24, THROUGH, anchor="lm",
                  lang=lang, max_width=WIDTH - 96)
        y += 56
    if scene.note:
        draw_text(canvas, (WIDTH / 2, y + 18), drawable(scene.note, lang), 22, MUTED,
                  anchor="mm", lang=lang, max_width=WIDTH - 96)
    return canvas


def render_tournament_board(scene: TournamentBoardScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a tournament stage's board (RULES.md §10.1), 1280 px wide: the trophy and
    the title, then each table in a panel, two a row (a lone table the whole width): its
    number, deals played, playing or finished; per player best first the name, the score, the
    deals won and a tag for who is through, or who left; then the byes, a note; a closed
    tournament's mark at the top right.

    Raises:
        RenderError: not a :class:`TournamentBoardScene`, or an unknown format.
    """
    return encode(tournament_board_image(scene), fmt)


# --- The final ranking ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FinalRow:
    """A member in the final ranking: ``place`` (1 = champion; equal places share; ``None``:
    left, no place), ``name``, ``score`` as read (empty: none), ``prize`` in beans (≥ 0)."""

    place: int | None
    name: str
    score: str = ""
    prize: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_name(self.name))
        if self.place is not None:
            _whole(self.place, "place", 1)
        _text(self.score, "score", empty=True)
        _whole(self.prize, "prize")


@dataclass(frozen=True, slots=True)
class FinalScene:
    """The final ranking (RULES.md §10.1): ``title``, ``rows`` best first (the members who
    left last), ``champion``: the word under the champion's name, ``seed`` and ``seed_hash``:
    the revealed seed's line and its SHA-256's, ``labels``: the column heads (``place``,
    ``player``, ``score``, ``prize``) and the ``left`` tag."""

    title: str
    rows: tuple[FinalRow, ...]
    champion: str
    seed: str
    seed_hash: str
    labels: Labels = ENGLISH
    prize_beans: str = "+{beans}"

    def __post_init__(self) -> None:
        for what in ("title", "champion", "seed", "seed_hash", "prize_beans"):
            _text(getattr(self, what), what)
        rows = tuple(self.rows)
        if not 1 <= len(rows) <= MAX_ROWS or not all(isinstance(r, FinalRow) for r in rows):
            raise RenderError(f"a final ranking has 1 to {MAX_ROWS} FinalRow rows")
        object.__setattr__(self, "rows", rows)
        if not isinstance(self.labels, Labels):
            raise RenderError(f"labels must be images.Labels, not {self.labels!r}")


#: The final's column centres (left edge for the name).
FINAL_COLUMNS = {"place": 80, "name": 150, "score": 800, "prize": 1080}
CHAMPION_H = 150


def final_image(scene: FinalScene) -> Image.Image:
    """The final ranking as an ``RGB`` image; see :func:`render_tournament_final`."""
    if not isinstance(scene, FinalScene):
        raise RenderError(f"a final ranking is drawn from a FinalScene, not {scene!r}")
    words = scene.labels
    lang = words.lang
    champions = [r for r in scene.rows if r.place == 1]
    top = HEAD_H + (CHAMPION_H if champions else 0) + 44
    canvas = felt(WIDTH, top + len(scene.rows) * ROW_H + 24 + 96)
    draw = ImageDraw.Draw(canvas)
    _head(canvas, scene.title, "", lang)
    y = HEAD_H
    if champions:  # the champion(s) crowned: a big crown over the name(s)
        draw.rounded_rectangle((24, y, WIDTH - 24, y + CHAMPION_H - 16), 20, fill=PANEL,
                               outline=GOLD, width=3)
        trophy(draw, 110, y + 18, 98)
        trophy(draw, WIDTH - 110, y + 18, 98)
        crown(draw, WIDTH / 2, y + 50, 60)
        names = " · ".join(fit_name(r.name, 40, 900 // len(champions), lang) or "?"
                           for r in champions)
        draw_text(canvas, (WIDTH / 2, y + 78), names, 40, GOLD, anchor="mm", lang=lang,
                  max_width=WIDTH - 420)
        draw_text(canvas, (WIDTH / 2, y + 118), drawable(scene.champion, lang), 22, MUTED,
                  anchor="mm", lang=lang, max_width=400)
        y += CHAMPION_H
    heads = (("place", words.place, "mm"), ("name", words.player, "lm"),
             ("score", words.score, "mm"), ("prize", words.prize, "mm"))
    for key, text, anchor in heads:
        draw_text(canvas, (FINAL_COLUMNS[key], y + 18), text, 20, MUTED, anchor=anchor,
                  lang=lang, max_width=400 if key == "name" else 200)
    y += 44
    for i, row in enumerate(scene.rows):
        draw, mid = row_start(canvas, y + i * ROW_H, i % 2 == 0)
        left = row.place is None
        place_badge(canvas, draw, FINAL_COLUMNS["place"], mid, "-" if left else str(row.place),
                    None if left else MEDALS.get(row.place or 0),
                    24 if (row.place or 0) < 100 else 18)
        name_x = FINAL_COLUMNS["name"]
        if row.place == 1:
            crown(draw, name_x + 18, mid + 12, 36)
            name_x += 48
        color = OUT if left else WHITE
        room = FINAL_COLUMNS["score"] - 110 - name_x
        if left:
            room -= pill(canvas, (FINAL_COLUMNS["score"] - 110, round(mid)),
                         drawable(words.left, lang), 18, fill=(60, 66, 62), color=WHITE,
                         anchor="r", lang=lang) + 12
        draw_text(canvas, (name_x, mid), fit_name(row.name, 28, room, lang) or "?", 28, color,
                  anchor="lm", lang=lang, max_width=room)
        if row.score:
            draw_text(canvas, (FINAL_COLUMNS["score"], mid), drawable(row.score, lang), 28,
                      GOLD if row.place == 1 else color, anchor="mm", lang=lang, max_width=200)
        if row.prize:
            draw_text(canvas, (FINAL_COLUMNS["prize"], mid),
                      drawable(scene.prize_beans.format(beans=f"{row.prize:,d}"), lang), 28,
                      GOLD, anchor="mm", lang=lang, max_width=300)
    y += len(scene.rows) * ROW_H + 24
    draw_text(canvas, (WIDTH / 2, y + 24), drawable(scene.seed, lang), 22, WHITE, anchor="mm",
              lang=lang, max_width=WIDTH - 64)
    draw_text(canvas, (WIDTH / 2, y + 64), drawable(scene.seed_hash, lang), 20, MUTED,
              anchor="mm", lang=lang, max_width=WIDTH - 64)
    return canvas


def render_tournament_final(scene: FinalScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a tournament's final ranking (RULES.md §10.1), 1280 px wide: the trophy and
    the title, the champion crowned between two trophies, then per member the place (medals
    for the first three, ``-`` for one who left, tagged), the name (a crown for the champion),
    the score and the prize in beans; the revealed seed and its SHA-256 at the bottom.

    Raises:
        RenderError: not a :class:`FinalScene`, or an unknown format.
    """
    return encode(final_image(scene), fmt)


__all__ = [
    "BoardSeat",
    "BoardTable",
    "FinalRow",
    "FinalScene",
    "PrizeSlot",
    "SignupScene",
    "TournamentBoardScene",
    "render_tournament_signup",
    "render_tournament_board",
    "render_tournament_final",
    "trophy",
]
