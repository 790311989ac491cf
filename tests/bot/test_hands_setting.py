"""Where a table's hands go (the group setting ``hands``, the bot's ``DEFAULT_HANDS``): the
snapshot a deal takes, kept by a four-seat table in private, and stored with the table and its
seats (a restart finds the hands in the group where they were)."""

from __future__ import annotations

import pytest

from bot.core.rooms import validate_changes, with_defaults
from bot.core.table import Seat, Table, TableOptions
from bot.game.config import TableConfig
from bot.presentation.hands import may_be_in_group, switch_button


def _config(group: dict, default_hands: str) -> TableConfig:
    return TableConfig.of(with_defaults(group), default_language="en", play_timeout=30,
                          bid_timeout=15, default_hands=default_hands)


def test_the_group_setting_wins_over_the_bots_default():
    assert _config({}, "group").hands == "group"
    assert _config({}, "private").hands == "private"
    assert _config({"hands": "private"}, "group").hands == "private"
    assert _config({"hands": "group"}, "private").hands == "group"


def test_a_four_seat_table_keeps_the_hands_in_private():
    assert _config({"players": 4, "hands": "group"}, "group").hands == "private"
    table = Table(-100, None, "en", options=TableOptions(seat_count=4, hands="group"))
    assert not may_be_in_group(table)
    assert switch_button(table, 0) is None


def test_only_group_private_or_the_default_are_taken():
    assert validate_changes({"hands": "group"}) == {"hands": "group"}
    assert validate_changes({"hands": None}) == {"hands": None}
    with pytest.raises(ValueError):
        validate_changes({"hands": "dm"})


def test_the_table_and_its_seats_keep_where_the_hands_are():
    table = Table(-100, None, "en", options=TableOptions(hands="group"),
                  seats=[Seat(1, "Ann", in_group=True), Seat(2, "Bob")])
    table.messages.hand_message_ids = [7, None]
    back = Table.from_dict(table.to_dict())
    assert back.options.hands == "group" and [s.in_group for s in back.seats] == [True, False]
    assert back.messages.hand_message_ids == [7, None]
    assert "in_group" not in table.seats[1].to_dict()  # a private seat's dict is as before
    old = table.to_dict()
    del old["hands"]
    assert Table.from_dict(old).options.hands == "private"  # stored before the setting: private
