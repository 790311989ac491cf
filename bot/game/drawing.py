"""What one message should show: text or caption, keyboard, and the picture's input.

A :class:`Drawing` is built by the game layer from :mod:`bot.views` and :mod:`bot.scenes` and
handed to the outlet, which brings the message to it with as few Bot API calls as it can
(:func:`bot.outlet.send.present`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Drawing:
    """What one message should show.

    Attributes:
        text: the message text, or the caption of the picture (cut to 1024 characters).
        markup: the inline keyboard (:mod:`bot.views` builds it), or ``None``.
        key: the picture's input (equal keys give the same picture); ``None`` for text only.
        render: gives the picture's bytes (called in a worker thread); ``None`` for text only.
        filename: the upload's file name (``.png`` / ``.jpg``).
        data: the picture's bytes once rendered.
    """

    text: str
    markup: Any
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


def keyboard_signature(markup: Any) -> str:
    """An inline keyboard in one string (equal keyboards, equal strings; ``""`` for none): each
    button's text, callback data and URL, read from the buttons' fields rather than through
    PTB's ``to_json`` (a hand's keyboard is compared at every state of a deal, and the
    JSON of its 20 buttons cost more than the rest of the comparison). A keyboard with any
    other kind of button (a web app, an inline query, …) is compared by its JSON."""
    if not markup:
        return ""
    rows = getattr(markup, "inline_keyboard", None)
    if rows is None or any(getattr(button, name, None) is not None
                           for row in rows for button in row for name in OTHER_BUTTON_FIELDS):
        return str(markup.to_json())
    return repr(tuple(tuple((button.text, button.callback_data, button.url) for button in row)
                      for row in rows))


#: What an inline button may do besides callback data and a URL (PTB's field names).
OTHER_BUTTON_FIELDS = ("login_url", "switch_inline_query", "switch_inline_query_current_chat",
                       "switch_inline_query_chosen_chat", "callback_game", "pay", "web_app",
                       "copy_text")
