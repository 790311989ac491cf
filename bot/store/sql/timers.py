"""The workers' rows of the store: timers, claimed by one worker at a time, and the inbox of
updates received by long polling."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from bot.store.records import TimerRecord
from bot.store.rows import ms as _ms
from bot.store.rows import timer_record
from bot.store.sql.common import SQLBase


class Timers(SQLBase):
    """The store's timers part (see the module docstring)."""

    async def schedule_timer(self, key: str, due: datetime, payload: dict[str, Any]) -> int:
        async with self._write() as conn:
            generation = await conn.fetchval(
                "INSERT INTO timers (key, due_at, payload, generation) VALUES ($1, $2, $3, 1)"
                " ON CONFLICT (key) DO UPDATE SET due_at = excluded.due_at,"
                " payload = excluded.payload, generation = timers.generation + 1,"
                " claimed_by = NULL, claimed_until = NULL RETURNING generation",
                key, _ms(due), json.dumps(payload),
            )
        return int(generation)

    async def cancel_timer(self, key: str) -> bool:
        async with self._write() as conn:
            status = await conn.execute("DELETE FROM timers WHERE key = $1", key)
        return status == 1

    async def claim_timers(
        self, worker: str, *, limit: int = 20, lease: float = 30.0
    ) -> list[TimerRecord]:
        if limit < 1 or lease <= 0:
            raise ValueError("limit must be at least 1 and lease positive")
        now = self.clock()
        async with self._write() as conn:
            # rows another worker is claiming right now are skipped, not waited for
            rows = await conn.fetch(
                "UPDATE timers SET claimed_by = $1, claimed_until = $2 WHERE key IN ("
                " SELECT key FROM timers WHERE due_at <= $3"
                " AND (claimed_until IS NULL OR claimed_until <= $3)"
                " ORDER BY due_at, key LIMIT $4 FOR UPDATE SKIP LOCKED) RETURNING *",
                worker, _ms(now + timedelta(seconds=lease)), _ms(now), limit,
            )
        return sorted(map(timer_record, rows), key=lambda t: (t.due_at, t.key))

    async def finish_timer(self, timer: TimerRecord) -> bool:
        async with self._write() as conn:
            status = await conn.execute(
                "DELETE FROM timers WHERE key = $1 AND generation = $2 AND claimed_by = $3",
                timer.key, timer.generation, timer.claimed_by,
            )
        return status == 1

    async def store_update(self, update_id: int, body: str) -> bool:
        now = _ms(self.clock())
        async with self._write() as conn:
            status = await conn.execute(
                "INSERT INTO inbox (update_id, body, received_at, claimed_by, claimed_until)"
                " VALUES ($1, $2, $3, 'polling', $3) ON CONFLICT DO NOTHING",
                update_id, body, now)
        return status == 1

    async def finish_update(self, update_id: int) -> None:
        async with self._write() as conn:
            await conn.execute("UPDATE inbox SET done_at = $2 WHERE update_id = $1",
                               update_id, _ms(self.clock()))

    async def pending_updates(self) -> list[tuple[int, str]]:
        async with self._read() as conn:
            rows = await conn.fetch(
                "SELECT update_id, body FROM inbox WHERE done_at IS NULL ORDER BY update_id")
        return [(int(row["update_id"]), str(row["body"])) for row in rows]

    async def forget_done_updates(self, before: datetime) -> int:
        async with self._write() as conn:
            return await conn.execute("DELETE FROM inbox WHERE done_at < $1", _ms(before))
