"""Store.migrate_chat (issue 14): a group's stored data moves to its supergroup id in one
transaction; what the new id has already is kept and added to."""

from __future__ import annotations

from datetime import date

from bot.store import SeatRecord

OLD, NEW = -4000000001, -1001000000009


async def _players(store, *uids):
    for uid in uids:
        await store.ensure_player(uid, f"p{uid}")


async def test_everything_of_the_group_moves_and_a_repeat_moves_nothing(store, make_deal):
    await _players(store, 1, 2, 3)
    await store.update_group_settings(OLD, give_enabled=True, stake_tier="expert")
    await store.update_group_settings(NEW, language="en")  # set in the new supergroup already
    settled = await make_deal([1, 2, 3], chat_id=OLD)
    await store.settle_deal(settled, [2, -1, -1], "{}")
    running = await make_deal([1, 2, None], chat_id=OLD)
    keyed = await store.create_deal(f"{OLD}:7", OLD, [SeatRecord(3, "p3")], {}, 10, "{}")
    await store.save_table(f"{OLD}:0", {"chat_id": OLD, "phase": "deal"})
    await store.save_table(f"{OLD}:7", {"chat_id": OLD, "phase": "lobby"})
    await store.save_table("-40000000012:0", {"chat_id": -40000000012})  # a longer id
    await store.mark_posted(OLD, date(2024, 5, 1))

    assert await store.migrate_chat(OLD, NEW) is True

    group = await store.get_group_settings(NEW)
    assert (group["give_enabled"], group["stake_tier"], group["language"]) == (
        True, "expert", "en")
    assert (await store.get_group_settings(OLD))["give_enabled"] is False
    tables = await store.load_tables()
    assert set(tables) == {"-40000000012:0", f"{NEW}:0", f"{NEW}:7"}
    assert tables[f"{NEW}:0"] == {"chat_id": NEW, "phase": "deal"}
    deal = await store.get_deal(running)
    assert (deal.chat_id, deal.table_key) == (NEW, f"t{OLD}")  # not a "<chat_id>:" key
    assert (await store.deal_hold(1)).chat_id == NEW
    assert (await store.get_deal(keyed)).table_key == f"{NEW}:7"
    assert (await store.deal_hold(3)).table_key == f"{NEW}:7"
    board = await store.leaderboard(NEW, "all")
    assert [(row.user_id, row.games) for row in board] == [(1, 1), (2, 1), (3, 1)]
    assert await store.leaderboard(OLD, "all") == []
    assert [row.user_id for row in await store.leaderboard(NEW, "today")] == [1, 2, 3]
    assert await store.mark_posted(NEW, date(2024, 5, 1)) is False  # posted already

    assert await store.migrate_chat(OLD, NEW) is False


async def test_members_the_new_id_already_has_add_up(store, make_deal):
    await _players(store, 1, 2, 3)
    for chat_id in (OLD, NEW):
        deal_id = await make_deal([1, 2, 3], chat_id=chat_id)
        await store.settle_deal(deal_id, [2, -1, -1], "{}")
    await store.migrate_chat(OLD, NEW)
    board = await store.leaderboard(NEW, "all")
    assert [(row.user_id, row.games, row.wins) for row in board] == [
        (1, 2, 2), (2, 2, 0), (3, 2, 0)]
    stats = await store.player_stats(1, NEW)
    assert stats.rank == 1
