"""One seat per player across tables, a lobby that exists only once its message does, and
refusals that do not wait for a table's lock (issue 14, items 2, 3 and 8, built into the game
layer of issue 9)."""

from __future__ import annotations

import asyncio

from bot.core.i18n import t
from bot.telegram import refusals
from engine import Action
from tests.bot.flow_helpers import LANG, Players, button_data, hand_message, start_seeded_deal
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


async def test_concurrent_joins_in_two_groups_seat_a_player_once(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    tables = running_bot.app.bot_data.tables
    for trial in range(5):
        ann, bob, cat = (fake_api.new_user(n) for n in (f"Ann{trial}", f"Bob{trial}",
                                                          f"Cat{trial}"))
        lobbies = []
        for opener in (ann, bob):
            players = Players(fake_api, fake_api.new_group(f"G{trial}{opener.id}"),
                              [opener, cat])
            for user in players.users:
                fake_api.open_private_chat(user)
            await players.command(opener, "/newgame")
            lobbies.append(players.table_message())
        joins = [fake_api.click(cat, lobby, t("btn.join", LANG)) for lobby in lobbies]
        answers = await asyncio.gather(*(fake_api.wait_settled(q) for q in joins))
        texts = sorted(a.params.get("text") for a in answers)
        seated = [table for table in tables if table.seat_of(cat.id) is not None]
        assert len(seated) == 1
        assert texts == sorted([t("pop.seating", LANG),
                                t("pop.seated_at", LANG, group=seated[0].title)])


async def test_a_lobby_whose_message_fails_does_not_exist(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    ann = fake_api.new_user("Ann")
    group = fake_api.new_group("Flaky")
    fake_api.open_private_chat(ann)
    fake_api.fail_next("sendMessage", 500, chat=group)
    fake_api.send_text(ann, group, "/newgame")
    reply = await fake_api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("reply.lobby_failed", LANG)
    assert len(running_bot.app.bot_data.tables) == 0
    assert await running_bot.app.bot_data.store.load_tables() == {}
    # Nothing is left behind: the next /newgame opens the table, and Ann may sit.
    fake_api.send_text(ann, group, "/newgame")
    lobby = await fake_api.wait_for("sendMessage", chat_id=group)
    assert lobby.params["text"].startswith("🃏") and "1. Ann" in lobby.params["text"]


async def test_refused_presses_are_answered_without_the_tables_lock(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Busy table", seed=20240601)
    ann, bob, _ = players.users
    message = hand_message(fake_api, ann)
    bid = button_data(message, suffix=":bid1")
    await players.act(Action("bid", 0, value=1))
    eve = fake_api.new_user("Eve")
    table = app.bot_data.tables.table_of(ann.id)
    async with app.bot_data.tables.lock(table.key):  # something holds the table for long
        # as many as one user's refusals are answered in a burst (tests/bot/test_e2e_flood.py)
        forged = [fake_api.press(eve, message, bid) for _ in range(int(refusals.CAPACITY))]
        stale = fake_api.press(ann, message, bid)  # Ann's old bid button
        answers = [await fake_api.wait_answer(q, timeout=2) for q in forged]
        assert {a.params.get("text") for a in answers} == {t("pop.not_seated", LANG)}
        assert (await fake_api.wait_answer(stale, timeout=2)).params.get("text") == t(
            "pop.stale", LANG)
    assert table.state.history == (Action("bid", 0, value=1),)  # nothing changed


async def test_toggling_autoplay_never_extends_the_turns_deadline(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(bot_move_delay=30.0)  # auto-play would not move in time
    players = await start_seeded_deal(fake_api, app, "Clock", seed=20240601)
    ann = players.users[0]
    table = app.bot_data.tables.table_of(ann.id)
    deadline = table.progress.deadline
    assert deadline is not None
    for _ in range(3):
        await players.click(ann, hand_message(fake_api, ann), t("btn.autoplay", LANG))
        await players.click(ann, hand_message(fake_api, ann), t("btn.take_back", LANG))
    assert table.state.to_act == (0,) and table.progress.deadline == deadline
