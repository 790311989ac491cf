"""Group tournaments in the store (RULES.md §10.1), on both backends: one live tournament per
group, sign-up in order and withdrawing, the fees taken once at the start (a member who cannot
pay dropped), each deal ended with the table's standings in one transaction, the payout exactly
once and summing to the pool, the refunds of a cancel exactly once."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.store import LedgerReason, SeatRecord, Store
from bot.store.tournament_records import TournamentRefused, UnknownTournament

GROUP = -1001
SEED = "00112233445566778899aabbccddeeff"
FEE = 100


@pytest.fixture
async def players(store):
    for uid in range(1, 8):
        await store.ensure_player(uid, f"p{uid}")


async def open_one(store: Store, fee: int = FEE, chat_id: int = GROUP) -> int:
    return await store.open_tournament(chat_id, None, 1, "quick", {"lang": "en"}, fee, SEED,
                                       "hash")


async def balances(store: Store) -> dict[int, int]:
    return {uid: (await store.get_player(uid)).balance for uid in range(1, 8)}


async def test_one_live_tournament_per_group(store, players):
    tid = await open_one(store)
    record = await store.get_tournament(tid)
    assert (record.status, record.pool, record.entry_fee, record.seed, record.preset) == \
        ("open", 0, FEE, SEED, "quick")
    with pytest.raises(TournamentRefused) as error:
        await open_one(store)
    assert error.value.code == "tournament_live"
    assert await open_one(store, chat_id=-2002) != tid  # another group may
    assert [r.tournament_id for r in await store.live_tournaments()] == [tid, tid + 1]
    with pytest.raises(UnknownTournament):
        await store.get_tournament(999)
    with pytest.raises(ValueError):
        await open_one(store, fee=-1, chat_id=-3003)


async def test_sign_up_keeps_the_order_and_the_maximum(store, players):
    tid = await open_one(store)
    assert await store.sign_up(tid, 3, "p3", 4) is True
    assert await store.sign_up(tid, 1, "p1", 4) is True
    assert await store.sign_up(tid, 3, "p3", 4) is False  # once
    assert await store.sign_up(tid, 2, "p2", 4) is True
    assert await store.withdraw(tid, 1) is True
    assert await store.withdraw(tid, 1) is False
    assert await store.sign_up(tid, 1, "p1", 4) is True  # back, now last
    assert await store.sign_up(tid, 4, "p4", 4) is True
    with pytest.raises(TournamentRefused) as error:
        await store.sign_up(tid, 5, "p5", 4)
    assert error.value.code == "tournament_full"
    assert [e.user_id for e in await store.tournament_entries(tid)] == [3, 2, 1, 4]
    assert await balances(store) == dict.fromkeys(range(1, 8), 1000)  # nothing taken yet


async def test_the_start_takes_each_fee_once_and_drops_who_cannot_pay(store, players, raw):
    tid = await open_one(store)
    for uid in (1, 2, 3, 4):
        await store.sign_up(tid, uid, f"p{uid}", 10)
    await raw.execute("UPDATE players SET balance = 50 WHERE user_id = 4")  # short of the fee
    start = await store.take_tournament_fees(tid)
    assert [e.user_id for e in start.field] == [1, 2, 3]
    assert [e.user_id for e in start.dropped] == [4]
    assert start.pool == 3 * FEE
    again = await store.take_tournament_fees(tid)  # a second start takes nothing
    assert [e.user_id for e in again.field] == [1, 2, 3] and again.pool == 3 * FEE
    # ... and still names who was dropped (a start finished by another worker tells them)
    assert [(e.user_id, e.name) for e in again.dropped] == [(4, "p4")]
    money = await balances(store)
    assert [money[u] for u in (1, 2, 3, 4)] == [900, 900, 900, 50]
    rows = await store.tournament_ledger(tid)
    assert sorted((r.user_id, r.amount, r.reason) for r in rows) == \
        [(u, -FEE, LedgerReason.TOURNAMENT) for u in (1, 2, 3)]
    record = await store.get_tournament(tid)
    assert (record.status, record.pool) == ("running", 3 * FEE)
    with pytest.raises(TournamentRefused):
        await store.sign_up(tid, 6, "p6", 10)
    with pytest.raises(TournamentRefused):
        await store.withdraw(tid, 1)


async def test_deals_standings_and_the_payout_once(store, players):
    tid = await open_one(store)
    for uid in (1, 2, 3):
        await store.sign_up(tid, uid, f"p{uid}", 10)
    await store.take_tournament_fees(tid)
    assert await store.put_tournament_stage(tid, 1, [((1, 2, 3), {"deals": 0})],
                                            {"stage": 1}) is True
    assert await store.put_tournament_stage(tid, 1, [((3, 2, 1), {})], {"stage": 9}) is False
    assert (await store.get_tournament(tid)).state == {"stage": 1}
    seats = [SeatRecord(u, f"p{u}") for u in (1, 2, 3)]
    deal_id = await store.create_deal("t1", GROUP, seats, {"bidding": "score"}, 1, "{}",
                                      for_beans=False)
    await store.settle_tournament_deal(tid, 1, 1, deal_id, '{"end": 1}', {"deals": 1}, True,
                                       table={"k": 2})
    assert (await store.get_deal(deal_id)).status == "cancelled"
    assert (await store.load_tables())["t1"] == {"k": 2}
    [table] = await store.tournament_tables(tid, 1)
    assert (table.players, table.state, table.done) == ((1, 2, 3), {"deals": 1}, True)
    await store.reopen_tournament_table(tid, 1, 1, {"deals": 1, "extra": 1})
    [table] = await store.tournament_tables(tid)
    assert (table.state, table.done) == ({"deals": 1, "extra": 1}, False)
    with pytest.raises(ValueError):
        await store.finish_tournament(tid, {1: 200, 2: 99}, {})
    with pytest.raises(ValueError):
        await store.finish_tournament(tid, {1: 200, 7: 100}, {})
    paid = await store.finish_tournament(tid, {1: 150, 2: 90, 3: 60}, {"places": [1, 2, 3]})
    assert paid == {1: 150, 2: 90, 3: 60}
    assert await store.finish_tournament(tid, {1: 300}, {}) == paid  # once
    assert await store.cancel_tournament(tid) is None  # nothing refunded after the payout
    money = await balances(store)
    assert [money[u] for u in (1, 2, 3)] == [1050, 990, 960]
    rows = await store.tournament_ledger(tid)
    assert sum(r.amount for r in rows) == 0 and len(rows) == 6
    assert (await store.get_tournament(tid)).status == "finished"


async def test_the_final_ranking_is_claimed_by_one_poster_and_marked_posted_once(
        store, players, clock):
    """Whoever posts a finished tournament's final ranking claims it right before sending: a
    second poster (another worker, a worker's watchdog or sweep) gets no claim while it runs;
    a claim given back (the send failed) or run out (its poster died) can be taken again."""
    tid = await open_one(store, fee=0)
    for uid in (1, 2, 3):
        await store.sign_up(tid, uid, f"p{uid}", 10)
    await store.take_tournament_fees(tid)
    assert await store.claim_tournament_announcement(tid) is False  # still running
    assert await store.announce_tournament(tid) is False
    assert await store.unannounced_tournaments() == []
    await store.finish_tournament(tid, {}, {"places": {}})
    assert not (await store.get_tournament(tid)).announced
    assert [r.tournament_id for r in await store.unannounced_tournaments()] == [tid]
    assert await store.claim_tournament_announcement(tid, 60) is True
    assert await store.claim_tournament_announcement(tid, 60) is False
    assert (await store.get_tournament(tid)).announced  # claimed counts as posted
    assert await store.unannounced_tournaments() == []
    assert [r.tournament_id for r in await store.unannounced_tournaments(claimed=True)] \
        == [tid]
    await store.release_tournament_announcement(tid)  # the send failed
    assert [r.tournament_id for r in await store.unannounced_tournaments()] == [tid]
    assert await store.claim_tournament_announcement(tid, 60) is True
    clock.now += timedelta(seconds=61)  # its poster died during the send
    assert [r.tournament_id for r in await store.unannounced_tournaments()] == [tid]
    assert await store.claim_tournament_announcement(tid, 60) is True
    assert await store.announce_tournament(tid) is True  # sent
    await store.release_tournament_announcement(tid)  # too late: it was posted
    assert await store.claim_tournament_announcement(tid) is False
    assert await store.announce_tournament(tid) is False
    assert await store.unannounced_tournaments(claimed=True) == []
    cancelled = await open_one(store, fee=0)
    await store.cancel_tournament(cancelled)
    assert await store.claim_tournament_announcement(cancelled) is False  # no ranking


async def test_a_cancel_refunds_every_fee_once(store, players):
    tid = await open_one(store)
    for uid in (1, 2, 3):
        await store.sign_up(tid, uid, f"p{uid}", 10)
    await store.take_tournament_fees(tid)
    assert await store.cancel_tournament(tid) == {1: FEE, 2: FEE, 3: FEE}
    assert await store.cancel_tournament(tid) is None
    assert await balances(store) == dict.fromkeys(range(1, 8), 1000)
    rows = await store.tournament_ledger(tid)
    assert sum(r.amount for r in rows) == 0 and len(rows) == 6
    record = await store.get_tournament(tid)
    assert (record.status, record.pool) == ("cancelled", 0)
    tid2 = await open_one(store)  # the group may open the next
    await store.sign_up(tid2, 1, "p1", 10)
    assert await store.cancel_tournament(tid2) == {}  # signed up, nothing paid


async def test_a_players_tournaments_played_and_won(store, players):
    assert await store.tournament_stats(1) == (0, 0)
    for places in ({1: 1, 2: 2, 3: None}, {1: 2, 2: 1, 3: 3}):
        tid = await open_one(store)
        for uid in (1, 2, 3):
            await store.sign_up(tid, uid, f"p{uid}", 10)
        await store.take_tournament_fees(tid)
        await store.finish_tournament(tid, {1: 2 * FEE, 2: FEE}, {
            "places": {str(u): p for u, p in places.items()}})
    tid = await open_one(store)  # open: not counted
    await store.sign_up(tid, 1, "p1", 10)
    assert await store.tournament_stats(1) == (2, 1)
    assert await store.tournament_stats(2) == (2, 1)
    assert await store.tournament_stats(3) == (2, 0)
    assert await store.tournament_stats(4) == (0, 0)


async def test_the_groups_tournament_winners(store, players):
    assert await store.tournament_leaderboard(GROUP) == []
    for places in ({1: 1, 2: 2, 3: None}, {1: 2, 2: 1, 3: 3}, {1: 1, 2: 3, 3: 2}):
        tid = await open_one(store)
        for uid in (1, 2, 3):
            await store.sign_up(tid, uid, f"p{uid}", 10)
        await store.take_tournament_fees(tid)
        await store.finish_tournament(tid, {1: 2 * FEE, 2: FEE}, {
            "places": {str(u): p for u, p in places.items()}})
    rows = await store.tournament_leaderboard(GROUP, "all")
    assert [(r.rank, r.user_id, r.name, r.wins, r.games) for r in rows] == \
        [(1, 1, "p1", 2, 3), (2, 2, "p2", 1, 3)]
    assert [r.user_id for r in await store.tournament_leaderboard(GROUP, "week")] == [1, 2]
    assert [r.user_id for r in await store.tournament_leaderboard(GROUP, limit=1)] == [1]
    assert await store.tournament_leaderboard(GROUP + 1) == []
    with pytest.raises(ValueError):
        await store.tournament_leaderboard(GROUP, "year")  # type: ignore[arg-type]


async def test_a_steps_group_messages_are_due_until_sent_and_claimed_by_one_poster(
        store, players, clock):
    tid = await open_one(store, fee=0)
    for uid in (1, 2, 3):
        await store.sign_up(tid, uid, f"p{uid}", 10)
    await store.take_tournament_fees(tid)
    assert await store.due_tournament_posts() == []
    # stored with the stage, in one transaction; a stage stored already stores no message
    assert await store.put_tournament_stage(tid, 1, [((1, 2, 3), {})], {"stage": 1},
                                            [("lead", "started"), ("draw", "tables")]) is True
    assert await store.put_tournament_stage(tid, 1, [((1, 2, 3), {})], {"stage": 1},
                                            [("again", "x")]) is False
    [record] = await store.due_tournament_posts()
    assert [(p.key, p.text, p.claimed_until) for p in record.posts] == \
        [("lead", "started", 0.0), ("draw", "tables", 0.0)]
    assert await store.claim_tournament_post(tid, "lead", 60) is True
    assert await store.claim_tournament_post(tid, "lead", 60) is False  # another poster
    assert (await store.get_tournament(tid)).posts[0].claimed_until > 0
    await store.release_tournament_post(tid, "lead")  # the send failed
    assert await store.claim_tournament_post(tid, "lead", 60) is True
    clock.now += timedelta(seconds=61)  # its poster died during the send
    assert await store.claim_tournament_post(tid, "lead", 60) is True
    await store.clear_tournament_post(tid, "lead")  # sent
    assert await store.claim_tournament_post(tid, "lead", 60) is False
    assert await store.claim_tournament_post(tid, "draw", 60) is True
    await store.release_tournament_post(tid)  # a single process's start: every claim given up
    assert [p.claimed_until for p in (await store.get_tournament(tid)).posts] == [0.0]
    await store.clear_tournament_post(tid, "draw")
    assert await store.due_tournament_posts() == []
    # a tie's extra deals and the cancel store theirs with their step too
    await store.reopen_tournament_table(tid, 1, 1, {"extra": 1}, [("extra", "again")])
    assert [p.key for p in (await store.get_tournament(tid)).posts] == ["extra"]
    assert await store.cancel_tournament(tid, [("cancel", "cancelled")]) == {}
    assert await store.cancel_tournament(tid, [("twice", "no")]) is None
    [record] = await store.due_tournament_posts()
    assert (record.status, [p.key for p in record.posts]) == ("cancelled", ["extra", "cancel"])
