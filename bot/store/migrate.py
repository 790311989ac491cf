"""Numbered schema migrations, run when the store opens.

Each ``bot/store/migrations/NNNN_name.sql`` runs once, in number order, inside one ``BEGIN
IMMEDIATE`` transaction together with its row in ``schema_version``; a failing migration changes
nothing. Two processes opening the same file at once are safe: the second waits for the write lock
and then finds the migration already recorded.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass
from importlib import resources

import aiosqlite

_NAME = re.compile(r"^(\d{4})_\w+\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: its number, file name and SQL statements."""

    version: int
    name: str
    statements: tuple[str, ...]


def split_statements(script: str) -> tuple[str, ...]:
    """Split an SQL script into complete statements (``sqlite3.complete_statement``).

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


def load_migrations() -> list[Migration]:
    """All migrations shipped in ``bot.store.migrations``, sorted by number.

    Raises:
        ValueError: two files share a number, or the numbers have a gap.
    """
    migrations = []
    for entry in resources.files("bot.store.migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            text = entry.read_text(encoding="utf-8")
            migrations.append(Migration(int(match[1]), entry.name, split_statements(text)))
    migrations.sort(key=lambda m: m.version)
    numbers = [m.version for m in migrations]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ValueError(f"migration numbers must be 1, 2, 3… without gaps, got {numbers}")
    return migrations


async def migrate(db: aiosqlite.Connection, migrations: list[Migration] | None = None) -> list[int]:
    """Apply the migrations not yet in ``schema_version``; returns the numbers applied now.

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
