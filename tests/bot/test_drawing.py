"""The signature a drawn message is compared by (bot.game.drawing): equal looks, equal strings."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.game.drawing import Drawing, keyboard_signature


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(text, callback_data=data)
                                  for text, data in row] for row in rows])


def test_equal_keyboards_give_equal_signatures_and_any_change_another() -> None:
    base = keyboard([("7×3", "S:t:4:r4"), ("8", "S:t:4:r5")], [("Play", "S:t:4:play")])
    same = keyboard([("7×3", "S:t:4:r4"), ("8", "S:t:4:r5")], [("Play", "S:t:4:play")])
    assert keyboard_signature(base) == keyboard_signature(same)
    changed = [
        keyboard([("✅7 1/3", "S:t:4:r4"), ("8", "S:t:4:r5")], [("Play", "S:t:4:play")]),
        keyboard([("7×3", "S:t:5:r4"), ("8", "S:t:5:r5")], [("Play", "S:t:5:play")]),
        keyboard([("7×3", "S:t:4:r4")], [("8", "S:t:4:r5"), ("Play", "S:t:4:play")]),
        InlineKeyboardMarkup([[InlineKeyboardButton("7×3", url="https://t.me/x")]]),
    ]
    signatures = {keyboard_signature(markup) for markup in changed}
    assert len(signatures) == len(changed)
    assert keyboard_signature(base) not in signatures
    assert keyboard_signature(None) == ""


def test_other_kinds_of_button_are_compared_by_their_json() -> None:
    app = InlineKeyboardMarkup([[InlineKeyboardButton("Open", web_app=WebAppInfo("https://a"))]])
    other = InlineKeyboardMarkup([[InlineKeyboardButton("Open", web_app=WebAppInfo("https://b"))]])
    assert keyboard_signature(app) == app.to_json()
    assert keyboard_signature(app) != keyboard_signature(other)


def test_a_drawing_signature_holds_text_keyboard_and_picture() -> None:
    markup = keyboard([("Play", "S:t:4:play")])
    drawing = Drawing("Your cards", markup, key=(1, 2))
    assert drawing.signature == f"Your cards\n{keyboard_signature(markup)}\n(1, 2)"
    assert Drawing("Your cards", markup, key=(1, 3)).signature != drawing.signature
    assert Drawing("Your cards!", markup, key=(1, 2)).signature != drawing.signature
