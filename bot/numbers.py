"""The numbers users type (amounts, user ids, settings), parsed once and strictly (issue 14).

Only ASCII digits count: ``"²"``, ``"٣"`` or ``"1e3"`` are not numbers here, although Python's
``str.isdigit`` says yes to some of them (and ``int()`` then raises or reads them). Values must
fit SQLite's INTEGER (signed 64 bits), so nothing typed can overflow a query.
"""

from __future__ import annotations

#: The largest value SQLite stores as INTEGER.
SQL_INTEGER_MAX = 2**63 - 1


def parse_whole(word: str, *, low: int = 0, high: int = SQL_INTEGER_MAX) -> int | None:
    """The whole number ``word`` spells in ASCII digits, if ``low <= value <= high``; else
    ``None`` (signs, spaces, other scripts' digits, superscripts and too many digits included).

    >>> parse_whole("120"), parse_whole("²"), parse_whole("-5"), parse_whole("9" * 30)
    (120, None, None, None)
    >>> parse_whole("0", low=1), parse_whole("007", high=10)
    (None, 7)
    """
    if not (word.isascii() and word.isdigit()) or len(word.lstrip("0")) > len(str(high)):
        return None
    value = int(word)
    return value if low <= value <= high else None


def signed(value: int) -> str:
    """A change as people write it: ``+4``, ``-4``, and ``0`` for no change (not ``+0``).

    >>> signed(4), signed(-4), signed(0)
    ('+4', '-4', '0')
    """
    return f"{value:+d}" if value else "0"
