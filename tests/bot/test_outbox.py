"""The flood limits and the outbox (issue 9, items 6 and 9): a strict sliding window per group,
a 429 that pauses only its own chat, and an outbox that sends only the latest state."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest
from telegram.error import RetryAfter

from bot.game.outlet import BoardJob
from bot.telegram.outlet import limiter
from bot.telegram.outlet import outbox as outbox_module
from bot.telegram.outlet.limiter import (
    OVERALL_RATE,
    PRESS_RESERVE,
    RANK,
    RESERVE_RANK,
    ChatRateLimiter,
    InFlightWindow,
    SlidingWindow,
    is_group,
)
from bot.telegram.outlet.outbox import Outbox
from tests.virtual_time import run_in_virtual_time


def test_the_window_is_strict_not_a_bucket():
    now = [0.0]
    window = SlidingWindow(3, 60.0, clock=lambda: now[0])
    for start in (0.0, 10.0, 20.0):
        now[0] = start
        assert window.take(-1)
    assert not window.take(-1)
    assert window.take(-2)  # another group has its own budget
    now[0] = 59.9
    assert not window.take(-1) and window.wait_time(-1) == 60.0 - 59.9
    now[0] = 60.0  # the first start leaves the window: one slot comes back, not a burst
    assert window.take(-1) and not window.take(-1)
    window.give_back(-1)
    assert window.used(-1) == 2 and window.take(-1)


def test_the_overall_window_counts_a_request_until_its_answer():
    now = [0.0]
    window = InFlightWindow(2, 1.0, clock=lambda: now[0])
    assert window.wait_time() == 0.0
    window.in_flight = 2  # two requests on the way, the first held up
    assert window.used() == 2 and window.wait_time() > 0
    now[0] = 5.0
    window.release()  # answered late: it counts from its answer, not from its start
    assert window.used() == 2
    now[0] = 5.9
    assert window.wait_time() == 6.0 - 5.9
    now[0] = 6.0
    assert window.used() == 1 and window.wait_time() == 0.0


def test_groups_have_negative_ids():
    assert is_group(-100123) and is_group("-5") and is_group("@channel")
    assert not is_group(42) and not is_group("42") and not is_group(None)


async def _request(limiter: ChatRateLimiter, chat_id: int, log: list, fail: list | None = None,
                   clock: Callable[[], float] = time.monotonic):
    async def callback():
        if fail:
            fail.pop()
            raise RetryAfter(timedelta(seconds=0.4))
        log.append((chat_id, clock()))
        return True

    return await limiter.process_request(callback, (), {}, "sendMessage", {"chat_id": chat_id},
                                         None)


async def test_never_more_than_the_limit_in_any_window():
    limiter = ChatRateLimiter(3, group_period=0.4, margin=0.05)
    log: list = []
    await asyncio.gather(*(_request(limiter, -7, log) for _ in range(8)))
    starts = sorted(t for _, t in log)
    assert len(starts) == 8
    for i, start in enumerate(starts):
        assert sum(1 for s in starts[i:] if s - start < 0.4) <= 3, starts
    assert starts[-1] - starts[0] >= 0.8  # 8 requests at 3 per window need three windows


async def test_never_more_than_the_overall_limit_in_any_second():
    limiter = ChatRateLimiter(100, overall=5, overall_margin=0.05)
    log: list = []
    chats = [-7, -8, 1001, 1002, 1003]  # groups and private chats share the bot's budget
    await asyncio.gather(*(_request(limiter, chats[i % 5], log) for i in range(12)))
    starts = sorted(t for _, t in log)
    assert len(starts) == 12
    for i, start in enumerate(starts):
        assert sum(1 for s in starts[i:] if s - start < 1.0) <= 5, starts
    assert starts[-1] - starts[0] >= 2.0  # 12 requests at 5 per second need three seconds


def test_requests_naming_no_chat_have_no_overall_budget():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        limiter = ChatRateLimiter(100, overall=1, clock=loop.time)
        answered: list[float] = []

        async def answer():
            answered.append(loop.time())
            return True

        await asyncio.gather(*(limiter.process_request(answer, (), {}, "answerCallbackQuery",
                                                       {"callback_query_id": str(i)}, None)
                               for i in range(5)))
        assert answered == [0.0] * 5  # all at once: one a second would take four seconds

    run_in_virtual_time(scenario)


def test_private_chats_have_no_group_budget():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        limiter = ChatRateLimiter(1, group_period=30.0, clock=loop.time)
        log: list = []
        await asyncio.gather(*(_request(limiter, 1001 + i % 2, log, clock=loop.time)
                               for i in range(6)))
        assert log == [(1001 + i % 2, 0.0) for i in range(6)]  # a group's budget: one per 30 s

    run_in_virtual_time(scenario)


def test_a_429_waits_for_its_own_chat_only_and_nothing_is_lost():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        limiter = ChatRateLimiter(20, clock=loop.time)
        log: list = []
        slow = asyncio.create_task(_request(limiter, -1, log, fail=[True], clock=loop.time))
        await asyncio.sleep(0.05)
        assert limiter.paused_for(-1) > 0.3  # chat -1 waits for its retry_after
        await asyncio.gather(*(_request(limiter, chat, log, clock=loop.time)
                               for chat in (-2, 1001, 1002)))
        # not paused by chat -1's 429: sent the moment they were asked
        assert [(chat, at) for chat, at in log] == [(-2, 0.05), (1001, 0.05), (1002, 0.05)]
        assert await slow is True
        (retried,) = [at for chat, at in log if chat == -1]
        assert retried >= 0.4  # sent again after retry_after
        assert limiter.paused_for(-1) == 0.0

    run_in_virtual_time(scenario)


async def test_the_outbox_sends_only_the_latest_state():
    window = SlidingWindow(1, 0.3)
    outbox = Outbox(window)
    ran: list[str] = []

    def job(name: str):
        async def run() -> bool:
            ran.append(name)
            return True
        return run

    outbox.request("t", -9, job("state 1"))
    await asyncio.sleep(0.05)  # state 1 is sent at once, the window is now full
    for n in (2, 3, 4):
        outbox.request("t", -9, job(f"state {n}"))
    await outbox.idle()
    assert ran == ["state 1", "state 4"]  # 2 and 3 skipped, never queued
    assert outbox.skipped == 2


async def test_an_outbox_job_that_changes_nothing_gives_its_slot_back():
    window = SlidingWindow(1, 30.0)
    outbox = Outbox(window)

    async def nothing() -> bool:
        return False

    outbox.request("t", -9, nothing)
    await outbox.idle()
    assert window.used(-9) == 0


def test_one_tables_outbox_never_delays_another():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(1, 30.0, clock=loop.time)
        outbox = Outbox(window)
        ran: list[tuple[str, float]] = []

        def job(name: str):
            async def run() -> bool:
                ran.append((name, loop.time()))
                return True
            return run

        outbox.request("a", -1, job("a1"))
        await asyncio.sleep(0.02)
        outbox.request("a", -1, job("a2"))  # waits 30 s for group -1's window
        outbox.request("b", -2, job("b1"))
        outbox.request("p", 1001, job("private"))
        await asyncio.sleep(0.1)
        assert ran == [("a1", 0.0), ("b1", 0.02), ("private", 0.02)]  # at once, not after a2
        assert outbox.pending("a")
        await outbox.close()

    run_in_virtual_time(scenario)


def test_edits_are_paced_at_the_chats_share_of_the_window_never_burst():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(4, 0.8, clock=loop.time)  # pace: 0.8 s / (4 - 2 reserved) = 0.4 s
        outbox = Outbox(window, reserve=2)
        times: list[float] = []

        async def run() -> bool:
            times.append(loop.time())
            return True

        for _ in range(3):
            outbox.request("t", -3, run)
            await outbox.idle()
        # evenly: no burst, no long silence
        assert times == pytest.approx([0.0, 0.4, 0.8])
        assert window.used(-3) <= window.limit - outbox.reserve  # the reserve stays free
        other = loop.time()
        assert window.take(-3)  # another message of the chat (a notice) takes a slot
        outbox.request("t", -3, run)
        await outbox.idle()
        # paced from the chat's latest request, whoever sent it: that notice and the edit
        # before it fill the two slots the reserve leaves until they leave the window
        assert times[-1] == pytest.approx(other + 0.8)
        urgent: list[float] = []

        async def result() -> bool:
            urgent.append(loop.time())
            return True

        outbox.request("t#result", -3, result, urgent=True)
        await outbox.idle()
        assert urgent == [pytest.approx(times[-1] + 0.4)]  # urgent: first in line, paced all
        # the same

    run_in_virtual_time(scenario)


def test_the_chats_other_messages_slow_the_pace_so_the_window_never_runs_dry():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(6, 1.2, clock=loop.time)  # 6 - 2 reserved = 4 per 1.2 s: 0.3 s
        outbox = Outbox(window, reserve=2)
        assert outbox.pace(window, -5) == pytest.approx(0.3)
        assert window.take(-5) and window.take(-5)  # a lobby and a reply of the same group
        # two of the four slots are theirs until they leave the window 1.2 s from now: edits
        # 0.4 s apart would fit (0.4, 0.8 with them; 1.2, 1.6 after them), 0.3 s apart would
        # not; and the edits take only the share they leave (more replies may come)
        assert outbox.pace(window, -5) == pytest.approx(0.4)
        times: list[float] = []

        async def edit() -> bool:
            times.append(loop.time())
            return True

        for _ in range(4):
            outbox.request("t", -5, edit)
            await outbox.idle()
            assert window.used(-5) <= window.limit - outbox.reserve
        # never a full window: the first edit waits while the two (at the rate of two in
        # half a window: all four slots) hold the budget; once they left it, the floor
        assert 0.6 <= times[0] <= 1.2
        assert [b - a for a, b in itertools.pairwise(times)] == pytest.approx([0.3] * 3)

    run_in_virtual_time(scenario)


def test_a_request_counts_from_its_answer_once_answered():
    """A request held up on the way arrives at Telegram after its start here: once answered it
    counts from the answer, so the next one a window later cannot land in the same minute."""
    now = [0.0]
    window = SlidingWindow(2, 60.0, clock=lambda: now[0])
    assert window.take(-1)
    first = window.last_start(-1)
    now[0] = 1.0
    assert window.take(-1)  # never answered: it counts from its start
    now[0] = 5.0
    window.finish(-1, first)  # answered 5 s after it started
    assert window.last_start(-1) == 1.0  # the latest start is still the second one
    now[0] = 61.0  # the second request leaves the window, the first still counts
    assert window.used(-1) == 1 and window.take(-1)
    assert not window.take(-1) and window.wait_time(-1) == pytest.approx(4.0)
    now[0] = 65.0  # 60 s after the first one's answer
    assert window.take(-1)
    window.finish(-1, 12345.0)  # an unknown start changes nothing
    assert window.used(-1) == 2


async def test_the_limiter_counts_a_group_request_from_its_answer():
    limiter = ChatRateLimiter(1, group_period=0.3, margin=0.0)

    async def slow() -> bool:
        await asyncio.sleep(0.2)
        return True

    began = time.monotonic()
    await limiter.process_request(slow, (), {}, "sendMessage", {"chat_id": -4}, None)
    log: list = []
    await _request(limiter, -4, log)
    assert log[0][1] - began >= 0.2 + 0.3 - 0.02  # a window after the first one's answer


async def test_without_a_reserve_edits_are_paced_at_the_window_over_the_limit():
    """No slot stays idle: at 20 per 60 s the table is edited every 3 s (the floor)."""
    window = SlidingWindow(20, 60.1)
    assert Outbox(window).pace(window, -6) == pytest.approx(60.1 / 20)


async def test_a_message_waiting_for_the_window_goes_before_the_next_paced_edit():
    window = SlidingWindow(2, 0.6)  # pace 0.3 s
    outbox = Outbox(window)
    sent: list[str] = []

    def job(name: str):
        async def run() -> bool:
            sent.append(name)
            return True
        return run

    outbox.request("t", -8, job("edit 1"))
    await outbox.idle()
    assert window.take(-8)  # the window is full now
    outbox.request("t", -8, job("edit 2"))
    await asyncio.sleep(0.05)

    async def result() -> None:
        await window.acquire(-8)  # e.g. a notice sent past the outbox
        sent.append("notice")

    await asyncio.gather(result(), outbox.idle())
    assert sent == ["edit 1", "notice", "edit 2"]


async def test_at_each_slot_the_most_wanted_job_of_the_chat_goes_and_tidying_waits():
    """A result goes before the table's edit, a tidy-up (Play again off an old result) only at
    a slot no other job of the chat wants; every one of them is paced, so none makes a debt
    that would slow the table's edits for the next minute."""
    window = SlidingWindow(2, 0.6)  # pace 0.3 s
    outbox = Outbox(window)
    sent: list[tuple[str, float]] = []

    def job(name: str):
        async def run() -> bool:
            sent.append((name, time.monotonic()))
            return True
        return run

    outbox.request("t", -7, job("edit 1"))
    await outbox.idle()
    outbox.request("-7#strip1", -7, job("strip"), background=True)
    outbox.request("t", -7, job("edit 2"))
    outbox.request("t#result", -7, job("result"), urgent=True)
    while len(sent) < 3:
        await asyncio.sleep(0.01)
    outbox.request("t", -7, job("edit 3"))  # the table moved on before the tidy-up's turn
    await outbox.idle()
    assert [name for name, _ in sent] == ["edit 1", "result", "edit 2", "edit 3", "strip"]
    gaps = [b[1] - a[1] for a, b in zip(sent, sent[1:], strict=False)]
    assert all(gap >= 0.28 for gap in gaps), gaps  # one pace apart, whatever their rank


def test_a_tidy_up_goes_at_the_next_slot_when_nothing_else_is_pending():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(2, 0.6, clock=loop.time)
        outbox = Outbox(window)
        sent: list[tuple[str, float]] = []

        async def strip() -> bool:
            sent.append(("strip", loop.time()))
            return True

        outbox.request("-8#strip1", -8, strip, background=True)
        await asyncio.wait_for(outbox.idle(), 10.0)
        assert sent == [("strip", 0.0)]  # the window is empty: its slot is now

    run_in_virtual_time(scenario)


async def acquire_at_rank(window: InFlightWindow, rank: int, name: str,
                          started: list[str]) -> None:
    """Wait for ``window`` at ``rank`` (limiter.RANK), note ``name`` in ``started``, release."""
    token = RANK.set(rank)
    try:
        await window.acquire()
    finally:
        RANK.reset(token)
    started.append(name)
    window.release()


async def test_requests_waiting_for_the_bots_budget_start_most_wanted_first():
    """Under a saturated token the presser's own hand goes first, then the prompt of the seat
    to act, the group's table, and last the seats that only watch, whatever the order they
    were asked in."""
    window = InFlightWindow(1, 0.1)
    await window.acquire()  # one in flight: every other request waits
    started: list[str] = []

    tasks = [asyncio.create_task(acquire_at_rank(window, rank, name, started)) for rank, name in
             ((3, "watcher"), (2, "table"), (0, "presser"), (3, "watcher 2"), (1, "prompt"))]
    await asyncio.sleep(0.02)
    window.release()
    await asyncio.gather(*tasks)
    assert started == ["presser", "prompt", "table", "watcher", "watcher 2"]
    assert window.used() <= window.limit


def test_the_last_slots_of_the_bots_budget_are_kept_for_a_pressers_own_hand():
    """With the budget all but spent, a prompt or a watcher's hand waits for a slot to leave
    the window; the presser's own hand (RESERVE_RANK) takes one of the reserved slots at once,
    and the waiting prompt starts when the oldest request leaves the window."""

    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = InFlightWindow(3, 0.2, clock=loop.time, reserve=1)
        started: list[str] = []
        for _ in range(2):  # two requests answered at 0: two of three slots used until 0.2
            await window.acquire()
            window.release()
        prompt = asyncio.create_task(acquire_at_rank(window, 1, "prompt", started))
        await asyncio.sleep(0.05)
        assert started == [] and window.waiting() == 1  # 2 used: only 1 free, the reserved one
        await acquire_at_rank(window, RESERVE_RANK, "presser", started)
        assert started == ["presser"] and loop.time() == 0.05  # at once
        await prompt
        assert started == ["presser", "prompt"]
        assert loop.time() == pytest.approx(0.2)  # when the first two left the window
        assert window.cap(1) == 2 and window.cap(RESERVE_RANK) == 3

    run_in_virtual_time(scenario)


def test_the_bots_limiter_keeps_slots_for_presses():
    limiter = ChatRateLimiter()
    assert limiter.overall.reserve == PRESS_RESERVE > 0
    assert limiter.overall.cap(RESERVE_RANK) == OVERALL_RATE
    assert limiter.overall.cap(RESERVE_RANK + 1) == OVERALL_RATE - PRESS_RESERVE


def test_a_watchers_job_takes_its_budget_first_and_then_draws_the_latest_state():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        overall = InFlightWindow(1, 0.3, clock=loop.time)
        outbox = Outbox(None, overall=overall)
        await overall.acquire()
        overall.release()  # the bot's budget is spent for the next 0.3 s
        state = ["turn 1"]
        seen: list[tuple[str, float]] = []

        async def watcher() -> bool:
            seen.append((state[0], loop.time()))
            return False  # nothing to change: its slot is given back

        outbox.request("t#seat1", 1001, watcher, watcher=True)
        await asyncio.sleep(0.1)
        state[0] = "turn 2"  # the table moved on while the watcher waited
        outbox.request("t#seat1", 1001, watcher, watcher=True)
        await outbox.idle()
        # one job, drawn from the state when its slot came
        assert seen == [("turn 2", pytest.approx(0.3))]
        assert overall.in_flight == 0

    run_in_virtual_time(scenario)


def test_a_jobs_picture_is_prepared_ahead_so_its_request_goes_when_the_slot_comes():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(2, 1.0, clock=loop.time)  # pace 0.5 s
        outbox = Outbox(window)
        events: list[tuple[str, float]] = []

        class Job:
            async def __call__(self) -> bool:
                events.append(("run", loop.time()))
                return True

            async def prepare(self) -> None:  # e.g. rendering the table's picture: 0.1 s
                events.append(("prepare", loop.time()))
                await asyncio.sleep(0.1)

        outbox.request("t", -11, Job())
        await outbox.idle()
        first = window.last_start(-11)
        outbox.request("t", -11, Job())
        await outbox.idle()
        assert [name for name, _ in events] == ["prepare", "run", "prepare", "run"]
        slot = first + 0.5
        # drawn ahead, so that the drawing is done when the slot comes
        assert slot - outbox_module.PREPARE_AHEAD - 1e-9 <= events[2][1] <= slot - 0.1
        assert events[3][1] == pytest.approx(slot)  # sent when the slot came, not a render later

    run_in_virtual_time(scenario)


def test_a_newer_request_after_the_job_was_prepared_is_prepared_before_the_slot():
    """The state changes after the job's picture was drawn ahead of its slot: the newer state
    is drawn at once, so the slot's request does not wait for a render."""

    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(2, 1.0, clock=loop.time)  # pace 0.5 s
        outbox = Outbox(window)
        state = ["turn 1"]
        events: list[tuple[str, str, float]] = []

        class Job:
            async def __call__(self) -> bool:
                events.append(("run", state[0], loop.time()))
                return True

            async def prepare(self) -> None:  # rendering the picture: 0.05 s
                events.append(("prepare", state[0], loop.time()))
                await asyncio.sleep(0.05)

        outbox.request("t", -11, Job())
        await outbox.idle()
        first = window.last_start(-11)
        slot = first + 0.5
        outbox.request("t", -11, Job())
        await asyncio.sleep(slot - 0.1 - loop.time())  # prepared 0.2 s ahead already
        state[0] = "turn 2"
        outbox.request("t", -11, Job())
        await outbox.idle()
        assert [(name, drawn) for name, drawn, _ in events] == [
            ("prepare", "turn 1"), ("run", "turn 1"), ("prepare", "turn 1"),
            ("prepare", "turn 2"), ("run", "turn 2")]
        assert slot - outbox_module.PREPARE_AHEAD - 1e-9 <= events[2][2] <= slot - 0.1
        assert events[3][2] == pytest.approx(slot - 0.1)  # the newer state drawn at once
        assert events[4][2] == pytest.approx(slot)  # sent when the slot came

    run_in_virtual_time(scenario)


async def test_a_state_that_changes_faster_than_its_picture_is_drawn_is_still_shown_at_each_slot():
    """Bots moving faster than the table's picture is drawn (a loaded machine): each newer state
    is drawn ahead of the slot, but once the slot has come the edit goes, drawing the latest
    state itself, instead of drawing each newer state first (the table showed nothing for a
    whole deal, then only its end)."""
    window = SlidingWindow(2, 1.0)  # pace 0.5 s
    outbox = Outbox(window)
    state = [0]
    last_state = 40
    runs: list[tuple[int, float]] = []

    class Job:
        async def __call__(self) -> bool:
            runs.append((state[0], time.monotonic()))
            move()
            return True

        async def prepare(self) -> None:  # drawing takes 0.02 s, and the game moves meanwhile
            await asyncio.sleep(0.02)
            move()

    def move() -> None:
        if state[0] < last_state:
            state[0] += 1
            outbox.request("t", -11, Job())

    outbox.request("t", -11, Job())
    await outbox.idle()
    # At most 11 states a slot (drawn every 0.02 s from 0.2 s before it): at least 4 slots.
    assert len(runs) >= 4 and runs[-1][0] == last_state
    assert [drawn for drawn, _ in runs] == sorted(drawn for drawn, _ in runs)
    assert min(b - a for (_, a), (_, b) in itertools.pairwise(runs)) >= 0.5 - 0.01


async def test_a_request_that_waited_long_overtakes_fresher_more_wanted_ones(monkeypatch):
    """Ranks age (limiter.AGING): under a token that never catches up a watcher's edit still
    goes, and nothing drawn under a table's lock waits for ever."""
    monkeypatch.setattr(limiter, "AGING", 0.05)
    window = InFlightWindow(1, 0.05)
    await window.acquire()
    started: list[str] = []

    watcher = asyncio.create_task(acquire_at_rank(window, 3, "watcher", started))
    await asyncio.sleep(0.3)  # six ranks' worth of waiting
    presser = asyncio.create_task(acquire_at_rank(window, 0, "presser", started))
    await asyncio.sleep(0.01)
    window.release()
    await asyncio.gather(watcher, presser)
    assert started == ["watcher", "presser"]


def _one_token_place(loop: asyncio.AbstractEventLoop) -> tuple[
        SlidingWindow, InFlightWindow, Outbox, list[float], Callable[[], Awaitable[bool]]]:
    """A group window paced 0.5 s apart, a token of one request at a time (0.1 s each), their
    outbox on ``loop``'s clock, and an edit job that notes when it ran (in the list)."""
    window = SlidingWindow(2, 1.0, clock=loop.time)
    overall = InFlightWindow(1, 0.1, clock=loop.time)
    ran: list[float] = []

    async def edit() -> bool:
        ran.append(loop.time())
        return True

    return window, overall, Outbox(window, overall=overall), ran, edit


def test_a_group_edit_takes_its_token_place_before_its_slot_and_goes_when_it_comes():
    """Issue 9 at 10 tables: the bot's 30 requests a second were all taken when a table's slot
    came, and its edit waited up to 0.4 s behind the private messages: every later edit of
    the table is paced from it, so the table's lag was 3.2 s. The group job takes its place
    in the token's line TOKEN_AHEAD before its slot, ahead of every rank, and holds it."""

    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window, overall, outbox, ran, edit = _one_token_place(loop)
        outbox.request("t", -11, edit)
        await outbox.idle()
        await asyncio.sleep(0.2)  # the token is free again; the table's next slot is at 0.5
        outbox.request("t", -11, edit)
        await asyncio.sleep(0.5 - outbox_module.TOKEN_AHEAD + 0.05 - loop.time())
        assert overall.in_flight == 1 and ran == [0.0]  # its place, taken before the slot
        started: list[tuple[str, float]] = []

        async def presser() -> None:  # a presser's own hand, the most wanted rank
            token = RANK.set(0)
            try:
                await overall.acquire()
            finally:
                RANK.reset(token)
            started.append(("presser", loop.time()))
            overall.release()

        pressing = asyncio.create_task(presser())
        await asyncio.sleep(0.49 - loop.time())
        assert overall.waiting() == 1 and started == []  # it waits behind the table's place
        await pressing
        assert ran == [0.0, 0.5]  # the edit went when its slot came
        assert started == [("presser", pytest.approx(0.6))]  # then the presser, 0.1 s later
        assert overall.in_flight == 0

    run_in_virtual_time(scenario)


def test_a_held_token_place_is_given_back_when_the_groups_slot_moves_off():
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window, overall, outbox, ran, edit = _one_token_place(loop)
        outbox.request("t", -11, edit)
        await outbox.idle()
        await asyncio.sleep(0.4)
        outbox.request("t", -11, edit)
        await asyncio.sleep(0.05)
        assert overall.in_flight == 1  # its place for the slot at 0.5
        assert window.take(-11)  # a notice of the group took a slot: the edit's is at 1.0 now
        await asyncio.sleep(0.1)  # at the old slot the job finds its own moved off
        assert overall.in_flight == 0 and overall.used() == 0  # given back, and not counted
        await outbox.idle()
        assert ran == [0.0, pytest.approx(1.0)]

    run_in_virtual_time(scenario)


def test_a_full_groups_line_sends_the_result_then_the_replies_as_asked_then_the_table():
    """A busy group (a /give confirmation came 13.8 s late, after a /top asked 8 s later):
    with the group's window full, the requests waiting for it start in the group's line,
    whatever order they wake up in: the deal's result first, then the replies to commands in
    the order they were asked, then the table's pending edit."""

    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(1, 1.0, clock=loop.time)  # one request a second
        outbox = Outbox(window)
        sent: list[tuple[str, float]] = []

        def job(name: str) -> Callable[[], Awaitable[bool]]:
            async def run() -> bool:
                sent.append((name, loop.time()))
                return True
            return run

        async def reply(name: str) -> None:  # a command's reply: sent straight, not queued
            await window.acquire(-5)
            sent.append((name, loop.time()))

        assert window.take(-5)  # a request on its way at 0: the window is full
        first = window.last_start(-5)
        outbox.request("t", -5, job("table edit"))
        give = asyncio.create_task(reply("/give reply"))  # asked first: room at 1.0, it thinks
        await asyncio.sleep(0.5)
        window.finish(-5, first)  # answered at 0.5: it counts from then, room at 1.5
        top = asyncio.create_task(reply("/top reply"))  # asked later
        await asyncio.sleep(0.1)
        outbox.request("t#result", -5, job("result"), urgent=True)
        await asyncio.gather(give, top, outbox.idle())
        assert [name for name, _ in sent] == ["result", "/give reply", "/top reply",
                                              "table edit"]
        assert [at for _, at in sent] == pytest.approx([1.5, 2.5, 3.5, 4.5])  # never 2 a second

    run_in_virtual_time(scenario)


def test_a_fresh_table_picture_is_not_paced_but_waits_for_the_replies_ahead_of_it():
    """A deal's first table picture is new to the group: it goes at the group's first free
    slot, not at a pace stretched by the replies in the window (8.3 s after Start in a busy
    group), after the replies waiting there and before a lobby's edit."""

    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        window = SlidingWindow(4, 4.0, clock=loop.time)  # pace 1 s with an empty window
        outbox = Outbox(window)
        sent: list[tuple[str, float]] = []

        class Picture:
            async def __call__(self) -> bool:
                sent.append(("first picture", loop.time()))
                return True

            def fresh(self) -> bool:
                return True

        async def lobby() -> bool:
            sent.append(("lobby edit", loop.time()))
            return True

        async def reply(name: str) -> None:
            await window.acquire(-6)
            sent.append((name, loop.time()))

        for _ in range(3):  # three replies in the window's first second: one slot left
            await reply("earlier reply")
        await asyncio.sleep(0.9)
        edit_wait = window.last_start(-6) + outbox.pace(window, -6) - loop.time()
        assert edit_wait > 1.0  # an edit now would wait for its pace: 2 s from the last reply
        outbox.request("t:1", -6, BoardJob(lobby))
        outbox.request("t:0", -6, Picture())
        await outbox.idle()
        assert sent[3:] == [("first picture", pytest.approx(0.9)),
                            ("lobby edit", pytest.approx(4.0))]
        assert window.take(-6) and window.take(-6)  # full now: room at 4.9, then at 8.0
        waiting = asyncio.create_task(reply("reply"))
        await asyncio.sleep(0.1)
        outbox.request("t:0", -6, Picture())  # e.g. a redeal: its first picture again
        await asyncio.gather(waiting, outbox.idle())
        assert sent[5:] == [("reply", pytest.approx(4.9)), ("first picture", pytest.approx(8.0))]

    run_in_virtual_time(scenario)
