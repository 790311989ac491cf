"""The store, once for both databases: SQLite (one bot process) and PostgreSQL (several workers).

Every statement is written once, in PostgreSQL's syntax; :mod:`bot.store.dialect` runs it on the
backend the store was opened on and holds the few real differences (placeholders, row locks,
arrays, advisory locks). Each method that writes runs in one transaction and first locks the
rows it decides on, with ``SELECT … FOR UPDATE``: the player rows whose balance it reads (always
in user id order, so two transactions never wait for each other in a circle), the deal row it
settles, cancels or advances. On PostgreSQL (READ COMMITTED) a second ``/daily`` press, in this
process or in another worker, waits for the first one's commit and then sees its claim; a
second settlement of a deal waits and then finds it settled. On SQLite the locks are nothing: a
write transaction (``BEGIN IMMEDIATE``) has the whole file to itself, and one ``asyncio.Lock``
lets one read or write of the process run at a time. A refusal raises before the commit and
rolls everything back, and so does cancellation.

The schema is ``bot/store/migrations/`` (the same numbers and tables on both databases); what
the store shares with the tests and benchmarks beyond its SQL is :mod:`bot.store.rows`.
"""

from __future__ import annotations

from pathlib import Path

from bot.core.beans import EconomyRules
from bot.store.base import Clock
from bot.store.dialect import PostgresBackend, SQLiteBackend
from bot.store.rows import utc_now
from bot.store.sql.boards import Boards
from bot.store.sql.challenges import Challenges
from bot.store.sql.matches import Matches
from bot.store.sql.players import Players
from bot.store.sql.timers import Timers
from bot.store.sql.tournaments import Tournaments


class SQLStore(Players, Matches, Boards, Challenges, Timers, Tournaments):
    """:class:`~bot.store.base.Store` on a SQL database (see the module docstring), one part a
    feature: players and their beans (:mod:`.players`), deals (:mod:`.deals`), matches
    (:mod:`.matches`), leaderboards (:mod:`.boards`), challenges (:mod:`.challenges`), timers
    (:mod:`.timers`), tournaments (:mod:`.tournaments`), over :mod:`.common`; opened as
    :class:`SQLiteStore` or :class:`PostgresStore`."""


class SQLiteStore(SQLStore):
    """The store on one SQLite file in WAL mode, for one bot process."""

    @staticmethod
    async def open(
        path: str | Path,
        *,
        economy: EconomyRules | None = None,
        clock: Clock | None = None,
    ) -> SQLiteStore:
        """Open (create, with its directory) the file at ``path`` and run its pending
        migrations.

        Raises:
            sqlite3.Error: the file cannot be opened or migrated.
        """
        backend = await SQLiteBackend.open(path)
        return SQLiteStore(backend, economy or EconomyRules(), clock or utc_now)


class PostgresStore(SQLStore):
    """The store on a PostgreSQL database, for several bot processes."""

    @staticmethod
    async def open(
        url: str,
        *,
        economy: EconomyRules | None = None,
        clock: Clock | None = None,
    ) -> PostgresStore:
        """Connect to the database at ``url`` (``postgresql://user:password@host:port/name``,
        asyncpg's URL syntax, ``?host=/socket/dir`` for a Unix socket) and run the numbered
        migrations not yet recorded in ``schema_version``.

        Raises:
            OSError, asyncpg.PostgresError: the server cannot be reached or refuses the login.
        """
        backend = await PostgresBackend.open(url)
        return PostgresStore(backend, economy or EconomyRules(), clock or utc_now)
