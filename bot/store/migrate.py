"""Numbered schema migrations, run when the store opens.

Each dialect has its folder of ``NNNN_name.sql`` files (``bot/store/migrations/sqlite/`` and
``bot/store/migrations/postgres/``) with the same numbers, giving the same schema
(tests/bot/store/test_store_migrations.py compares them). Each migration runs once, in number
order, inside one transaction together with its row in ``schema_version``; a failing migration
changes nothing. Two processes opening the same database at once are safe: on SQLite the second
waits for the write lock (``BEGIN IMMEDIATE``), on PostgreSQL for a transaction-level advisory
lock, and then finds the migration already recorded.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Literal

import aiosqlite

if TYPE_CHECKING:
    import asyncpg

Dialect = Literal["sqlite", "postgres"]
DIALECTS: tuple[Dialect, ...] = ("sqlite", "postgres")

_NAME = re.compile(r"^(\d{4})_\w+\.sql$")
# pg_advisory_xact_lock key of the migrations (an arbitrary constant: "ddz schema")
_PG_MIGRATION_LOCK = 0x0DD2_5C4E


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: its number, file name and SQL statements (on PostgreSQL one statement:
    the whole script, which the server splits itself)."""

    version: int
    name: str
    statements: tuple[str, ...]


def split_statements(script: str) -> tuple[str, ...]:
    """Split an SQLite script into complete statements (``sqlite3.complete_statement``).

    Raises:
        ValueError: the script ends with an incomplete statement.
    """
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    leftover = [line for line in buffer.splitlines() if not line.strip().startswith("--")]
    if "".join(leftover).strip():
        raise ValueError(f"incomplete SQL statement at the end: {buffer.strip()[:60]!r}")
    return tuple(statements)


def load_migrations(dialect: Dialect = "sqlite") -> list[Migration]:
    """All migrations shipped in ``bot.store.migrations.<dialect>``, sorted by number.

    Raises:
        ValueError: unknown dialect, two files share a number, the numbers have a gap, or an
            ``.sql`` file lies outside the dialect folders (where no dialect would run it).
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown SQL dialect {dialect!r}")
    stray = [e.name for e in resources.files("bot.store.migrations").iterdir()
             if e.name.endswith(".sql")]
    if stray:
        raise ValueError(f"migrations belong in a dialect folder (sqlite/, postgres/): {stray}")
    migrations = []
    for entry in resources.files(f"bot.store.migrations.{dialect}").iterdir():
        match = _NAME.match(entry.name)
        if match:
            text = entry.read_text(encoding="utf-8")
            statements = split_statements(text) if dialect == "sqlite" else (text,)
            migrations.append(Migration(int(match[1]), entry.name, statements))
    migrations.sort(key=lambda m: m.version)
    numbers = [m.version for m in migrations]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"migration numbers must be 1, 2, 3… without gaps, got {numbers}")
    return migrations


async def migrate(db: aiosqlite.Connection, migrations: list[Migration] | None = None) -> list[int]:
    """Apply the SQLite migrations not yet in ``schema_version``; returns the numbers applied now.

    ``db`` must be in autocommit mode (``isolation_level=None``).
    """
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_version"
        " (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)"
    )
    applied_now = []
    for migration in load_migrations() if migrations is None else migrations:
        await db.execute("BEGIN IMMEDIATE")
        try:
            rows = await db.execute_fetchall(
                "SELECT 1 FROM schema_version WHERE version = ?", (migration.version,)
            )
            if not rows:
                for statement in migration.statements:
                    await db.execute(statement)
                await db.execute(
                    "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, int(time.time() * 1000)),
                )
                applied_now.append(migration.version)
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")
    return applied_now


async def migrate_postgres(
    conn: asyncpg.Connection, migrations: list[Migration] | None = None
) -> list[int]:
    """Apply the PostgreSQL migrations not yet in ``schema_version``; returns the numbers
    applied now. Each runs in its own transaction after taking the migrations' advisory lock,
    so workers starting together apply each migration once."""
    applied_now = []
    for migration in load_migrations("postgres") if migrations is None else migrations:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _PG_MIGRATION_LOCK)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                " (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
            )
            done = await conn.fetchval(
                "SELECT 1 FROM schema_version WHERE version = $1", migration.version
            )
            if done is None:
                for statement in migration.statements:
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)",
                    migration.version,
                    migration.name,
                    int(time.time() * 1000),
                )
                applied_now.append(migration.version)
    return applied_now
