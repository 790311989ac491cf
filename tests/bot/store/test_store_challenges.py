"""Duplicate challenges in the store (issue 12, RULES.md §10), on both backends: the fee taken
with the entry, entering once, beans held by a running deal, each member's deal recorded once
with its deal ended in the same transaction, the payout exactly once and summing to zero."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.store import (
    ChallengeNotOpen,
    ChallengeRefused,
    LedgerReason,
    SeatRecord,
    Store,
    UnknownChallenge,
)

GROUP = -1001
SEED = "00112233445566778899aabbccddeeff"


@pytest.fixture
async def players(store):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")


async def open_one(store: Store, clock, fee: int = 100, chat_id: int = GROUP, **kw) -> int:
    return await store.open_challenge(chat_id, None, 1, {"deals": 2, "days": 1, "entry_fee": fee},
                                      fee, SEED, "hash", clock.now + timedelta(days=1), **kw)


async def private_deal(store: Store, uid: int) -> int:
    seats = [SeatRecord(uid, f"p{uid}"), SeatRecord(None, "b2", True),
             SeatRecord(None, "b3", True)]
    return await store.create_deal(f"{uid}:challenge", uid, seats, {"bidding": "score"}, 1, "{}",
                                   table={"k": 1})


async def test_opening_records_the_challenge_once_per_chat(store, players, clock):
    cid = await open_one(store, clock)
    record = await store.get_challenge(cid)
    assert (record.status, record.pool, record.entry_fee, record.seed, record.seed_hash) == \
        ("open", 0, 100, SEED, "hash")
    assert record.closes_at == clock.now + timedelta(days=1)
    with pytest.raises(ChallengeRefused) as error:
        await open_one(store, clock)
    assert error.value.code == "challenge_open"
    assert [c.challenge_id for c in await store.open_challenges()] == [cid]
    await store.set_challenge_message(cid, 77)
    assert (await store.get_challenge(cid)).message_id == 77
    with pytest.raises(UnknownChallenge):
        await store.get_challenge(cid + 100)


async def test_a_daily_challenge_opens_once_per_group_day(store, players, clock):
    cid = await open_one(store, clock, daily="2024-05-01")
    await store.close_challenge(cid, {}, {})
    with pytest.raises(ChallengeRefused) as error:
        await open_one(store, clock, daily="2024-05-01")
    assert error.value.code == "challenge_daily"
    await open_one(store, clock, daily="2024-05-02")


async def test_a_daily_challenge_still_open_is_refused_as_that_days_daily(store, players, clock):
    """Both refusals apply (the day's daily challenge exists and is still open): the answer is
    the lasting one, ``challenge_daily`` (it still holds once the challenge closes), on both
    databases alike."""
    await open_one(store, clock, daily="2024-05-01")
    with pytest.raises(ChallengeRefused) as error:
        await open_one(store, clock, daily="2024-05-01")
    assert error.value.code == "challenge_daily"
    with pytest.raises(ChallengeRefused) as error:
        await open_one(store, clock, daily="2024-05-02")
    assert error.value.code == "challenge_open"


async def test_entering_takes_the_fee_once_and_refuses_a_second_entry(store, players, clock):
    cid = await open_one(store, clock)
    entry = await store.enter_challenge(cid, 1, "Ann")
    assert entry.user_id == 1 and entry.name == "Ann"
    with pytest.raises(ChallengeRefused) as error:
        await store.enter_challenge(cid, 1, "Ann")
    assert error.value.code == "challenge_entered"
    assert await store.balance(1) == 900
    assert (await store.get_challenge(cid)).pool == 100
    rows = await store.challenge_ledger(cid)
    assert [(r.user_id, r.amount, r.reason, r.chat_id) for r in rows] == [
        (1, -100, LedgerReason.CHALLENGE, GROUP)]
    totals = await store.totals()
    assert totals.pools == 100 and totals.conserved
    assert [e.user_id for e in await store.challenge_entries(cid)] == [1]


async def test_a_fee_beyond_the_balance_or_held_by_a_deal_is_refused(store, players, clock):
    cid = await open_one(store, clock, fee=1001)
    with pytest.raises(ChallengeRefused) as error:
        await store.enter_challenge(cid, 2, "Bob")
    assert error.value.code == "challenge_fee"
    await store.close_challenge(cid, {}, {})
    cid = await open_one(store, clock, fee=10)
    deal_id = await private_deal(store, 2)
    with pytest.raises(ChallengeRefused) as error:
        await store.enter_challenge(cid, 2, "Bob")
    assert error.value.code == "challenge_held"
    assert await store.balance(2) == 1000 and await store.challenge_entries(cid) == []
    await store.cancel_deal(deal_id)
    await store.enter_challenge(cid, 2, "Bob")
    assert await store.balance(2) == 990


async def test_a_free_challenge_may_be_entered_while_a_deal_runs(store, players, clock):
    cid = await open_one(store, clock, fee=0)
    await private_deal(store, 3)
    await store.enter_challenge(cid, 3, "Cy")
    assert await store.balance(3) == 1000 and await store.challenge_ledger(cid) == []


async def test_entering_after_the_window_is_refused(store, players, clock):
    cid = await open_one(store, clock)
    clock.advance(days=1)
    with pytest.raises(ChallengeRefused) as error:
        await store.enter_challenge(cid, 1, "Ann")
    assert error.value.code == "challenge_closed"


async def test_a_deal_is_recorded_once_with_its_end_in_one_transaction(store, players, clock):
    cid = await open_one(store, clock, fee=0)
    await store.enter_challenge(cid, 1, "Ann")
    deal_id = await private_deal(store, 1)
    assert await store.deal_hold(1) is not None
    table = {"phase": "result"}
    assert await store.finish_challenge_deal(cid, 1, 1, deal_id, 6, True, '{"v": 9}',
                                             table=table) is True
    assert await store.deal_hold(1) is None  # the hold is gone with the deal
    deal = await store.get_deal(deal_id)
    assert deal.status == "cancelled" and deal.state_json == '{"v": 9}'
    assert (await store.load_tables())["1:challenge"] == table
    assert await store.finish_challenge_deal(cid, 1, 1, deal_id, -6, False, "{}") is False
    (play,) = await store.challenge_plays(cid)
    assert (play.user_id, play.deal, play.deal_id, play.points, play.landlord_won) == \
        (1, 1, deal_id, 6, True)
    with pytest.raises(ValueError):
        await store.finish_challenge_deal(cid, 2, 1, deal_id, 1, False, "{}")


async def test_no_deal_is_recorded_once_the_challenge_closed(store, players, clock):
    cid = await open_one(store, clock, fee=0)
    await store.enter_challenge(cid, 1, "Ann")
    deal_id = await private_deal(store, 1)
    await store.close_challenge(cid, {}, {})
    with pytest.raises(ChallengeNotOpen):
        await store.finish_challenge_deal(cid, 1, 1, deal_id, 6, True, "{}")
    assert await store.challenge_plays(cid) == []
    assert (await store.get_deal(deal_id)).status == "running"  # nothing changed


async def test_the_payout_is_paid_exactly_once_and_sums_to_zero(store, players, clock):
    cid = await open_one(store, clock)
    for uid in (1, 2, 3):
        await store.enter_challenge(cid, uid, f"p{uid}")
    with pytest.raises(ValueError):
        await store.close_challenge(cid, {1: 100}, {})
    with pytest.raises(ValueError):
        await store.close_challenge(cid, {1: 200, 4: 100}, {})
    payout = await store.close_challenge(cid, {1: 150, 2: 90, 3: 60}, {"board": []})
    assert payout.paid == {1: 150, 2: 90, 3: 60} and not payout.repeated
    again = await store.close_challenge(cid, {1: 300}, {})
    assert again.repeated and again.paid == {1: 150, 2: 90, 3: 60}
    assert [await store.balance(uid) for uid in (1, 2, 3)] == [1050, 990, 960]
    rows = await store.challenge_ledger(cid)
    assert sum(r.amount for r in rows) == 0 and len(rows) == 6
    record = await store.get_challenge(cid)
    assert record.status == "closed" and record.result == {
        "board": [], "paid": {"1": 150, "2": 90, "3": 60}}
    assert await store.open_challenges() == []
    totals = await store.totals()
    assert totals.pools == 0 and totals.conserved


async def test_the_ledger_holds_one_payout_row_per_member(store, players, clock, raw):
    cid = await open_one(store, clock)
    await store.enter_challenge(cid, 1, "Ann")
    await store.close_challenge(cid, {1: 100}, {})
    with pytest.raises(Exception, match="UNIQUE|unique"):  # the key below the store's check
        await raw.execute(
            "INSERT INTO ledger (user_id, amount, balance_after, reason, chat_id, created_at,"
            " challenge_id) VALUES (1, 5, 1005, 'challenge', ?, 0, ?)", GROUP, cid)


async def test_migration_6_keeps_old_ledger_rows_and_accepts_challenge_rows(raw):
    assert await raw.migrate_to(5) == [1, 2, 3, 4, 5]
    await raw.execute(
        "INSERT INTO players (user_id, name, balance, balance_changed_at, created_at)"
        " VALUES (1, 'p1', 1000, 0, 0)")
    await raw.execute(
        "INSERT INTO ledger (user_id, amount, balance_after, reason, created_at)"
        " VALUES (1, 1000, 1000, 'grant', 0)")
    assert await raw.migrate_to(6) == [6]
    assert await raw.fetch("SELECT reason, amount, challenge_id FROM ledger") == [
        ("grant", 1000, None)]
    await raw.execute(
        "INSERT INTO ledger (user_id, amount, balance_after, reason, created_at)"
        " VALUES (1, -10, 990, 'challenge', 1)")


async def test_the_groups_with_a_daily_challenge(store):
    await store.update_group_settings(-5, daily_challenge=True)
    await store.update_group_settings(-6, daily_challenge=False, give_enabled=True)
    await store.update_group_settings(-7, give_enabled=True)
    await store.update_group_settings(-4, daily_challenge=True)
    assert await store.daily_challenge_groups() == [-5, -4]


async def test_the_final_ranking_is_marked_posted_once(store, players, clock):
    cid = await open_one(store, clock, fee=0)
    assert await store.announce_challenge(cid) is False  # still open
    await store.close_challenge(cid, {}, {})
    assert [c.challenge_id for c in await store.unannounced_challenges()] == [cid]
    assert await store.announce_challenge(cid) is True
    assert await store.announce_challenge(cid) is False
    assert await store.unannounced_challenges() == []
    assert (await store.get_challenge(cid)).announced


async def test_the_final_ranking_is_claimed_by_one_poster_at_most(store, players, clock):
    """Issue 16: whoever posts the final ranking claims it right before sending; a second
    poster (another worker, a restart) gets no claim, even if the first never recorded the
    post as sent; a claim given back (the send failed) can be taken again."""
    cid = await open_one(store, clock, fee=0)
    assert await store.claim_announcement(cid) is False  # still open
    await store.close_challenge(cid, {}, {})
    assert await store.claim_announcement(cid) is True
    assert await store.claim_announcement(cid) is False
    assert await store.unannounced_challenges() == []
    assert (await store.get_challenge(cid)).announced
    await store.release_announcement(cid)
    assert [c.challenge_id for c in await store.unannounced_challenges()] == [cid]
    assert await store.claim_announcement(cid) is True
    assert await store.announce_challenge(cid) is True  # sent
    await store.release_announcement(cid)  # too late: it was posted
    assert await store.claim_announcement(cid) is False
    assert await store.announce_challenge(cid) is False


async def test_a_groups_challenges_move_to_its_supergroup(store, players, clock):
    cid = await open_one(store, clock, fee=0)
    await store.set_challenge_message(cid, 5)
    assert await store.migrate_chat(GROUP, -100777) is True
    record = await store.get_challenge(cid)
    assert record.chat_id == -100777 and record.message_id is None


async def test_a_claim_on_the_final_ranking_runs_out(store, players, clock):
    """A poster that died with the ranking claimed (the send cut short) leaves it due again
    once the claim ran out, or at once to a single process's start (``claimed=True``): the
    seed is revealed at least once."""
    cid = await open_one(store, clock, fee=0)
    await store.close_challenge(cid, {}, {})
    assert await store.claim_announcement(cid, 60.0) is True
    assert await store.unannounced_challenges() == []
    (claimed,) = await store.unannounced_challenges(claimed=True)
    assert claimed.challenge_id == cid and claimed.announced
    clock.advance(seconds=59)
    assert await store.claim_announcement(cid, 60.0) is False
    clock.advance(seconds=1)
    assert [c.challenge_id for c in await store.unannounced_challenges()] == [cid]
    assert await store.claim_announcement(cid, 60.0) is True  # the next poster's
    assert await store.announce_challenge(cid) is True
    clock.advance(seconds=120)
    assert await store.claim_announcement(cid, 60.0) is False  # posted: never again
    assert await store.unannounced_challenges(claimed=True) == []


async def test_the_polling_inbox_keeps_an_update_until_it_is_done(store, clock):
    assert await store.store_update(7, '{"update_id": 7}') is True
    assert await store.store_update(7, '{"update_id": 7}') is False  # sent again
    assert await store.store_update(8, '{"update_id": 8}') is True
    assert await store.pending_updates() == [(7, '{"update_id": 7}'), (8, '{"update_id": 8}')]
    await store.finish_update(7)
    assert await store.pending_updates() == [(8, '{"update_id": 8}')]
    assert await store.store_update(7, '{"update_id": 7}') is False  # done: not again
    clock.advance(seconds=10)
    assert await store.forget_done_updates(clock.now - timedelta(seconds=5)) == 1
    assert await store.forget_done_updates(clock.now) == 0
    assert await store.pending_updates() == [(8, '{"update_id": 8}')]
