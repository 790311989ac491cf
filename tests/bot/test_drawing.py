"""The signature a drawn message is compared by (bot.game.drawing): equal looks, equal strings;
and a plain keyboard as Telegram's markup (bot.telegram.markup)."""

from __future__ import annotations

import pytest

from bot.game.drawing import Drawing, keyboard_signature
from bot.presentation.keyboards import Button, Keyboard
from bot.telegram.markup import to_markup


def keyboard(*rows: list[tuple[str, str]]) -> Keyboard:
    return Keyboard([[Button(text, callback_data=data) for text, data in row] for row in rows])


def test_equal_keyboards_give_equal_signatures_and_any_change_another() -> None:
    base = keyboard([("7×3", "S:t:4:r4"), ("8", "S:t:4:r5")], [("Play", "S:t:4:play")])
    same = keyboard([("7×3", "S:t:4:r4"), ("8", "S:t:4:r5")], [("Play", "S:t:4:play")])
    assert keyboard_signature(base) == keyboard_signature(same)
    assert base == same
    changed = [
        keyboard([("✅7 1/3", "S:t:4:r4"), ("8", "S:t:4:r5")], [("Play", "S:t:4:play")]),
        keyboard([("7×3", "S:t:5:r4"), ("8", "S:t:5:r5")], [("Play", "S:t:5:play")]),
        keyboard([("7×3", "S:t:4:r4")], [("8", "S:t:4:r5"), ("Play", "S:t:4:play")]),
        Keyboard([[Button("7×3", url="https://t.me/x")]]),
    ]
    signatures = {keyboard_signature(markup) for markup in changed}
    assert len(signatures) == len(changed)
    assert keyboard_signature(base) not in signatures
    assert keyboard_signature(None) == ""


def test_a_button_has_either_data_or_a_link() -> None:
    with pytest.raises(ValueError):
        Button("Play")
    with pytest.raises(ValueError):
        Button("Play", callback_data="x", url="https://t.me/x")


def test_a_keyboard_becomes_telegrams_markup_button_for_button() -> None:
    markup = to_markup(Keyboard([[Button("Pass", callback_data="A:t:1:pass"),
                                  Button("Open", url="https://t.me/bot?start=x")],
                                 [Button("Play", callback_data="A:t:1:play")]]))
    assert markup is not None
    rows = markup.inline_keyboard
    assert [[b.text for b in row] for row in rows] == [["Pass", "Open"], ["Play"]]
    assert (rows[0][0].callback_data, rows[0][0].url) == ("A:t:1:pass", None)
    assert (rows[0][1].callback_data, rows[0][1].url) == (None, "https://t.me/bot?start=x")
    assert to_markup(None) is None


def test_a_drawing_signature_holds_text_keyboard_and_picture() -> None:
    markup = keyboard([("Play", "S:t:4:play")])
    drawing = Drawing("Your cards", markup, key=(1, 2))
    assert drawing.signature == f"Your cards\n{keyboard_signature(markup)}\n(1, 2)"
    assert Drawing("Your cards", markup, key=(1, 3)).signature != drawing.signature
    assert Drawing("Your cards!", markup, key=(1, 2)).signature != drawing.signature
