"""End to end: one user flooding a table with refused presses (issue 14, item 8). Refusals are
answered without the table's lock (tests/bot/test_e2e_seats.py); on top of that each user has a
rate limit on refused presses (:mod:`bot.telegram.refusals`), so a flood gets one polite pop-up,
costs the bot no answer per press, and a seated player's bid goes through within the bid limit."""

from __future__ import annotations

import time

from bot.core.i18n import t
from bot.telegram import refusals
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
    answer = await fake_api.wait_settled(real, timeout=table.options.bid_timeout)
    assert answer.params.get("text") is None
    assert time.monotonic() - pressed < table.options.bid_timeout
    assert table.state.history == (Action("bid", 0, value=1),)
    await fake_api.wait_for(lambda: all(q in fake_api.handled_queries for q in forged), 30)

    answered = [fake_api.answer_to(q) for q in forged]
    texts = [a.params.get("text") for a in answered if a is not None]
    capacity, quiet = int(refusals.CAPACITY), int(refusals.QUIET_CAPACITY)
    assert texts == [t("pop.not_seated", LANG)] * capacity + [t("pop.slow_down", LANG)] \
        + [None] * quiet  # silent answers as fast as a human can tap, beyond that none
    assert len(answered) == FLOOD and answered.count(None) == FLOOD - capacity - 1 - quiet
    assert table.state.history == (Action("bid", 0, value=1),)  # Eve changed nothing

    # The bucket refills: a while later Eve's press is answered again; Ann was never limited.
    now[0] += 2.0
    again = fake_api.press(eve, message, bid)
    assert (await fake_api.wait_answer(again)).params.get("text") == t("pop.not_seated", LANG)


def test_the_limiter_answers_a_burst_warns_once_then_drops_until_it_refills():
    now = [0.0]
    limiter = refusals.RefusalLimiter(capacity=3, refill=0.5, clock=lambda: now[0],
                                      quiet_capacity=0, quiet_refill=0)
    verdicts = [limiter.take(7) for _ in range(6)]
    V = refusals.Verdict
    assert verdicts == [V.ANSWER] * 3 + [V.WARN, V.DROP, V.DROP]
    assert limiter.take(8) is V.ANSWER  # per user
    now[0] += 1.9  # 0.95 of a refusal regained: still limited
    assert limiter.take(7) is V.DROP
    now[0] += 0.1
    assert limiter.take(7) is V.ANSWER
    assert [limiter.take(7) for _ in range(2)] == [V.WARN, V.DROP]


def test_after_the_warning_human_speed_presses_get_silent_answers_and_only_a_flood_none():
    """QA: of 12 quick presses of a stale button, 1-8 were answered, the 9th "slow down" and
    the last 3 never (the client's spinner kept turning). With the defaults: 8 answers, the
    warning, then silent answers for 30 presses in a burst and 5 a second after that."""
    now = [0.0]
    limiter = refusals.RefusalLimiter(clock=lambda: now[0])
    V = refusals.Verdict
    assert [limiter.take(7) for _ in range(12)] == [V.ANSWER] * 8 + [V.WARN] + [V.QUIET] * 3
    assert [limiter.take(7) for _ in range(28)] == [V.QUIET] * 27 + [V.DROP]
    now[0] += 1.0  # a second later: one more refusal answered, 5 more silent answers
    assert [limiter.take(7) for _ in range(8)] == [V.ANSWER, V.WARN] + [V.QUIET] * 5 + [V.DROP]
    for _ in range(20):  # a person tapping 5 times a second is answered every time
        now[0] += 0.2
        assert limiter.take(8) is not V.DROP
