"""Opening the store: directories, WAL, numbered migrations recorded once (issue 3)."""

from __future__ import annotations

import sqlite3

import aiosqlite
import pytest

from bot.store import Store
from bot.store.migrate import Migration, load_migrations, migrate, split_statements


async def test_open_creates_the_directory_wal_and_records_every_migration(db_path):
    store = await Store.open(db_path)
    await store.close()
    assert db_path.exists()
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        versions = [row[0] for row in db.execute("SELECT version FROM schema_version")]
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert versions == [m.version for m in load_migrations()] == list(range(1, len(versions) + 1))
    assert {"players", "ledger", "deals", "deal_seats", "groups", "claims", "posts"} <= tables


async def test_reopening_keeps_data_and_runs_no_migration_twice(db_path):
    store = await Store.open(db_path)
    await store.ensure_player(7, "Ann")
    await store.close()
    store = await Store.open(db_path)
    assert await store.balance(7) == 1000
    await store.close()
    with sqlite3.connect(db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == len(
            load_migrations()
        )


async def test_a_new_migration_runs_once_and_a_failing_one_changes_nothing(tmp_path):
    path = tmp_path / "m.sqlite3"
    first = Migration(1, "0001_a.sql", ("CREATE TABLE a (x INTEGER)",))
    second = Migration(2, "0002_b.sql", ("CREATE TABLE b (x INTEGER)", "INSERT INTO b VALUES (1)"))
    broken = Migration(
        3, "0003_c.sql", ("CREATE TABLE c (x INTEGER)", "INSERT INTO nowhere VALUES (1)")
    )
    async with aiosqlite.connect(path, isolation_level=None) as db:
        assert await migrate(db, [first]) == [1]
        assert await migrate(db, [first, second]) == [2]
        assert await migrate(db, [first, second]) == []
        with pytest.raises(sqlite3.OperationalError):
            await migrate(db, [first, second, broken])
        names = {row[0] for row in await db.execute_fetchall("SELECT name FROM sqlite_master")}
        versions = await db.execute_fetchall("SELECT version FROM schema_version ORDER BY version")
    assert "c" not in names
    assert [row[0] for row in versions] == [1, 2]


def test_split_statements_keeps_multi_line_statements_and_refuses_a_truncated_one():
    script = (
        "-- heading\nCREATE TABLE t (\n  x INTEGER -- a; comment\n);\nCREATE INDEX i ON t (x);\n"
    )
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1] == "CREATE INDEX i ON t (x);"
    assert split_statements("SELECT 1;\n-- trailing comment\n") == ("SELECT 1;",)
    with pytest.raises(ValueError):
        split_statements("SELECT 1;\nCREATE TABLE u (x")


async def test_0002_counts_the_wins_of_deals_settled_before_it(tmp_path):
    path = tmp_path / "old.sqlite3"
    async with aiosqlite.connect(path, isolation_level=None) as db:
        assert await migrate(db, load_migrations()[:1]) == [1]
        await db.execute(
            "INSERT INTO players (user_id, name, balance, balance_changed_at, created_at)"
            " VALUES (1, 'Ann', 1000, 0, 0), (2, 'Bob', 1000, 0, 0)"
        )
        await db.execute(
            "INSERT INTO group_players (chat_id, user_id, games, last_played_at, balance,"
            " balance_changed_at) VALUES (-1, 1, 2, 0, 1000, 0), (-1, 2, 2, 0, 1000, 0),"
            " (-2, 1, 1, 0, 1000, 0)"
        )
        seats = [  # (deal, seat, user, chat, won): Ann won one deal in -1 and one in -2
            (1, 0, 1, -1, 1), (1, 1, 2, -1, 0), (1, 2, None, -1, 0),
            (2, 0, 1, -1, 0), (2, 1, 2, -1, 0), (2, 2, None, -1, 1),
            (3, 0, 1, -2, 1), (3, 1, None, -2, 0), (3, 2, None, -2, 0),
        ]
        await db.executemany(
            "INSERT INTO deal_seats (deal_id, seat, user_id, chat_id, finished_at, role, won,"
            " points, beans, bombs, spring, escaped)"
            " VALUES (?, ?, ?, ?, 0, NULL, ?, 0, 0, 0, 0, 0)",
            seats,
        )
        assert await migrate(db) == [m.version for m in load_migrations()[1:]]
        rows = await db.execute_fetchall(
            "SELECT chat_id, user_id, games, wins FROM group_players ORDER BY chat_id, user_id"
        )
    assert [tuple(row) for row in rows] == [(-2, 1, 1, 1), (-1, 1, 2, 1), (-1, 2, 2, 0)]
