"""End to end: a deal's end is one transaction (issue 14 item 4). The settlement, the table's
result phase with its new token and the result still to post are stored together; a bot that
dies before the result went out posts it once after its restart, and Play again works."""

from __future__ import annotations

import asyncio

from bot.core.i18n import t
from bot.game.deal import result as deal_result
from bot.store import open_store
from engine import SCORE, Action, apply, new_deal
from engine.ai import choose_action
from tests.bot.flow_helpers import LANG, RESULT_MARK, Players, call_text, play_again
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 7


def result_calls(api: FakeBotApi, chat_id: int) -> list:
    """The result messages sent to ``chat_id`` (text or picture)."""
    return [c for c in api.calls if c.ok and c.method in ("sendMessage", "sendPhoto")
            and c.params.get("chat_id") == chat_id and call_text(c).startswith(RESULT_MARK)]


async def test_killed_between_settlement_and_result_posts_it_once_after_restart(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Blackout")
    users = [fake_api.new_user(name) for name in ("Pat", "Quin", "Rae")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    await players.act(Action("bid", 0, value=3))
    # The process dies right after the deal's end was stored: nothing of the result goes out.
    app.bot_data.game.deals.results.post_result = lambda *args, **kwargs: None
    while players.state.phase == "playing":
        state = players.state
        await players.act(choose_action(state.view(state.to_act[0])))
    assert result_calls(fake_api, group.id) == []
    table = app.bot_data.tables.get(f"{group.id}:0")
    token, deal_id = table.token, table.progress.deal_id
    await running_bot.stop()

    store = await open_store(running_bot.settings.database)
    stored = (await store.load_tables())[f"{group.id}:0"]
    assert (stored["phase"], stored["token"], stored["result_due"]) == ("result", token, True)
    assert (await store.get_deal(deal_id)).status == "settled"
    await store.close()

    app = await running_bot.start()
    await fake_api.wait_for(lambda: result_calls(fake_api, group.id) or None)
    await app.bot_data.outlet.caught_up()
    (posted,) = result_calls(fake_api, group.id)
    points = players.state.result.points
    store = app.bot_data.store
    assert [await store.balance(u.id) for u in users] == [1000 + p * 10 for p in points]
    assert (await store.load_tables())[f"{group.id}:0"]["result_due"] is False

    # Another restart posts nothing again; the result's Play again works.
    app = await running_bot.restart()
    await app.bot_data.outlet.caught_up()
    assert len(result_calls(fake_api, group.id)) == 1
    result = fake_api.message(group, posted.result["message_id"])
    answers = await play_again(players, result)
    assert [a.params.get("text") for a in answers] == [
        t("pop.again_ready", LANG, names=", ".join(u.first_name for u in users[1:])),
        t("pop.again_ready", LANG, names=users[2].first_name), t("lobby.starting", LANG)]
    await fake_api.wait_for(lambda: getattr(app.bot_data.tables.table_of(users[1].id),
                                            "phase", None) == "deal" or None)


async def test_a_result_whose_send_failed_is_posted_again_without_a_restart(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch
):
    monkeypatch.setattr(deal_result, "RESULT_RETRY_SECONDS", 0.5)
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Flaky line")
    await app.bot_data.store.update_group_settings(group.id, pictures=False)
    users = [fake_api.new_user(name) for name in ("Sol", "Tia", "Ugo")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    await players.act(Action("bid", 0, value=3))
    while players.state.phase == "playing":
        state = players.state
        action = choose_action(state.view(state.to_act[0]))
        if apply(state, action).phase == "finished":
            fake_api.fail_next("sendMessage", 500, chat=group)  # the result's send fails once
        await players.act(action)
    table = app.bot_data.tables.get(f"{group.id}:0")
    await fake_api.wait_for(lambda: result_calls(fake_api, group.id) or None, 5)
    await app.bot_data.outlet.caught_up()
    assert len(result_calls(fake_api, group.id)) == 1
    failed = [c for c in fake_api.calls if c.method == "sendMessage" and not c.ok
              and c.params.get("chat_id") == group.id]
    assert len(failed) == 1 and call_text(failed[0]).startswith(RESULT_MARK)
    await fake_api.wait_for(lambda: not table.progress.result_due, 5)
    assert (await app.bot_data.store.load_tables())[f"{group.id}:0"]["result_due"] is False
    await asyncio.sleep(1.0)  # no further retry posts it twice
    assert len(result_calls(fake_api, group.id)) == 1
