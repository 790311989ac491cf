"""End to end: one user flooding a table with refused presses (issue 14, item 8). Refusals are
answered without the table's lock (tests/bot/test_e2e_seats.py); on top of that each user has a
rate limit on refused presses (:mod:`bot.refusals`), so a flood gets one polite pop-up, costs
the bot no answer per press, and a seated player's bid goes through within the bid limit."""

from __future__ import annotations

import time

from bot import refusals
from bot.i18n import t
from engine import Action
from tests.bot.flow_helpers import LANG, button_data, hand_message, start_seeded_deal
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

FLOOD = 300


async def test_a_flood_of_forged_presses_gets_one_polite_popup_and_delays_no_bid(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    now = [1000.0]
    app.bot_data.refusals.clock = lambda: now[0]
    players = await start_seeded_deal(fake_api, app, "Flooded", seed=20240601)
    ann = players.users[0]
    message = hand_message(fake_api, ann)
    bid = button_data(message, suffix=":bid1")
    eve = fake_api.new_user("Eve")
    table = app.bot_data.tables.table_of(ann.id)

    forged = [fake_api.press(eve, message, bid) for _ in range(FLOOD)]
    pressed = time.monotonic()
    real = fake_api.press(ann, message, bid)
    answer = await fake_api.wait_settled(real, timeout=table.bid_timeout)
    assert answer.params.get("text") is None
    assert time.monotonic() - pressed < table.bid_timeout
    assert table.state.history == (Action("bid", 0, value=1),)
    await fake_api.wait_for(lambda: all(q in fake_api.handled_queries for q in forged), 30)

    answered = [fake_api.answer_to(q) for q in forged]
    texts = [a.params.get("text") for a in answered if a is not None]
    capacity = int(refusals.CAPACITY)
    assert texts == [t("pop.not_seated", LANG)] * capacity + [t("pop.slow_down", LANG)]
    assert table.state.history == (Action("bid", 0, value=1),)  # Eve changed nothing

    # The bucket refills: a while later Eve's press is answered again; Ann was never limited.
    now[0] += 2.0
    again = fake_api.press(eve, message, bid)
    assert (await fake_api.wait_answer(again)).params.get("text") == t("pop.not_seated", LANG)


def test_the_limiter_answers_a_burst_warns_once_then_drops_until_it_refills():
    now = [0.0]
    limiter = refusals.RefusalLimiter(capacity=3, refill=0.5, clock=lambda: now[0])
    verdicts = [limiter.take(7) for _ in range(6)]
    V = refusals.Verdict
    assert verdicts == [V.ANSWER] * 3 + [V.WARN, V.DROP, V.DROP]
    assert limiter.take(8) is V.ANSWER  # per user
    now[0] += 1.9  # 0.95 of a refusal regained: still limited
    assert limiter.take(7) is V.DROP
    now[0] += 0.1
    assert limiter.take(7) is V.ANSWER
    assert [limiter.take(7) for _ in range(2)] == [V.WARN, V.DROP]
