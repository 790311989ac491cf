"""The result picture: who won (or who left), how the multiplier came about, and each seat's
name, points, beans and the cards it was left with (RULES.md §3, §4.4, §7, §8, §9)."""

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
)
from images.fan import draw_cards_block
from images.models import ResultScene, ResultSeat
from images.text import shorten, text_width

WIDTH = 1280
TOP = 190
#: Extra room under the title for the leavers' lines, per line.
ESCAPE_LINE = 40
ROW_H = 136
ROW_GAP = 12
LEFT_CARD = 64
GAIN = (110, 230, 120)
NAME_X, NAME_W = 160, 250
POINTS_X, BEANS_X, CARDS_X = 500, 660, 740
#: The amounts are drawn at :data:`AMOUNT_SIZE` px in a column at most :data:`AMOUNT_W` px wide
#: (a wider points figure is drawn smaller); the beans column may widen to the right up to
#: :data:`BEANS_MAX_W` px for big amounts (``+98,765,432``), starting no further left than
#: :data:`BEANS_LEFT`, and the cards (or ``played_out``) move right to stay at least
#: :data:`AMOUNT_GAP` px clear of it. Amounts wider still are drawn smaller.
AMOUNT_SIZE, AMOUNT_W = 40, 150
BEANS_LEFT = POINTS_X + AMOUNT_W // 2 + 10
BEANS_MAX_W = 280
AMOUNT_GAP = 20
#: Narrower widths for many cards left (a four-player hand of 25 or 33), to stay one row.
NARROW_LEFT_CARDS = (52, 40)
#: A row's tags (win/lose, auto-play, left …) stay left of the points column: they are drawn
#: smaller, in at most two lines (more at the smallest size), when they do not fit one line.
TAG_ROOM = POINTS_X - 70 - NAME_X
TAG_SIZES = (16, 14, 12)
TAG_GAP = 8
Tag = tuple[str, tuple[int, int, int]]


def signed(value: int) -> str:
    """``+12``, ``-3,840`` or ``0`` (no sign on zero), digits grouped by three as the texts
    write beans (``bot.core.numbers.signed``)."""
    return f"{value:+,d}" if value else "0"


def _farmers(scene: ResultScene) -> list[ResultSeat]:
    return [s for s in scene.seats if s.role == "farmer"]


def show_factor(scene: ResultScene) -> int:
    """The deal's show factor: the largest one a seat took (4 before bidding, 2 after), 1 if
    nobody showed; it multiplies every pair, and two shows do not multiply each other
    (RULES.md §3)."""
    return max(1, *(s.shown for s in scene.seats))


def parts_product(scene: ResultScene, farmer: ResultSeat) -> int:
    """A pair's multiplier from the parts the picture shows, before the cap (RULES.md §3, §7,
    §11)."""
    bombs = scene.bombs if scene.bombs_double else 0
    m = 2 ** (scene.robs + bombs + (scene.spring or scene.anti_spring))
    landlord = scene.landlord
    m *= show_factor(scene) * (2 if landlord is not None and landlord.doubled else 1)
    return m * (2 if farmer.doubled else 1)


def pair_multipliers(scene: ResultScene) -> list[int]:
    """Each farmer's pair multiplier as the picture's parts give it, capped: what the engine's
    result must say for the picture to add up."""
    products = [parts_product(scene, f) for f in _farmers(scene)]
    return products if scene.cap is None else [min(m, scene.cap) for m in products]


def totals(scene: ResultScene) -> list[int]:
    """The distinct pair multipliers in seat order (the farmers' ``multiplier``, else the scene's),
    e.g. ``[8, 4]`` when only one farmer doubled."""
    values = [f.multiplier or scene.multiplier for f in _farmers(scene)] or [scene.multiplier]
    return list(dict.fromkeys(values))


def breakdown(scene: ResultScene) -> list[str]:
    """The parts every pair shares, then the cap if it cut, then the total(s) and the 头撂
    bonus, as the picture's tags (RULES.md §3, §7, §11), e.g. ``['Base 3', 'Robbed 2 times ×4',
    'Show ×2', '1 bomb ×2', '×16']``. A deal left during the bidding has one tag, the leaver's
    payment (RULES.md §9): the flat one before anyone bid (``base`` 0), else the one for the
    highest bid (``base``) and the multiplier so far (``multiplier``). A practice deal its
    player ended has one tag, ``practice_free``: every seat scores 0, there is no multiplier
    to explain.

    A farmer's own doubling is in its row (:func:`seat_factors`)."""
    words = scene.labels
    landlord = scene.landlord
    leavers = escaped_seats(scene)
    if ended_practice(scene):
        return [words.practice_free]
    if landlord is None:
        paid = -leavers[0].points
        if scene.base:
            return [words.bidding_escape_bid.format(n=f"{paid:,d}", base=scene.base,
                                                    m=scene.multiplier)]
        return [words.bidding_escape.format(n=f"{paid:,d}")]
    parts = [words.base.format(base=scene.base)]
    if scene.robs:
        parts.append(_times(words.rob, words.rob_one, scene.robs))
    if show_factor(scene) > 1:
        parts.append(words.show.format(m=show_factor(scene)))
    if landlord.doubled:
        parts.append(words.landlord_double.format(m=2))
    bombs = scene.bombs - scene.rockets if scene.bombs_double else 0
    if bombs:
        parts.append(_times(words.bombs, words.bomb_one, bombs))
    if scene.rockets and scene.bombs_double:
        parts.append(_times(words.rockets, words.rocket_one, scene.rockets))
    if scene.spring:
        parts.append(words.spring.format(m=2))
    if scene.anti_spring:
        parts.append(words.anti_spring.format(m=2))
    capped = any(parts_product(scene, f) > (f.multiplier or scene.multiplier)
                 for f in _farmers(scene))
    if scene.cap is not None and capped:
        parts.append(words.cap.format(m=scene.cap))
    parts.append(" / ".join(words.multiplier.format(n=m) for m in totals(scene)))
    if scene.bonus:
        parts.append(words.head_bid.format(n=scene.bonus))
    return parts


def _times(many: str, once: str, n: int) -> str:
    """A doubling event's tag: ``once`` for one (``{m}`` = 2), ``many`` for ``n`` (``{n}``,
    ``{m}`` = 2**n)."""
    return once.format(m=2) if n == 1 else many.format(n=n, m=2 ** n)


def seat_factors(scene: ResultScene, seat: ResultSeat) -> list[str]:
    """A farmer's own part of its pair multiplier: its doubling (RULES.md §3)."""
    if seat.role == "landlord" or not seat.doubled:
        return []
    return [scene.labels.double.format(m=2)]


def escaped_seats(scene: ResultScene) -> list[ResultSeat]:
    return [s for s in scene.seats if s.escaped]


def ended_practice(scene: ResultScene) -> bool:
    """A practice deal its player ended (``/leave``): nobody won or lost, nobody pays."""
    return scene.practice and bool(escaped_seats(scene))


def won(scene: ResultScene, seat: ResultSeat) -> bool:
    """The seat's side won; after an escape (RULES.md §9), the seats that were paid won; in a
    practice deal its player ended, nobody (:func:`ended_practice`)."""
    if ended_practice(scene):
        return False
    if escaped_seats(scene):
        return seat.points > 0
    return (seat.role == "landlord") == (scene.winner == "landlord")


def _name(scene: ResultScene, seat: ResultSeat) -> str:
    return shorten(seat.name, lang=scene.labels.lang) or seat.label


def title_lines(scene: ResultScene) -> tuple[str, list[str]]:
    """The title and the lines under it: who left and what each paid (RULES.md §9; points only
    without beans; nothing paid in practice)."""
    words = scene.labels
    leavers = escaped_seats(scene)
    if not leavers:
        return (words.landlord_wins if scene.winner == "landlord" else words.farmers_win), []
    joiner = "、" if words.lang.lower().startswith("zh") else ", "
    names = joiner.join(_name(scene, s) for s in leavers)
    if scene.practice:
        return words.practice_left.format(names=names), []
    paid = words.escape_paid if scene.with_beans else words.escape_points
    lines = [paid.format(name=_name(scene, s), points=f"{-s.points:,d}", beans=f"{-s.beans:,d}")
             for s in leavers if s.points]  # nobody pays when every seat left; digits grouped
    # by three as in every other number of the picture and in the caption
    return words.escape_title.format(names=names), lines


def tag_lines(tags: list[Tag], lang: str) -> tuple[int, list[list[Tag]]]:
    """``(size, lines)``: the largest of :data:`TAG_SIZES` at which ``tags`` fit in at most two
    lines of :data:`TAG_ROOM` px (else the smallest size, in as many lines as they need), and
    the tags of each line."""
    for size in TAG_SIZES[:-1]:
        lines = _wrap(tags, size, lang)
        if len(lines) <= 2:
            return size, lines
    return TAG_SIZES[-1], _wrap(tags, TAG_SIZES[-1], lang)


def _wrap(tags: list[Tag], size: int, lang: str) -> list[list[Tag]]:
    """``tags`` in lines of at most :data:`TAG_ROOM` px at ``size`` (a tag wider than that
    alone on its line)."""
    lines: list[list[Tag]] = [[]]
    used = 0
    for tag in tags:
        width = text_width(tag[0], size, lang) + 2 * (size // 2)
        if lines[-1] and used + TAG_GAP + width > TAG_ROOM:
            lines.append([])
            used = 0
        used += (TAG_GAP if lines[-1] else 0) + width
        lines[-1].append(tag)
    return lines


def row_tags(scene: ResultScene, seat: ResultSeat) -> list[Tag]:
    """A row's tags, ``(word, colour)``: win or lose (none when every seat left, RULES.md §9),
    auto-play, left, the auto-play penalty, short of beans (RULES.md §8), show and a farmer's
    doubling (:func:`seat_factors`); none in a practice deal its player ended
    (:func:`ended_practice`: nobody won, lost, left or pays, the title says it all)."""
    words = scene.labels
    if ended_practice(scene):
        return []
    tags: list[Tag] = [(words.win, (40, 150, 70))] if won(scene, seat) \
        else [(words.lose, (150, 50, 50))]
    if scene.winner is None and not seat.points:  # every seat left: nobody won or lost
        tags = []
    if seat.autoplay:
        tags.append((words.autoplay, (90, 100, 96)))
    if seat.escaped:
        tags.append((words.left, ALARM))
    if seat.penalized:
        tags.append((words.penalty, (150, 50, 50)))
    if seat.short:
        tags.append((words.short, (176, 112, 20)))
    if seat.shown:
        tags.append((words.shown, (60, 110, 170)))
    return tags + [(part, (214, 96, 30)) for part in seat_factors(scene, seat)]


def beans_column(scene: ResultScene) -> tuple[int, int, int]:
    """``(centre, width, cards_x)`` of a result picture's beans column, the same for every row:
    as wide as the widest amount drawn at :data:`AMOUNT_SIZE` px (at least :data:`AMOUNT_W`,
    at most :data:`BEANS_MAX_W`), centred on :data:`BEANS_X` or further right when it would
    reach left of :data:`BEANS_LEFT`; the cards (or ``played_out``) start at :data:`CARDS_X`,
    or further right to stay :data:`AMOUNT_GAP` px clear of it. Without beans, the points
    column is the last one and the default places hold: ``(660, 150, 740)``, as for amounts
    up to ``-2,560``; ``+98,765,432`` gives ``(706, 242, 847)``.
    """
    if not scene.with_beans:
        return BEANS_X, AMOUNT_W, CARDS_X
    widest = max(text_width(signed(s.beans), AMOUNT_SIZE) for s in scene.seats)
    width = min(BEANS_MAX_W, max(AMOUNT_W, widest))
    centre = max(BEANS_X, BEANS_LEFT + (width + 1) // 2)
    drawn = min(width, widest)  # the widest amount as drawn, centred
    return centre, width, max(CARDS_X, centre + (drawn + 1) // 2 + AMOUNT_GAP)


def _row(canvas: Image.Image, scene: ResultScene, seat: ResultSeat, y: int) -> None:
    words = scene.labels
    lang = words.lang
    draw = ImageDraw.Draw(canvas)
    good = won(scene, seat)
    draw.rounded_rectangle((24, y, WIDTH - 24, y + ROW_H), 20, fill=PANEL,
                           outline=GOLD if good else (44, 96, 64), width=4 if good else 2)
    r = 42
    avatar(canvas, 24 + 28 + r, y + ROW_H / 2 + 6, r, seat.label, seat.role, lang)
    left = NAME_X
    if seat.role is not None:
        role = words.landlord if seat.role == "landlord" else words.farmer
        left += draw_text(canvas, (NAME_X, y + 34), role, 20,
                          GOLD if seat.role == "landlord" else MUTED, anchor="lm",
                          lang=lang) + 12
    name = shorten(seat.name, lang=lang)
    if name:
        draw_text(canvas, (left, y + 34), name, 26, WHITE, anchor="lm", lang=lang,
                  max_width=POINTS_X - 70 - left)
    size, lines = tag_lines(row_tags(scene, seat), lang)
    for i, line in enumerate(lines):  # one line under the name; more spread below it
        mid = y + 88 if len(lines) == 1 else y + 60 + (ROW_H - 68) * (2 * i + 1) // (2 * len(lines))
        tag_x = NAME_X
        for text, color in line:
            tag_x += pill(canvas, (tag_x, mid), text, size, fill=color, color=WHITE,
                          lang=lang) + TAG_GAP

    beans_x, beans_w, cards_x = beans_column(scene)
    columns = [(POINTS_X, AMOUNT_W, words.points, seat.points)]
    if scene.with_beans:
        columns.append((beans_x, beans_w, words.beans, seat.beans))
    for cx, room, title, value in columns:
        draw_text(canvas, (cx, y + 30), title, 18, MUTED, anchor="mm", lang=lang,
                  max_width=140)
        color = GAIN if value > 0 else ALARM if value < 0 else WHITE
        draw_text(canvas, (cx, y + 78), signed(value), AMOUNT_SIZE, color, anchor="mm",
                  max_width=room)
    pair = seat.multiplier or scene.multiplier
    if seat.role == "farmer" and abs(seat.points) == scene.base * pair + scene.bonus:
        formula = f"{scene.base} × {pair}" + (f" + {scene.bonus}" if scene.bonus else "")
        draw_text(canvas, (POINTS_X, y + 116), formula, 18, MUTED, anchor="mm")

    if seat.cards_left:
        draw_cards_block(canvas, sorted_cards(seat.cards_left), cards_x, y + 22,
                         width=LEFT_CARD, max_width=WIDTH - 48 - cards_x, align="l",
                         narrower=NARROW_LEFT_CARDS)
    else:
        draw_text(canvas, (cards_x, y + ROW_H / 2), words.played_out, 26, GOLD, anchor="lm",
                  lang=lang, max_width=WIDTH - 48 - cards_x)


def result_image(scene: ResultScene) -> Image.Image:
    """The result as an ``RGB`` image; see :func:`render_result`."""
    lang = scene.labels.lang
    title, lines = title_lines(scene)
    top = TOP + ESCAPE_LINE * len(lines)
    height = top + len(scene.seats) * (ROW_H + ROW_GAP) + 12
    canvas = felt(WIDTH, height)
    draw_text(canvas, (WIDTH / 2, 62), title, 56, GOLD, anchor="mm", lang=lang,
              max_width=WIDTH - 80)
    for i, line in enumerate(lines):
        draw_text(canvas, (WIDTH / 2, 120 + i * ESCAPE_LINE), line, 26, WHITE, anchor="mm",
                  lang=lang, max_width=WIDTH - 80)

    parts = breakdown(scene)
    size, gap = 22, 12
    while size > 12 and (sum(text_width(p, size, lang) + size for p in parts)
                         + gap * (len(parts) - 1)) > WIDTH - 48:
        size -= 2
    widths = [text_width(p, size, lang) + size for p in parts]
    x = (WIDTH - sum(widths) - gap * (len(parts) - 1)) // 2
    y = top - 50
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        x += pill(canvas, (x, y), part, size, fill=(214, 96, 30) if last else (8, 40, 24),
                  color=WHITE, lang=lang) + gap
    for i, seat in enumerate(scene.seats):
        _row(canvas, scene, seat, top + i * (ROW_H + ROW_GAP))
    return canvas


def render_result(scene: ResultScene, *, fmt: str = "PNG") -> bytes:
    """Picture of a finished deal for the group (RULES.md §3, §4.4, §7, §8, §9).

    Draws, 1280 px wide, in the scene's words: who won (``地主胜`` / ``农民胜``), or who left the
    deal with what each leaver paid; the multiplier's parts (:func:`breakdown`: base, robs, the
    show, the landlord's doubling, bombs, rockets, spring or anti-spring, the cap) ending in the
    pair multiplier(s); then one row per seat with its badge, role, name, win/lose, auto-play,
    left, penalty, short-of-beans (RULES.md §8) and show-cards tags, a farmer's doubling
    (:func:`seat_factors`), points and beans won or lost (green / red; under a farmer's points
    ``base × multiplier`` when they are that, not after an escape or a penalty) and the cards it
    was left with face up (``played_out`` for none).

    Args:
        scene: the checked :class:`ResultScene`.
        fmt: ``"PNG"`` (default: 256 colours, crisp text, ~40 KB) or ``"JPEG"``.

    Raises:
        RenderError: an unknown format.
    """
    return encode(result_image(scene), fmt)
