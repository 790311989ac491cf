"""Opening the store: directories, WAL, numbered migrations recorded once (issue 3), the same
numbered migrations and the same schema on SQLite and PostgreSQL (issue 16)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.store import open_store
from bot.store.migrate import DIALECTS, Migration, load_migrations, split_statements
from bot.store.sql import SQLiteStore
from tests.databases import PostgresServer, RawDatabase

# A query of a missing table fails with this error on each backend.
UNKNOWN_TABLE = {"sqlite": sqlite3.OperationalError, "postgres": asyncpg.UndefinedTableError}
TYPE_FAMILY = {"integer": "integer", "bigint": "integer", "text": "text"}


async def table_names(raw: RawDatabase) -> set[str]:
    if raw.dialect == "sqlite":
        rows = await raw.fetch(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    else:
        rows = await raw.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
    return {row[0] for row in rows}


async def schema(raw: RawDatabase) -> dict[str, Any]:
    """What must be equal on both backends: per table its columns in order (name, type family,
    not null, position in the primary key), the indexes (name → table and columns) and the
    triggers' names."""
    tables: dict[str, list[tuple[str, str, bool, int]]] = {}
    if raw.dialect == "sqlite":
        for table in await table_names(raw):
            info = await raw.fetch(f"PRAGMA table_info({table})")
            tables[table] = [
                (name, TYPE_FAMILY[kind.lower()], bool(notnull or pk), pk)
                for _, name, kind, notnull, _, pk in info
            ]
        indexes = {}
        for name, table in await raw.fetch(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'"
            " AND name NOT LIKE 'sqlite_autoindex%'"
        ):
            columns = [row[2] for row in await raw.fetch(f"PRAGMA index_info({name})")]
            indexes[name] = (table, columns)
        triggers = await raw.fetch("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    else:
        columns = await raw.fetch(
            "SELECT c.table_name, c.column_name, c.data_type, c.is_nullable = 'NO',"
            " COALESCE(k.ordinal_position, 0) FROM information_schema.columns c"
            " LEFT JOIN information_schema.table_constraints t"
            "  ON t.table_name = c.table_name AND t.constraint_type = 'PRIMARY KEY'"
            "  AND t.table_schema = c.table_schema"
            " LEFT JOIN information_schema.key_column_usage k"
            "  ON k.constraint_name = t.constraint_name AND k.column_name = c.column_name"
            "  AND k.table_schema = c.table_schema"
            " WHERE c.table_schema = 'public' ORDER BY c.table_name, c.ordinal_position"
        )
        for table, name, kind, notnull, pk in columns:
            tables.setdefault(table, []).append((name, TYPE_FAMILY[kind], notnull, pk))
        indexes = {
            name: (table, list(names))
            for name, table, names in await raw.fetch(
                "SELECT i.relname, t.relname, array_agg(a.attname ORDER BY k.n)"
                " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
                " JOIN pg_class t ON t.oid = x.indrelid"
                " CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k (attnum, n)"
                " JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum"
                " WHERE t.relnamespace = 'public'::regnamespace AND NOT x.indisprimary"
                " GROUP BY i.relname, t.relname"
            )
        }
        triggers = await raw.fetch(
            "SELECT DISTINCT trigger_name FROM information_schema.triggers"
            " WHERE trigger_schema = 'public'"
        )
    return {"tables": tables, "indexes": indexes, "triggers": {row[0] for row in triggers}}


def test_both_dialects_ship_the_same_numbered_migrations():
    sqlite_names, postgres_names = ([m.name for m in load_migrations(d)] for d in DIALECTS)
    assert sqlite_names == postgres_names
    assert [m.version for m in load_migrations("postgres")] == list(
        range(1, len(postgres_names) + 1)
    )


async def test_both_dialects_end_in_the_same_schema(tmp_path, postgres_server: PostgresServer):
    sqlite_db = RawDatabase("sqlite", tmp_path / "s.sqlite3")
    url = await postgres_server.create_database()
    try:
        postgres_db = RawDatabase("postgres", url)
        for raw in (sqlite_db, postgres_db):
            assert await raw.migrate() == [m.version for m in load_migrations(raw.dialect)]
        on_sqlite, on_postgres = await schema(sqlite_db), await schema(postgres_db)
    finally:
        await postgres_server.drop_database(url)
    assert on_sqlite == on_postgres
    assert {"players", "ledger", "deals", "deal_seats", "deal_holds", "schema_version"} <= set(
        on_postgres["tables"]
    )
    assert on_postgres["triggers"] == {"group_players_follow_balance"}
    # the workers' shared rows; 0004's `updates` went with 0008 (the inbox replaced it)
    assert {"inbox", "timers", "flood_slots", "leases"} <= set(on_postgres["tables"])
    assert on_postgres["indexes"]["usernames_by_user"] == ("usernames", ["user_id"])  # 0009
    assert "updates" not in on_postgres["tables"]
    assert "updates_by_time" not in on_postgres["indexes"]


async def test_open_creates_the_directory_and_wal(db_path: Path):
    store = await SQLiteStore.open(db_path)
    await store.close()
    assert db_path.exists()
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_open_records_every_migration(database, raw):
    store = await open_store(database)
    await store.close()
    versions = [row[0] for row in await raw.fetch("SELECT version FROM schema_version")]
    assert versions == [m.version for m in load_migrations(raw.dialect)]
    assert versions == list(range(1, len(versions) + 1))
    assert {"players", "ledger", "deals", "deal_seats", "groups", "claims", "posts"} <= (
        await table_names(raw)
    )


async def test_reopening_keeps_data_and_runs_no_migration_twice(database, raw):
    store = await open_store(database)
    await store.ensure_player(7, "Ann")
    await store.close()
    store = await open_store(database)
    assert await store.balance(7) == 1000
    await store.close()
    assert await raw.fetch("SELECT COUNT(*) FROM schema_version") == [
        (len(load_migrations(raw.dialect)),)
    ]


async def test_a_new_migration_runs_once_and_a_failing_one_changes_nothing(raw):
    first = Migration(1, "0001_a.sql", ("CREATE TABLE a (x INTEGER)",))
    second = Migration(2, "0002_b.sql", ("CREATE TABLE b (x INTEGER)", "INSERT INTO b VALUES (1)"))
    broken = Migration(
        3, "0003_c.sql", ("CREATE TABLE c (x INTEGER)", "INSERT INTO nowhere VALUES (1)")
    )
    assert await raw.migrate([first]) == [1]
    assert await raw.migrate([first, second]) == [2]
    assert await raw.migrate([first, second]) == []
    with pytest.raises(UNKNOWN_TABLE[raw.dialect]):
        await raw.migrate([first, second, broken])
    assert "c" not in await table_names(raw)
    assert await raw.fetch("SELECT version FROM schema_version ORDER BY version") == [(1,), (2,)]


async def test_two_processes_opening_a_new_database_at_once_migrate_it_once(database, raw):
    import asyncio

    stores = await asyncio.gather(*(open_store(database) for _ in range(3)))
    for store in stores:
        await store.close()
    assert await raw.fetch("SELECT COUNT(*) FROM schema_version") == [
        (len(load_migrations(raw.dialect)),)
    ]


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


def test_unknown_dialect_is_refused():
    with pytest.raises(ValueError):
        load_migrations("mysql")  # type: ignore[arg-type]


async def test_0002_counts_the_wins_of_deals_settled_before_it(raw):
    assert await raw.migrate_to(1) == [1]
    await raw.execute(
        "INSERT INTO players (user_id, name, balance, balance_changed_at, created_at)"
        " VALUES (1, 'Ann', 1000, 0, 0), (2, 'Bob', 1000, 0, 0)"
    )
    await raw.execute(
        "INSERT INTO group_players (chat_id, user_id, games, last_played_at, balance,"
        " balance_changed_at) VALUES (-1, 1, 2, 0, 1000, 0), (-1, 2, 2, 0, 1000, 0),"
        " (-2, 1, 1, 0, 1000, 0)"
    )
    seats = [  # (deal, seat, user, chat, won): Ann won one deal in -1 and one in -2
        (1, 0, 1, -1, 1), (1, 1, 2, -1, 0), (1, 2, None, -1, 0),
        (2, 0, 1, -1, 0), (2, 1, 2, -1, 0), (2, 2, None, -1, 1),
        (3, 0, 1, -2, 1), (3, 1, None, -2, 0), (3, 2, None, -2, 0),
    ]
    for deal_id in (1, 2, 3):  # PostgreSQL checks the seats' reference to their deal
        await raw.execute(
            "INSERT INTO deals (id, table_key, chat_id, seats, rules, stake, status, state,"
            " version, created_at) VALUES (?, 'k', -1, '[]', '{}', 1, 'settled', '{}', 0, 0)",
            deal_id,
        )
    for seat in seats:
        await raw.execute(
            "INSERT INTO deal_seats (deal_id, seat, user_id, chat_id, finished_at, role, won,"
            " points, beans, bombs, spring, escaped)"
            " VALUES (?, ?, ?, ?, 0, NULL, ?, 0, 0, 0, 0, 0)",
            *seat,
        )
    assert await raw.migrate() == [m.version for m in load_migrations(raw.dialect)[1:]]
    rows = await raw.fetch(
        "SELECT chat_id, user_id, games, wins FROM group_players ORDER BY chat_id, user_id"
    )
    assert rows == [(-2, 1, 1, 1), (-1, 1, 2, 1), (-1, 2, 2, 0)]


async def test_sqlite_migrations_run_inside_one_aiosqlite_transaction(tmp_path):
    """A failing SQLite migration leaves no table behind (the runner's ROLLBACK)."""
    path = tmp_path / "m.sqlite3"
    broken = Migration(1, "0001_a.sql", ("CREATE TABLE a (x INTEGER)", "SELECT * FROM nowhere"))
    async with aiosqlite.connect(path, isolation_level=None) as db:
        from bot.store.migrate import migrate

        with pytest.raises(sqlite3.OperationalError):
            await migrate(db, [broken])
        names = {row[0] for row in await db.execute_fetchall("SELECT name FROM sqlite_master")}
    assert names == {"schema_version"}
