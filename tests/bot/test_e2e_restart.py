"""End to end: the bot restarts in the middle of a deal (a new Application on the same SQLite
file); play continues where it stopped and the beans are paid exactly once (issue 3, "Survives
restarts")."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.i18n import t
from bot.presentation import views
from bot.store import open_store
from engine import SCORE, Action, apply, new_deal
from engine.ai import choose_action
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    hand_message,
    play_again,
    result_message,
    start_seeded_deal,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 99


async def test_restart_mid_deal_then_finish_and_pay_once(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 2
    group = fake_api.new_group("Night owls")
    users = [fake_api.new_user(name) for name in ("Hal", "Ivy", "Jon")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=2)
    await players.act(Action("bid", 2, value=2))
    await players.act(Action("pass", 0))
    await players.act(Action("pass", 1))
    for _ in range(5):
        state = players.state
        await players.act(choose_action(state.view(state.to_act[0])))
    await players.bot_passes(app)  # 自动要不起: the restart comes at a human's prompt
    before = app.bot_data.tables.table_of(users[0].id)
    token, version, deadline = before.token, before.state.version, before.progress.deadline
    table_message = fake_api.messages_in(group)[0]

    app = await running_bot.restart()
    after = app.bot_data.tables.table_of(users[0].id)
    assert after is not before
    assert (after.token, after.state.version, after.progress.deadline) == (token, version, deadline)
    assert after.state == before.state
    assert after.state.hands == players.state.hands
    await fake_api.wait_for(lambda: t("table.continues", LANG) in table_message.content)
    (turn,) = app.job_queue.get_jobs_by_name(f"turn:{after.key}")
    assert turn.next_t.timestamp() == pytest.approx(deadline, abs=1e-5)  # the time that was left

    # The buttons drawn before the restart still work; play goes on to the end.
    while players.state.phase == "playing":
        state = players.state
        await players.act(choose_action(state.view(state.to_act[0])))
    result = await result_message(fake_api, group)
    store = app.bot_data.store
    points = players.state.result.points
    assert [await store.balance(u.id) for u in users] == [1000 + p * 10 for p in points]
    for user, p in zip(users, points, strict=True):
        rows = [row for row in await store.ledger(user.id) if row.reason == "deal"]
        assert [row.amount for row in rows] == [p * 10]
    assert await store.running_deals() == []

    # Another restart after the end: nothing is paid again, Play again still works.
    app = await running_bot.restart()
    store = app.bot_data.store
    assert [await store.balance(u.id) for u in users] == [1000 + p * 10 for p in points]
    answers = await play_again(players, result)
    assert [a.params.get("text") for a in answers] == [
        t("pop.again_ready", LANG, names=", ".join(u.first_name for u in users[1:])),
        t("pop.again_ready", LANG, names=users[2].first_name), t("lobby.starting", LANG)]
    await fake_api.wait_for(lambda: getattr(app.bot_data.tables.table_of(users[1].id),
                                            "phase", None) == "deal" or None)


async def test_restart_restores_lobbies_and_settles_a_deal_that_ended_while_down(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Power cut")
    users = [fake_api.new_user(name) for name in ("Kai", "Lou", "Mia")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    other_group = fake_api.new_group("Waiting room")
    waiting = fake_api.new_user("Ned")
    other = Players(fake_api, other_group, [waiting])
    other_lobby = await other.open_table(waiting, [])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    await players.act(Action("bid", 0, value=3))
    table = app.bot_data.tables.table_of(users[0].id)
    deal_id, table_dict = table.progress.deal_id, table.to_dict()
    await running_bot.stop()

    # While the bot is down, the deal's last actions get stored (as if the process died right
    # after saving the final state, before settling).
    store = await open_store(running_bot.settings.database)
    state = players.state
    while state.phase == "playing":
        state = apply(state, choose_action(state.view(state.to_act[0])))
    await store.save_deal_state(deal_id, state.version, state.to_json(), table_dict)
    await store.close()

    app = await running_bot.start()
    result = await result_message(fake_api, group)
    store = app.bot_data.store
    assert [await store.balance(u.id) for u in users] == [
        1000 + p * 10 for p in state.result.points]
    assert t("result.kitty", LANG, cards=views.cards_text(state.kitty, LANG)) in result.content
    # The open lobby came back and still works.
    assert app.bot_data.tables.table_of(waiting.id) is not None
    joiner = fake_api.new_user("Oz")
    fake_api.open_private_chat(joiner)
    answer = await other.click(joiner, other_lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seating", LANG)
    await fake_api.wait_for(lambda: "2. Oz" in other_lobby.text)


async def test_a_press_made_in_time_while_the_bot_was_down_is_taken_after_the_restart(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    """QA: play timeout 1 s, the bot stops during Jon's turn, Jon presses before the deadline,
    the bot starts again after it: the overdue timeout fired first (auto-play) and the press
    was answered "This button is out of date". Now the turn that began before the start times
    out RESTART_GRACE seconds after it at the earliest, and the waiting press is taken."""
    app = await bot_runner.start(play_timeout=1.0, bid_timeout=30.0)
    players = await start_seeded_deal(fake_api, app, "Downtime", seed=SEED, first_bidder=2)
    await players.act(Action("bid", 2, value=3))
    jon = players.users[2]
    table = app.bot_data.tables.table_of(jon.id)
    await fake_api.wait_for(lambda: table.state.version == 1 and hand_message(
        fake_api, jon).button(t("btn.play", LANG)) or None)
    await bot_runner.stop()
    message = hand_message(fake_api, jon)
    lowest = min(players.hand_ranks(2))
    query = fake_api.press(jon, message, button_data(message, suffix=f":r{lowest}"))
    await asyncio.sleep(1.5)  # the turn's deadline passes while the bot is down
    app = await bot_runner.start()
    answer = await fake_api.wait_settled(query)
    assert answer.params.get("text") is None  # taken, not "out of date"
    table = app.bot_data.tables.table_of(jon.id)
    assert table.progress.selections[2] == [lowest]
    assert table.state.history == (Action("bid", 2, value=3),)  # no timeout before it
    message = hand_message(fake_api, jon)
    answer = await players.click(jon, message, t("btn.play", LANG))
    assert answer.params.get("text") is None
    played = table.state.history[1]
    assert (played.kind, played.seat, played.cards) == ("play", 2, (lowest,))
    assert not table.state.autoplay[2]
