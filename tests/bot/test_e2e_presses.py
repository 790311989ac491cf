"""Presses never wait (issue 9, items 6 and 7), through the fake Bot API: a press is answered
before any other call it causes and the presser's own hand is edited next; a 429 on the group's
table message delays only that message (and loses nothing); the AI thinks off the event loop."""

from __future__ import annotations

import threading
import time

import pytest

from bot.core.i18n import t
from bot.game import ai as game_ai
from engine import Action
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    hand_message,
    start_seeded_deal,
    table_picture,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 20240601
EDITS = ("editMessageText", "editMessageCaption", "editMessageMedia", "sendMessage",
         "sendPhoto")


async def _idle(app) -> None:
    await app.bot_data.outlet.outbox.idle()


async def test_a_press_is_answered_first_and_the_pressers_hand_edited_next(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "First things first", seed=SEED)
    ann, bob, _ = players.users
    await table_picture(fake_api, players.group)
    await _idle(app)
    for action, user in ((Action("bid", 0, value=1), ann), (Action("bid", 1, value=2), bob)):
        mark = len(fake_api.calls)
        await players.act(action)
        caused = [c for c in fake_api.calls[mark:] if c.method != "getUpdates"]
        assert caused[0].method == "answerCallbackQuery", caused
        assert caused[1].method in EDITS and caused[1].params["chat_id"] == user.id, caused
        await _idle(app)


async def test_a_429_on_the_table_delays_only_the_group_and_loses_nothing(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Flood", seed=SEED)
    ann, bob, cat = players.users
    table = await table_picture(fake_api, players.group)
    await _idle(app)
    fake_api.fail_next("editMessageMedia", 429, retry_after=1, chat=players.group)
    began = time.monotonic()
    fake_api.press(ann, hand_message(fake_api, ann),
                   button_data(hand_message(fake_api, ann), suffix=":bid1"))
    await fake_api.wait_for("editMessageMedia", ok=False, chat_id=players.group)
    query = fake_api.press(bob, hand_message(fake_api, bob),  # while the group waits
                           button_data(hand_message(fake_api, bob), suffix=":bid2"))
    answer = await fake_api.wait_answer(query)
    assert answer.params.get("text") is None
    await fake_api.wait_for(lambda: "▶ Cat" in (table.caption or ""), timeout=5)
    assert hand_message(fake_api, cat).caption  # Cat's hand was drawn meanwhile
    retried = [c for c in fake_api.calls_to("editMessageMedia", chat_id=players.group.id)
               if c.ok and c.time > began]
    assert retried and min(c.time for c in retried) - began >= 1.0  # honoured retry_after
    assert answer.time < min(c.time for c in retried)  # Bob did not wait for the group


async def test_the_ai_thinks_off_the_event_loop(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    app = running_bot.app
    thinking = threading.Event()
    spans: list[tuple[float, float]] = []
    real = game_ai.choose_action

    def slow(view, level="normal"):
        start = time.monotonic()
        thinking.set()
        time.sleep(1.0)
        spans.append((start, time.monotonic()))
        return real(view, level)

    monkeypatch.setattr(game_ai, "choose_action", slow)
    app.bot_data.game.first_bidder = 1  # a bot seat bids first at the practice table
    app.bot_data.game.deal_seed = SEED
    xia = fake_api.new_user("Xia")
    fake_api.send_text(xia, xia, "/practice")
    await fake_api.wait_for(lambda: thinking.is_set(), timeout=5)
    # Meanwhile at another table, a press is answered at once.
    yan, zoe = fake_api.new_user("Yan"), fake_api.new_user("Zoe")
    players = Players(fake_api, fake_api.new_group("Elsewhere"), [yan, zoe])
    for user in players.users:
        fake_api.open_private_chat(user)
    await players.command(yan, "/newgame")
    answer = await players.click(zoe, players.table_message(), t("btn.join", LANG))
    assert answer.params.get("text") == t("pop.seating", LANG)
    await fake_api.wait_for(lambda: spans, timeout=5)
    assert answer.time < spans[0][1]  # answered while the AI was still thinking


async def test_a_turns_clock_starts_when_its_prompt_was_drawn(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Slow chat", seed=SEED)
    ann, bob, _ = players.users
    await _idle(app)
    # Bob's prompt reaches him late: his chat answers 429 once (retry after 1 s).
    fake_api.fail_next("editMessageCaption", 429, retry_after=1, chat=bob)
    fake_api.fail_next("editMessageMedia", 429, retry_after=1, chat=bob)
    bid_at = time.time()
    await players.act(Action("bid", 0, value=1))
    shown = [c for c in fake_api.calls if c.ok and c.params.get("chat_id") == bob.id
             and c.method in ("editMessageCaption", "editMessageMedia")]
    offset = time.time() - time.monotonic()
    prompt_at = shown[-1].time + offset
    assert prompt_at - bid_at >= 1.0
    table = app.bot_data.tables.table_of(ann.id)
    timeout = running_bot.settings.bid_timeout
    # from the prompt: the clock starts once it was drawn (a bound below only: a busy machine
    # may start it later, never earlier); from the bid it would be 1 s short
    assert table.progress.deadline - prompt_at >= timeout - 0.05
