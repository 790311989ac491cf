"""Flood budgets shared by every worker (issue 16): a group's ~20 requests per minute and the
bot's ~30 requests per second are counted in the database (``flood_slots``,
:meth:`bot.workers.shared.SharedDb.take_slot`), so N workers spend one budget, not N.

:class:`SharedWindow` replaces the in-process :class:`~bot.outlet.limiter.SlidingWindow` of the
rate limiter and the outbox; :class:`SharedOverall` the limiter's overall window (counted from
each request's start, as Telegram cannot see when a worker's request will arrive).
"""

from __future__ import annotations

import asyncio
from collections import deque

from bot.outlet.limiter import InFlightWindow, SlidingWindow
from bot.workers.shared import SharedDb

#: The flood key of the bot's overall budget (chat ids are never 0).
OVERALL_KEY = 0


def _chat(key: object) -> int:
    return int(key)  # type: ignore[call-overload]


class SharedWindow(SlidingWindow):
    """At most ``limit`` request starts per chat in any ``period`` seconds, all workers
    together. ``used`` is the count this worker saw at its last request of that chat."""

    def __init__(self, shared: SharedDb, limit: int, period: float) -> None:
        super().__init__(limit, period)
        self.shared = shared
        self._slots: dict[object, deque[int]] = {}
        self._used: dict[object, int] = {}

    async def acquire(self, key: object, reserve: int = 0) -> None:
        while True:
            slot, wait, used = await self.shared.take_slot(_chat(key), self.limit, self.period,
                                                           reserve)
            self._used[key] = used
            if slot is not None:
                self._slots.setdefault(key, deque(maxlen=8)).append(slot)
                return
            await asyncio.sleep(wait)

    def take(self, key: object, reserve: int = 0) -> bool:
        raise NotImplementedError("a shared window is only taken with acquire()")

    def give_back(self, key: object) -> None:
        slots = self._slots.get(key)
        if slots:
            self._used[key] = max(0, self._used.get(key, 1) - 1)
            asyncio.get_running_loop().create_task(self.shared.give_back_slot(slots.pop()))

    def used(self, key: object) -> int:
        return self._used.get(key, 0)


class SharedOverall(InFlightWindow):
    """The bot's overall budget, all workers together: at most ``limit`` request starts in
    any ``period`` seconds."""

    def __init__(self, shared: SharedDb, limit: int, period: float) -> None:
        super().__init__(limit, period)
        self.window = SharedWindow(shared, limit, period)

    def used(self) -> int:
        return self.window.used(OVERALL_KEY)

    async def acquire(self) -> None:
        await self.window.acquire(OVERALL_KEY)

    def release(self) -> None:
        """Nothing to do: a start is counted for ``period`` seconds from when it was taken."""
