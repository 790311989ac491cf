"""Where a seat's hand is shown: the button on the hand that moves it between the group (an
ephemeral message only its player sees) and the player's private chat with the bot."""

from __future__ import annotations

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.core.table import Table
from bot.presentation.keyboards import Button, Keyboard


def may_be_in_group(table: Table) -> bool:
    """The table's hands may be shown in its group: a group's three-seat table (a practice or
    challenge table is a private chat; a four-seat table, RULES.md §11, keeps them private; a
    tournament's table is played in its players' private chats, §10.1)."""
    return not table.private and table.competition.tournament is None \
        and table.options.seat_count == 3


def switch_button(table: Table, seat: int) -> Button | None:
    """The button that moves the seat's hand: 📨 into the private chat for a hand shown in the
    group, 👥 into the group for one shown privately at a table whose group shows them in the
    group (a player who chose private gets back); ``None`` where it cannot move."""
    if not may_be_in_group(table) or seat >= len(table.seats):
        return None
    player = table.seats[seat]
    lang = table.seat_lang(seat)
    if player.in_group:
        return Button(t("btn.hands_to_private", lang),
                      callback_data=cb.make_callback(cb.MY_CARDS, table.token, 0,
                                                     cb.HANDS_PRIVATE))
    if table.options.hands == "group":
        return Button(t("btn.hands_to_group", lang),
                      callback_data=cb.make_callback(cb.MY_CARDS, table.token, 0,
                                                     cb.HANDS_GROUP))
    return None


def with_switch(markup: Keyboard | None, table: Table, seat: int) -> Keyboard | None:
    """``markup`` with the seat's :func:`switch_button` as its last row (when there is one)."""
    button = switch_button(table, seat)
    if button is None:
        return markup
    rows = list(markup.inline_keyboard) if markup is not None else []
    return Keyboard([*rows, (button,)])
