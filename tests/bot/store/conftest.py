"""Fixtures for the store tests: a real SQLite file in tmp_path and a settable clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import SeatRecord, Store

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


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "ddz.sqlite3"


@pytest.fixture
async def store(db_path: Path, clock: FakeClock) -> AsyncIterator[Store]:
    opened = await Store.open(db_path, clock=clock)
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
