"""Inline keyboards as plain values: what the views build and the game stores, compares and
passes on; the telegram layer turns one into Telegram's markup when it sends
(:func:`bot.telegram.markup.to_markup`). The attribute names are the Bot API's
(``inline_keyboard``, ``text``, ``callback_data``, ``url``), so a keyboard reads the same on
both sides."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Button:
    """One inline button: its label and either the data its press sends back (≤ 64 bytes,
    :mod:`bot.core.callbacks`) or a link it opens.

    Raises:
        ValueError: neither or both of ``callback_data`` and ``url``.
    """

    text: str
    callback_data: str | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        if (self.callback_data is None) == (self.url is None):
            raise ValueError("a button has either callback_data or a url")


@dataclass(frozen=True, slots=True, init=False)
class Keyboard:
    """An inline keyboard: rows of buttons, top to bottom, each left to right.

    >>> Keyboard([[Button("Pass", callback_data="p")]]).inline_keyboard[0][0].text
    'Pass'
    """

    inline_keyboard: tuple[tuple[Button, ...], ...]

    def __init__(self, rows: Iterable[Iterable[Button]]) -> None:
        object.__setattr__(self, "inline_keyboard", tuple(tuple(row) for row in rows))

    def signature(self) -> str:
        """The keyboard as text, equal for keyboards that look and act the same: what decides
        whether an edit would change anything."""
        return "|".join(
            ",".join(f"{b.text}>{b.callback_data or ''}>{b.url or ''}" for b in row)
            for row in self.inline_keyboard)
