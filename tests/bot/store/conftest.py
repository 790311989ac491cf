"""Fixtures for the store tests: every test runs on both backends (issue 16), on a real SQLite
file in tmp_path and on a fresh database of the session's real PostgreSQL server
(tests/databases.py), with a settable clock.

``database`` is what ``open_store`` opens (a path or a URL); ``raw`` runs plain SQL on it from
outside the store, written with ``?`` placeholders on both backends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import SeatRecord, Store, open_store
from bot.store.migrate import Dialect
from tests.databases import PostgresServer, RawDatabase

GROUP = -1001


class FakeClock:
    """A clock the test moves by hand; starts at 2024-05-01 12:00 UTC (20:00 in Shanghai)."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime(2024, 5, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Dialect:
    """The store backend under test: ``"sqlite"`` or ``"postgres"``."""
    dialect: Dialect = request.param
    return dialect


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the SQLite file of a SQLite-only test lives."""
    return tmp_path / "data" / "ddz.sqlite3"


@pytest.fixture
async def database(
    backend: Dialect, db_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[str | Path]:
    """The test's empty database: a SQLite path, or the URL of a new PostgreSQL database."""
    if backend == "sqlite":
        yield db_path
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = await server.create_database()
    yield url
    await server.drop_database(url)


@pytest.fixture
def raw(backend: Dialect, database: str | Path) -> RawDatabase:
    return RawDatabase(backend, database)


@pytest.fixture
async def store(database: str | Path, clock: FakeClock) -> AsyncIterator[Store]:
    opened = await open_store(database, clock=clock)
    yield opened
    await opened.close()


@pytest.fixture
def make_deal(store: Store) -> Callable[..., Awaitable[int]]:
    """``await make_deal(user_ids, chat_id=GROUP, stake=10)``: a running deal; ``None`` ids are
    bot seats. Returns the deal id."""

    async def make(user_ids: Sequence[int | None], *, chat_id: int = GROUP, stake: int = 10) -> int:
        seats = [
            SeatRecord(None, "bot", is_bot=True) if uid is None else SeatRecord(uid, f"p{uid}")
            for uid in user_ids
        ]
        return await store.create_deal(
            f"t{chat_id}", chat_id, seats, {"bidding": "score"}, stake, '{"version": 0}'
        )

    return make
