"""The workers' shared rows (issue 16): flood windows counted for every worker together, leases
that one worker holds at a time, and table marks that change with every write."""

from __future__ import annotations

from bot.store import SeatRecord, open_store
from bot.workers.shared import SharedDb
from tests.databases import PostgresServer

GROUP = -100123


async def test_two_workers_share_one_flood_window_and_one_lease(postgres_server: PostgresServer):
    url = await postgres_server.create_database()
    store = await open_store(url)
    one, two = await SharedDb.open(url, "one"), await SharedDb.open(url, "two")
    try:
        taken = [await one.take_slot(GROUP, 3, 60.0), await two.take_slot(GROUP, 3, 60.0)]
        assert [slot is not None for slot, _, _ in taken] == [True, True]
        slot, wait, used = await one.take_slot(GROUP, 3, 60.0, reserve=1)
        assert (slot, used) == (None, 2) and 59.0 < wait <= 60.0  # the reserve stays free
        slot, _, used = await two.take_slot(GROUP, 3, 60.0)
        assert slot is not None and used == 3
        slot, wait, used = await one.take_slot(GROUP, 3, 60.0)
        assert (slot, used) == (None, 3) and wait > 59.0
        assert (await one.take_slot(-5, 3, 60.0))[0] is not None  # another chat: its own window

        await two.give_back_slot(taken[1][0])
        assert (await one.take_slot(GROUP, 3, 60.0))[0] is not None

        assert await one.take_lease("audience:t", 30.0)
        assert not await two.take_lease("audience:t", 30.0)
        assert await one.take_lease("audience:t", 30.0)  # its own claim, renewed
        await one.drop_lease("audience:t")
        assert await two.take_lease("audience:t", 30.0)
    finally:
        await one.close()
        await two.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_a_tables_mark_changes_with_its_row_and_its_deal(postgres_server: PostgresServer):
    url = await postgres_server.create_database()
    store = await open_store(url)
    shared = await SharedDb.open(url, "one")
    try:
        async with shared.pool.acquire() as conn:
            assert await shared.mark(conn, "-1:0") is None
            await store.save_table("-1:0", {"token": "abcdEFGH", "deal_id": None})
            first = await shared.mark(conn, "-1:0")
            assert first is not None and first.deal_version is None
            assert await shared.key_of_token("abcdEFGH") == "-1:0"
            await store.ensure_player(1, "Ann")
            deal_id = await store.create_deal(
                "-1:0", -1, [SeatRecord(1, "Ann", False), SeatRecord(None, "Bot", True)],
                {}, 10, "{}", 0, table={"token": "ijklMNOP"})
            second = await shared.mark(conn, "-1:0")
            assert second is not None and second != first and second.deal_version == 0
            await store.save_deal_state(deal_id, 1, "{}")  # the deal's row alone
            third = await shared.mark(conn, "-1:0")
            assert third is not None and third.row == second.row and third.deal_version == 1
            stored = await shared.load(conn, "-1:0")
            assert stored is not None and stored.mark == third
            assert stored.data["deal_id"] == deal_id and stored.state_json == "{}"
            assert await shared.key_of_token("abcdEFGH") is None
            await store.delete_table("-1:0")
            assert await shared.mark(conn, "-1:0") is None
    finally:
        await shared.close()
        await store.close()
        await postgres_server.drop_database(url)
