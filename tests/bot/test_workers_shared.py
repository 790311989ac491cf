"""The workers' shared rows (issue 16): flood windows counted for every worker together, leases
that one worker holds at a time, and table marks that change with every write."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from bot.core.table import Seat, StoredLobby, Table
from bot.store import SeatRecord, open_store
from bot.telegram.outlet.send import ANSWER_PENDING
from bot.telegram.workers.flood import SharedOverall, SharedWindow
from bot.telegram.workers.shared import POOL_SIZE, SharedDb, now_ms
from bot.telegram.workers.timers import DbTimers
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


async def test_the_overall_budget_counts_requests_in_flight_for_every_worker(
    postgres_server: PostgresServer,
):
    """Issue 16: a request counts from its start until a period after its answer, whichever
    worker sent it, so requests held up on the way cannot reach Telegram in one second with
    later ones (counting starts alone let a fourth start while three were still in flight)."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    one, two = await SharedDb.open(url, "one"), await SharedDb.open(url, "two")
    windows = [SharedOverall(one, 3, 0.5), SharedOverall(two, 3, 0.5)]
    try:
        await windows[0].acquire()
        await windows[1].acquire()
        await windows[1].acquire()
        assert windows[1].used() == 3
        await asyncio.sleep(0.7)  # their starts are older than the period: still in flight
        fourth = asyncio.create_task(windows[0].acquire())
        await asyncio.sleep(0.3)
        assert not fourth.done()
        windows[1].release()  # answered now: it counts for 0.5 s more
        released = time.monotonic()
        await asyncio.wait_for(fourth, 5)
        assert time.monotonic() - released >= 0.45
        assert windows[0].used() == 3
        windows[0].release()
        windows[0].release()
        windows[1].release()
        await asyncio.sleep(0.6)
        async with one.pool.acquire() as conn:
            ends = await conn.fetch("SELECT at_ms FROM flood_slots WHERE chat_id = 0")
        assert len(ends) == 4 and all(row["at_ms"] <= now_ms() for row in ends)
        await windows[1].acquire()  # all answered over a period ago
    finally:
        await one.close()
        await two.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_a_groups_shared_window_counts_an_answered_request_from_its_answer(
    postgres_server: PostgresServer,
):
    """Issue 16: a group's request counts from its start and, once answered, from its answer,
    for every worker (as in one process): a request held up between its group slot and its
    sending (behind more wanted requests in the token's ranked line) cannot reach Telegram in
    one minute with the ones after it."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    one, two = await SharedDb.open(url, "one"), await SharedDb.open(url, "two")
    # a period of 2 s: the third request goes at once, the fourth 2 s after the answer; the
    # margin between them (0.5 s) is wide enough for a loaded machine's database round trips
    windows = [SharedWindow(one, 2, 2.0), SharedWindow(two, 2, 2.0)]
    try:
        await windows[0].acquire(GROUP)
        await windows[0].acquire(GROUP)
        await asyncio.sleep(2.1)  # both starts are older than the period
        windows[0].finish(GROUP, 0.0)  # one answered only now: it counts for 2 s more
        finished = time.monotonic()
        await asyncio.sleep(0.05)
        await asyncio.wait_for(windows[1].acquire(GROUP), 1.5)  # the other one is out
        third = time.monotonic()
        await asyncio.wait_for(windows[1].acquire(GROUP), 5)
        assert time.monotonic() - finished >= 1.95 and third - finished < 1.5
        async with one.pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT at_ms FROM flood_slots WHERE chat_id = $1 ORDER BY id", GROUP)
        answered, second = rows[0]["at_ms"], rows[1]["at_ms"]  # the oldest moved to its answer
        assert len(rows) == 4 and answered - second >= 2050
    finally:
        await one.close()
        await two.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_more_tables_locked_at_once_than_the_pool_has_connections(
    postgres_server: PostgresServer,
):
    """Issue 16 at scale: 30 tables busy at once on each of two workers, each block querying
    the shared rows while it holds its table's lock (a pool of 12 connections, one held per
    lock, deadlocked there); a table is still held by one worker at a time."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    workers = [await SharedDb.open(url, "one"), await SharedDb.open(url, "two")]
    holders: dict[str, str] = {}
    overlaps: list[str] = []

    async def block(shared: SharedDb, name: str) -> None:
        async with shared.locked(name):
            if name in holders:
                overlaps.append(name)
            holders[name] = shared.worker
            assert await shared.key_of_token("none") is None
            await asyncio.sleep(0.05)
            del holders[name]

    try:
        names = [f"table:-{100 + i}:0" for i in range(30)]
        await asyncio.wait_for(asyncio.gather(
            *(block(shared, name) for name in names for shared in workers)), 20)
        assert overlaps == []
        async with workers[0].locked(names[0]):  # let go: the other worker takes it
            taken = asyncio.create_task(block(workers[1], names[0]))
            await asyncio.sleep(0.1)
            assert not taken.done()
        await asyncio.wait_for(taken, 5)
    finally:
        for shared in workers:
            await shared.close()
        await store.close()
        await postgres_server.drop_database(url)


async def _until(check: Callable[[], bool]) -> None:
    """Let the loop run until ``check()`` holds (a test that fails raises after 30 s)."""
    async with asyncio.timeout(30):
        while not check():
            await asyncio.sleep(0.005)


async def test_requests_waiting_for_the_overall_budget_leave_the_pool_to_the_others(
    postgres_server: PostgresServer,
):
    """Issue 16 at 200 tables: hundreds of requests wait for the token's budget; each polling
    the database itself held every pool connection in the budget's row lock, and a press's own
    queries (its update stored, its table's mark) waited seconds for a connection. They wait in
    line in the worker instead, one of them asking the database at a time, and start in the
    order they asked, a request a press's answer waits for first. The test lets the line ask
    the database a pool's worth of calls at a time (each polling waiter would take one
    connection of those), so what it sees does not depend on how fast the machine is."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    shared = await SharedDb.open(url, "one")
    window = SharedOverall(shared, 10, 0.2)
    asking = most = calls = allowed = 0
    gate = asyncio.Semaphore(0)
    take_slot = shared.take_slot

    async def counted(*args: object, **kwargs: object) -> tuple[int | None, float, int]:
        nonlocal asking, most, calls
        await gate.acquire()
        calls += 1
        asking += 1
        most = max(most, asking)
        try:
            return await take_slot(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            asking -= 1

    def allow(n: int) -> None:
        nonlocal allowed
        allowed += n
        for _ in range(n):
            gate.release()

    def asked_all() -> bool:  # every call allowed so far was made and answered
        return calls == allowed and asking == 0

    shared.take_slot = counted  # type: ignore[method-assign]
    started: list[int] = []

    async def request(number: int) -> None:
        await window.acquire()
        started.append(number)
        await asyncio.sleep(0.01)
        window.release()

    try:
        requests = [asyncio.create_task(request(n)) for n in range(200)]
        for _ in range(5):
            allow(POOL_SIZE)
            assert await shared.key_of_token("none") is None  # a press's own query meanwhile
            await _until(asked_all)
        assert most == 1  # one connection for the whole line: the pool is the presses'
        assert len(started) <= 5 * POOL_SIZE and window.waiting() == 200 - len(started)
        urgent = ANSWER_PENDING.set(True)  # a press's answer waits for it: ahead of the others
        requests.append(asyncio.create_task(request(999)))
        ANSWER_PENDING.reset(urgent)
        await _until(lambda: window.waiting() == 201 - len(started))
        asked = len(started)
        for task in requests[150:200]:
            task.cancel()  # given up (their callers stopped): they leave the line
        allow(10_000)
        await asyncio.wait_for(asyncio.gather(*requests[:150], requests[-1]), 60)
        assert started.index(999) == asked  # the next one to start
        assert [n for n in started if n != 999] == list(range(150))
        assert window.waiting() == 0
    finally:
        for task in requests:
            task.cancel()
        await shared.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_a_live_workers_watchdogs_are_kept_ahead_in_one_write_and_an_abandoned_one_fires(
    postgres_server: PostgresServer,
):
    """Issue 16 at 200 tables: a worker's heartbeat puts the watchdogs of all its running
    blocks ahead at once (one write each, in turn, took longer than the watchdog's time, and a
    live worker's watchdogs fired), each as a new schedule (another worker's claim on the old
    one cannot finish it); a block that failed half-way leaves its watchdog to fire."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    one, two = await SharedDb.open(url, "one"), await SharedDb.open(url, "two")
    watching = DbTimers(store, one, lease=5.0, watch=60.0)
    keys = [f"-{100 + i}:0" for i in range(300)]
    abandoned = f"watch:{keys[0]}@{one.worker}"
    try:
        for key in keys:
            await watching.watch(key)
        watching.abandon(keys[0])  # its block failed half-way
        assert await store.claim_timers("two", limit=400, lease=5.0) == []
        async with one.pool.acquire() as conn:  # a minute later, no heartbeat since
            await conn.execute("UPDATE timers SET due_at = $1", now_ms() - 1)
        [claimed] = await store.claim_timers("two", limit=1, lease=5.0)
        await watching.heartbeat()
        assert await store.finish_timer(claimed) is (claimed.key == abandoned)
        left = await store.claim_timers("two", limit=400, lease=5.0)
        assert [timer.key for timer in left] == ([] if claimed.key == abandoned
                                                 else [abandoned])
        for key in keys[1:]:
            await watching.unwatch(key)
        async with one.pool.acquire() as conn:
            rows = await conn.fetch("SELECT key FROM timers")
        assert [row["key"] for row in rows] == ([] if claimed.key == abandoned
                                                else [abandoned])
    finally:
        await watching.stop()
        await one.close()
        await two.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_an_update_reads_the_marks_of_its_users_and_its_chats_tables_alone(
    postgres_server: PostgresServer,
):
    """Issue 16: StoreGuard.sync_for asks for the marks of the tables an update may look up
    (where its user sits, its chat's tables, the keys named), whatever the number of stored
    tables; every stored table's mark was compared (and each changed one loaded) before."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    shared = await SharedDb.open(url, "one")
    try:
        for i in range(40):
            seats = [{"user_id": 1000 + i, "name": "P"}, {"user_id": None, "name": "Bot"}]
            await store.save_table(f"-{100 + i}:0", {"token": f"tok{i:05d}", "seats": seats})
        await store.save_table("-105:7", {"token": "topic007", "seats": []})
        assert set(await shared.marks_of(1003, None)) == {"-103:0"}
        assert set(await shared.marks_of(None, -105)) == {"-105:0", "-105:7"}
        assert set(await shared.marks_of(1003, -105, ["-120:0"])) \
            == {"-103:0", "-105:0", "-105:7", "-120:0"}
        assert await shared.marks_of(999, None) == {}
    finally:
        await shared.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_a_workers_heartbeat_keeps_its_named_leases_one_lease_ahead(
        postgres_server: PostgresServer):
    """A group message's claim (30 s) and a seat a Join promised are renewed with the worker's
    other leases, to one lease ahead: a worker that dies holding them frees them one lease
    after its last heartbeat (before, a dead worker's claim froze the group's table message for
    up to 30 s). Another worker's leases and a lease let go are not touched."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    one, two = await SharedDb.open(url, "one"), await SharedDb.open(url, "two")
    try:
        assert await one.take_lease("audience:t", 30.0)
        assert await two.take_lease("audience:u", 30.0)
        await one.claim_seat("-1:0", 7)
        await one.claim_seat("-1:0", 8)
        await one.release_seat("-1:0", 8)
        await store.save_table("-1:0", {"token": "abcdEFGH", "phase": "lobby",
                                        "seats": [{"user_id": 5}, {"user_id": None}]})
        assert await two.lobby_seats("-1:0", "abcdEFGH") == StoredLobby([5, None], {7}, set())
        assert await two.lobby_seats("-1:0", "otherTOK") is None
        before = now_ms()
        await one.renew(2.0)
        async with one.pool.acquire() as conn:
            until = dict(await conn.fetch("SELECT name, until_ms FROM leases"))
        assert set(until) == {"audience:t", "audience:u", f"seat:-1:0:7@{one.worker}", "player:7"}
        assert before + 2000 <= until["audience:t"] <= now_ms() + 2000
        assert before + 2000 <= until[f"seat:-1:0:7@{one.worker}"] <= now_ms() + 2000
        assert until["audience:u"] > now_ms() + 25_000  # another worker's
    finally:
        await one.close()
        await two.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_a_player_is_claimed_by_one_worker_at_a_time_and_a_leave_withdraws_a_claim(
        postgres_server: PostgresServer):
    """Issue 16, QA defects D1, D2, D4: a player being seated is claimed by one worker at a
    time (the other is told for which table); a Leave withdraws a claim on a seat, for every
    worker's Start and for the claim's own block, until that claim is released (not by
    another worker's release); a Leave on its way gives its seat up for every worker; the
    stored tables say where a player sits."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    one, two = await SharedDb.open(url, "one"), await SharedDb.open(url, "two")
    try:
        assert await one.claim_seat("-1:0", 7) is None
        assert await one.claim_seat("-1:0", 7) is None  # its own again
        assert await two.claim_seat("-2:0", 7) == "-1:0"  # two groups at once
        assert await two.claim_seat("-1:0", 7) == "-1:0"  # a double press
        assert await two.claim_seat("-1:0", 8) is None
        await store.save_table("-1:0", {"token": "abcdEFGH", "phase": "lobby",
                                        "seats": [{"user_id": 5}]})
        assert not await two.seat_withdrawn("-1:0", 7)
        assert await two.withdraw_seat("-1:0", 7)
        assert not await two.withdraw_seat("-1:0", 9)  # no Join of theirs on its way
        await two.claim_leave("-1:0", 5)
        assert await one.lobby_seats("-1:0", "abcdEFGH") == StoredLobby([5], {7, 8}, {5, 7})
        assert await one.seat_withdrawn("-1:0", 7)
        await two.release_seat("-1:0", 7)  # not two's claim: nothing goes
        assert await one.seat_withdrawn("-1:0", 7)
        await one.release_seat("-1:0", 7)
        assert not await one.seat_withdrawn("-1:0", 7)
        assert await two.claim_seat("-2:0", 7) is None  # free again
        await two.release_leave("-1:0", 5)
        await two.release_seat("-1:0", 8)
        assert await one.lobby_seats("-1:0", "abcdEFGH") == StoredLobby([5], set(), set())

        table = Table(-2, None, "en", seats=[Seat(7, "Kim"), Seat(None, "Bot", True)])
        await store.save_table(table.key, table.to_dict())
        found = await one.table_of(7, "-1:0")
        assert found is not None and found.key == "-2:0"
        assert await one.table_of(7, "-2:0") is None and await one.table_of(8, "-1:0") is None
        table.seats[0].left = True
        await store.save_table(table.key, table.to_dict())
        assert await one.table_of(7, "-1:0") is None
    finally:
        await one.close()
        await two.close()
        await store.close()
        await postgres_server.drop_database(url)


async def test_a_worker_restarted_under_the_same_name_takes_over_the_dead_ones_claims(
        postgres_server: PostgresServer):
    """A worker killed and started again under the same ``WORKER_NAME`` (a service manager's
    restart) is another worker for its claims: its heartbeat does not renew the dead process's
    update (before, it did, and nobody processed the update: a /daily never answered), which
    the new process takes over once its lease ran out, and the dead process's claim on a
    player being seated goes with it (before, the Join taken over was answered "You already
    sit at this table" and nobody was seated)."""
    url = await postgres_server.create_database()
    store = await open_store(url)
    dead = await SharedDb.open(url, "w0")
    try:
        assert await dead.store_update(41, '{"update_id": 41}', lease=0.5)
        assert await dead.claim_seat("-1:0", 7) is None
        await dead.close()  # SIGKILLed; started again under the same name
        alive = await SharedDb.open(url, "w0")
        try:
            assert alive.worker != dead.worker and alive.worker.startswith("w0#")
            await alive.renew(5.0)
            assert await alive.claim_stale_updates(5.0) == []  # not run out yet
            await asyncio.sleep(0.6)
            await alive.renew(5.0)  # does not keep the dead process's claim
            assert await alive.claim_stale_updates(5.0) == [(41, '{"update_id": 41}')]
            assert await alive.claim_seat("-1:0", 7) is None  # the dead claim went with it
        finally:
            await alive.close()
    finally:
        await store.close()
        await postgres_server.drop_database(url)
