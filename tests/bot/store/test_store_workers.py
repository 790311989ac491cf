"""What several workers share through the store (issue 16): timers as rows with a due time that
one worker at a time claims for a lease (the updates' inbox is bot/telegram/workers/shared.py's,
tests/bot/test_workers_webhook.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from bot.store import Store, open_store


@pytest.fixture
async def other(database, clock) -> AsyncIterator[Store]:
    """A second worker's store on the test's database."""
    opened = await open_store(database, clock=clock)
    yield opened
    await opened.close()


async def test_a_timer_fires_when_due_and_is_leased_to_one_worker(store, other, clock):
    due = clock.now + timedelta(seconds=30)
    assert await store.schedule_timer("turn:t1", due, {"deal_id": 7, "version": 3}) == 1
    assert await store.claim_timers("w1") == []  # not due yet
    clock.advance(seconds=30)
    [timer] = await store.claim_timers("w1", lease=10)
    assert (timer.key, timer.due_at, timer.payload, timer.generation) == (
        "turn:t1", due, {"deal_id": 7, "version": 3}, 1
    )
    assert (timer.claimed_by, timer.claimed_until) == ("w1", clock.now + timedelta(seconds=10))
    assert await other.claim_timers("w2") == []  # w1's lease runs
    assert await other.finish_timer(timer) is True
    clock.advance(seconds=60)
    assert await store.claim_timers("w2") == []  # gone for good


async def test_a_dead_workers_timer_is_taken_over_when_its_lease_runs_out(store, other, clock):
    await store.schedule_timer("bot:t1", clock.now, {})
    [first] = await store.claim_timers("w1", lease=5)
    clock.advance(seconds=5)
    [second] = await other.claim_timers("w2", lease=5)  # w1 died without finishing
    assert (second.key, second.generation, second.claimed_by) == ("bot:t1", 1, "w2")
    assert await store.finish_timer(first) is False  # w1 woke up late: not its timer now
    assert await other.finish_timer(second) is True


async def test_rescheduling_replaces_the_timer_and_its_lease(store, clock):
    await store.schedule_timer("turn:t1", clock.now, {"version": 1})
    [old] = await store.claim_timers("w1")
    assert await store.schedule_timer("turn:t1", clock.now + timedelta(seconds=20),
                                      {"version": 2}) == 2
    assert await store.finish_timer(old) is False  # the old firing leaves the new one alone
    assert await store.claim_timers("w1") == []
    clock.advance(seconds=20)
    [new] = await store.claim_timers("w1")
    assert (new.payload, new.generation) == ({"version": 2}, 2)
    assert await store.cancel_timer("turn:t1") is True
    assert await store.cancel_timer("turn:t1") is False
    assert await store.finish_timer(new) is False


async def test_workers_claiming_together_get_disjoint_timers_earliest_first(store, other, clock):
    for n in range(40):
        await store.schedule_timer(f"t{n:02}", clock.now - timedelta(seconds=40 - n), {"n": n})
    claimed = []
    while True:
        batches = await asyncio.gather(
            *(s.claim_timers(w, limit=3) for s, w in ((store, "w1"), (other, "w2"), (store, "w3")))
        )
        if not any(batches):
            break
        for batch in batches:
            assert [t.key for t in batch] == sorted(t.key for t in batch)  # earliest first
            claimed.extend(batch)
    assert sorted(t.key for t in claimed) == [f"t{n:02}" for n in range(40)]  # each once


async def test_claim_timers_refuses_bad_limits(store):
    with pytest.raises(ValueError):
        await store.claim_timers("w1", limit=0)
    with pytest.raises(ValueError):
        await store.claim_timers("w1", lease=0)
