"""Daily check-in, relief, /give and the ledger audit (issue 5, RULES.md §8)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from datetime import UTC, date, datetime

import pytest

from bot.store import (
    AlreadyClaimed,
    GiveRefused,
    LedgerReason,
    NotEligible,
    UnknownPlayer,
    open_store,
)
from bot.store.sql import SQLiteStore

GROUP = -1001  # Asia/Shanghai (the default)
NEW_YORK = -1002


@pytest.fixture
async def players(store):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    await store.update_group_settings(NEW_YORK, timezone="America/New_York")


async def test_daily_once_per_day_and_streak_bonus(store, clock, players):
    first = await store.claim_daily(1, GROUP)
    assert (first.amount, first.balance, first.day, first.streak) == (
        200,
        1200,
        date(2024, 5, 1),
        1,
    )
    with pytest.raises(AlreadyClaimed) as error:
        await store.claim_daily(1, GROUP)
    assert error.value.next_day == date(2024, 5, 2)
    clock.advance(days=1)
    assert (await store.claim_daily(1, GROUP)).amount == 220
    clock.advance(days=1)
    assert (await store.claim_daily(1)).streak == 3  # a private chat counts too
    clock.advance(days=2)  # a day missed: the streak starts again
    again = await store.claim_daily(1, GROUP)
    assert (again.amount, again.streak) == (200, 1)
    assert [e.reason for e in await store.ledger(1)] == [LedgerReason.DAILY] * 4 + [
        LedgerReason.GRANT
    ]


async def test_streak_is_capped(store, clock, players):
    amounts = []
    for _ in range(9):
        amounts.append((await store.claim_daily(1, GROUP)).amount)
        clock.advance(days=1)
    assert amounts == [200, 220, 240, 260, 280, 300, 320, 320, 320]


async def test_a_players_day_ends_at_midnight_beijing_time_in_every_group(store, clock, players):
    """Issue 14: one day boundary per player, whatever group's time zone they write in."""
    clock.now = datetime(2024, 5, 1, 15, 59, tzinfo=UTC)  # Shanghai 23:59, New York 11:59
    assert (await store.claim_daily(1, GROUP)).day == date(2024, 5, 1)
    assert (await store.claim_daily(2, NEW_YORK)).day == date(2024, 5, 1)
    clock.now = datetime(2024, 5, 1, 16, 0, tzinfo=UTC)  # Beijing midnight: a new day for both
    assert (await store.claim_daily(1, GROUP)).day == date(2024, 5, 2)
    claim = await store.claim_daily(2, NEW_YORK)
    assert (claim.day, claim.streak) == (date(2024, 5, 2), 2)
    clock.now = datetime(2024, 5, 2, 4, 0, tzinfo=UTC)  # New York midnight: not a new day
    with pytest.raises(AlreadyClaimed) as error:
        await store.claim_daily(2, NEW_YORK)
    assert error.value.next_day == date(2024, 5, 3)


@pytest.mark.parametrize("zones", [("Etc/GMT+12", "Etc/GMT-14"), ("Etc/GMT-14", "Etc/GMT+12")])
async def test_hopping_between_far_time_zones_gives_one_day_of_everything(
    store, clock, players, zones
):
    """Issue 14 defect 10: /daily and /give in Etc/GMT+12 and Etc/GMT-14 groups seconds apart
    paid twice and gave 2,000 beans."""
    west, east = -3001, -3002
    for chat_id, zone in zip((west, east), zones, strict=True):
        await store.update_group_settings(chat_id, timezone=zone, give_enabled=True)
    clock.now = datetime(2024, 5, 1, 11, 0, tzinfo=UTC)  # May 1 in Etc/GMT+12, May 2 in GMT-14
    assert (await store.claim_daily(1, west)).amount == 200
    with pytest.raises(AlreadyClaimed):
        await store.claim_daily(1, east)
    await store.give(1, 2, 1000, west)
    with pytest.raises(GiveRefused) as error:
        await store.give(1, 3, 100, east)  # within the 200 beans left, over the day's limit
    assert (error.value.code, error.value.remaining) == ("give_limit", 0)
    assert [await store.balance(u) for u in (1, 2, 3)] == [200, 2000, 1000]


async def test_concurrent_daily_presses_grant_once(store, players):
    results = await asyncio.gather(
        *(store.claim_daily(1, GROUP) for _ in range(20)), return_exceptions=True
    )
    granted = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, AlreadyClaimed)]
    assert (len(granted), len(refused)) == (1, 19)
    assert await store.balance(1) == 1200


async def test_concurrent_presses_through_two_connections_grant_once(
    store, database, clock, players
):
    other = await open_store(database, clock=clock)  # a second worker on the same database
    try:
        results = await asyncio.gather(
            *(s.claim_daily(1, GROUP) for _ in range(10) for s in (store, other)),
            return_exceptions=True,
        )
    finally:
        await other.close()
    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, AlreadyClaimed) for r in results if isinstance(r, Exception))
    assert await store.balance(1) == 1200


async def test_claims_need_a_known_player(store):
    with pytest.raises(UnknownPlayer):
        await store.claim_daily(42, GROUP)
    with pytest.raises(UnknownPlayer):
        await store.claim_relief(42, GROUP)


async def test_relief_below_100_tops_up_once_a_day(store, clock, players, make_deal):
    with pytest.raises(NotEligible):
        await store.claim_relief(1, GROUP)
    deal_id = await make_deal([1, 2, 3], stake=50)
    await store.settle_deal(deal_id, [-20, 10, 10], "{}")  # 1000 beans lost, balance 0
    relief = await store.claim_relief(1, GROUP)
    assert (relief.amount, relief.balance) == (500, 500)
    assert (await store.ledger(1, limit=1))[0].reason == LedgerReason.RELIEF
    with pytest.raises(NotEligible):  # 500 is not below 100
        await store.claim_relief(1, GROUP)
    deal_id = await make_deal([1, 2, 3], stake=50)
    await store.settle_deal(deal_id, [-10, 5, 5], "{}")  # back to 0 the same day
    with pytest.raises(AlreadyClaimed):
        await store.claim_relief(1, GROUP)
    clock.advance(days=1)
    assert (await store.claim_relief(1, GROUP)).amount == 500


async def test_give_is_off_by_default(store, players):
    with pytest.raises(GiveRefused) as error:
        await store.give(1, 2, 10, GROUP)
    assert error.value.code == "give_disabled"
    assert await store.balance(1) == 1000


async def test_give_moves_beans_with_two_ledger_rows_within_the_daily_limit(store, clock, players):
    await store.update_group_settings(GROUP, give_enabled=True)
    gift = await store.give(1, 2, 600, GROUP)
    assert (gift.giver_balance, gift.receiver_balance, gift.remaining_today) == (400, 1600, 400)
    out, received = (await store.ledger(1))[0], (await store.ledger(2))[0]
    assert (out.amount, out.reason, received.amount, received.reason) == (
        -600,
        LedgerReason.GIVE,
        600,
        LedgerReason.GIVE,
    )
    with pytest.raises(GiveRefused) as error:
        await store.give(1, 3, 401, GROUP)  # more than the 400 held (and the 400 allowed)
    assert error.value.code == "give_insufficient"
    with pytest.raises(GiveRefused) as error:
        await store.give(2, 3, 1001, GROUP)  # 1600 held: over the day's limit only
    assert (error.value.code, error.value.remaining) == ("give_limit", 1000)
    await store.give(1, 3, 400, GROUP)
    clock.advance(days=1)
    with pytest.raises(GiveRefused) as error:
        await store.give(1, 3, 1, GROUP)  # a new day, but nothing left to give
    assert error.value.code == "give_insufficient"
    assert (await store.give(2, 1, 1000, GROUP)).remaining_today == 0
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants == 3000


@pytest.mark.parametrize(
    ("giver", "receiver", "amount", "code"),
    [
        (1, 2, 0, "give_invalid_amount"),
        (1, 2, -5, "give_invalid_amount"),
        (1, 2, True, "give_invalid_amount"),
        (1, 1, 10, "give_same_player"),
        (1, 2, 1001, "give_insufficient"),  # over the daily limit too: the balance is said
    ],
)
async def test_give_refusals_change_nothing(store, players, giver, receiver, amount, code):
    await store.update_group_settings(GROUP, give_enabled=True)
    with pytest.raises(GiveRefused) as error:
        await store.give(giver, receiver, amount, GROUP)
    assert error.value.code == code
    assert [await store.balance(uid) for uid in (1, 2)] == [1000, 1000]


async def test_give_to_an_unknown_player(store, players):
    await store.update_group_settings(GROUP, give_enabled=True)
    with pytest.raises(UnknownPlayer):
        await store.give(1, 99, 10, GROUP)
    assert await store.balance(1) == 1000


async def test_audit_shows_the_last_20_rows_newest_first(store, clock, players):
    for _ in range(25):
        await store.claim_daily(1, GROUP)
        clock.advance(days=1)
    rows = await store.ledger(1)
    assert len(rows) == 20
    assert [r.entry_id for r in rows] == sorted((r.entry_id for r in rows), reverse=True)
    assert rows[0].balance_after == await store.balance(1)
    assert all(a.balance_after - a.amount == b.balance_after for a, b in itertools.pairwise(rows))


@contextlib.contextmanager
def cancel_at_statement(db, n: int):
    """Patch the connection so that the ``n``-th statement is queued and then its caller is
    cancelled, exactly what task cancellation does to an awaiting aiosqlite call."""
    original = db.execute_fetchall, db.execute
    sent = 0

    def cancelling(method):
        async def call(*args, **kwargs):
            nonlocal sent
            sent += 1
            pending = asyncio.ensure_future(method(*args, **kwargs))
            if sent == n:
                raise asyncio.CancelledError
            return await pending

        return call

    db.execute_fetchall, db.execute = map(cancelling, original)
    try:
        yield
    finally:
        db.execute_fetchall, db.execute = original


async def test_cancelled_sqlite_writes_leave_the_store_consistent_and_usable(db_path, clock):
    """A handler task cancelled while awaiting any statement of a claim (e.g. at shutdown) has
    committed the whole claim or nothing, and the next transaction works (white-box: patches
    the SQLite store's aiosqlite connection; test_cancelled_claims_… covers both backends)."""
    store = await SQLiteStore.open(db_path, clock=clock)
    try:
        await store.ensure_player(1, "p1")
        await check_cancelled_claims_at_each_statement(store, clock)
    finally:
        await store.close()


async def check_cancelled_claims_at_each_statement(store, clock):
    outcomes = []
    for n in range(1, 20):
        clock.advance(days=1)
        before = await store.balance(1)
        with cancel_at_statement(store._backend._db, n):
            try:
                await store.claim_daily(1, GROUP)
                outcomes.append("done")
            except asyncio.CancelledError:
                outcomes.append("cancelled")
        await store.ensure_player(100 + n, "next")  # the next write transaction works
        gained = await store.balance(1) - before
        assert gained in (0, (await store.ledger(1, limit=1))[0].amount)  # all or nothing
    assert "cancelled" in outcomes and "done" in outcomes
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants
    entries = await store.ledger(1, limit=100)
    assert sum(e.amount for e in entries) == await store.balance(1)


async def test_cancelled_claims_commit_all_or_nothing_on_both_backends(store, clock, players):
    """A claim task cancelled after any number of event-loop steps (a statement in flight on
    either backend) has committed the whole claim or nothing, and the store keeps working."""
    outcomes = []
    for steps in range(0, 40, 2):
        clock.advance(days=1)
        before = await store.balance(1)
        task = asyncio.ensure_future(store.claim_daily(1, GROUP))
        for _ in range(steps):
            await asyncio.sleep(0)
        task.cancel()
        try:
            await task
            outcomes.append("done")
        except asyncio.CancelledError:
            outcomes.append("cancelled")
        await store.ensure_player(100 + steps, "next")  # the next write transaction works
        gained = await store.balance(1) - before
        assert gained in (0, (await store.ledger(1, limit=1))[0].amount)  # all or nothing
    assert "cancelled" in outcomes
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants
    entries = await store.ledger(1, limit=100)
    assert sum(e.amount for e in entries) == await store.balance(1)
