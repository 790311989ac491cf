"""A table's actions serialized across worker processes, the stored table being the truth:
:class:`StoreGuard` is the :class:`bot.core.table.TableGuard` of the registry.

Inside a table's ``asyncio.Lock`` (``Tables.lock``) the guard takes the table's advisory lock in
PostgreSQL (:meth:`SharedDb.locked`), then compares the stored table's :class:`Mark` with the one
this process's copy was made from and, when they differ (another worker changed the table, or
deleted it), loads the stored table and its deal's state into the registry in place
(``Tables.refresh``). While the lock is held a watchdog timer runs
(:mod:`bot.telegram.workers.timers`): a worker killed in the middle of an action leaves the table to
the watchdog, which resumes it on another worker. Before it lets the lock go the guard waits for the
timers the block armed to be stored, and remembers the stored mark, so the next block here reloads
only what another worker wrote.

Lookups before a lock (a press's token, the table a player sits at) read the registry, so
:meth:`presync` and :meth:`sync_for` bring the registry up to date first for one table or for
the tables of an update's user and chat.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import asyncpg

from bot.core.table import DEAL, RESULT, Table, Tables
from bot.telegram.workers.shared import Mark, SharedDb, StoredTable
from engine import DealState

log = logging.getLogger(__name__)


class Watchdog(Protocol):
    """What the guard needs of the timers (:class:`bot.telegram.workers.timers.DbTimers`)."""

    async def watch(self, key: str) -> None:
        """Arm the watchdog of table ``key`` (it resumes the table if nobody disarms it)."""
        ...

    async def unwatch(self, key: str) -> None:
        """Disarm it: the block finished."""
        ...

    async def flush(self, key: str) -> None:
        """Wait until the timers armed and cancelled for table ``key`` are stored."""
        ...

    def abandon(self, key: str) -> None:
        """The block failed half-way: leave the watchdog armed, to fire."""
        ...


class StoreGuard:
    """See the module docstring.

    Args:
        shared: the shared rows. tables: the registry this guard serves (its ``guard``).
        save: stores a table's data (``store.save_table``): a block that changed the table
            only in memory (no step was stored) stores it as it leaves.
    """

    def __init__(self, shared: SharedDb, tables: Tables,
                 save: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None) -> None:
        self.shared = shared
        self.tables = tables
        self.save = save
        self.watchdog: Watchdog | None = None
        self.marks: dict[str, Mark] = {}
        #: Keys this process saw stored: a table here that is not stored was deleted by
        #: another worker if it is one of them, else it is being opened here.
        self._seen: set[str] = set()
        #: Tables whose advisory lock a block of this process holds: their copy here is the
        #: newest there is (that block is the one writing them).
        self._holding: set[str] = set()
        #: Tables loaded because another worker changed them (for benchmarks and tests).
        self.reloads = 0

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        async with self.shared.locked(f"table:{key}"):
            self._holding.add(key)
            try:
                async with self._hold(key):
                    yield
            finally:
                self._holding.discard(key)

    @asynccontextmanager
    async def _hold(self, key: str) -> AsyncIterator[None]:
        """The block with the table's advisory lock held (see the module docstring)."""
        async with self.shared.pool.acquire() as conn:
            await self._sync(conn, key)
        if self.watchdog is not None:
            await self.watchdog.watch(key)
        table = self.tables.get(key)
        before = _stored_form(table) if table is not None else None
        try:
            yield
        except BaseException:
            if self.watchdog is not None:
                self.watchdog.abandon(key)  # the watchdog resumes the table
            raise
        table = self.tables.get(key)
        if table is not None and before is not None and self.save is not None:
            after = _stored_form(table)
            if after != before and await self._stored_data(key) != after:
                # changes the game keeps in memory alone (a selection, a withdrawn
                # notice): the next step may run on another worker
                await self.save(key, after)
        if self.watchdog is not None:
            await self.watchdog.flush(key)
            await self.watchdog.unwatch(key)
        async with self.shared.pool.acquire() as conn:
            mark = await self.shared.mark(conn, key)
        self._remember(key, mark)

    async def _stored_data(self, key: str) -> dict[str, Any] | None:
        async with self.shared.pool.acquire() as conn:
            return await self.shared.stored_data(conn, key)

    def _remember(self, key: str, mark: Mark | None) -> None:
        if mark is None:
            self.marks.pop(key, None)
        else:
            self.marks[key] = mark
            self._seen.add(key)

    def _current(self, key: str, mark: Mark | None) -> bool:
        known = self.tables.get(key) is not None
        if mark is None:
            return not known
        return known and self.marks.get(key) == mark

    async def _sync(self, conn: asyncpg.Connection, key: str) -> None:
        """Bring the registry's table ``key`` to the stored one (local lock held)."""
        mark = await self.shared.mark(conn, key)
        if mark is None:
            # not stored: gone (closed by another worker), or opened here and not stored yet
            self.marks.pop(key, None)
            table = self.tables.get(key)
            if table is not None and key in self._seen:
                self.tables.refresh(key, None)
            return
        if self._current(key, mark):
            return
        stored = await self.shared.load(conn, key)
        if stored is None:
            self.tables.refresh(key, None)
            self.marks.pop(key, None)
            return
        self._put(key, stored)

    def _put(self, key: str, stored: StoredTable) -> None:
        """Put the stored table (with its deal's state) in the registry as this copy."""
        try:
            table = Table.from_dict(stored.data)
        except ValueError as exc:
            log.warning("stored table %s cannot be read: %s", key, exc)
            return
        if table.phase in (DEAL, RESULT) and stored.state_json is not None:
            table.state = DealState.from_json(stored.state_json)
        table.messages.rendered.update(_rendered_hands(stored.data))
        self.tables.refresh(key, table)
        self.marks[key] = stored.mark
        self._seen.add(key)
        self.reloads += 1

    async def presync(self, key: str) -> None:
        """Bring table ``key`` up to date before a lookup outside its lock (a press's token, a
        timer's table). A table that a block of this process holds is left as it is: that
        block is the one changing it (its stored mark moves with each of its writes), and
        waiting for it made a press wait for the whole step before its answer (the
        hands of that step being sent within the token's budget, seconds at 200 tables).
        A table whose local lock a block of this process holds while it waits for the
        advisory lock (another worker's step holds it, seconds at 200 tables while its hands
        wait for the token) is loaded without waiting for that block: the press is decided and
        answered on the stored table (hints and plays waited 10–60 s, some longer
        than the benchmark's patience). That load is dropped if the waiting block took the
        table meanwhile, or anything else brought it up to date (the block syncs itself)."""
        if key in self._holding:
            return
        async with self.shared.pool.acquire() as conn:
            mark = await self.shared.mark(conn, key)
            if self._current(key, mark) or key in self._holding:
                return
            if self.tables.local_lock(key).locked():
                await self._sync_beside(conn, key)
                return
        await self._locked_sync(key)

    async def _sync_beside(self, conn: asyncpg.Connection, key: str) -> None:
        """:meth:`_sync` without the local lock, which a block of this process holds while it
        waits for the advisory lock (:meth:`presync`): the stored table is loaded, and put in
        the registry only if no block took the table meanwhile and nothing else brought it up
        to date (no copy older than the one here replaces it)."""
        known = self.marks.get(key)
        stored = await self.shared.load(conn, key)
        if stored is None or key in self._holding or self.marks.get(key) != known \
                or self._current(key, stored.mark):
            return
        self._put(key, stored)

    async def sync_for(self, user_id: int | None, chat_id: int | None) -> None:
        """Bring up to date the tables an update may look up outside a lock: those
        where user ``user_id`` sits (stored, or in this process's copy: the table a player sits
        at), and those of chat ``chat_id`` (a group's tables, a private chat's practice table).
        A table that a block of this process holds or waits for is left to that block, which
        brings it up to date itself: no update waits for another table's step. One query
        whatever the number of tables (every stored table's mark, compared one by one, cost a
        load per table another worker had moved on, in turn behind each table's lock)."""
        here = {table.key for table in self.tables
                if (user_id is not None and table.seat_of(user_id) is not None)
                or (chat_id is not None and table.chat_id == chat_id)}
        if user_id is None and chat_id is None:
            return
        marks = await self.shared.marks_of(user_id, chat_id, here)
        for key in set(marks) | here:
            if self.tables.local_lock(key).locked():
                continue
            if not self._current(key, marks.get(key)):
                await self._locked_sync(key)

    async def _locked_sync(self, key: str) -> None:
        async with self.tables.local_lock(key), self.shared.pool.acquire() as conn:
            await self._sync(conn, key)

    async def is_current(self, key: str) -> bool:
        """This process's copy of table ``key`` shows the stored deal state (``True`` for a
        table without a deal): whether its group message may be drawn from it here."""
        table = self.tables.get(key)
        if table is None or table.state is None:
            return True
        async with self.shared.pool.acquire() as conn:
            mark = await self.shared.mark(conn, key)
        return mark is not None and mark.deal_version == table.state.version


#: The key of the stored data that keeps what each seat's hand message shows (not part of
#: ``Table.to_dict``, which ignores it when read back).
RENDERED = "rendered_hands"


def _stored_form(table: Table) -> dict[str, Any]:
    """The table's data as this guard stores it: ``Table.to_dict`` plus what each hand message
    shows now (hand messages are edited under the table's lock, so the last worker to hold it
    knows them; a worker that takes over skips the edits that would change nothing)."""
    data = table.to_dict()
    data[RENDERED] = {str(seat): look for seat, look in table.messages.rendered.items()
                      if isinstance(seat, int)}
    return data


def _rendered_hands(data: dict[str, Any]) -> dict[int | str, str]:
    return {int(seat): str(look) for seat, look in dict(data.get(RENDERED) or {}).items()}
