"""End to end, issue 14 defect 6: a group upgraded to a supergroup keeps its settings, its
leaderboard history and its stored table under the new chat id; PTB's chat data follows; a deal
running in memory moves to the new id and finishes there."""

from __future__ import annotations

import asyncio

import pytest
from telegram.error import ChatMigrated

from bot.core.i18n import t
from bot.core.rooms import DEFAULT_GROUP_SETTINGS
from engine import SCORE, Action, new_deal
from engine.ai import choose_action
from tests.bot.economy_helpers import reply, settle
from tests.bot.flow_helpers import Players, play_again, result_message
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


async def test_a_deal_running_during_the_migration_finishes_in_the_supergroup(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Defect 6 (game side): the running deal's result was never posted (``Group migrated to
    supergroup``). The table moves to the new id, its message is posted again there, play goes
    on and the result is posted in the supergroup; Play again works there."""
    app = running_bot.app
    app.bot_data.game.deal_seed = 11
    app.bot_data.game.first_bidder = 0
    family = fake_api.new_group("Cousins", type="group")
    users = [fake_api.new_user(name) for name in ("Dee", "Eli", "Fay")]
    players = Players(fake_api, family, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=11, first_bidder=0)
    await players.act(Action("bid", 0, value=2))
    await players.act(Action("pass", 1))
    await players.act(Action("pass", 2))
    table = app.bot_data.tables.table_of(users[0].id)

    supergroup = fake_api.migrate_to_supergroup(family, by=users[0])
    await fake_api.wait_for(lambda: app.bot_data.tables.get(f"{supergroup.id}:0") is table)
    assert app.bot_data.tables.get(f"{family.id}:0") is None
    assert table.chat_id == supergroup.id
    await fake_api.wait_for(lambda: fake_api.messages_in(supergroup) or None)
    stored = await app.bot_data.store.load_tables()
    assert set(stored) == {f"{supergroup.id}:0"}
    assert stored[f"{supergroup.id}:0"]["chat_id"] == supergroup.id
    turn = app.job_queue.get_jobs_by_name(f"turn:{supergroup.id}:0")
    assert len(turn) == 1 and not app.job_queue.get_jobs_by_name(f"turn:{family.id}:0")

    while players.state.phase == "playing":
        state = players.state
        await players.act(choose_action(state.view(state.to_act[0])))
    result = await result_message(fake_api, supergroup)
    points = players.state.result.points
    store = app.bot_data.store
    assert [await store.balance(u.id) for u in users] == [1000 + p * 10 for p in points]
    assert (await store.load_tables())[f"{supergroup.id}:0"]["result_due"] is False
    players.group = supergroup
    answers = await play_again(players, result)
    assert [a.params.get("text") for a in answers] == [
        t("pop.again_ready", LANG, names=", ".join(u.first_name for u in users[1:])),
        t("pop.again_ready", LANG, names=users[2].first_name), t("lobby.starting", LANG)]
    await fake_api.wait_for(lambda: getattr(app.bot_data.tables.table_of(users[1].id),
                                            "phase", None) == "deal" or None)
