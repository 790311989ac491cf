"""What the webhook workers share on PostgreSQL besides the store: table locks and
table marks, the update inbox, flood windows and leases (migration 0006), in SQL of their own on
a small asyncpg pool next to the store's.

- **Table locks** are session advisory locks, all of a worker's on one connection of their own
  (``pg_try_advisory_lock``, tried again every few milliseconds while another worker holds
  one): a worker that dies loses that connection and so its locks, at once. No block holds a
  pool connection for its lock, so any number of tables may be locked at once (a connection
  per held lock deadlocked a worker once more tables were busy than its pool had connections,
  each block waiting for a connection for its own queries).
- A table's **mark** says which stored version a worker's copy is: the row's ``xmin`` (the
  transaction that wrote it last; a new one with every write, a deleted and recreated row gets
  another) and the version of the table's deal (``save_deal_state`` writes only the deal row).
- The **inbox** stores every webhook update before the webhook answers 200, leased to the worker
  that received it; an update whose lease runs out unfinished (its worker died) is claimed by
  another (``FOR UPDATE SKIP LOCKED``). The row stays a day after it was done, so Telegram's
  retries of it are recognised by ``update_id``.
- **Flood slots** are request start times per chat (key 0: the whole bot), counted by every
  worker under a transaction-level advisory lock of that chat, so the budgets are shared. The
  bot's overall slots count a request from its start until a second after its answer (while it
  is in flight its slot's time lies ahead), so requests delayed on the way cannot bunch up.
- **Leases** are named claims that run out by themselves (a table's group message is edited by
  one worker at a time; a player being seated is claimed by one worker at a time, and the
  seat promised to every worker's Start, until the seat is stored; a Leave on its way, or a
  Join it withdrew, gives the seat up for every worker's Start).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg

from bot.core.table import StoredLobby, Table, sits_at

#: Connections for the shared rows' queries per worker (the store has its own pool).
POOL_SIZE = 12
#: Seconds between two tries of a lock another worker holds: the first, and the longest.
LOCK_RETRY = (0.002, 0.02)
#: How long a done update is remembered (Telegram gives up retrying well within a day).
INBOX_DAYS = 1.0
#: Seconds between two looks at a window whose oldest counted request is still in flight.
IN_FLIGHT_POLL = 0.02
#: Seconds a Join answered as seated claims its seat (:meth:`SharedDb.claim_seat`) at most: its
#: block drops the claim once the seat is stored or refused; a dead worker's runs out.
SEAT_CLAIM_SECONDS = 60.0


def now_ms() -> int:
    """The current UTC time in milliseconds."""
    return int(time.time() * 1000)


def _seat_prefix(key: str) -> str:
    return f"seat:{key}:"


def _leaving_prefix(key: str) -> str:
    return f"leaving:{key}:"


def _player_lease(user_id: int) -> str:
    return f"player:{user_id}"


def _withdrawal_prefix(key: str) -> str:
    return f"withdrawn:{key}:"


def _withdrawal(key: str, user_id: int) -> str:
    return f"{_withdrawal_prefix(key)}{user_id}"


#: Take lease $1 for worker $2 until $3 (ms) unless another worker's runs after $4 (now).
_TAKE_LEASE = (
    "INSERT INTO leases (name, worker, until_ms) VALUES ($1, $2, $3)"
    " ON CONFLICT (name) DO UPDATE SET worker = excluded.worker, until_ms = excluded.until_ms"
    " WHERE leases.until_ms <= $4 OR leases.worker = excluded.worker"
)


@dataclass(frozen=True, slots=True)
class Mark:
    """Which stored version of a table a copy is: the table row's ``xmin`` and its deal's state
    version (``None`` without a deal)."""

    row: int
    deal_version: int | None


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A table as stored: its data (``Table.to_dict``), its mark, and its deal's state JSON."""

    data: dict[str, Any]
    mark: Mark
    state_json: str | None


_MARK_SQL = (
    "SELECT t.table_key, t.xmin::text AS row, d.version, {extra}"
    " FROM tables t LEFT JOIN deals d"
    " ON d.id = (t.data::jsonb ->> 'deal_id')::bigint"
)


def _mark(row: asyncpg.Record) -> Mark:
    return Mark(int(row["row"]), row["version"])


class SharedDb:
    """The shared rows (see the module docstring) for worker ``worker`` (its name in leases).

    Args:
        pool: an asyncpg pool on the bot's database (migrated by the store).
        worker: this worker process's name in every claim, unique among the processes that
            ever ran (:meth:`open` makes it: ``WORKER_NAME`` and a suffix of this start).
    """

    def __init__(self, pool: asyncpg.Pool, worker: str, locks: asyncpg.Connection,
                 url: str = "") -> None:
        self.pool = pool
        self.worker = worker
        self._locks = locks
        self._url = url
        self._lock_io = asyncio.Lock()  # one query at a time on the locks' connection

    @classmethod
    async def open(cls, url: str, name: str) -> SharedDb:
        """Connect to the database at ``url`` (the store must have migrated it) as worker
        ``name`` (``WORKER_NAME``). The claims are this process's, not the name's: its worker
        is ``<name>#<random>``, so a process restarted under the same name (as a service
        manager does) neither renews nor keeps the dead one's claims, whose updates, timers
        and seats the live workers take over once they run out."""
        pool = await asyncpg.create_pool(url, min_size=1, max_size=POOL_SIZE)
        return cls(pool, f"{name}#{secrets.token_hex(3)}", await asyncpg.connect(url), url)

    async def close(self) -> None:
        """Close the pool and the locks' connection (its advisory locks go with it)."""
        await self._locks.close()
        await self.pool.close()

    # --- Table locks and marks -----------------------------------------------------------------

    @asynccontextmanager
    async def locked(self, name: str) -> AsyncIterator[None]:
        """Hold the advisory lock ``name`` for the block (on the locks' connection; see the
        module docstring). Released at the end, also when the block is cancelled, or by the
        server when this process dies. Advisory locks are re-entrant in a session: two blocks
        of this process on one name must be kept apart by the caller (the registry's
        ``asyncio.Lock`` per table does)."""
        wait = LOCK_RETRY[0]
        while not await self._on_locks("SELECT pg_try_advisory_lock(hashtextextended($1, 0))",
                                       name):
            await asyncio.sleep(wait)
            wait = min(wait * 2, LOCK_RETRY[1])
        try:
            yield
        finally:
            await asyncio.shield(self._on_locks(
                "SELECT pg_advisory_unlock(hashtextextended($1, 0))", name))

    async def _on_locks(self, sql: str, name: str) -> bool:
        async with self._lock_io:
            if self._locks.is_closed() and self._url:  # lost (its locks went with it)
                self._locks = await asyncpg.connect(self._url)
            return bool(await self._locks.fetchval(sql, name))

    @staticmethod
    async def mark(conn: asyncpg.Connection, key: str) -> Mark | None:
        """The stored mark of table ``key``; ``None`` when it is not stored."""
        row = await conn.fetchrow(_MARK_SQL.format(extra="1") + " WHERE t.table_key = $1", key)
        return _mark(row) if row is not None else None

    async def marks_of(self, user_id: int | None, chat_id: int | None,
                       keys: Iterable[str] = ()) -> dict[str, Mark]:
        """The marks of the stored tables where ``user_id`` has a seat, of the tables of chat
        ``chat_id`` (its group's and topics' tables, or a private chat's practice table) and of
        the tables ``keys``, by key."""
        where = ["t.table_key = ANY($1::text[])"]
        args: list[object] = [list(keys)]
        if user_id is not None:
            args.append(json.dumps([{"user_id": user_id}]))
            where.append(f"t.data::jsonb -> 'seats' @> ${len(args)}::jsonb")
        if chat_id is not None:
            args.append(f"{chat_id}:%")
            where.append(f"t.table_key LIKE ${len(args)}")
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                _MARK_SQL.format(extra="1") + " WHERE " + " OR ".join(where), *args)
        return {row["table_key"]: _mark(row) for row in rows}

    @staticmethod
    async def load(conn: asyncpg.Connection, key: str) -> StoredTable | None:
        """Table ``key`` as stored, with its deal's state; ``None`` when it is not stored."""
        row = await conn.fetchrow(
            _MARK_SQL.format(extra="t.data, d.state") + " WHERE t.table_key = $1", key)
        if row is None:
            return None
        return StoredTable(json.loads(row["data"]), _mark(row), row["state"])

    @staticmethod
    async def stored_data(conn: asyncpg.Connection, key: str) -> dict[str, Any] | None:
        """The stored data of table ``key`` alone (``None``: not stored)."""
        raw = await conn.fetchval("SELECT data FROM tables WHERE table_key = $1", key)
        return json.loads(raw) if raw is not None else None

    async def key_of_token(self, token: str) -> str | None:
        """The key of the stored table whose current token is ``token``."""
        async with self.pool.acquire() as conn:
            return await conn.fetchval(
                "SELECT table_key FROM tables WHERE data::jsonb ->> 'token' = $1 LIMIT 1", token)

    # --- The update inbox ----------------------------------------------------------------------

    async def store_update(self, update_id: int, body: str, lease: float) -> bool:
        """Store a webhook update, leased to this worker for ``lease`` seconds; ``False`` when
        it was stored before (a retry of an update already taken: nothing to do)."""
        now = now_ms()
        async with self.pool.acquire() as conn:
            status = await conn.execute(
                "INSERT INTO inbox (update_id, body, received_at, claimed_by, claimed_until)"
                " VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                update_id, body, now, self.worker, now + int(lease * 1000))
        return status.endswith(" 1")

    async def finish_update(self, update_id: int) -> None:
        """The update was processed (by this worker or not: done is done)."""
        async with self.pool.acquire() as conn:
            await conn.execute("UPDATE inbox SET done_at = $2 WHERE update_id = $1",
                               update_id, now_ms())

    async def claim_stale_updates(self, lease: float, limit: int = 20) -> list[tuple[int, str]]:
        """Claim up to ``limit`` updates whose worker's lease ran out before they were done,
        oldest first, for ``lease`` seconds: ``(update_id, body)``. The named leases of the
        workers they are taken from go in the same transaction: that worker stopped renewing,
        and a seat it claimed for 60 s (:meth:`claim_seat`) must not refuse the very Join
        taken over here ("You already sit at this table", and nobody seated)."""
        now = now_ms()
        async with self.pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                "WITH stale AS (SELECT update_id, claimed_by FROM inbox"
                " WHERE done_at IS NULL AND claimed_until <= $3"
                " ORDER BY update_id LIMIT $4 FOR UPDATE SKIP LOCKED)"
                " UPDATE inbox SET claimed_by = $1, claimed_until = $2 FROM stale"
                " WHERE inbox.update_id = stale.update_id"
                " RETURNING inbox.update_id, inbox.body, stale.claimed_by AS dead",
                self.worker, now + int(lease * 1000), now, limit)
            dead = sorted({row["dead"] for row in rows} - {self.worker, None})
            if dead:
                await conn.execute("DELETE FROM leases WHERE worker = ANY($1::text[])", dead)
        return sorted((row["update_id"], row["body"]) for row in rows)

    async def renew(self, lease: float, watchdogs: Iterable[str] = (),
                    watch: float = 0.0) -> None:
        """Extend every lease this worker holds (updates in progress, timers firing, the named
        leases it has not let go: a group message it is editing, a seat promised) to ``lease``
        seconds from now: a live worker keeps what it is working on, and a dead one's claims
        run out one lease after its last renewal (a named lease taken for longer is cut to
        that: a dead worker's claim on a group's message froze it for 30 s). The timers
        ``watchdogs`` (this worker's watchdogs of the blocks still running) are put ``watch``
        seconds ahead, each as a new schedule (a claim on the old one cannot finish it), in the
        same statement whatever their number (one write per watchdog, in turn, took longer
        than the watchdog's own ``watch`` at 200 busy tables: the watchdogs of a live worker
        fired)."""
        now = now_ms()
        until = now + int(lease * 1000)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "UPDATE inbox SET claimed_until = $2 WHERE claimed_by = $1 AND done_at IS NULL",
                self.worker, until)
            await conn.execute(
                "UPDATE timers SET claimed_until = $2 WHERE claimed_by = $1", self.worker, until)
            await conn.execute(
                "UPDATE leases SET until_ms = $2 WHERE worker = $1 AND until_ms > $3",
                self.worker, until, now)
            keys = list(watchdogs)
            if keys:
                await conn.execute(
                    "UPDATE timers SET due_at = $2, generation = generation + 1,"
                    " claimed_by = NULL, claimed_until = NULL WHERE key = ANY($1::text[])",
                    keys, now + int(watch * 1000))

    async def forget_done_updates(self) -> int:
        """Drop updates done more than :data:`INBOX_DAYS` ago and stale flood slots and
        leases; returns how many updates were dropped."""
        now = now_ms()
        async with self.pool.acquire() as conn:
            status = await conn.execute("DELETE FROM inbox WHERE done_at < $1",
                                        now - int(INBOX_DAYS * 86400_000))
            await conn.execute("DELETE FROM flood_slots WHERE at_ms < $1", now - 600_000)
            await conn.execute("DELETE FROM leases WHERE until_ms < $1", now)
        return int(status.rsplit(" ", 1)[-1])

    # --- Flood windows and leases --------------------------------------------------------------

    async def take_slot(self, chat_id: int, limit: int, period: float,
                        reserve: int = 0, *, hold: float = 0.0) -> tuple[int | None, float, int]:
        """Start a request of chat ``chat_id`` now if fewer than ``limit - reserve`` started in
        the last ``period`` seconds, counting every worker's: ``(slot id, 0, used)``; else
        ``(None, seconds until one may, used)``.

        ``hold`` > 0: the request is *in flight* until :meth:`end_slot` (its slot counts from
        ``hold`` seconds ahead until then, so a worker that dies with it in flight frees it
        ``hold + period`` seconds later); a slot in flight makes the wait a short poll."""
        now = now_ms()
        horizon = now - int(period * 1000)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                               f"flood:{chat_id}")
            starts = await conn.fetch(
                "SELECT at_ms FROM flood_slots WHERE chat_id = $1 AND at_ms > $2"
                " ORDER BY at_ms", chat_id, horizon)
            used = len(starts)
            if used >= limit - min(reserve, limit - 1):
                oldest = starts[used - (limit - min(reserve, limit - 1))]["at_ms"]
                if oldest > now:  # in flight: it ends (and counts on) when its answer comes
                    return None, IN_FLIGHT_POLL, used
                return None, max(0.01, (oldest - horizon) / 1000), used
            slot = await conn.fetchval(
                "INSERT INTO flood_slots (chat_id, at_ms) VALUES ($1, $2) RETURNING id",
                chat_id, now + int(hold * 1000))
        return int(slot), 0.0, used + 1

    async def end_slot(self, slot: int) -> None:
        """The request of an in-flight slot (``take_slot(hold=...)``) was answered now: it
        counts for ``period`` seconds from now."""
        async with self.pool.acquire() as conn:
            await conn.execute("UPDATE flood_slots SET at_ms = $2 WHERE id = $1", slot, now_ms())

    async def give_back_slot(self, slot: int) -> None:
        """Return a slot taken and not used."""
        async with self.pool.acquire() as conn:
            await conn.execute("DELETE FROM flood_slots WHERE id = $1", slot)

    async def take_lease(self, name: str, seconds: float) -> bool:
        """Claim ``name`` for ``seconds`` unless another worker's claim on it still runs."""
        now = now_ms()
        async with self.pool.acquire() as conn:
            status = await conn.execute(_TAKE_LEASE, name, self.worker,
                                        now + int(seconds * 1000), now)
        return status.endswith(" 1")

    # --- Seats promised and given up ------------------------------------------------------------

    async def claim_seat(self, key: str, user_id: int) -> str | None:
        """``user_id`` is about to be seated at lobby ``key`` here (the
        :class:`~bot.core.table.SeatClaims` of the workers): in one transaction the player's
        lease ``player:<user>`` (one per player: refused while another worker's holds) and,
        with it, the seat's ``seat:<key>:<user>@<this worker>``, each for
        :data:`SEAT_CLAIM_SECONDS`, dropped by :meth:`release_seat`. ``None`` when taken; else
        the key of the table the other worker's claim is for (``""``: none found)."""
        player, seat = _player_lease(user_id), self._seat_lease(key, user_id)
        now = now_ms()
        until = now + int(SEAT_CLAIM_SECONDS * 1000)
        async with self.pool.acquire() as conn, conn.transaction():
            status = await conn.execute(_TAKE_LEASE, player, self.worker, until, now)
            if status.endswith(" 1"):
                await conn.execute(_TAKE_LEASE, seat, self.worker, until, now)
                return None
            claims = await conn.fetch(
                "SELECT s.name FROM leases p JOIN leases s ON s.worker = p.worker"
                " AND left(s.name, 5) = 'seat:'"
                " AND right(s.name, length($2) + length(p.worker)) = $2 || p.worker"
                " AND s.until_ms > $3 WHERE p.name = $1",
                player, f":{user_id}@", now)
        for row in claims:
            name = str(row["name"])
            return name[len("seat:"):name.rindex(f":{user_id}@")]
        return ""

    async def release_seat(self, key: str, user_id: int) -> None:
        """The seat claimed by :meth:`claim_seat` is stored, or was refused: this worker's
        claims go, and the withdrawal of that Join (:meth:`withdraw_seat`) with them."""
        seat = self._seat_lease(key, user_id)
        async with self.pool.acquire() as conn:
            await conn.execute(
                "WITH mine AS (DELETE FROM leases WHERE name = ANY($1::text[]) AND worker = $2"
                " RETURNING name)"
                " DELETE FROM leases WHERE name = $3 AND EXISTS (SELECT 1 FROM mine"
                " WHERE name = $4)",
                [seat, _player_lease(user_id)], self.worker, _withdrawal(key, user_id), seat)

    async def withdraw_seat(self, key: str, user_id: int) -> bool:
        """A Leave of ``user_id``, who does not sit at lobby ``key`` (its lock held): when any
        worker's claim on a seat there holds, the withdrawal ``withdrawn:<key>:<user>`` is
        stored (the claim's :meth:`release_seat` drops it) and ``True``."""
        now = now_ms()
        async with self.pool.acquire() as conn:
            status = await conn.execute(
                "INSERT INTO leases (name, worker, until_ms) SELECT $1, $2, $3"
                " WHERE EXISTS (SELECT 1 FROM leases WHERE left(name, length($4)) = $4"
                " AND until_ms > $5)"
                " ON CONFLICT (name) DO UPDATE SET until_ms = excluded.until_ms",
                _withdrawal(key, user_id), self.worker,
                now + int(SEAT_CLAIM_SECONDS * 1000), f"{_seat_prefix(key)}{user_id}@", now)
        return status.endswith(" 1")

    async def seat_withdrawn(self, key: str, user_id: int) -> bool:
        """A Leave withdrew the claim on a seat at lobby ``key`` of ``user_id``
        (:meth:`withdraw_seat`)."""
        async with self.pool.acquire() as conn:
            return bool(await conn.fetchval(
                "SELECT EXISTS (SELECT 1 FROM leases WHERE name = $1 AND until_ms > $2)",
                _withdrawal(key, user_id), now_ms()))

    async def claim_leave(self, key: str, user_id: int) -> None:
        """A Leave of ``user_id`` at lobby ``key`` is on its way here: a lease
        ``leaving:<key>:<user>@<this worker>`` until :meth:`release_leave`."""
        await self.take_lease(self._leave_lease(key, user_id), SEAT_CLAIM_SECONDS)

    async def release_leave(self, key: str, user_id: int) -> None:
        """The Leave's block ended."""
        await self.drop_lease(self._leave_lease(key, user_id))

    async def lobby_seats(self, key: str, token: str) -> StoredLobby | None:
        """The stored lobby ``key`` with ``token``: its seats, the users any worker's claim
        (:meth:`claim_seat`, not run out) promises a seat there, and the users leaving
        (:meth:`claim_leave`, :meth:`withdraw_seat`), in one query; ``None`` when the stored
        table is not that lobby."""
        prefixes = [_seat_prefix(key), _leaving_prefix(key), _withdrawal_prefix(key)]
        async with self.pool.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT (SELECT data FROM tables WHERE table_key = $1) AS data,"
                " ARRAY(SELECT name FROM leases, unnest($2::text[]) AS p(prefix)"
                " WHERE left(name, length(prefix)) = prefix AND until_ms > $3) AS claims",
                key, prefixes, now_ms())
        data = json.loads(row["data"]) if row is not None and row["data"] is not None else None
        if data is None or data.get("token") != token or data.get("phase") != "lobby":
            return None
        users: list[set[int]] = [set(), set(), set()]
        for name in row["claims"]:
            for found, prefix in zip(users, prefixes, strict=True):
                if name.startswith(prefix):
                    found.add(int(name[len(prefix):].split("@", 1)[0]))
        return StoredLobby([seat.get("user_id") for seat in data.get("seats", [])],
                           users[0], users[1] | users[2])

    async def table_of(self, user_id: int, besides: str) -> Table | None:
        """The stored lobby or running deal other than ``besides`` where ``user_id`` sits
        (:func:`~bot.core.table.sits_at`)."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT data FROM tables WHERE table_key <> $2"
                " AND data::jsonb -> 'seats' @> $1::jsonb",
                json.dumps([{"user_id": user_id}]), besides)
        for row in rows:
            try:
                table = Table.from_dict(json.loads(row["data"]))
            except ValueError:
                continue
            if sits_at(table, user_id):
                return table
        return None

    def _seat_lease(self, key: str, user_id: int) -> str:
        return f"{_seat_prefix(key)}{user_id}@{self.worker}"

    def _leave_lease(self, key: str, user_id: int) -> str:
        return f"{_leaving_prefix(key)}{user_id}@{self.worker}"

    async def drop_lease(self, name: str) -> None:
        """Give up this worker's claim on ``name``."""
        async with self.pool.acquire() as conn:
            await conn.execute("DELETE FROM leases WHERE name = $1 AND worker = $2",
                               name, self.worker)

