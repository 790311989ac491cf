"""End to end, issue 14 defect 6: a group upgraded to a supergroup keeps its settings, its
leaderboard history and its stored table under the new chat id; PTB's chat data follows."""

from __future__ import annotations

import asyncio

import pytest
from telegram.error import ChatMigrated

from bot.i18n import t
from bot.rooms import DEFAULT_GROUP_SETTINGS
from tests.bot.economy_helpers import reply, settle
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


async def _until(predicate, timeout: float = 5.0) -> None:
    async def wait() -> None:
        while not await predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(wait(), timeout)


async def test_settings_leaderboards_and_stored_tables_move_to_the_supergroup(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    family = fake_api.new_group("Family", type="group")
    ann, bob, cat = (fake_api.new_user(name) for name in ("Ann", "Bob", "Cat"))
    fake_api.make_admin(family, ann)
    fake_api.open_private_chat(ann)
    await reply(fake_api, ann, family, "/settings give_enabled on")
    await reply(fake_api, ann, family, "/settings custom_stake 30")
    await settle(store, family.id, [ann, bob, cat], [2, -1, -1])
    await reply(fake_api, ann, family, "/newgame")  # a stored lobby row under the old id
    app.chat_data[family.id]["remembered"] = "yes"
    before = await store.get_group_settings(family.id)
    board_before = await reply(fake_api, ann, family, "/top all")

    supergroup = fake_api.migrate_to_supergroup(family, by=ann)

    async def moved() -> bool:
        return (await store.get_group_settings(supergroup.id))["give_enabled"] is True

    await _until(moved)
    assert await store.get_group_settings(supergroup.id) == before
    assert await store.get_group_settings(family.id) == DEFAULT_GROUP_SETTINGS
    assert await reply(fake_api, ann, supergroup, "/top all") == board_before
    today = await reply(fake_api, ann, supergroup, "/top")
    assert today.splitlines()[0] == t("top.title_today", LANG) and "Ann" in today
    stored = await store.load_tables()
    assert f"{family.id}:0" not in stored
    assert stored[f"{supergroup.id}:0"]["chat_id"] == supergroup.id
    assert app.chat_data.get(supergroup.id) == {"remembered": "yes"}
    assert family.id not in app.chat_data
    said = fake_api.send_text(bob, supergroup, "thanks")
    assert (await reply(fake_api, ann, supergroup, "/give 10", reply_to=said)).startswith("🎁")
    assert await store.migrate_chat(family.id, supergroup.id) is False  # both messages came
    with pytest.raises(ChatMigrated) as error:  # Telegram refuses the old id from now on
        await app.bot.send_message(family.id, "hello?")
    assert error.value.new_chat_id == supergroup.id
