"""Build the vendored CJK fonts of the pictures: ``python images/fonts/build_subset.py``.

Cuts Noto Sans CJK Bold (SIL Open Font License 1.1, ``OFL.txt`` beside this file) down to the
characters the pictures can meet, one font per script form:

* ``NotoSansCJKsc-Bold.subset.otf`` (simplified glyph forms): GB2312 level 1 (the 3,755 common
  hanzi, bytes ``B0A1``–``D7FE``) and every character of the zh-Hans catalogue;
* ``NotoSansCJKtc-Bold.subset.otf`` (traditional glyph forms): the Big5 common set (常用字, the
  5,401 hanzi at ``A440``–``C67E``) and every character of the zh-Hant catalogue;

both with ASCII, Latin-1, Latin Extended-A/B, Greek, Cyrillic, general punctuation, super- and
subscripts, arrows, CJK symbols and punctuation, kana and full-width forms, and the English
catalogue. Noto Sans CJK has only the unaccented Greek letters, so a third font,
``DejaVuSans-Bold.greek.subset.ttf``, cut from DejaVu Sans Bold (Bitstream Vera licence,
``DejaVu-LICENSE.txt``; Debian's ``fonts-dejavu-core``), holds the whole Greek block
(U+0370–U+03FF: tonos, dialytika, final sigma) for the characters the CJK fonts lack. A name's
character that no font has is left out of the picture (``images.text``); the caption keeps the
name whole.

The source is Debian's ``fonts-noto-cjk`` (``apt-get install fonts-noto-cjk``), the collection
``NotoSansCJK-Bold.ttc``; ``--source`` takes another path. Needs ``fonttools`` (the ``dev``
extra). Re-run it when a catalogue gains characters; ``tests/images/test_fonts.py`` fails until
then.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from babel.messages.pofile import read_po
from fontTools.subset import Options, Subsetter
from fontTools.ttLib import TTCollection, TTFont

HERE = Path(__file__).resolve().parent
LOCALES = HERE.parent.parent / "bot" / "i18n" / "locales"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
GREEK_SOURCE = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
GREEK_FONT = "DejaVuSans-Bold.greek.subset.ttf"
#: The Greek and Coptic block, whole (the CJK fonts lack its accented letters).
GREEK_RANGE = (0x0370, 0x03FF)

#: ``(output file, face index in the collection, catalogue, hanzi set)``.
FONTS = (
    ("NotoSansCJKsc-Bold.subset.otf", 2, "zh_Hans", "gb2312"),
    ("NotoSansCJKtc-Bold.subset.otf", 3, "zh_Hant", "big5"),
)

#: Code point ranges both fonts keep besides the hanzi (inclusive).
COMMON_RANGES = (
    (0x0020, 0x007E), (0x00A0, 0x024F), (0x0370, 0x03FF), (0x0400, 0x04FF),
    (0x2000, 0x206F), (0x2070, 0x209F), (0x2100, 0x214F), (0x2150, 0x218F), (0x2190, 0x21FF),
    (0x2460, 0x24FF), (0x25A0, 0x25FF), (0x3000, 0x303F), (0x3040, 0x30FF), (0xFF00, 0xFFEF),
)


def gb2312_level1() -> set[str]:
    """The 3,755 hanzi of GB2312 level 1 (rows 16–55)."""
    chars = set()
    for lead in range(0xB0, 0xD8):
        for trail in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):  # row 55 ends at D7F9
                chars.add(bytes((lead, trail)).decode("gb2312"))
    return chars


def big5_common() -> set[str]:
    """The 5,401 hanzi of the Big5 common set (A440–C67E)."""
    chars = set()
    for lead in range(0xA4, 0xC7):
        for trail in (*range(0x40, 0x7F), *range(0xA1, 0xFF)):
            if (lead, trail) > (0xC6, 0x7E):
                break
            with contextlib.suppress(UnicodeDecodeError):
                chars.add(bytes((lead, trail)).decode("big5"))
    return chars


def catalogue_chars(locale: str) -> set[str]:
    """Every character of the message strings of one catalogue (plural forms included)."""
    with (LOCALES / locale / "LC_MESSAGES" / "messages.po").open("rb") as po_file:
        catalog = read_po(po_file)
    chars: set[str] = set()
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            chars.update(c for c in str(text or "") if c.isprintable())
    return chars


def wanted(locale: str, hanzi: str) -> set[str]:
    """The characters one font keeps."""
    chars = gb2312_level1() if hanzi == "gb2312" else big5_common()
    chars |= catalogue_chars(locale) | catalogue_chars("en")
    for low, high in COMMON_RANGES:
        chars.update(map(chr, range(low, high + 1)))
    return chars


def build(source: Path, out_dir: Path) -> None:
    collection = TTCollection(str(source))
    for name, index, locale, hanzi in FONTS:
        font = collection.fonts[index]
        options = Options()
        options.layout_features = ["kern", "vert", "fwid", "hwid", "pwid"]
        options.name_IDs = ["*"]
        options.name_legacy = True
        options.notdef_outline = False
        options.hinting = False
        options.desubroutinize = False
        subsetter = Subsetter(options)
        chars = wanted(locale, hanzi)
        subsetter.populate(unicodes=sorted(map(ord, chars)))
        subsetter.subset(font)
        path = out_dir / name
        font.recalcTimestamp = False  # the same sources give the same bytes
        font.save(str(path))
        print(f"{path.name}: {len(chars)} characters asked, {len(font.getGlyphOrder())} glyphs, "
              f"{path.stat().st_size / 1024:.0f} KB")


def build_greek(source: Path, out_dir: Path) -> None:
    """Cut :data:`GREEK_RANGE` (and the space) out of DejaVu Sans Bold."""
    font = TTFont(str(source))
    options = Options()
    options.name_IDs = ["*"]
    options.notdef_outline = False
    options.hinting = False
    subsetter = Subsetter(options)
    low, high = GREEK_RANGE
    subsetter.populate(unicodes=[0x20, *range(low, high + 1)])
    subsetter.subset(font)
    path = out_dir / GREEK_FONT
    font.recalcTimestamp = False
    font.save(str(path))
    print(f"{path.name}: {len(font.getGlyphOrder())} glyphs, {path.stat().st_size / 1024:.0f} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE,
                        help="NotoSansCJK-Bold.ttc (Debian: fonts-noto-cjk)")
    parser.add_argument("--greek-source", type=Path, default=GREEK_SOURCE,
                        help="DejaVuSans-Bold.ttf (Debian: fonts-dejavu-core)")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    build(args.source, args.out)
    build_greek(args.greek_source, args.out)


if __name__ == "__main__":
    main()
