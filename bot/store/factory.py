"""Opening the store a setting names: a PostgreSQL URL or a SQLite file.

>>> store = await open_store(settings.database)   # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from bot.core.beans import EconomyRules
from bot.store.base import Clock, Store
from bot.store.dialect import is_postgres_url
from bot.store.sql import PostgresStore, SQLiteStore


async def open_store(
    database: str | Path,
    *,
    economy: EconomyRules | None = None,
    clock: Clock | None = None,
) -> Store:
    """Open the store at ``database`` and run its pending migrations.

    A ``postgresql://`` (or ``postgres://``) URL opens a :class:`PostgresStore` on that server
    (``Settings.database_url``); anything else is the path of a SQLite file, created with its
    directory if needed (``Settings.database_path``), opened as a :class:`SQLiteStore` in WAL mode.

    Args:
        database: ``Settings.database``: the URL or the file path.
        economy: bean amounts (default :class:`~bot.core.beans.EconomyRules`).
        clock: returns the current aware UTC datetime (tests pass a fake clock).

    Raises:
        OSError, asyncpg.PostgresError: the PostgreSQL server cannot be reached or refuses.
        sqlite3.Error: the SQLite file cannot be opened or migrated.
    """
    if is_postgres_url(database):
        return await PostgresStore.open(str(database), economy=economy, clock=clock)
    return await SQLiteStore.open(database, economy=economy, clock=clock)
