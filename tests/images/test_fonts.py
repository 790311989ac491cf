"""The vendored CJK fonts (images/fonts, images/text.py): coverage, fallback, no boxes, names
cut to fit, and the package ships them (issue 10)."""

from __future__ import annotations

import doctest
import tomllib
import unicodedata
from pathlib import Path

import pytest
from PIL import Image

import images.text
from bot.core.i18n import CATALOGUES
from images.text import (
    FONT_DIR,
    FONT_FILES,
    drawable,
    face_for,
    faces,
    has_glyph,
    runs,
    shorten,
    text_mask,
    text_width,
)

ROOT = Path(__file__).resolve().parents[2]


def gb2312_level1() -> list[str]:
    return [bytes((lead, trail)).decode("gb2312") for lead in range(0xB0, 0xD8)
            for trail in range(0xA1, 0xFF) if (lead, trail) < (0xD7, 0xFA)]


def big5_common() -> list[str]:
    out = []
    for lead in range(0xA4, 0xC7):
        for trail in (*range(0x40, 0x7F), *range(0xA1, 0xFF)):
            if (lead, trail) <= (0xC6, 0x7E):
                out.append(bytes((lead, trail)).decode("big5"))
    return out


def test_the_subsets_cover_gb2312_level_1_and_the_big5_common_set() -> None:
    simplified, traditional = gb2312_level1(), big5_common()
    assert (len(simplified), len(traditional)) == (3755, 5401)
    assert all(has_glyph("sc", ch) for ch in simplified)
    assert all(has_glyph("tc", ch) for ch in traditional)


@pytest.mark.parametrize(("lang", "face"), [("zh-Hans", "sc"), ("zh-Hant", "tc"), ("en", "sc")])
def test_every_catalogue_character_is_in_its_languages_font(lang: str, face: str) -> None:
    """A picture word from the catalogue never loses a character; only symbols and emoji
    (``So``), variation selectors and joiners have no glyph, and are left out. Re-run
    images/fonts/build_subset.py when this fails after a catalogue edit."""
    chars = {c for text in CATALOGUES[lang].values() for c in text if c.isprintable()}
    missing = sorted(c for c in chars if not c.isspace() and not has_glyph(face, c)
                     and unicodedata.category(c) not in ("So", "Mn", "Cf"))
    assert missing == []


def test_a_character_no_font_has_is_left_out_never_a_box() -> None:
    assert runs("王🔥小明", "zh-Hans") == (("sc", "王小明"),)
    assert text_width("王🔥小明", 24) == text_width("王小明", 24)
    mask, _, _ = text_mask("🔥🎁", 40, "la", "en")
    assert mask.getbbox() is None
    assert drawable("🔥 Max 🔥") == "Max" and drawable("\U0002a6a5") == ""  # emoji, rare hanzi


def test_each_language_draws_its_own_glyph_forms_and_falls_back_to_the_other() -> None:
    """骨 has different simplified and traditional forms in the same code point; 韩 (simplified
    only) and 韓 (traditional only) come from whichever font has them."""
    assert faces("zh-Hant") == ("tc", "sc", "gr") and faces("zh-TW") == ("tc", "sc", "gr")
    assert faces("zh-Hans") == ("sc", "tc", "gr") == faces("en")
    assert (face_for("韓", "zh-Hans"), face_for("韩", "zh-Hant")) == ("tc", "sc")
    sc, _, _ = text_mask("骨", 64, "la", "zh-Hans")
    tc, _, _ = text_mask("骨", 64, "la", "zh-Hant")
    assert sc.tobytes() != tc.tobytes()


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("王小明", "王小明"),
        ("欧阳娜娜娜娜", "欧阳娜娜娜娜"),  # 6 hanzi fit
        ("欧阳娜娜娜娜娜", "欧阳娜娜娜娜…"),
        ("Ada Lovelace", "Ada Lovelace"),  # 12 letters fit
        ("Ada Lovelace!", "Ada Lovelace…"),
        ("🔥🔥王🔥小明🔥", "王小明"),
        ("  a   b ", "a b"),
        ("李Lee李Lee李Lee", "李Lee李Lee李…"),
        ("Ｆｕｌｌｗｉｄｔｈ", "Fullwidth"),  # full-width letters count as ordinary ones
        ("Ｌｉ　５０（明）", "Li 50（明）"),  # Chinese punctuation stays
    ],
)
def test_names_are_cut_to_6_hanzi_or_12_latin_letters(name: str, shown: str) -> None:
    assert shorten(name) == shown


def test_font_files_are_small_and_shipped_with_their_licence() -> None:
    for name in FONT_FILES.values():
        assert (FONT_DIR / name).stat().st_size < 2 * 1024 * 1024
    assert "SIL OPEN FONT LICENSE Version 1.1" in (FONT_DIR / "OFL.txt").read_text()
    assert "Bitstream Vera" in (FONT_DIR / "DejaVu-LICENSE.txt").read_text()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["images"]
    shipped = {p.name for pattern in patterns for p in (ROOT / "images").glob(pattern)}
    assert set(FONT_FILES.values()) | {"OFL.txt", "DejaVu-LICENSE.txt"} <= shipped


def test_the_whole_greek_block_is_drawn() -> None:
    """QA round 4, defect 4: 'Ζωή' kept its ή; every assigned letter and sign of U+0370–U+03FF
    has a glyph in some font."""
    greek = [chr(c) for c in range(0x0370, 0x0400) if unicodedata.category(chr(c)) != "Cn"]
    assert [c for c in greek if face_for(c, "en") is None] == []
    assert drawable("Ζωή") == "Ζωή" and shorten("Ζωή Παπαδοπούλου") == "Ζωή Παπαδοπο…"


def test_text_is_drawn_at_the_anchor() -> None:
    canvas = Image.new("L", (400, 100), 0)
    mask, dx, dy = text_mask("地主", 40, "mm", "zh-Hans")
    canvas.paste(255, (200 + dx, 50 + dy), mask)
    left, top, right, bottom = canvas.getbbox()
    assert abs((left + right) / 2 - 200) <= 2 and abs((top + bottom) / 2 - 50) <= 4


def test_docstring_examples() -> None:
    result = doctest.testmod(images.text)
    assert result.attempted >= 6 and result.failed == 0


def test_a_full_width_name_is_drawn_like_its_ordinary_letters() -> None:
    """QA: "Ｆｕｌｌｗｉｄｔｈ" (a Chinese keyboard in full-width mode) was drawn letter-spaced,
    each letter as wide as a hanzi, and cut to "Ｆｕｌｌｗｉ…"; its badge was "Ｆ"."""
    from images import SeatScene, TableScene
    from images.table import table_image
    from images.text import badge

    def table(name: str) -> Image.Image:
        return table_image(TableScene(seats=(SeatScene("F", name=name), SeatScene("B"),
                                             SeatScene("C"))))

    assert table("Ｆｕｌｌｗｉｄｔｈ").tobytes() == table("Fullwidth").tobytes()
    assert text_width(shorten("Ｆｕｌｌｗｉｄｔｈ"), 22) == text_width("Fullwidth", 22) < 110
    assert badge("Ｆｕｌｌ Ｗｉｄｔｈ", "P1") == "FW"
