"""bot.core.rooms: stake tiers (RULES.md §8) and group settings validation."""

from __future__ import annotations

import doctest

import pytest

import bot.core.beans
import bot.core.rooms
from bot.core.rooms import (
    DEFAULT_GROUP_SETTINGS,
    GroupSettingError,
    StakeTier,
    parse_value,
    room_stake,
    rules_for,
    typed_choices,
    validate_changes,
    with_defaults,
)


def test_stake_tiers_follow_rules_section_8():
    assert room_stake(with_defaults({})) == StakeTier("beginner", 10, 0)
    assert room_stake(with_defaults({"stake_tier": "regular"})) == StakeTier("regular", 20, 280)
    assert room_stake(with_defaults({"stake_tier": "expert"})) == StakeTier("expert", 50, 850)
    custom = with_defaults({"stake_tier": "custom", "custom_stake": 35, "custom_min_balance": 700})
    assert room_stake(custom) == StakeTier("custom", 35, 700)


def test_the_words_a_refusal_offers_are_the_values_a_setting_takes():
    for key in DEFAULT_GROUP_SETTINGS:
        words = typed_choices(key)
        if words is None:
            continue
        values = [parse_value(key, word) for word in words]
        assert len(set(map(repr, values))) == len(words), key  # each word a value of its own
        assert repr(DEFAULT_GROUP_SETTINGS[key]) in map(repr, values), key
    assert typed_choices("stake_tier") == ("beginner", "regular", "expert", "custom")
    assert typed_choices("language") == ("zh-Hans", "zh-Hant", "en", "default")
    assert parse_value("language", "default") is None
    assert typed_choices("custom_stake") is None and typed_choices("timezone") is None


def test_validate_changes_accepts_typed_values():
    changes = {"bidding": "rob", "multiplier_cap": 64, "doubling": None, "language": "zh-Hant"}
    assert validate_changes(changes) == changes


@pytest.mark.parametrize(
    ("key", "value", "code"),
    [
        ("colour", "red", "unknown_setting"),
        ("bidding", "auction", "invalid_value"),
        ("show_cards", 1, "invalid_value"),  # a flag must be a bool
        ("custom_stake", True, "invalid_value"),  # a number must not be a bool
        ("custom_stake", 0, "invalid_value"),
        ("alarm_at", 2.0, "invalid_value"),
        ("play_timeout", 2, "invalid_value"),
        ("timezone", "Mars/Olympus", "invalid_value"),
        ("language", "fr", "invalid_value"),
        ("stake_tier", "master", "invalid_value"),
    ],
)
def test_validate_changes_refuses_bad_settings(key, value, code):
    with pytest.raises(GroupSettingError) as error:
        validate_changes({key: value})
    assert (error.value.key, error.value.code) == (key, code)


def test_with_defaults_ignores_unknown_and_no_longer_valid_stored_values():
    settings = with_defaults({"bidding": "rob", "old_option": 1, "alarm_at": 9})
    assert settings["bidding"] == "rob"
    assert "old_option" not in settings
    assert settings["alarm_at"] == 2
    assert set(settings) == set(DEFAULT_GROUP_SETTINGS)


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("give_enabled", "ON", True),
        ("daily_post", "off", False),
        ("doubling", "no", False),
        ("doubling", "default", None),
        ("multiplier_cap", "64", 64),
        ("multiplier_cap", "unlimited", None),
        ("play_timeout", " 20 ", 20),
        ("language", "zh-hant", "zh-Hant"),
        # QA5 defect 8: Telegram-style tags, mapped as players' languages are
        ("language", "zh-TW", "zh-Hant"),
        ("language", "zh-hk", "zh-Hant"),
        ("language", "zh_Hant_TW", "zh-Hant"),
        ("language", "zh-cn", "zh-Hans"),
        ("language", "zh", "zh-Hans"),
        ("language", "en-US", "en"),
        ("language", "default", None),
        ("stake_tier", "Expert", "expert"),
        ("timezone", "Europe/Berlin", "Europe/Berlin"),
        ("autoplay", "AI", "ai"),
        # QA of issue 9: the words the bot itself shows for a value, typed back to it
        ("auto_pass", "关", False),
        ("auto_pass", "開", True),
        ("card_counter", "Off", False),
        ("doubling", "默认", None),
        ("multiplier_cap", "不封顶", None),
        ("play_timeout", "預設", None),
        ("language", "繁體中文", "zh-Hant"),
        ("language", "English", "en"),
        ("custom_stake", "1,000", 1000),
        ("custom_min_balance", "10,000,000", 10_000_000),
        ("timezone", "asia/shanghai", "Asia/Shanghai"),
    ],
)
def test_parse_value(key, text, value):
    assert parse_value(key, text) == value


@pytest.mark.parametrize(
    ("key", "text"),
    [("multiplier_cap", "-4"), ("give_enabled", "maybe"), ("nope", "1"), ("language", "fr-FR"),
     ("language", "chinese"), ("custom_min_balance", "10000001"), ("custom_stake", "1,0"),
     ("custom_stake", "10,00"), ("custom_stake", ",500"), ("auto_pass", "默认")],
)
def test_parse_value_refuses_bad_text(key, text):
    with pytest.raises(GroupSettingError):
        parse_value(key, text)


def test_rules_for_builds_the_engine_preset_with_house_options():
    rules = rules_for(with_defaults({}))
    assert (rules.bidding, rules.doubling, rules.multiplier_cap) == ("score", False, None)
    rob = rules_for(with_defaults({"bidding": "rob"}))
    assert (rob.bidding, rob.doubling) == ("rob", True)  # preset default kept
    custom = rules_for(
        with_defaults(
            {"bidding": "rob", "doubling": False, "multiplier_cap": 64, "rocket_kickers": True}
        )
    )
    assert (custom.doubling, custom.multiplier_cap, custom.rocket_kickers) == (False, 64, True)


@pytest.mark.parametrize("module", [bot.core.beans, bot.core.rooms])
def test_docstring_examples_hold(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
