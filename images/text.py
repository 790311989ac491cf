"""Text in the pictures: the vendored Noto Sans CJK fonts, per-character fallback, names cut to fit.

Two subsets of Noto Sans CJK Bold ship in ``images/fonts`` (built by
``images/fonts/build_subset.py``, OFL): simplified forms (GB2312 level 1) and traditional forms
(the Big5 common set), both with Latin, Greek, Cyrillic, punctuation, kana and every character of
the bot's catalogues, and the whole Greek block from DejaVu Sans Bold (the CJK fonts lack its
accented letters). A text is drawn in the font of its language (``zh-Hant``: traditional,
anything else: simplified); a character that font lacks comes from the other one, and a character
neither has (emoji, very rare hanzi) is left out, never drawn as a box. The caption keeps the
name whole.

All functions are pure and cached; ``lang`` is a language tag such as ``"zh-Hans"``,
``"zh-Hant"`` or ``"en"``.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"
#: Font file per script form.
FONT_FILES = {"sc": "NotoSansCJKsc-Bold.subset.otf", "tc": "NotoSansCJKtc-Bold.subset.otf",
              "gr": "DejaVuSans-Bold.greek.subset.ttf"}
#: Longest name drawn, in width units (a CJK character counts 2, others 1): 6 hanzi or 12 Latin
#: letters; a longer name is cut and ends in ``…``.
NAME_UNITS = 12
ELLIPSIS = "…"

Run = tuple[str, str]  # (face, text)
#: Full-width Latin letters and digits (``Ｆｕｌｌ``, ``５０``: what a Chinese keyboard in
#: full-width mode types) to their ordinary forms: each is as wide as a hanzi, so a word of them
#: was drawn letter-spaced. Full-width punctuation (，：（）) is Chinese punctuation and stays.
HALF_WIDTH = {code: code - 0xFEE0 for start, end in ((0xFF10, 0xFF19), (0xFF21, 0xFF3A),
                                                     (0xFF41, 0xFF5A))
              for code in range(start, end + 1)}


def faces(lang: str) -> tuple[str, ...]:
    """The fonts tried for ``lang``, in order: traditional first for ``zh-Hant``
    (``zh-TW``, ``zh-HK``), simplified first for every other language; then the Greek font
    (``gr``, the accented Greek letters the CJK fonts lack).

    >>> faces("zh-Hant"), faces("zh-Hans"), faces("en")
    (('tc', 'sc', 'gr'), ('sc', 'tc', 'gr'), ('sc', 'tc', 'gr'))
    """
    tag = lang.lower().replace("_", "-")
    traditional = tag.startswith("zh") and any(p in tag for p in ("hant", "tw", "hk", "mo"))
    return ("tc", "sc", "gr") if traditional else ("sc", "tc", "gr")


@lru_cache(maxsize=128)
def font(face: str, size: int) -> ImageFont.FreeTypeFont:
    """The vendored font ``face`` (``"sc"`` or ``"tc"``) at ``size`` px (cached; basic layout:
    no shaping is needed for Chinese and Latin, and it is several times quicker)."""
    return ImageFont.truetype(FONT_DIR / FONT_FILES[face], size,
                              layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=16384)
def has_glyph(face: str, ch: str) -> bool:
    """Whether font ``face`` draws ``ch`` (a space counts as drawn; the subsets' ``.notdef`` is
    empty, so a missing character would draw nothing and take a full width)."""
    if ch.isspace():
        return ch in (" ", "\u3000", "\u00a0")
    return font(face, 32).getmask(ch).getbbox() is not None


def face_for(ch: str, lang: str) -> str | None:
    """The first font of :func:`faces` that has ``ch``, or ``None`` if none has it."""
    return next((f for f in faces(lang) if has_glyph(f, ch)), None)


@lru_cache(maxsize=4096)
def runs(text: str, lang: str) -> tuple[Run, ...]:
    """``text`` split into runs of one font each, characters no font has left out.

    >>> runs("王小明🔥 Li", "zh-Hans")
    (('sc', '王小明 Li'),)
    >>> runs("韓梅梅", "zh-Hans")
    (('tc', '韓'), ('sc', '梅梅'))
    """
    out: list[list[str]] = []
    for ch in text:
        face = face_for(ch, lang)
        if face is None:
            continue
        if out and out[-1][0] == face:
            out[-1][1] += ch
        else:
            out.append([face, ch])
    return tuple((face, part) for face, part in out)


def drawable(text: str, lang: str = "en") -> str:
    """``text`` without the characters no font has, spaces collapsed and trimmed, full-width
    letters and digits in their ordinary forms (:data:`HALF_WIDTH`).

    >>> drawable("🔥 Max 🔥"), drawable("🤖🤖"), drawable("Ｆｕｌｌ（５０）")
    ('Max', '', 'Full（50）')
    """
    text = text.translate(HALF_WIDTH)
    return " ".join("".join(part for _, part in runs(text, lang)).split())


def width_units(ch: str) -> int:
    """2 for a wide (CJK, full-width) character, else 1."""
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def shorten(text: str, units: int = NAME_UNITS, lang: str = "en") -> str:
    """A name as pictures draw it: :func:`drawable`, cut to ``units`` width units with ``…``.

    >>> shorten("欧阳娜娜娜娜娜"), shorten("Alexander the Great"), shorten("王小明")
    ('欧阳娜娜娜娜…', 'Alexander th…', '王小明')
    """
    text = drawable(text, lang)
    if sum(map(width_units, text)) <= units:
        return text
    out, used = "", 0
    for ch in text:
        used += width_units(ch)
        if used > units:
            break
        out += ch
    return out.rstrip() + ELLIPSIS


@lru_cache(maxsize=4096)
def fit_name(text: str, size: int, max_width: int, lang: str = "en") -> str:
    """A name as a board (leaderboard, standings, a challenge's board) draws it: :func:`drawable`,
    cut with ``…`` to at most ``max_width`` px at ``size`` px, so a wide column shows as much of
    the name as it has room for (the table and result pictures cut to :data:`NAME_UNITS`
    instead, :func:`shorten`). Cached.

    >>> fit_name("Annabelle-Christina Longname", 28, 200), fit_name("王小明", 28, 200)
    ('Annabelle-C…', '王小明')
    >>> fit_name("韩梅梅是一个很长很长的名字", 28, 435)
    '韩梅梅是一个很长很长的名字'
    """
    text = drawable(text, lang)
    if text_width(text, size, lang) <= max_width:
        return text
    room = max_width - text_width(ELLIPSIS, size, lang)
    cut, used = 0, 0.0
    for ch in text:  # basic layout, no kerning: a prefix is as wide as its characters
        face = face_for(ch, lang)
        used += font(face, size).getlength(ch) if face else 0.0
        if used > room:
            break
        cut += 1
    while cut and text_width(text[:cut].rstrip() + ELLIPSIS, size, lang) > max_width:
        cut -= 1
    return text[:cut].rstrip() + ELLIPSIS


@lru_cache(maxsize=4096)
def text_width(text: str, size: int, lang: str = "en") -> int:
    """Advance width of ``text`` in pixels at ``size`` (characters no font has count 0;
    cached)."""
    return round(sum(font(face, size).getlength(part) for face, part in runs(text, lang)))


def fit_size(text: str, size: int, max_width: int, lang: str = "en", smallest: int = 10) -> int:
    """``size``, or the largest smaller size (down to ``smallest``) at which ``text`` is at most
    ``max_width`` px wide."""
    width = text_width(text, size, lang)
    if width <= max_width or not width:
        return size
    return max(smallest, int(size * max_width / width))


@lru_cache(maxsize=2048)
def text_mask(text: str, size: int, anchor: str, lang: str) -> tuple[Image.Image, int, int]:
    """``(mask, dx, dy)``: ``text`` as an ``L`` mask and its offset from the anchor point.

    ``anchor`` is Pillow's two letters: horizontal ``l``/``m``/``r``, vertical ``a`` (ascender),
    ``m`` (middle), ``s`` (baseline), ``d`` (descender). Cached: the same labels come back in
    every picture, and pasting a mask is far cheaper than laying out text again.
    """
    parts = runs(text, lang)
    ascent, descent = font("sc", size).getmetrics()
    width = max(1, sum(round(font(face, size).getlength(part)) for face, part in parts))
    pad = size // 4  # ink may reach past the advance (italic-like overhangs, "j")
    im = Image.new("L", (width + 2 * pad, ascent + descent), 0)
    draw = ImageDraw.Draw(im)
    x = pad
    for face, part in parts:
        f = font(face, size)
        draw.text((x, ascent), part, font=f, fill=255, anchor="ls")
        x += round(f.getlength(part))
    h, v = anchor[0], anchor[1]
    dx = {"l": 0, "m": -width // 2, "r": -width}[h] - pad
    dy = {"a": 0, "t": 0, "m": -(ascent + descent) // 2, "s": -ascent, "b": -ascent - descent,
          "d": -ascent - descent}[v]
    return im, dx, dy


def badge(name: str, fallback: str, lang: str = "en") -> str:
    """What a seat's round badge shows for a name: its first hanzi (or other wide character),
    else the initials of up to two words, else ``fallback`` (a seat number).

    >>> badge("王小明", "P1"), badge("ada lovelace", "P2"), badge("🔥🔥", "P3"), badge("Иван", "P4")
    ('王', 'AL', 'P3', 'И')
    """
    text = drawable(name, lang)
    if text and width_units(text[0]) == 2:
        return text[0]
    initials = ""
    for word in text.split():
        first = next((ch for ch in word if ch.isalnum()), "")
        if first and width_units(first) == 2:
            break
        initials += first.upper()
        if len(initials) == 2:
            break
    return initials or fallback
