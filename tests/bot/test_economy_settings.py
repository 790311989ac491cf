"""End to end: /settings (issue 5) — the inline menu is for group admins only, forged and stale
presses change nothing, settings apply from the next deal, and a player below the room's
minimum balance cannot sit (RULES.md §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.i18n import LANGUAGE_NAMES, t
from bot.core.rooms import (
    DEFAULT_GROUP_SETTINGS,
    TIMEOUT_RANGE,
    GroupSettingError,
    validate_changes,
)
from bot.features.settings import menu
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import Players, button_data, hand_message
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


def _button_text(key: str, value: str, lang: str = LANG) -> str:
    return t("set.button", lang, name=t(f"set.name.{key}", lang), value=value)


async def test_settings_menu_for_admins_only(fake_api: FakeBotApi, running_bot: BotRunner):
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("Club")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    fake_api.make_admin(group, ann)
    assert await reply(fake_api, bob, group, "/settings") == t("reply.admin_only", LANG)
    assert await reply(fake_api, ann, group, "/settings") == t("set.title", LANG)
    message = fake_api.last_message(group)
    bidding = _button_text("bidding", t("preset.score", LANG))
    assert message.button(bidding)
    assert message.button(_button_text("play_timeout", t("set.default_seconds", LANG, n=30)))

    async def press(user, data: str):
        return (await fake_api.wait_settled(fake_api.press(user, message, data))).params

    # A member who is not an admin: a pop-up, nothing changes.
    answer = await press(bob, message.button(bidding).callback_data)
    assert (answer["text"], answer["show_alert"]) == (t("set.not_admin", LANG), True)
    assert message.text == t("set.title", LANG)

    # The admin opens the bidding page and picks rob.
    await press(ann, message.button(bidding).callback_data)
    assert message.text == t("set.page_title", LANG, name=t("set.name.bidding", LANG))
    assert [b.text for b in message.buttons] == [
        "✅ " + t("preset.score", LANG), t("preset.rob", LANG), t("set.back", LANG)]
    old_score = message.button("✅ " + t("preset.score", LANG)).callback_data
    answer = await press(ann, message.button(t("preset.rob", LANG)).callback_data)
    assert answer["text"] == t("set.saved", LANG, name=t("set.name.bidding", LANG),
                               value=t("preset.rob", LANG))
    assert (await store.get_group_settings(group.id))["bidding"] == "rob"
    assert message.button(_button_text("bidding", t("preset.rob", LANG)))
    # Under rob, doubling is on by the preset (RULES.md §2.2); the toggle turns it off.
    doubling = message.button(_button_text("doubling", t("set.on", LANG))).callback_data
    await press(ann, doubling)
    assert (await store.get_group_settings(group.id))["doubling"] is False

    # Stale and forged presses change nothing.
    before = await store.get_group_settings(group.id)
    version = menu.settings_version(before)
    answer = await press(ann, old_score)
    assert answer["text"] == t("set.stale", LANG)
    answer = await press(ann, doubling)
    assert answer["text"] == t("set.stale", LANG)
    for forged in (f"C:{version}:s:bidding:7", f"C:{version}:t:bidding",
                   f"C:{version}:s:balance:0", f"C:{version}:o:give_enabled", "C:zzzzzz:m",
                   f"C:{version}:s:stake_tier:-1", f"L:{version}:0:join"):
        answer = await press(ann, forged)
        assert (answer["text"], answer["show_alert"]) == (t("pop.invalid", LANG), True), forged
    assert await store.get_group_settings(group.id) == before

    # The language changes the menu at once.
    await press(ann, message.button(_button_text("language", t("set.default", LANG)))
                .callback_data)
    await press(ann, message.button("繁體中文").callback_data)
    assert message.text == t("set.title", "zh-Hant")
    assert message.button(_button_text("bidding", t("preset.rob", "zh-Hant"), "zh-Hant"))
    await press(ann, message.button(t("set.close", "zh-Hant")).callback_data)
    assert (message.text, message.buttons) == (t("set.closed", "zh-Hant"), [])
    # An old client's button of the closed menu: answered, the menu stays closed.
    version = menu.settings_version(await store.get_group_settings(group.id))
    answer = await press(ann, menu.menu_data(version, "m"))
    assert (answer["text"], answer["show_alert"]) == (t("set.menu_closed", LANG), True)
    assert (message.text, message.buttons) == (t("set.closed", "zh-Hant"), [])

    # Typed values: a custom stake picks the custom tier; bad names and values are refused.
    assert await reply(fake_api, ann, group, "/settings custom_stake 30") == t(
        "set.saved", "zh-Hant", name=t("set.name.custom_stake", "zh-Hant"), value="30")
    settings = await store.get_group_settings(group.id)
    assert (settings["stake_tier"], settings["custom_stake"]) == ("custom", 30)
    for typed in ("play_timeout soon", "play_timeout 4", "play_timeout 600", "bid_timeout 121"):
        key = typed.split()[0]
        assert await reply(fake_api, ann, group, f"/settings {typed}") == t(
            "set.invalid_seconds", "zh-Hant", name=t(f"set.name.{key}", "zh-Hant"), low=5,
            high=120), typed
    # QA5 defect 8: a number out of range (or no number) is told the range.
    for typed, low, high in (("custom_min_balance 99999999", "0", "10,000,000"),
                             ("custom_min_balance -1", "0", "10,000,000"),
                             ("custom_stake 0", "1", "10,000"),
                             ("custom_stake lots", "1", "10,000")):
        key = typed.split()[0]
        assert await reply(fake_api, ann, group, f"/settings {typed}") == t(
            "set.invalid_range", "zh-Hant", name=t(f"set.name.{key}", "zh-Hant"), low=low,
            high=high), typed
    assert await reply(fake_api, ann, group, "/settings multiplier_cap 0") == (
        "封頂倍數：請填 1 到 1,000,000 的整數，或 不封頂（unlimited）。")
    # A flag, a choice or a time zone refused is told what it takes.
    assert await reply(fake_api, ann, group, "/settings bidding auction") == (
        "叫牌方式：可選 score, rob。")
    assert await reply(fake_api, ann, group, "/settings auto_pass 也許") == (
        "自動要不起：可選 開, 關。")
    assert await reply(fake_api, ann, group, "/settings doubling maybe") == t(
        "set.invalid_choice", "zh-Hant", name=t("set.name.doubling", "zh-Hant"),
        choices="開, 關, 預設")
    for zone in ("Mars/Olympus", "localtime", "Factory", "posixrules"):  # no place's time
        assert await reply(fake_api, ann, group, f"/settings timezone {zone}") == (
            "時區：請填時區名稱，如 Asia/Taipei 或 Europe/Berlin。"), zone
    assert await reply(fake_api, ann, group, "/settings bogus 1") == t(
        "set.usage", "zh-Hant", keys=", ".join(DEFAULT_GROUP_SETTINGS))
    assert await store.get_group_settings(group.id) == settings
    # Telegram-style language tags, as for players' own languages.
    for tag, lang in (("zh-TW", "zh-Hant"), ("en-US", "en"), ("zh-cn", "zh-Hans"),
                      ("zh-HK", "zh-Hant")):
        assert await reply(fake_api, ann, group, f"/settings language {tag}") == t(
            "set.saved", lang, name=t("set.name.language", lang),
            value=LANGUAGE_NAMES[lang]), tag
        assert (await store.get_group_settings(group.id))["language"] == lang
    assert await reply(fake_api, ann, ann, "/settings") == t("reply.group_only", LANG)


async def test_settings_apply_from_the_next_deal(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    store = app.bot_data.store
    group = fake_api.new_group("Rules lawyers")
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    ann = users[0]
    fake_api.make_admin(group, ann)
    for typed in ("bidding rob", "stake_tier regular", "play_timeout 45", "multiplier_cap 64",
                  "autoplay ai", "bot_level hard"):
        await reply(fake_api, ann, group, f"/settings {typed}")
    players = Players(fake_api, group, users)
    lobby = await players.open_table(ann, users[1:])
    assert t("lobby.preset", LANG, preset=t("preset.rob", LANG)) in lobby.text
    assert t("lobby.stake", LANG, stake=20) in lobby.text
    await players.click(ann, lobby, t("btn.start", LANG))
    (deal,) = await store.running_deals()
    assert (deal.stake, deal.rules["bidding"], deal.rules["multiplier_cap"]) == (20, "rob", 64)
    table = app.bot_data.tables.table_of(ann.id)
    options = table.options
    assert (options.play_timeout, options.autoplay_mode, options.bot_level) == (45.0, "ai", "hard")
    first = deal.seats[table.progress.first_bidder].user_id
    bidder = next(u for u in users if u.id == first)
    assert any(b.text == t("btn.call", LANG) for b in hand_message(fake_api, bidder).buttons)

    # Changed during the deal: the running deal keeps its stake and language.
    await reply(fake_api, ann, group, "/settings stake_tier expert")
    await reply(fake_api, ann, group, "/settings language zh-Hans")
    assert (await store.running_deals())[0].stake == 20
    assert table.lang == LANG
    await reply(fake_api, ann, group, "/stop")
    lobby_text = await reply(fake_api, ann, group, "/newgame")
    assert lobby_text.splitlines()[:3] == [
        t("lobby.title", "zh-Hans"),
        t("lobby.preset", "zh-Hans", preset=t("preset.rob", "zh-Hans")),
        t("lobby.stake", "zh-Hans", stake=50),
    ]


async def test_below_the_rooms_minimum_a_player_cannot_sit(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("High rollers")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    await store.update_group_settings(group.id, stake_tier="regular", give_enabled=True)
    await store.ensure_player(ann.id, "Ann")
    await store.ensure_player(bob.id, "Bob")
    await store.give(ann.id, bob.id, 800, group.id)  # Ann keeps 200 < 280
    for user in (ann, bob):
        fake_api.open_private_chat(user)
    await reply(fake_api, bob, group, "/newgame")
    lobby = fake_api.last_message(group)
    refusal = t("pop.need_beans", LANG, minimum=280, balance=200)
    assert "/daily" in refusal
    answer = await fake_api.wait_settled(fake_api.press(ann, lobby, button_data(
        lobby, label=t("btn.join", LANG))))
    assert (answer.params["text"], answer.params["show_alert"]) == (refusal, True)
    assert await reply(fake_api, ann, group, "/join") == refusal
    assert "Ann" not in lobby.text
    await reply(fake_api, ann, group, "/daily")  # 400 beans now
    assert await reply(fake_api, ann, group, "/join") == t("pop.joined", LANG)
    assert t("lobby.seat", LANG, n=2, name="Ann") in fake_api.message(group,
                                                                      lobby.message_id).text


def test_the_timeout_range_agrees_in_code_menu_and_guide():
    """QA of issue 10: the README said 10–90 s while the code took 5–600 s; the range is now in
    the players' guide, docs/playing.md."""
    low, high = TIMEOUT_RANGE
    assert (low, high) == (5, 120)
    for key in ("play_timeout", "bid_timeout"):
        assert validate_changes({key: low}) and validate_changes({key: high})
        for value in (low - 1, high + 1):
            with pytest.raises(GroupSettingError):
                validate_changes({key: value})
        assert all(low <= v <= high for v in menu.ITEMS[key].options if v is not None)
    guide = (Path(__file__).parents[2] / "docs" / "playing.md").read_text(encoding="utf-8")
    assert f"whole number of seconds from {low} to {high}" in guide
    assert t("set.invalid_seconds", "en", name="x", low=low, high=high).endswith(
        "or default (the bot's own).")
