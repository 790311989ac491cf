"""The numbers users type (amounts, user ids, settings), parsed once and strictly.

Only ASCII digits count, and the full-width ones a Chinese keyboard in full-width mode types
(``５０``, read as ``50``: :func:`typed_digits`): ``"²"``, ``"٣"`` or ``"1e3"`` are not numbers
here, although Python's ``str.isdigit`` says yes to some of them (and ``int()`` then raises or
reads them). Values must fit SQLite's INTEGER (signed 64 bits), so nothing typed can overflow a
query.
"""

from __future__ import annotations

#: The largest value SQLite stores as INTEGER.
SQL_INTEGER_MAX = 2**63 - 1
#: Full-width digits and signs (U+FF10–FF19, U+FF0B, U+FF0D) to ASCII.
_FULL_WIDTH = {0xFF0B: "+", 0xFF0D: "-", **{0xFF10 + d: str(d) for d in range(10)}}


def typed_digits(word: str) -> str:
    """``word`` with full-width digits and signs as ASCII ones (NFKC's reading of them, and of
    nothing else: ``²`` stays ``²``).

    >>> typed_digits("５０"), typed_digits("－５"), typed_digits("２²")
    ('50', '-5', '2²')
    """
    return word.translate(_FULL_WIDTH)


def parse_whole(word: str, *, low: int = 0, high: int = SQL_INTEGER_MAX) -> int | None:
    """The whole number ``word`` spells in ASCII (or full-width, :func:`typed_digits`) digits,
    if ``low <= value <= high``; else ``None`` (signs, spaces, other scripts' digits,
    superscripts and too many digits included).

    >>> parse_whole("120"), parse_whole("²"), parse_whole("-5"), parse_whole("9" * 30)
    (120, None, None, None)
    >>> parse_whole("0", low=1), parse_whole("007", high=10), parse_whole("５０")
    (None, 7, 50)
    """
    word = typed_digits(word)
    if not (word.isascii() and word.isdigit()) or len(word.lstrip("0")) > len(str(high)):
        return None
    value = int(word)
    return value if low <= value <= high else None


def grouped(value: int) -> str:
    """The one way the texts write an amount (beans, a balance, a stake, a fee, a prize):
    digits grouped by three with a comma, as English and both Chinese scripts write them
    (CLDR's ``#,##0`` for en, zh-Hans and zh-Hant), so ``/daily``, ``/balance`` and a deal's
    result all say ``1,320``.

    >>> grouped(1320), grouped(-45000), grouped(999)
    ('1,320', '-45,000', '999')
    """
    return f"{value:,d}"


def signed(value: int) -> str:
    """A change as people write it, grouped like :func:`grouped`: ``+4``, ``-1,200``, and
    ``0`` for no change (not ``+0``).

    >>> signed(4), signed(-1200), signed(0)
    ('+4', '-1,200', '0')
    """
    return f"{value:+,d}" if value else "0"
