"""Matches in the store (issue 11, RULES.md §10): fees taken with the match record, deals that
move no beans, the payout and the refunds exactly once, statistics and /top matches."""

from __future__ import annotations

import pytest

from bot.store import LedgerReason, MatchNotRunning, MatchRefused, MatchStats, SeatRecord, Store

GROUP = -1001
SEATS = [SeatRecord(1, "p1"), SeatRecord(2, "p2"), SeatRecord(3, "p3")]


@pytest.fixture
async def players(store):
    for uid in (1, 2, 3, 4):
        await store.ensure_player(uid, f"p{uid}")


async def start(store: Store, seats=SEATS, fee: int = 100, fmt: str = "fixed") -> int:
    return await store.start_match(f"{GROUP}:0", GROUP, fmt, {"format": fmt, "deals": 3},
                                   seats, fee, '{"v": 1}')


async def match_deal(store: Store, match_id: int, seats=SEATS) -> int:
    return await store.create_deal(f"{GROUP}:0", GROUP, seats, {"bidding": "score"}, 1, "{}",
                                   match_id=match_id)


async def balances(store: Store, *uids: int) -> list[int]:
    return [await store.balance(uid) for uid in uids]


async def test_fees_are_taken_with_the_match_record(store, players):
    match_id = await start(store)
    assert await balances(store, 1, 2, 3) == [900, 900, 900]
    record = await store.get_match(match_id)
    assert (record.status, record.pool, record.entry_fee, record.format) == \
        ("running", 300, 100, "fixed")
    rows = await store.match_ledger(match_id)
    assert [(r.user_id, r.amount, r.reason, r.match_id, r.chat_id) for r in rows] == [
        (uid, -100, LedgerReason.MATCH, match_id, GROUP) for uid in (1, 2, 3)]
    totals = await store.totals()
    assert totals.pools == 300 and totals.conserved
    assert [m.match_id for m in await store.running_matches()] == [match_id]


async def test_bot_seats_pay_no_fee(store, players):
    match_id = await start(store, [SeatRecord(1, "p1"), SeatRecord(None, "bot", True),
                                   SeatRecord(2, "p2")], fee=50)
    assert (await store.get_match(match_id)).pool == 100
    assert await balances(store, 1, 2) == [950, 950]


async def test_a_player_who_cannot_pay_cannot_start_and_nothing_changes(store, players):
    with pytest.raises(MatchRefused) as error:
        await start(store, fee=1001)
    assert error.value.code == "match_fee" and error.value.user_ids == (1, 2, 3)
    assert await balances(store, 1, 2, 3) == [1000, 1000, 1000]
    assert await store.running_matches() == []


async def test_beans_held_by_a_running_deal_cannot_pay_a_fee(store, players, make_deal):
    deal_id = await make_deal([2, 4, None])
    with pytest.raises(MatchRefused) as error:
        await start(store)
    assert error.value.code == "match_held" and error.value.user_ids == (2,)
    assert await balances(store, 1, 2, 3) == [1000, 1000, 1000]
    await store.cancel_deal(deal_id)
    await start(store)
    assert await balances(store, 1, 2, 3) == [900, 900, 900]


async def test_a_free_match_takes_nothing(store, players):
    match_id = await start(store, fee=0)
    assert await store.match_ledger(match_id) == []
    assert (await store.get_match(match_id)).pool == 0


async def test_match_deals_move_no_beans_and_store_the_state_once(store, players):
    match_id = await start(store)
    deal_id = await match_deal(store, match_id)
    settlement = await store.settle_match_deal(match_id, deal_id, [4, -2, -2], '{"done": 1}',
                                               '{"v": 1, "deals": [1]}')
    assert settlement.beans == (0, 0, 0) and settlement.points == (4, -2, -2)
    assert await balances(store, 1, 2, 3) == [900, 900, 900]
    assert (await store.get_match(match_id)).state_json == '{"v": 1, "deals": [1]}'
    again = await store.settle_match_deal(match_id, deal_id, [4, -2, -2], "{}", '{"v": 9}')
    assert again.repeated
    assert (await store.get_match(match_id)).state_json == '{"v": 1, "deals": [1]}'
    stats = await store.player_stats(1)
    assert (stats.games, stats.wins) == (1, 1)
    assert await store.deal_hold(1) is None


async def test_a_match_deal_stores_the_table_in_its_transaction(store, players):
    """Issue 14: a match deal's end stores the table's next data with the settlement."""
    match_id = await start(store, fee=0)
    deal_id = await match_deal(store, match_id)
    await store.settle_match_deal(match_id, deal_id, [2, -1, -1], "{}", '{"v": 1}',
                                  table={"phase": "result"})
    assert (await store.load_tables())[f"{GROUP}:0"] == {"phase": "result"}


async def test_a_deal_of_another_match_is_refused(store, players):
    match_id = await start(store, fee=0)
    other = await start(store, fee=0)
    deal_id = await match_deal(store, other)
    with pytest.raises(ValueError):
        await store.settle_match_deal(match_id, deal_id, [2, -1, -1], "{}", "{}",
                                      table={"phase": "result"})
    assert f"{GROUP}:0" not in await store.load_tables()


async def test_the_payout_is_paid_exactly_once_and_sums_with_the_fees_to_zero(store, players):
    match_id = await start(store)
    with pytest.raises(ValueError):
        await store.finish_match(match_id, [150, 90, 59], [1, 2, 3], [True, False, False], {})
    first = await store.finish_match(match_id, [150, 90, 60], [1, 2, 3], [True, False, False],
                                     {"places": [1, 2, 3]})
    for _ in range(3):
        again = await store.finish_match(match_id, [300, 0, 0], [1, 2, 3],
                                         [True, False, False], {})
        assert again.repeated and again.paid == (150, 90, 60)
    assert not first.repeated
    assert await balances(store, 1, 2, 3) == [1050, 990, 960]
    rows = await store.match_ledger(match_id)
    assert len(rows) == 6 and sum(r.amount for r in rows) == 0
    record = await store.get_match(match_id)
    assert record.status == "finished" and record.result == {"places": [1, 2, 3],
                                                             "paid": [150, 90, 60]}
    totals = await store.totals()
    assert totals.pools == 0 and totals.balances == totals.ledger == totals.grants
    with pytest.raises(MatchNotRunning):
        await store.cancel_match(match_id)


async def test_a_bot_seat_wins_no_prize(store, players):
    match_id = await start(store, [SeatRecord(1, "p1"), SeatRecord(None, "bot", True),
                                   SeatRecord(2, "p2")])
    with pytest.raises(ValueError):
        await store.finish_match(match_id, [100, 100, 0], [2, 1, 3], [False, True, False], {})
    await store.finish_match(match_id, [140, 0, 60], [2, 1, 3], [False, True, False], {})
    assert await store.match_stats(1) == MatchStats(1, 0)
    assert await store.match_stats(2) == MatchStats(1, 0)


async def test_cancel_refunds_every_fee_exactly_once(store, players):
    match_id = await start(store)
    deal_id = await match_deal(store, match_id)
    assert await store.deal_hold(1) is None  # a match deal moves no beans: it holds none
    first = await store.cancel_match(match_id)
    assert first.paid == (100, 100, 100) and not first.repeated
    for _ in range(3):
        assert (await store.cancel_match(match_id)).repeated
    assert await balances(store, 1, 2, 3) == [1000, 1000, 1000]
    assert (await store.get_deal(deal_id)).status == "cancelled"
    assert await store.deal_hold(1) is None
    rows = await store.match_ledger(match_id)
    assert len(rows) == 6 and sum(r.amount for r in rows) == 0
    with pytest.raises(MatchNotRunning):
        await store.finish_match(match_id, [300, 0, 0], [1, 2, 3], [True, False, False], {})
    assert (await store.totals()).conserved


async def test_match_statistics_and_the_winners_board(store, players, clock):
    for winner in (1, 2, 1):
        match_id = await start(store, fee=0)
        won = [uid == winner for uid in (1, 2, 3)]
        places = [1 if w else 2 for w in won]
        await store.finish_match(match_id, [0, 0, 0], places, won, {})
        clock.advance(days=3)
    assert await store.match_stats(1) == MatchStats(3, 2)
    assert (await store.match_stats(3)).won == 0
    board = await store.match_leaderboard(GROUP, "all")
    assert [(r.rank, r.user_id, r.value, r.games) for r in board] == [(1, 1, 2, 3), (2, 2, 1, 3)]
    week = await store.match_leaderboard(GROUP, "week")
    # finished on Wed 1, Sat 4 and Tue 7 May; now is Fri 10 May: this week holds the last one
    assert [(r.user_id, r.value, r.games) for r in week] == [(1, 1, 1)]
    assert await store.match_leaderboard(-5, "all") == []


async def test_migration_5_keeps_old_ledger_rows_and_accepts_match_rows(raw):
    assert await raw.migrate_to(4) == [1, 2, 3, 4]
    await raw.execute(
        "INSERT INTO players (user_id, name, balance, balance_changed_at, created_at)"
        " VALUES (1, 'p1', 1000, 0, 0)")
    await raw.execute(
        "INSERT INTO ledger (user_id, amount, balance_after, reason, created_at)"
        " VALUES (1, 1000, 1000, 'grant', 0)")
    assert await raw.migrate_to(5) == [5]
    assert await raw.fetch("SELECT reason, amount, match_id FROM ledger") == [
        ("grant", 1000, None)]
    await raw.execute(
        "INSERT INTO ledger (user_id, amount, balance_after, reason, created_at)"
        " VALUES (1, -10, 990, 'match', 1)")
    with pytest.raises(Exception, match="CHECK|check"):
        await raw.execute(
            "INSERT INTO ledger (user_id, amount, balance_after, reason, created_at)"
            " VALUES (1, -10, 980, 'bribe', 2)")


async def test_a_supergroup_migration_moves_running_and_finished_matches(store, players):
    """A match row keeps its table's key: after ``migrate_chat`` the running match belongs to
    the re-keyed table (restored, not cancelled, after a restart) and the finished match's
    places count in the supergroup's ``/top matches``."""
    new_group = -1001000000077
    finished = await start(store)
    await store.finish_match(finished, [150, 90, 60], [1, 2, 3], [True, False, False], {})
    running = await start(store)
    await store.save_table(f"{GROUP}:0", {"chat_id": GROUP, "phase": "deal"})

    assert await store.migrate_chat(GROUP, new_group) is True

    record = await store.get_match(running)
    assert (record.chat_id, record.table_key) == (new_group, f"{new_group}:0")
    assert [m.table_key for m in await store.running_matches()] == [f"{new_group}:0"]
    assert [(row.user_id, row.wins) for row in await store.match_leaderboard(new_group)] == [
        (1, 1)]
    assert await store.match_leaderboard(GROUP) == []
