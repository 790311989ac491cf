"""How ephemeral messages (hands in the group) count in a group's flood budget
(:class:`bot.telegram.outlet.limiter.ChatRateLimiter` ``ephemeral``): in a window of their own
per group (the default), in the group's window, or in none; a 429 on one pauses only the
group's ephemeral messages."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from telegram.error import RetryAfter

from bot.telegram.outlet.limiter import ChatRateLimiter, is_ephemeral

GROUP = -100777


async def _call(limiter: ChatRateLimiter, endpoint: str, data: dict, log: list,
                fail: list | None = None) -> bool:
    async def callback():
        if fail:
            fail.pop()
            raise RetryAfter(timedelta(seconds=0.4))
        log.append((endpoint, time.monotonic()))
        return True

    return bool(await limiter.process_request(callback, (), {}, endpoint, data, None))


def _table_edit(log: list, limiter: ChatRateLimiter):
    return _call(limiter, "editMessageText", {"chat_id": GROUP}, log)


def _hand_edit(log: list, limiter: ChatRateLimiter):
    return _call(limiter, "editEphemeralMessageText",
                 {"chat_id": GROUP, "receiver_user_id": 5, "ephemeral_message_id": 1}, log)


def test_what_is_an_ephemeral_request():
    assert is_ephemeral("editEphemeralMessageCaption", {"chat_id": GROUP})
    assert is_ephemeral("deleteEphemeralMessage", {"chat_id": GROUP})
    assert is_ephemeral("sendPhoto", {"chat_id": GROUP, "ephemeral_message_parameters": {}})
    assert not is_ephemeral("sendMessage", {"chat_id": GROUP})
    with pytest.raises(ValueError):
        ChatRateLimiter(2, ephemeral="sometimes")


async def test_by_default_hands_have_a_window_of_their_own():
    limiter = ChatRateLimiter(2, group_period=30.0, ephemeral_limit=4)
    log: list = []
    began = time.monotonic()
    # the group's window is full: its table edits wait; the hands do not
    await asyncio.gather(_table_edit(log, limiter), _table_edit(log, limiter))
    await asyncio.gather(*(_hand_edit(log, limiter) for _ in range(4)))
    assert len(log) == 6 and time.monotonic() - began < 1.0
    waiting = asyncio.create_task(_hand_edit(log, limiter))  # a fifth hand: its window is full
    await asyncio.sleep(0.3)
    assert not waiting.done()
    waiting.cancel()


async def test_hands_may_count_in_the_groups_window():
    limiter = ChatRateLimiter(2, group_period=30.0, ephemeral="group")
    log: list = []
    await asyncio.gather(_hand_edit(log, limiter), _hand_edit(log, limiter))
    table = asyncio.create_task(_table_edit(log, limiter))
    await asyncio.sleep(0.3)
    assert not table.done() and len(log) == 2  # the hands took the group's two
    table.cancel()


async def test_hands_may_count_in_no_window():
    limiter = ChatRateLimiter(1, group_period=30.0, ephemeral="none")
    log: list = []
    began = time.monotonic()
    await asyncio.gather(*(_hand_edit(log, limiter) for _ in range(6)))
    await _table_edit(log, limiter)
    assert len(log) == 7 and time.monotonic() - began < 1.0


async def test_a_429_on_a_hand_pauses_only_the_groups_hands():
    limiter = ChatRateLimiter(20)
    log: list = []
    began = time.monotonic()
    hand = asyncio.create_task(_call(
        limiter, "editEphemeralMessageText", {"chat_id": GROUP, "receiver_user_id": 5},
        log, fail=[True]))
    await asyncio.sleep(0.05)
    await _table_edit(log, limiter)  # the group's table is not paused
    assert [e for e, _ in log] == ["editMessageText"] and time.monotonic() - began < 0.3
    assert await hand is True
    assert log[-1][1] - began >= 0.4  # the hand went again after retry_after
