"""Two bot processes on one database (issue 16, RULES.md §8): every race between two stores
opened on the same database (two PostgreSQL pools, two SQLite connections) pays once, keeps
the ledger equal to the balances and never lets beans leave a running deal."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.store import DealNotRunning, GiveRefused, SeatRecord, Store, open_store

GROUP = -1001
SEATS = [SeatRecord(1, "p1"), SeatRecord(2, "p2"), SeatRecord(3, "p3")]


@pytest.fixture
async def other(database, clock) -> AsyncIterator[Store]:
    """A second worker's store on the test's database."""
    opened = await open_store(database, clock=clock)
    yield opened
    await opened.close()


@pytest.fixture
async def players(store):
    for uid in (1, 2, 3, 4):
        await store.ensure_player(uid, f"p{uid}")
    await store.update_group_settings(GROUP, give_enabled=True)


async def assert_conserved(store: Store) -> None:
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants


async def test_a_new_player_seen_by_two_workers_at_once_is_granted_once(store, other):
    await asyncio.gather(*(s.ensure_player(9, "Nine") for _ in range(5) for s in (store, other)))
    assert await store.balance(9) == 1000
    assert len(await store.ledger(9)) == 1
    await assert_conserved(store)


async def test_a_deal_settled_by_two_workers_at_once_pays_once(store, other, players):
    for _ in range(5):
        deal_id = await store.create_deal("t", GROUP, SEATS, {}, 10, "{}")
        before = [await store.balance(uid) for uid in (1, 2, 3)]
        settlements = await asyncio.gather(
            *(s.settle_deal(deal_id, [2, -1, -1], "{}") for _ in range(3) for s in (store, other))
        )
        assert sum(not s.repeated for s in settlements) == 1
        assert len({(s.beans, s.balances) for s in settlements}) == 1
        assert [await store.balance(uid) for uid in (1, 2, 3)] == [
            before[0] + 20, before[1] - 10, before[2] - 10
        ]
    await assert_conserved(store)
    assert (await store.player_stats(1)).games == 5


async def test_settle_and_cancel_racing_end_the_deal_one_way(store, other, players):
    outcomes = set()
    for _ in range(6):
        deal_id = await store.create_deal("t", GROUP, SEATS, {}, 10, "{}")
        settled, cancelled = await asyncio.gather(
            store.settle_deal(deal_id, [2, -1, -1], "{}"),
            other.cancel_deal(deal_id),
            return_exceptions=True,
        )
        status = (await store.get_deal(deal_id)).status
        if status == "settled":
            assert isinstance(cancelled, DealNotRunning) and not settled.repeated
        else:
            assert status == "cancelled" and cancelled is True
            assert isinstance(settled, DealNotRunning)
        assert await store.deal_hold(1) is None  # released either way
        outcomes.add(status)
    await assert_conserved(store)
    assert outcomes  # at least one race ran to an end


async def test_gifts_through_two_workers_keep_the_daily_limit_and_the_balance(
    store, other, players
):
    results = await asyncio.gather(
        *(s.give(1, 2, 300, GROUP) for _ in range(4) for s in (store, other)),
        return_exceptions=True,
    )
    given = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, GiveRefused)]
    assert len(given) == 3 and len(refused) == 5  # 1000 beans a day: 3 × 300, not a 4th
    assert {r.code for r in refused} == {"give_insufficient"}  # 100 held (and 100 allowed)
    assert (await store.balance(1), await store.balance(2)) == (100, 1900)
    await assert_conserved(store)


async def test_a_gift_racing_a_new_deal_never_moves_held_beans(store, other, players):
    """Either the deal starts first and /give is refused, or the gift goes first and the deal
    holds what was left: the hold is never more than the balance."""
    for round_no in range(6):
        giver = 1 + round_no % 3
        gift, deal_id = await asyncio.gather(
            other.give(giver, 4, 50, GROUP),
            store.create_deal("t", GROUP, SEATS, {}, 10, "{}"),
            return_exceptions=True,
        )
        hold = await store.deal_hold(giver)
        assert hold is not None and isinstance(deal_id, int)
        if isinstance(gift, GiveRefused):
            assert gift.code == "give_in_deal"
        else:
            assert hold.balance_at_start == await store.balance(giver)
        assert hold.balance_at_start <= await store.balance(giver)
        await store.cancel_deal(deal_id)
    await assert_conserved(store)
