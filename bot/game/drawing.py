"""What one message should show: text or caption, keyboard, and the picture's input.

A :class:`Drawing` is built by the game layer from :mod:`bot.presentation.views` and
:mod:`bot.presentation.scenes` and handed to the outlet, which brings the message to it with as few
Bot API calls as it can (:func:`bot.telegram.outlet.send.present`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from bot.presentation.keyboards import Keyboard


@dataclass(frozen=True, slots=True)
class Drawing:
    """What one message should show.

    Attributes:
        text: the message text, or the caption of the picture (cut to 1024 characters).
        markup: the inline keyboard (:mod:`bot.presentation.views` builds it), or ``None``.
        key: the picture's input (equal keys give the same picture); ``None`` for text only.
        render: gives the picture's bytes (called in a worker thread); ``None`` for text only.
        filename: the upload's file name (``.png`` / ``.jpg``).
        data: the picture's bytes once rendered.
    """

    text: str
    markup: Keyboard | None
    key: Hashable | None = None
    render: Callable[[], bytes] | None = None
    filename: str = "picture.png"
    data: bytes | None = None

    @property
    def is_photo(self) -> bool:
        return self.key is not None

    @property
    def signature(self) -> str:
        """Text, keyboard and picture input in one string: equal signatures, equal messages."""
        return f"{self.text}\n{keyboard_signature(self.markup)}\n{self.key!r}"


def keyboard_signature(markup: Keyboard | None) -> str:
    """An inline keyboard in one string (equal keyboards, equal strings; ``""`` for none)."""
    return markup.signature() if markup else ""
