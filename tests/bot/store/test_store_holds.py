"""What a running deal holds back (issue 14, RULES.md §8): the holds written with the deal, the
/give refusal while seated, the loss cap against the balance at the deal's start, and the
migration that gives deals running at the upgrade their holds."""

from __future__ import annotations

import pytest

from bot.store import DealHold, GiveRefused, SeatRecord, open_store

GROUP = -1001  # the make_deal fixture's default group
OTHER_GROUP = -1002


@pytest.fixture
async def players(store):
    for uid in (1, 2, 3, 4):
        await store.ensure_player(uid, f"p{uid}")
    await store.update_group_settings(OTHER_GROUP, give_enabled=True)


async def test_a_deal_holds_its_humans_from_creation_until_settlement(store, make_deal, players):
    deal_id = await make_deal([1, None, 3])
    assert await store.deal_hold(1) == DealHold(deal_id, GROUP, f"t{GROUP}", 0, 1000)
    assert await store.deal_hold(3) == DealHold(deal_id, GROUP, f"t{GROUP}", 2, 1000)
    assert await store.deal_hold(2) is None
    await store.settle_deal(deal_id, [2, 0, -2], "{}")
    assert await store.deal_hold(1) is None and await store.deal_hold(3) is None


async def test_only_a_deal_that_can_move_beans_holds_them(store, make_deal, players):
    """A practice or challenge deal (``for_beans=False``) and a match's deal move no beans:
    they hold none, so their players may /give and pay a match's entry fee meanwhile (a
    practising player was refused both with "a running deal holds your beans")."""
    seats = [SeatRecord(1, "p1"), SeatRecord(None, "bot", True), SeatRecord(None, "bot", True)]
    practice = await store.create_deal("1:0", 1, seats, {}, 1, "{}", for_beans=False)
    assert await store.deal_hold(1) is None
    match_id = await store.start_match(
        f"{OTHER_GROUP}:0", OTHER_GROUP, "fixed", {}, [SeatRecord(1, "p1"), SeatRecord(2, "p2")],
        100, "{}")
    match_deal = await store.create_deal(
        f"{OTHER_GROUP}:0", OTHER_GROUP, [SeatRecord(1, "p1"), SeatRecord(2, "p2"),
                                          SeatRecord(None, "bot", True)],
        {}, 1, "{}", match_id=match_id)
    assert await store.deal_hold(2) is None
    await store.give(1, 4, 300, OTHER_GROUP)
    assert [await store.balance(uid) for uid in (1, 2, 4)] == [600, 900, 1300]
    for_beans = await make_deal([1, 3, None])
    assert await store.deal_hold(1) == DealHold(for_beans, GROUP, f"t{GROUP}", 0, 600)
    await store.cancel_deal(practice)
    await store.cancel_match(match_id)
    assert (await store.get_deal(match_deal)).status == "cancelled"
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants


async def test_cancelling_a_deal_releases_its_holds(store, make_deal, players):
    deal_id = await make_deal([1, 2, 3])
    await store.cancel_deal(deal_id)
    assert [await store.deal_hold(uid) for uid in (1, 2, 3)] == [None, None, None]
    await store.give(1, 4, 300, OTHER_GROUP)
    assert await store.balance(1) == 700


async def test_give_is_refused_while_the_giver_sits_at_a_running_deal(store, make_deal, players):
    """Defect 1: a loser moved her beans to a mule in another group mid-deal and paid nothing."""
    deal_id = await make_deal([1, 2, 3], stake=50)
    with pytest.raises(GiveRefused) as error:
        await store.give(1, 4, 1000, OTHER_GROUP)
    assert error.value.code == "give_in_deal"
    assert [await store.balance(uid) for uid in (1, 4)] == [1000, 1000]
    await store.give(4, 1, 100, OTHER_GROUP)  # receiving is fine: the deal cannot take it
    settlement = await store.settle_deal(deal_id, [-24, 12, 12], "{}")
    assert settlement.beans == (-1000, 500, 500)  # owed 1,200, held 1,000 at the start
    assert settlement.balances == (100, 1500, 1500)
    await store.give(1, 4, 100, OTHER_GROUP)  # the deal is over: /give opens again
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants


async def test_the_loss_cap_is_what_the_player_held_when_the_deal_started(
    store, make_deal, players
):
    deal_id = await make_deal([1, 2, 3], stake=50)
    claim = await store.claim_daily(1, GROUP)  # +200 during the deal: not at stake
    assert claim.balance == 1200
    settlement = await store.settle_deal(deal_id, [-24, 12, 12], "{}")
    assert settlement.beans == (-1000, 500, 500)
    assert await store.balance(1) == 200


async def test_a_second_deal_of_the_same_player_never_takes_the_balance_below_zero(
    store, make_deal, players
):
    """One seat per player is the game layer's rule; should it fail, both deals were started
    with 1000 beans, and the one settled second can only take what is left."""
    first = await make_deal([1, 2, 3], stake=50)
    second = await make_deal([1, 4, None], stake=50, chat_id=OTHER_GROUP)
    assert (await store.deal_hold(1)).deal_id == first
    await store.settle_deal(first, [-16, 8, 8], "{}")
    assert (await store.deal_hold(1)).deal_id == second
    settlement = await store.settle_deal(second, [-4, 4, 0], "{}")
    assert settlement.beans == (-200, 200, 0)
    assert await store.balance(1) == 0


async def test_migration_3_holds_the_deals_running_at_the_upgrade(raw, database):
    assert await raw.migrate_to(2) == [1, 2]
    for uid, balance in ((1, 640), (2, 1000)):
        await raw.execute(
            "INSERT INTO players (user_id, name, balance, balance_changed_at, created_at)"
            " VALUES (?, ?, ?, 0, 0)", uid, f"p{uid}", balance)
    await raw.execute(
        "INSERT INTO deals (table_key, chat_id, seats, rules, stake, state, version,"
        " created_at, status) VALUES ('k', ?, ?, '{}', 10, '{}', 0, 5, ?)",
        GROUP, '[{"user_id": 1, "name": "a", "is_bot": false},'
               ' {"user_id": null, "name": "b", "is_bot": true},'
               ' {"user_id": 2, "name": "c", "is_bot": false}]', "running")
    await raw.execute(
        "INSERT INTO deals (table_key, chat_id, seats, rules, stake, state, version,"
        " created_at, status) VALUES ('k', ?, ?, '{}', 10, '{}', 0, 5, 'settled')",
        GROUP, '[{"user_id": 2, "name": "c", "is_bot": false}]')
    store = await open_store(database)
    try:
        assert await store.deal_hold(1) == DealHold(1, GROUP, "k", 0, 640)
        assert await store.deal_hold(2) == DealHold(1, GROUP, "k", 2, 1000)
    finally:
        await store.close()
    assert await raw.fetch("SELECT COUNT(*) FROM deal_holds") == [(2,)]


async def test_a_redeal_cancels_the_old_deal_in_the_transaction_that_creates_the_new(
    store, players
):
    """Defect 4 (redeal): the old deal was cancelled before the new one was created."""
    seats = [SeatRecord(uid, f"p{uid}", False) for uid in (1, 2, 3)]
    key = f"{GROUP}:0"
    old = await store.create_deal(key, GROUP, seats, {}, 10, "{}", table={"phase": "deal"})
    assert (await store.load_tables())[key]["deal_id"] == old
    new = await store.create_deal(key, GROUP, seats, {}, 10, "{}", replaces=old,
                                  table={"phase": "deal"})
    assert (await store.get_deal(old)).status == "cancelled"
    assert [d.deal_id for d in await store.running_deals()] == [new]
    assert (await store.deal_hold(1)).deal_id == new
    assert (await store.load_tables())[key]["deal_id"] == new
    # A settled deal cannot be replaced: nothing is stored.
    await store.settle_deal(new, [2, -1, -1], "{}", table={"phase": "result"})
    assert (await store.load_tables())[key] == {"phase": "result"}
    with pytest.raises(Exception, match="settled"):
        await store.create_deal(key, GROUP, seats, {}, 10, "{}", replaces=new)
    assert await store.running_deals() == []
    assert await store.deal_hold(1) is None


async def test_a_cancelled_deal_stores_the_table_in_its_transaction(store, players):
    seats = [SeatRecord(uid, f"p{uid}", False) for uid in (1, 2, 3)]
    key = f"{GROUP}:0"
    deal_id = await store.create_deal(key, GROUP, seats, {}, 10, "{}", table={"phase": "deal"})
    assert await store.cancel_deal(deal_id, "{}", table={"phase": "result"})
    assert (await store.load_tables())[key] == {"phase": "result"}
    assert await store.deal_hold(1) is None
    with pytest.raises(Exception, match="unknown deal"):
        await store.cancel_deal(deal_id + 100, table={"phase": "lost"})
    assert (await store.load_tables())[key] == {"phase": "result"}
