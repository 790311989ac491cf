"""The tests' databases: a real PostgreSQL server started by the test session itself, and plain
SQL on a SQLite or PostgreSQL test database from outside the store (issue 16).

The server binaries come from the ``pgserver`` wheel (in the ``test`` extra), so a fresh machine
needs nothing but ``pip install -e '.[test]'``. The server listens on a Unix socket only, in a
temporary directory, without fsync (a test database need not survive a power cut); each test
gets a database of its own and drops it afterwards. Started as root, ``pgserver`` runs the
server as the system user ``pgserver`` (PostgreSQL refuses to run as root), creating it once.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiosqlite
import asyncpg
import pgserver

from bot.store.migrate import Dialect, Migration, load_migrations, migrate, migrate_postgres


class PostgresServer:
    """One running server; :meth:`create_database` gives each test a fresh database.

    Its data lives in a directory of its own in memory (``/dev/shm`` where there is one, else the
    system's temporary directory), not under pytest's: pytest makes ``/tmp/pytest-of-<user>``
    private (0700) whenever any session starts, which would lock the server's own user out of its
    data in the middle of a run. In memory, because a test database is written and deleted
    within seconds (each ``CREATE DATABASE`` copies the template, through the WAL too, whose
    size ``max_wal_size`` bounds): on a disk mounted with ``discard`` the deletes alone cost
    seconds.
    """

    def __init__(self) -> None:
        self._home = Path(tempfile.mkdtemp(prefix="ddz-postgres-", dir=_memory_dir()))
        self._server = pgserver.get_server(self._home / "pgdata", cleanup_mode="delete")
        self._names = itertools.count(1)
        self.url = self._server.get_uri()
        self._server.psql(
            "ALTER SYSTEM SET fsync = off; ALTER SYSTEM SET synchronous_commit = off;"
            " ALTER SYSTEM SET full_page_writes = off; ALTER SYSTEM SET max_wal_size = '96MB';"
            " SELECT pg_reload_conf();"
        )

    def url_of(self, database: str) -> str:
        """The ``postgresql://`` URL of a database on this server."""
        return str(self._server.get_uri(database))

    async def create_database(self) -> str:
        """A new empty database; returns its URL."""
        name = f"test_{next(self._names)}"
        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(f"CREATE DATABASE {name}")
        finally:
            await conn.close()
        return self.url_of(name)

    async def drop_database(self, url: str) -> None:
        """Drop a database made by :meth:`create_database`, closing its leftover sessions."""
        name = urlsplit(url).path.lstrip("/")
        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await conn.close()

    def stop(self) -> None:
        """Stop the server at once (SIGQUIT: PostgreSQL's immediate shutdown, no checkpoint of
        data about to be deleted; SIGKILL if it is still there after 10 s) and delete its data
        directory. A server left running would make ``pgserver``'s own clean-up stop it the
        slow way (``pg_ctl -w stop`` waits up to 60 s for the sessions: the suite's last
        teardown once took 71 s)."""
        pid = self._server.get_pid()
        if pid is not None:
            for sig, seconds in ((signal.SIGQUIT, 10.0), (signal.SIGKILL, 5.0)):
                if not _signal_and_wait(pid, sig, seconds):
                    break
        self._server.cleanup()
        shutil.rmtree(self._home, ignore_errors=True)


def _memory_dir() -> str | None:
    """``/dev/shm`` if this machine has a writable one (Linux), else ``None`` (the system's
    temporary directory)."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _signal_and_wait(pid: int, sig: signal.Signals, seconds: float) -> bool:
    """Send ``sig`` to process ``pid`` and wait up to ``seconds`` for it to go; whether it is
    still there."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.05)
    return True


class RawDatabase:
    """Plain SQL on the test's database, beside the store (each call its own connection and,
    for :meth:`execute`, its own committed transaction)."""

    def __init__(self, dialect: Dialect, database: str | Path) -> None:
        self.dialect = dialect
        self.database = database

    def _sql(self, sql: str) -> str:
        if self.dialect == "sqlite":
            return sql
        numbers = iter(range(1, 1000))
        return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)

    async def fetch(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """All rows of a query, as tuples."""
        if self.dialect == "sqlite":
            with sqlite3.connect(self.database) as db:
                return [tuple(row) for row in db.execute(sql, params).fetchall()]
        conn = await asyncpg.connect(str(self.database))
        try:
            return [tuple(row) for row in await conn.fetch(self._sql(sql), *params)]
        finally:
            await conn.close()

    async def migrate(self, migrations: list[Migration] | None = None) -> list[int]:
        """Run the dialect's migrations runner (all shipped migrations by default); returns
        the numbers it applied."""
        if migrations is None:
            migrations = load_migrations(self.dialect)
        if self.dialect == "sqlite":
            Path(self.database).parent.mkdir(parents=True, exist_ok=True)
            async with aiosqlite.connect(self.database, isolation_level=None) as db:
                return await migrate(db, migrations)
        conn = await asyncpg.connect(str(self.database))
        try:
            return await migrate_postgres(conn, migrations)
        finally:
            await conn.close()

    async def migrate_to(self, version: int) -> list[int]:
        """Run the shipped migrations up to ``version``."""
        return await self.migrate(load_migrations(self.dialect)[:version])

    async def execute(self, sql: str, *params: Any) -> None:
        """Run one statement (without parameters: a script) and commit it."""
        if self.dialect == "sqlite":
            with sqlite3.connect(self.database) as db:
                if params:
                    db.execute(sql, params)
                else:
                    db.executescript(sql)
            return
        conn = await asyncpg.connect(str(self.database))
        try:
            await conn.execute(self._sql(sql), *params)
        finally:
            await conn.close()
