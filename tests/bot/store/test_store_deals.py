"""Players, groups, tables and deals in a real database, SQLite and PostgreSQL (issues 3 and 16,
RULES.md §8)."""

from __future__ import annotations

import sqlite3

import asyncpg
import pytest

from bot.core.rooms import GroupSettingError
from bot.store import (
    DealNotRunning,
    LedgerReason,
    SeatFacts,
    SeatRecord,
    StaleVersion,
    UnknownDeal,
    UnknownPlayer,
    open_store,
)

# A trigger that makes the last write of a settlement fail, and the error it raises.
REFUSE_GROUP_MEMBERS = {
    "sqlite": (
        "CREATE TRIGGER refuse BEFORE INSERT ON group_players"
        " BEGIN SELECT RAISE(ABORT, 'refused'); END",
        sqlite3.IntegrityError,
    ),
    "postgres": (
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;"
        " CREATE TRIGGER refuse BEFORE INSERT ON group_players"
        " FOR EACH ROW EXECUTE FUNCTION refuse()",
        asyncpg.RaiseError,
    ),
}

GROUP = -1001
LANDLORD_WINS = [
    SeatFacts("landlord", True, bombs=1),
    SeatFacts("farmer", False),
    SeatFacts("farmer", False),
]


# players


async def test_new_player_gets_1000_beans_with_a_grant_row(store):
    player = await store.ensure_player(1, "Ann", "en")
    assert (player.user_id, player.name, player.language, player.balance) == (1, "Ann", "en", 1000)
    [entry] = await store.ledger(1)
    assert (entry.amount, entry.balance_after, entry.reason) == (1000, 1000, LedgerReason.GRANT)


async def test_ensure_player_updates_name_and_language_but_grants_once(store):
    await store.ensure_player(1, "Ann")
    again = await store.ensure_player(1, "Annie")
    assert (again.name, again.language, again.balance) == ("Annie", None, 1000)
    assert (await store.ensure_player(1, "Annie", "zh-Hant")).language == "zh-Hant"
    assert (await store.ensure_player(1, "Annie")).language == "zh-Hant"
    assert len(await store.ledger(1)) == 1


async def test_unknown_player(store):
    assert await store.get_player(99) is None
    with pytest.raises(UnknownPlayer):
        await store.balance(99)


# groups and tables


async def test_group_settings_have_defaults_and_keep_changes(store, database, clock):
    settings = await store.get_group_settings(GROUP)
    assert (settings["stake_tier"], settings["timezone"], settings["give_enabled"]) == (
        "beginner",
        "Asia/Shanghai",
        False,
    )
    updated = await store.update_group_settings(GROUP, stake_tier="expert", bidding="rob")
    assert (updated["stake_tier"], updated["bidding"]) == ("expert", "rob")
    await store.update_group_settings(GROUP, multiplier_cap=64)
    await store.close()
    reopened = await open_store(database, clock=clock)
    settings = await reopened.get_group_settings(GROUP)
    other = await reopened.get_group_settings(GROUP - 1)
    await reopened.close()
    assert (settings["stake_tier"], settings["bidding"], settings["multiplier_cap"]) == (
        "expert",
        "rob",
        64,
    )
    assert other["stake_tier"] == "beginner"


async def test_bad_group_setting_changes_nothing(store):
    await store.update_group_settings(GROUP, bidding="rob")
    with pytest.raises(GroupSettingError):
        await store.update_group_settings(GROUP, bidding="score", stake_tier="legendary")
    assert (await store.get_group_settings(GROUP))["bidding"] == "rob"


async def test_tables_are_saved_loaded_and_deleted(store):
    await store.save_table("a", {"seats": [1, 2]})
    await store.save_table("b", {"seats": []})
    await store.save_table("a", {"seats": [1, 2, 3]})
    assert await store.load_tables() == {"a": {"seats": [1, 2, 3]}, "b": {"seats": []}}
    await store.delete_table("a")
    await store.delete_table("missing")
    assert await store.load_tables() == {"b": {"seats": []}}


# deals


async def test_deal_lifecycle_and_reload_after_restart(store, database, clock):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    seats = [SeatRecord(1, "p1"), SeatRecord(2, "p2"), SeatRecord(None, "Bot", is_bot=True)]
    deal_id = await store.create_deal("g1", GROUP, seats, {"bidding": "rob"}, 20, '{"v": 0}')
    await store.save_deal_state(deal_id, 1, '{"v": 1}', {"message_id": 5})
    await store.save_deal_state(deal_id, 2, '{"v": 2}')
    await store.close()

    store = await open_store(database, clock=clock)
    [deal] = await store.running_deals()
    assert (deal.deal_id, deal.table_key, deal.chat_id, deal.stake, deal.status) == (
        deal_id,
        "g1",
        GROUP,
        20,
        "running",
    )
    assert deal.seats == tuple(seats)
    assert (deal.rules, deal.state_json, deal.version) == ({"bidding": "rob"}, '{"v": 2}', 2)
    assert await store.load_tables() == {"g1": {"message_id": 5}}
    await store.settle_deal(deal_id, [-2, 1, 1], '{"v": 3}', version=3)
    assert await store.running_deals() == []
    settled = await store.get_deal(deal_id)
    assert (settled.status, settled.state_json, settled.version) == ("settled", '{"v": 3}', 3)
    assert settled.result == {
        "stake": 20,
        "points": [-2, 1, 1],
        "beans": [-20, 20, 0],
        "balances": [980, 1020, None],
    }
    assert settled.finished_at == clock.now
    await store.close()


async def test_save_deal_state_refuses_an_old_version_and_changes_nothing(store, make_deal):
    await store.ensure_player(1, "p1")
    deal_id = await make_deal([1, None, None])
    await store.save_deal_state(deal_id, 5, '{"v": 5}', {"x": 5})
    with pytest.raises(StaleVersion):
        await store.save_deal_state(deal_id, 5, '{"v": "again"}', {"x": 6})
    with pytest.raises(StaleVersion):
        await store.save_deal_state(deal_id, 4, '{"v": 4}')
    deal = await store.get_deal(deal_id)
    assert (deal.version, deal.state_json) == (5, '{"v": 5}')
    assert await store.load_tables() == {f"t{GROUP}": {"x": 5}}
    with pytest.raises(UnknownDeal):
        await store.save_deal_state(12345, 1, "{}")


async def test_create_deal_checks_its_seats(store):
    await store.ensure_player(1, "p1")
    with pytest.raises(UnknownPlayer):
        await store.create_deal(
            "t", GROUP, [SeatRecord(1, "p1"), SeatRecord(2, "p2")], {}, 10, "{}"
        )
    with pytest.raises(ValueError):
        await store.create_deal("t", GROUP, [SeatRecord(1, "a"), SeatRecord(1, "b")], {}, 10, "{}")
    with pytest.raises(ValueError):
        await store.create_deal("t", GROUP, [SeatRecord(1, "p1")], {}, 0, "{}")
    with pytest.raises(ValueError):
        SeatRecord(None, "bot")  # a bot seat must say so
    assert await store.running_deals() == []


async def test_settlement_moves_beans_writes_ledger_and_stats(store, make_deal, clock):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    deal_id = await make_deal([1, 2, 3], stake=10)
    settlement = await store.settle_deal(deal_id, [4, -2, -2], '{"end": 1}', LANDLORD_WINS)
    assert settlement.beans == (40, -20, -20)
    assert settlement.balances == (1040, 980, 980)
    assert settlement.owed == (40, -20, -20)
    assert not settlement.repeated
    assert [await store.balance(uid) for uid in (1, 2, 3)] == [1040, 980, 980]
    entry = (await store.ledger(2))[0]
    assert (entry.amount, entry.balance_after, entry.reason, entry.deal_id, entry.chat_id) == (
        -20,
        980,
        LedgerReason.DEAL,
        deal_id,
        GROUP,
    )
    assert entry.created_at == clock.now
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants == 3000


async def test_settling_twice_changes_nothing_and_returns_the_first_settlement(store, make_deal):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    deal_id = await make_deal([1, 2, 3])
    first = await store.settle_deal(deal_id, [2, -1, -1], "{}", LANDLORD_WINS)
    second = await store.settle_deal(deal_id, [-2, 1, 1], "{}", LANDLORD_WINS)
    assert second.repeated
    assert (second.points, second.beans, second.balances) == (
        first.points,
        first.beans,
        first.balances,
    )
    assert await store.balance(1) == 1020
    assert len(await store.ledger(1)) == 2
    assert (await store.player_stats(1)).games == 1


async def test_settlement_never_takes_a_balance_below_zero(store, make_deal):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    deal_id = await make_deal([1, 2, 3], stake=50)
    # landlord 1 loses 2 × 16 points at 50 beans/point = 1600 beans, holds 1000
    settlement = await store.settle_deal(deal_id, [-32, 16, 16], "{}")
    assert settlement.beans == (-1000, 500, 500)
    assert await store.balance(1) == 0


async def test_bot_seats_have_no_balance_and_no_ledger_rows(store, make_deal):
    await store.ensure_player(1, "p1")
    await store.ensure_player(2, "p2")
    deal_id = await make_deal([None, 1, 2])
    settlement = await store.settle_deal(deal_id, [-4, 2, 2], "{}")
    assert (settlement.beans, settlement.balances) == ((0, 0, 0), (None, 1000, 1000))
    assert len(await store.ledger(1)) == 1  # the grant only
    stats = await store.player_stats(1)
    assert (stats.games, stats.wins) == (1, 1)


async def test_settle_deal_refuses_bad_input_and_changes_nothing(store, make_deal):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    deal_id = await make_deal([1, 2, 3])
    with pytest.raises(ValueError):
        await store.settle_deal(deal_id, [2, -1], "{}")
    with pytest.raises(ValueError):
        await store.settle_deal(deal_id, [2, -1, 0], "{}")
    with pytest.raises(ValueError):
        await store.settle_deal(deal_id, [2, -1, -1], "{}", LANDLORD_WINS[:2])
    with pytest.raises(UnknownDeal):
        await store.settle_deal(777, [2, -1, -1], "{}")
    assert (await store.get_deal(deal_id)).status == "running"
    assert (await store.totals()).ledger == 3000


async def test_cancelled_deal_pays_nobody_and_cannot_be_settled(store, make_deal):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    deal_id = await make_deal([1, 2, 3])
    assert await store.cancel_deal(deal_id, '{"cancelled": true}')
    assert not await store.cancel_deal(deal_id)
    with pytest.raises(DealNotRunning):
        await store.settle_deal(deal_id, [2, -1, -1], "{}")
    with pytest.raises(DealNotRunning):
        await store.save_deal_state(deal_id, 9, "{}")
    assert (await store.get_deal(deal_id)).state_json == '{"cancelled": true}'
    assert [await store.balance(uid) for uid in (1, 2, 3)] == [1000, 1000, 1000]
    settled = await make_deal([1, 2, 3])
    await store.settle_deal(settled, [2, -1, -1], "{}")
    with pytest.raises(DealNotRunning):
        await store.cancel_deal(settled)


async def test_a_failing_settlement_rolls_back_every_write(store, make_deal, raw, backend):
    for uid in (1, 2, 3):
        await store.ensure_player(uid, f"p{uid}")
    deal_id = await make_deal([1, 2, 3])
    trigger, error = REFUSE_GROUP_MEMBERS[backend]
    await raw.execute(trigger)  # sabotage the last write of the transaction
    with pytest.raises(error):
        await store.settle_deal(deal_id, [2, -1, -1], "{}")
    assert [await store.balance(uid) for uid in (1, 2, 3)] == [1000, 1000, 1000]
    assert (await store.get_deal(deal_id)).status == "running"
    assert (await store.totals()).ledger == 3000
    assert (await store.player_stats(1)).games == 0
