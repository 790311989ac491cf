"""Our plain keyboards (:mod:`bot.presentation.keyboards`) as Telegram's inline markup: the one
place a keyboard becomes a Bot API type, just before it is sent."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.presentation.keyboards import Button, Keyboard


def to_button(button: Button) -> InlineKeyboardButton:
    """One button as Telegram's (its callback data or its link)."""
    if button.url is not None:
        return InlineKeyboardButton(button.text, url=button.url)
    return InlineKeyboardButton(button.text, callback_data=button.callback_data)


def to_markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    """``keyboard`` as Telegram's inline markup; ``None`` (no keyboard) stays ``None``."""
    if keyboard is None:
        return None
    return InlineKeyboardMarkup([[to_button(b) for b in row] for row in keyboard.inline_keyboard])
