"""Card faces and backs (RULES.md §1.1), each drawn once per size and cached.

A face is a white rounded card with a thin border: the rank (``10`` for ten, never ``T``) and the
suit in the top-left corner, the same turned round in the bottom-right one; pips for 2–10, one
big pip for an ace. Hearts and diamonds are red, spades and clubs black. J, Q and K show the
English-pattern figures players know, double-headed in a blue frame that steps round the corner
indices; the jokers read ``JOKER`` down the corner over a jester: the big joker's red letters
and a red-and-gold jester, the small joker's black letters and a black line jester, so they
differ in colour and in picture. The figures and jesters are Adrian Kennard's playing cards
(CC0 1.0), rendered for every card width the pictures use and vendored as PNG under
``images/cards/`` (``cards/build_faces.py`` builds them).

Faces are drawn three times larger and scaled down (smooth edges), then kept in a bounded
``functools.lru_cache``; a picture is only compositing after that.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

from engine.cards import RANK_LABELS, card_rank, card_suit
from images.draw import INK, RED, RGB, glyph_mask
from images.models import RenderError
from images.suits import suit_mask

SS = 3  # supersampling factor
RATIO = 1.4  # height / width
#: Width of the corner index (rank and suit) as a fraction of the card width: the part of a card
#: that must stay visible when cards overlap.
INDEX_FRACTION = 0.34

#: The vendored court and joker pictures (``cards/build_faces.py``, CC0 1.0).
ART_DIR = Path(__file__).resolve().parent / "cards"
#: A court card's figure in its frame: width as a fraction of the card's, and width / height.
COURT_ART = (0.74, 167.8 / 263.8)
#: A joker's jester: the same.
JOKER_ART = (0.64, 205.8 / 315.0)
#: The top-left part of a court card kept clear of the figure for the corner index, as
#: fractions of the card width (the bottom-right one is the same turned round).
COURT_NOTCH = (INDEX_FRACTION, 0.58)

#: The court frame's blue (the deck's ``#44F``).
FRAME = (68, 68, 255)

PAPER = (253, 253, 250)
PAPER_SELECTED = (226, 239, 255)
BORDER = (150, 150, 150)
BORDER_SELECTED = (38, 120, 228)
SMALL_JOKER_INK = (40, 40, 46)
BACK = (170, 28, 40)
BACK_LINE = (214, 80, 86)

# Pip centres as (column, row): column -1/0/1 = left/centre/right, row 0..1 top to bottom.
_PIPS: dict[str, tuple[tuple[int, float], ...]] = {
    "2": ((0, 0), (0, 1)),
    "3": ((0, 0), (0, 0.5), (0, 1)),
    "4": ((-1, 0), (1, 0), (-1, 1), (1, 1)),
    "5": ((-1, 0), (1, 0), (0, 0.5), (-1, 1), (1, 1)),
    "6": ((-1, 0), (1, 0), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)),
    "7": ((-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)),
    "8": ((-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (0, 0.75), (-1, 1), (1, 1)),
    "9": ((-1, 0), (1, 0), (-1, 1 / 3), (1, 1 / 3), (0, 0.5), (-1, 2 / 3), (1, 2 / 3), (-1, 1),
          (1, 1)),
    "10": ((-1, 0), (1, 0), (0, 1 / 6), (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3),
           (0, 5 / 6), (-1, 1), (1, 1)),
}


def card_size(width: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of a card ``width`` pixels wide."""
    return width, round(width * RATIO)


def sort_key(card: int) -> tuple[int, int]:
    """Order cards by rank (RULES.md §1.1: 3 low … big joker high), then by card id."""
    return card_rank(card), card


def sorted_cards(cards: Iterable[int]) -> list[int]:
    """``cards`` from low to high rank (:func:`sort_key`)."""
    return sorted(cards, key=sort_key)


def ink_color(card: int) -> RGB:
    """Red for hearts, diamonds and the big joker; black for the rest."""
    if card == 52:
        return SMALL_JOKER_INK
    return RED if card == 53 or card_suit(card) in ("hearts", "diamonds") else INK


def art_code(card: int) -> str | None:
    """The vendored picture of ``card``: ``"KH"`` (rank letter, suit initial) for a court
    card, ``"joker_big"`` / ``"joker_small"`` for the jokers, ``None`` for the rest."""
    if card == 53:
        return "joker_big"
    if card == 52:
        return "joker_small"
    label = RANK_LABELS[card_rank(card)]
    suit = card_suit(card)
    if label not in ("J", "Q", "K") or suit is None:
        return None
    return label + suit[0].upper()


def art_name(code: str, width: int) -> str:
    """File name under :data:`ART_DIR` of picture ``code`` for a card ``width`` px wide."""
    return f"{code}-{width}.png"


def art_size(code: str, width: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of picture ``code`` on a card ``width`` px wide."""
    fraction, aspect = JOKER_ART if code.startswith("joker") else COURT_ART
    w = round(width * fraction)
    return w, round(w / aspect)


@lru_cache(maxsize=128)
def card_art(code: str, width: int) -> Image.Image:
    """The ``RGBA`` picture ``code`` (:func:`art_code`) for a card ``width`` px wide, as
    vendored for that width; for a width not vendored, the widest one scaled (cached)."""
    path = ART_DIR / art_name(code, width)
    size = art_size(code, width)
    if not path.exists():
        widest = max(ART_DIR.glob(art_name(code, 0).replace("-0", "-*")),
                     key=lambda p: int(p.stem.rsplit("-", 1)[1]))
        with Image.open(widest) as im:
            return im.convert("RGBA").resize(size, Image.Resampling.LANCZOS)
    with Image.open(path) as im:
        art = im.convert("RGBA")
    if art.size != size:
        art = art.resize(size, Image.Resampling.LANCZOS)
    return art


def _picture(im: Image.Image, card: int, w: int, h: int, paper: RGB) -> bool:
    """Paste the court figure or the jester of ``card`` (a face ``w`` × ``h`` px, drawn
    :data:`SS` times larger on ``im``) in the middle; a court figure leaves the corner
    indices' room (:data:`COURT_NOTCH`) blank. False for a card with no picture."""
    code = art_code(card)
    if code is None:
        return False
    art = card_art(code, w)
    x, y = (w - art.width) // 2, (h - art.height) // 2
    court = not code.startswith("joker")
    if court:
        art = art.copy()
        nw, nh = round(w * COURT_NOTCH[0]) - x, round(w * COURT_NOTCH[1]) - y
        blank = Image.new("RGBA", (nw, nh), (*paper, 0))
        art.paste(blank, (0, 0))
        art.paste(blank, (art.width - nw, art.height - nh))
    # nearest-neighbour up, on a grid of SS: the face's reduce(SS) gives the art's pixels back
    im.alpha_composite(art.resize((art.width * SS, art.height * SS), Image.Resampling.NEAREST),
                       (x * SS, y * SS))
    if court:  # the frame goes round the notches
        line = max(SS, round(w * SS * 0.006))
        left, top = (x + 1) * SS, (y + 1) * SS
        right, bottom = (x + art.width - 1) * SS, (y + art.height - 1) * SS
        # the lines lie just inside the figure's side of the notches' edges
        nx, ny = (x + nw) * SS + line // 2, (y + nh) * SS + line // 2
        mx, my = right - nw * SS - line // 2, bottom - nh * SS - line // 2
        draw = ImageDraw.Draw(im)
        draw.line([(left, ny), (nx, ny), (nx, top)], fill=FRAME, width=line, joint="curve")
        draw.line([(right, my), (mx, my), (mx, bottom)], fill=FRAME, width=line, joint="curve")
    return True


def _paste_mask(ink: Image.Image, mask: Image.Image, cx: float, cy: float,
                flip: bool = False) -> None:
    """Add ``mask`` to the ink layer centred at ``(cx, cy)``, turned round when ``flip``."""
    if flip:
        mask = mask.rotate(180)
    ink.paste(255, (round(cx - mask.width / 2), round(cy - mask.height / 2)), mask)


def _index(ink: Image.Image, card: int, W: int) -> None:
    """Rank over suit in the top-left corner (``JOKER`` down the corner for the jokers)."""
    col = W * INDEX_FRACTION * 0.52  # centre of the index column
    if card >= 52:
        letter = round(W * 0.115)
        y = W * 0.07
        for ch in "JOKER":
            m = glyph_mask(ch, letter, round(W * 0.2))
            ink.paste(255, (round(col - m.width / 2), round(y)), m)
            y += letter * 1.3
        return
    top, height = W * 0.06, round(W * 0.235)
    rank = glyph_mask(RANK_LABELS[card_rank(card)], height, round(W * 0.29))
    ink.paste(255, (round(col - rank.width / 2), round(top)), rank)
    pip = round(W * 0.2)
    _paste_mask(ink, suit_mask(card_suit(card), pip), col, top + height + W * 0.05 + pip / 2)


def _pips(ink: Image.Image, card: int, W: int, H: int) -> None:
    """Pips (2–10) or one big pip (A) in the middle of a number card."""
    suit = card_suit(card)
    label = RANK_LABELS[card_rank(card)]
    assert suit is not None
    if label == "A":
        big = round(W * (0.36 if suit == "spades" else 0.3))
        _paste_mask(ink, suit_mask(suit, big), W / 2, H / 2)
        return
    pip = round(W * 0.14)
    top, bottom = H * 0.19, H * 0.81
    for col, row in _PIPS[label]:
        cy = top + (bottom - top) * row
        _paste_mask(ink, suit_mask(suit, pip), W / 2 + col * W * 0.115, cy, flip=row > 0.5)


@lru_cache(maxsize=256)
def index_box(card: int, width: int) -> tuple[int, int, int, int]:
    """``(left, top, right, bottom)`` in pixels of the top-left corner index of ``card`` on a
    face ``width`` px wide: the ink of its rank and suit (``JOKER`` for a joker), rounded
    outwards. A fan whose cards step less than ``right`` apart would cover it."""
    W = width * SS
    ink = Image.new("L", (W, round(W * RATIO)), 0)
    _index(ink, card, W)
    box = ink.getbbox()
    assert box is not None
    left, top, right, bottom = box
    return left // SS, top // SS, -(-right // SS), -(-bottom // SS)


@lru_cache(maxsize=64, typed=True)  # typed: 3.0 and True must not hit the entries of 3, 1
def card_face(card: int, width: int, selected: bool = False) -> Image.Image:
    """The ``RGBA`` face of ``card`` (``0..53``), ``width`` px wide (cached, do not modify).

    ``selected`` gives the pale blue face with a blue border used for the current selection.

    Raises:
        RenderError: an unknown card.
    """
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 53:
        raise RenderError(f"unknown card {card!r} (card ids are 0..53)")
    w, h = card_size(width)
    W, H = w * SS, h * SS
    paper = PAPER_SELECTED if selected else PAPER
    color = ink_color(card)
    im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    border = round(W * (0.022 if selected else 0.009)) + SS
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=W * 0.08, fill=paper,
                           outline=BORDER_SELECTED if selected else BORDER, width=border)
    ink = Image.new("L", (W, H), 0)
    _index(ink, card, W)
    ink.paste(ink.rotate(180), (0, 0), ink.rotate(180))
    if _picture(im, card, w, h, paper):
        if card >= 52:  # a paper rim round JOKER keeps it readable over the jester's bells
            # (a box blur, any value > 0 made opaque: a dilation ~20x quicker than MaxFilter)
            rim = ink.filter(ImageFilter.BoxBlur(round(W * 0.012)))
            im.paste(paper, (0, 0), rim.point([0] + [255] * 255))
    else:
        _pips(ink, card, W, H)
    im.paste(color, (0, 0), ink)
    return im.reduce(SS)


@lru_cache(maxsize=16)
def card_back(width: int) -> Image.Image:
    """The ``RGBA`` back of a card, ``width`` px wide: red with a white frame and a lattice."""
    w, h = card_size(width)
    W, H = w * SS, h * SS
    im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rounded_rectangle((0, 0, W - 1, H - 1), radius=W * 0.08, fill=(250, 250, 250),
                           outline=BORDER, width=SS * 2)
    m = round(W * 0.08)
    inner = Image.new("RGBA", (W - 2 * m, H - 2 * m), BACK)
    d = ImageDraw.Draw(inner)
    step = W * 0.16
    line = max(SS, round(W * 0.012))
    for i in range(-12, 24):
        x = i * step
        d.line((x, 0, x + inner.height, inner.height), fill=BACK_LINE, width=line)
        d.line((x, inner.height, x + inner.height, 0), fill=BACK_LINE, width=line)
    mask = Image.new("L", inner.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, inner.width - 1, inner.height - 1),
                                           radius=W * 0.05, fill=255)
    im.paste(inner, (m, m), mask)
    return im.reduce(SS)
