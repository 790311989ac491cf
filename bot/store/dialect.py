"""The few places where SQLite and PostgreSQL differ, for the one store (:mod:`bot.store.sql`).

The store writes its SQL once, in PostgreSQL's syntax with ``$n`` placeholders, and runs it
through a :class:`Conn` of the backend it opened:

- :class:`PostgresConn` hands every statement to asyncpg unchanged.
- :class:`SQLiteConn` rewrites it for SQLite in :func:`sqlite_sql`: ``$n`` becomes ``?n``
  (SQLite's numbered parameters, so one parameter may appear twice), row locks
  (``FOR UPDATE``, ``FOR SHARE``, ``SKIP LOCKED``) are dropped (one writer at a time holds the
  whole file: ``BEGIN IMMEDIATE``), ``= ANY($n::type[])`` becomes
  ``IN (SELECT value FROM json_each(?n))`` with the list sent as JSON, casts (``::bigint``)
  are dropped and ``GREATEST`` is SQLite's two-argument ``MAX``.

What is not a rewrite is a method of the backend: advisory locks (:meth:`Conn.advisory_lock`,
nothing on SQLite) and the JSON edit of a stored table (:meth:`Conn.json_set`). A unique
constraint's refusal is :class:`Conflict` on both.

Transactions: :class:`SQLiteBackend` has one connection and an ``asyncio.Lock`` around each
read and each write transaction (``BEGIN IMMEDIATE``, which also serialises other processes
on the file); :class:`PostgresBackend` a pool, one connection and READ COMMITTED transaction
per write, whose rows the store locks with ``FOR UPDATE`` before deciding on them.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import aiosqlite
import asyncpg

from bot.store.migrate import migrate, migrate_postgres

Dialect = Literal["sqlite", "postgres"]
#: Connections per bot process (asyncpg pool); each write transaction holds one.
POOL_SIZE = 10
URL_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(database: object) -> bool:
    """Whether ``database`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return isinstance(database, str) and database.startswith(URL_SCHEMES)


class Conflict(Exception):
    """A statement broke a unique constraint (another worker wrote the same row first)."""


_ANY = re.compile(r"=\s*ANY\(\$(\d+)::\w+\[\]\)")
_LOCKS = re.compile(r"\s+FOR (UPDATE|SHARE)( OF \w+)?( SKIP LOCKED)?")
_CAST = re.compile(r"::\w+")
_PLACEHOLDER = re.compile(r"\$(\d+)")


@functools.lru_cache(maxsize=512)
def sqlite_sql(sql: str) -> str:
    """``sql`` (PostgreSQL syntax, ``$n`` placeholders) rewritten for SQLite; see the module
    docstring for what changes. Cached: the store's statements are a fixed set."""
    sql = _ANY.sub(r"IN (SELECT value FROM json_each($\1))", sql)
    sql = _LOCKS.sub("", sql)
    sql = _CAST.sub("", sql)
    sql = sql.replace("GREATEST(", "MAX(")
    return _PLACEHOLDER.sub(r"?\1", sql)


def _conflict(error: sqlite3.IntegrityError) -> Exception:
    """SQLite's refusal by a unique constraint as :class:`Conflict`; any other as it is."""
    return Conflict(str(error)) if "UNIQUE" in str(error) else error


def _sqlite_params(params: Sequence[Any]) -> tuple[Any, ...]:
    """Lists (the ``ANY`` parameters) as JSON arrays, everything else as it is."""
    if not any(type(p) is list for p in params):
        return tuple(params)
    return tuple(json.dumps(p) if isinstance(p, list) else p for p in params)


class Conn:
    """One connection inside a read or a write of the store (see the module docstring)."""

    dialect: Dialect

    async def fetch(self, sql: str, *params: Any) -> list[Any]:
        """Every row of a query (rows read by column name or position)."""
        raise NotImplementedError

    async def fetchrow(self, sql: str, *params: Any) -> Any:
        """The first row of a query, or ``None``."""
        raise NotImplementedError

    async def fetchval(self, sql: str, *params: Any) -> Any:
        """The first column of the first row, or ``None`` when there is no row."""
        row = await self.fetchrow(sql, *params)
        return None if row is None else row[0]

    async def execute(self, sql: str, *params: Any) -> int:
        """Run a statement; the number of rows it changed. Raises :class:`Conflict`."""
        raise NotImplementedError

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run a statement once per parameter row."""
        raise NotImplementedError

    async def advisory_lock(self, name: str) -> None:
        """Hold the lock ``name`` until the transaction ends (PostgreSQL's transaction-level
        advisory lock; nothing on SQLite, where a write transaction holds the whole file)."""

    def json_set(self, column: str, key: str, param: str) -> str:
        """An SQL expression: the JSON text ``column`` with its top-level ``key`` set to the
        integer parameter ``param`` (e.g. ``"$4"``)."""
        raise NotImplementedError


class SQLiteConn(Conn):
    """:class:`Conn` on the SQLite backend's one aiosqlite connection."""

    dialect: Dialect = "sqlite"

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def fetch(self, sql: str, *params: Any) -> list[Any]:
        try:
            return list(await self._db.execute_fetchall(sqlite_sql(sql), _sqlite_params(params)))
        except sqlite3.IntegrityError as error:
            raise _conflict(error) from None

    async def fetchrow(self, sql: str, *params: Any) -> Any:
        try:
            rows = await self._db.execute_fetchall(sqlite_sql(sql), _sqlite_params(params))
        except sqlite3.IntegrityError as error:
            raise _conflict(error) from None
        return next(iter(rows), None)

    async def execute(self, sql: str, *params: Any) -> int:
        try:
            cursor = await self._db.execute(sqlite_sql(sql), _sqlite_params(params))
        except sqlite3.IntegrityError as error:
            raise _conflict(error) from None
        return max(cursor.rowcount, 0)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._db.executemany(sqlite_sql(sql), [_sqlite_params(row) for row in rows])

    def json_set(self, column: str, key: str, param: str) -> str:
        return f"json_set({column}, '$.{key}', {param})"


def _count(status: str) -> int:
    """The row count of a command status such as ``"UPDATE 3"`` or ``"INSERT 0 1"``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresConn(Conn):
    """:class:`Conn` on one asyncpg connection of the PostgreSQL backend's pool."""

    dialect: Dialect = "postgres"

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, *params: Any) -> list[Any]:
        try:
            return list(await self._conn.fetch(sql, *params))
        except asyncpg.UniqueViolationError as error:
            raise Conflict(str(error)) from None

    async def fetchrow(self, sql: str, *params: Any) -> Any:
        try:
            return await self._conn.fetchrow(sql, *params)
        except asyncpg.UniqueViolationError as error:
            raise Conflict(str(error)) from None

    async def fetchval(self, sql: str, *params: Any) -> Any:
        try:
            return await self._conn.fetchval(sql, *params)
        except asyncpg.UniqueViolationError as error:
            raise Conflict(str(error)) from None

    async def execute(self, sql: str, *params: Any) -> int:
        try:
            return _count(await self._conn.execute(sql, *params))
        except asyncpg.UniqueViolationError as error:
            raise Conflict(str(error)) from None

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, list(rows))

    async def advisory_lock(self, name: str) -> None:
        await self._conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", name)

    def json_set(self, column: str, key: str, param: str) -> str:
        return f"jsonb_set({column}::jsonb, '{{{key}}}', to_jsonb({param}::bigint))::text"


class Backend:
    """Opens reads and write transactions on a database (see the module docstring)."""

    def read(self) -> Any:
        """``async with backend.read() as conn``: a :class:`Conn` for queries."""
        raise NotImplementedError

    def write(self) -> Any:
        """``async with backend.write() as conn``: a :class:`Conn` in one transaction; any
        error, cancellation included, rolls it back."""
        raise NotImplementedError

    async def close(self) -> None:
        """Close the database (again: no effect)."""
        raise NotImplementedError


async def _enable_wal(db: aiosqlite.Connection, wait: float = 10.0) -> None:
    """Switch the file to WAL mode. While another process or connection opens the same new
    file, SQLite answers "database is locked" at once instead of waiting ``busy_timeout``, so
    the switch is tried again for up to ``wait`` seconds (several workers starting together)."""
    deadline = asyncio.get_running_loop().time() + wait
    while True:
        try:
            await db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.02)


class SQLiteBackend(Backend):
    """One aiosqlite connection in WAL mode for one bot process.

    ``synchronous=NORMAL`` with WAL: a crash of the bot never loses a committed transaction; a
    power loss may lose the last ones, never half of one. The WAL is checkpointed into the
    database file (with an fsync) every 4000 pages.
    """

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._conn = SQLiteConn(db)
        self._lock = asyncio.Lock()
        self._open = True

    @staticmethod
    async def open(path: str | Path) -> SQLiteBackend:
        """Open (create) the file and run its pending migrations.

        Raises:
            sqlite3.Error: the file cannot be opened or migrated.
        """
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            db.row_factory = aiosqlite.Row
            await db.execute("PRAGMA busy_timeout = 10000")
            await _enable_wal(db)
            await db.execute("PRAGMA synchronous = NORMAL")
            # checkpoint every 16 MB of WAL instead of 4 MB: pages changed by many settlements
            # (index tails, a busy group's board) are copied back once; +30 % settlements/s
            await db.execute("PRAGMA wal_autocheckpoint = 4000")
            await db.execute("PRAGMA foreign_keys = ON")
            await migrate(db)
        except BaseException:
            await db.close()
            raise
        return SQLiteBackend(db)

    async def close(self) -> None:
        async with self._lock:
            if self._open:
                self._open = False
                await self._db.execute("PRAGMA optimize")  # refresh the planner's statistics
                await self._db.close()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Conn]:
        async with self._lock:
            yield self._conn

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Conn]:
        """aiosqlite runs statements in order on its own thread, and a statement whose
        ``await`` was cancelled still runs; so the ROLLBACK queued here always comes after it.
        A cancelled COMMIT still commits (the ROLLBACK then finds no transaction)."""
        async with self._lock:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
                yield self._conn
                await self._db.execute("COMMIT")
            except BaseException:
                try:
                    await self._db.execute("ROLLBACK")
                except sqlite3.OperationalError as error:
                    if "no transaction is active" not in str(error):
                        raise
                raise


class PostgresBackend(Backend):
    """An asyncpg connection pool, for several bot processes on one database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._open = True

    @staticmethod
    async def open(url: str) -> PostgresBackend:
        """Connect to the database at ``url`` (``postgresql://user:password@host:port/name``,
        asyncpg's URL syntax, ``?host=/socket/dir`` for a Unix socket) and run the numbered
        migrations not yet recorded in ``schema_version``.

        Raises:
            OSError, asyncpg.PostgresError: the server cannot be reached or refuses the login.
        """
        pool = await asyncpg.create_pool(url, min_size=1, max_size=POOL_SIZE)
        try:
            async with pool.acquire() as conn:
                await migrate_postgres(conn)
        except BaseException:
            await pool.close()
            raise
        return PostgresBackend(pool)

    async def close(self) -> None:
        if self._open:
            self._open = False
            await self._pool.close()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Conn]:
        async with self._pool.acquire() as conn:
            yield PostgresConn(conn)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Conn]:
        async with self._pool.acquire() as conn, conn.transaction():
            yield PostgresConn(conn)
