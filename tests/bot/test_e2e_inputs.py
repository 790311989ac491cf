"""End to end, issue 14 defect 11: every input gets an answer. Numbers are ASCII digits that
fit SQLite's INTEGER, anything else gets the usage; an unexpected error in a handler answers
with a short apology and logs its traceback."""

from __future__ import annotations

import logging

import pytest

from bot.core.i18n import t
from bot.features.settings import menu as settings_menu
from tests.bot.economy_helpers import reply
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


@pytest.mark.parametrize(("command", "key", "kwargs"), [
    ("/give @bob ²", "give.not_number", {"word": "²"}),
    ("/give @bob ٣", "give.not_number", {"word": "٣"}),
    ("/give 99999999999999999999999 5", "give.unknown_target", {}),
    ("/give @bob 99999999999999999999999", "give.insufficient",  # more than anyone has
     {"beans": "1,000 beans", "amount": "99999999999999999999999"}),
    ("/audit 99999999999999999999", "audit.usage", {}),
    ("/audit ²", "audit.usage", {}),
    ("/settings play_timeout ²", "set.invalid_seconds",
     {"name": t("set.name.play_timeout", LANG), "low": 5, "high": 120}),
    ("/settings custom_stake 99999999999999999999999", "set.invalid_range",  # QA5: the range
     {"name": t("set.name.custom_stake", LANG), "low": "1", "high": "10,000"}),
])
async def test_malformed_numbers_get_a_polite_answer_and_change_nothing(
    fake_api: FakeBotApi, running_bot: BotRunner, command: str, key: str, kwargs: dict
):
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("Typos")
    await store.update_group_settings(group.id, give_enabled=True)
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob", username="bob")
    fake_api.make_admin(group, ann)
    await reply(fake_api, bob, group, "/balance")  # the bot has seen @bob
    settings_before = await store.get_group_settings(group.id)
    assert await reply(fake_api, ann, group, command) == t(key, LANG, **kwargs)
    assert await store.get_group_settings(group.id) == settings_before
    assert await store.balance(bob.id) == 1000
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants


async def test_an_unexpected_error_gets_an_apology_and_a_logged_traceback(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch, caplog
):
    running_bot.allow_errors = True
    store = running_bot.app.bot_data.store

    async def broken(*args, **kwargs):
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(store, "player_stats", broken)
    group = fake_api.new_group("Unlucky")
    ann = fake_api.new_user("Ann")
    with caplog.at_level(logging.ERROR, logger="bot.telegram.handlers.errors"):
        assert await reply(fake_api, ann, group, "/me") == t("reply.error", LANG)
    [record] = [r for r in caplog.records if r.name == "bot.telegram.handlers.errors"]
    assert record.exc_info is not None and "disk is on fire" in str(record.exc_info[1])

    def broken_parse(data: str):
        raise RuntimeError("no menu today")

    fake_api.make_admin(group, ann)
    await reply(fake_api, ann, group, "/settings")
    menu = fake_api.last_message(group)
    monkeypatch.setattr(settings_menu, "parse_menu_data", broken_parse)
    query = fake_api.press(ann, menu, menu.buttons[0].callback_data)
    answer = await fake_api.wait_answer(query)
    assert answer.params["text"] == t("pop.error", LANG)


async def test_full_width_digits_are_numbers(fake_api: FakeBotApi, running_bot: BotRunner):
    """QA: a Chinese keyboard in full-width mode types ５０; `/settings custom_stake ５０` and
    `/give <id> ９９` got the usage. They now read as 50 and 99, by user id as by @username;
    other scripts' digits and superscripts stay refused (above)."""
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("全角")
    await store.update_group_settings(group.id, give_enabled=True)
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob", username="bob")
    fake_api.make_admin(group, ann)
    await reply(fake_api, bob, group, "/balance")  # the bot has seen Bob
    assert await reply(fake_api, ann, group, "/settings custom_stake ５０") == t(
        "set.saved", LANG, name=t("set.name.custom_stake", LANG), value="50")
    settings = await store.get_group_settings(group.id)
    assert (settings["stake_tier"], settings["custom_stake"]) == ("custom", 50)
    assert await reply(fake_api, ann, group, f"/give {bob.id} ９９") == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans="99 beans", giver_balance=901,
        receiver_balance="1,099", remaining=901)
    assert await reply(fake_api, ann, group, "/give @bob －５") == t("give.invalid_amount", LANG)
    assert [await store.balance(u.id) for u in (ann, bob)] == [901, 1099]
