"""The group settings that switch a per-player aid on or off (the card counter, 记牌器, issue
17; auto pass, 自动要不起, issue 9): a flag of the group, on by default, frozen into a deal's
:class:`TableConfig`, kept by the stored table (one stored before the flag existed reads as on)
and a toggle of the settings menu."""

from __future__ import annotations

import pytest

from bot.core.rooms import GroupSettingError, parse_value, validate_changes, with_defaults
from bot.core.table import Table, TableOptions
from bot.features.settings.menu import ITEMS
from bot.game.config import TableConfig


@pytest.mark.parametrize("key", ["card_counter", "auto_pass"])
def test_the_setting_is_a_group_flag_frozen_per_deal_and_kept_by_the_table(key: str) -> None:
    assert with_defaults({})[key] is True
    assert parse_value(key, "off") is False
    assert parse_value(key, "on") is True
    with pytest.raises(GroupSettingError):
        validate_changes({key: "yes"})
    on = TableConfig.of(with_defaults({}), default_language="en", play_timeout=30, bid_timeout=15)
    off = TableConfig.of(with_defaults({key: False}), default_language="en",
                         play_timeout=30, bid_timeout=15)
    assert (getattr(on, key), getattr(off, key)) == (True, False)
    table = Table(-1, None, "en", options=TableOptions(**{key: False}))
    assert getattr(Table.from_dict(table.to_dict()).options, key) is False
    stored = table.to_dict()
    del stored[key]  # a table stored before the setting existed
    assert getattr(Table.from_dict(stored).options, key) is True
    assert key in ITEMS and ITEMS[key].is_toggle
