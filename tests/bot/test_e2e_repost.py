"""The table message posted again (someone deleted it) is stored under the table's lock
(issue 16, gap 3): the outbox's job draws without the lock, but the new message id it stores
must not overwrite a step stored meanwhile (with several workers: by another worker)."""

from __future__ import annotations

import asyncio

from bot.game.deal import TABLE
from tests.bot.flow_helpers import start_seeded_deal
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


async def test_a_reposted_table_message_is_stored_under_the_tables_lock(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Reposts", seed=5)
    game, store = app.bot_data.game, app.bot_data.store
    table = game.tables.table_of(players.users[0].id)
    await app.bot_data.outlet.caught_up()
    old_id = table.messages.message_id
    assert old_id is not None
    fake_api.delete(fake_api.message(players.group, old_id))  # a group admin deleted it
    since = fake_api.mark()
    async with game.tables.lock(table.key):
        table.messages.rendered.pop(TABLE, None)
        job = asyncio.create_task(game.deals.picture._table_job(table.key))
        posted = await fake_api.wait_for(
            lambda: [c for c in fake_api.calls[since:] if c.ok
                     and c.method in ("sendMessage", "sendPhoto")
                     and c.params.get("chat_id") == players.group.id] or None, 5)
        await asyncio.sleep(0.2)
        assert not job.done()  # waits for the lock to store the new id
        assert (await store.load_tables())[table.key]["message_id"] == old_id
    assert await asyncio.wait_for(job, 5)
    new_id = posted[0].result["message_id"]
    assert new_id != old_id and table.messages.message_id == new_id
    assert (await store.load_tables())[table.key]["message_id"] == new_id
