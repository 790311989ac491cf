"""How ephemeral messages (hands in the group) count in a group's flood budget
(:class:`bot.telegram.outlet.limiter.ChatRateLimiter` ``ephemeral``): in a window of their own
per group (the default), in the group's window, or in none; a 429 on one pauses only the
group's ephemeral messages. In virtual time: the times asserted are the limiter's own."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from telegram.error import RetryAfter

from bot.telegram.outlet.limiter import ChatRateLimiter, is_ephemeral
from tests.virtual_time import run_in_virtual_time

GROUP = -100777
Log = list[tuple[str, float]]


async def _call(limiter: ChatRateLimiter, endpoint: str, data: dict, log: Log,
                fail: list | None = None) -> bool:
    async def callback():
        if fail:
            fail.pop()
            raise RetryAfter(timedelta(seconds=0.4))
        log.append((endpoint, asyncio.get_running_loop().time()))
        return True

    return bool(await limiter.process_request(callback, (), {}, endpoint, data, None))


def _table_edit(log: Log, limiter: ChatRateLimiter):
    return _call(limiter, "editMessageText", {"chat_id": GROUP}, log)


def _hand_edit(log: Log, limiter: ChatRateLimiter):
    return _call(limiter, "editEphemeralMessageText",
                 {"chat_id": GROUP, "receiver_user_id": 5, "ephemeral_message_id": 1}, log)


def test_what_is_an_ephemeral_request():
    assert is_ephemeral("editEphemeralMessageCaption", {"chat_id": GROUP})
    assert is_ephemeral("deleteEphemeralMessage", {"chat_id": GROUP})
    assert is_ephemeral("sendPhoto", {"chat_id": GROUP, "ephemeral_message_parameters": {}})
    assert not is_ephemeral("sendMessage", {"chat_id": GROUP})
    with pytest.raises(ValueError):
        ChatRateLimiter(2, ephemeral="sometimes")


def test_by_default_hands_have_a_window_of_their_own():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        limiter = ChatRateLimiter(2, group_period=30.0, ephemeral_limit=4, clock=loop.time)
        log: Log = []
        # the group's window is full: its table edits wait; the hands do not
        await asyncio.gather(_table_edit(log, limiter), _table_edit(log, limiter))
        await asyncio.gather(*(_hand_edit(log, limiter) for _ in range(4)))
        assert log == [("editMessageText", 0.0)] * 2 + [("editEphemeralMessageText", 0.0)] * 4
        table = asyncio.create_task(_table_edit(log, limiter))
        hand = asyncio.create_task(_hand_edit(log, limiter))  # a fifth hand: its window is full
        await asyncio.gather(table, hand)
        assert log[6:] == [("editMessageText", pytest.approx(30.02)),
                           ("editEphemeralMessageText", pytest.approx(30.02))]

    run_in_virtual_time(scenario)


def test_hands_may_count_in_the_groups_window():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        limiter = ChatRateLimiter(2, group_period=30.0, ephemeral="group", clock=loop.time)
        log: Log = []
        await asyncio.gather(_hand_edit(log, limiter), _hand_edit(log, limiter))
        await _table_edit(log, limiter)  # the hands took the group's two
        assert log == [("editEphemeralMessageText", 0.0)] * 2 \
            + [("editMessageText", pytest.approx(30.02))]

    run_in_virtual_time(scenario)


def test_hands_may_count_in_no_window():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        limiter = ChatRateLimiter(1, group_period=30.0, ephemeral="none", clock=loop.time)
        log: Log = []
        await asyncio.gather(*(_hand_edit(log, limiter) for _ in range(6)))
        await _table_edit(log, limiter)
        assert log == [("editEphemeralMessageText", 0.0)] * 6 + [("editMessageText", 0.0)]

    run_in_virtual_time(scenario)


def test_a_429_on_a_hand_pauses_only_the_groups_hands():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        limiter = ChatRateLimiter(20, clock=loop.time)
        log: Log = []
        hand = asyncio.create_task(_call(
            limiter, "editEphemeralMessageText", {"chat_id": GROUP, "receiver_user_id": 5},
            log, fail=[True]))
        await asyncio.sleep(0.05)
        await _table_edit(log, limiter)  # the group's table is not paused
        assert log == [("editMessageText", pytest.approx(0.05))]
        assert await hand is True
        assert log[1][0] == "editEphemeralMessageText"
        assert log[1][1] >= 0.4  # the hand went again after retry_after

    run_in_virtual_time(scenario)
