"""The per-chat outbox of audience messages (issue 9, item 6): only the latest state is sent.

Each table's audience message (the group's table picture) has at most one pending job. A new
request replaces the pending one — intermediate states are skipped, never queued. One task per
table runs the jobs: it waits for a slot in the chat's flood window (:class:`~bot.outlet.limiter.
SlidingWindow`, groups only), then runs the job, which reads the table's state *then* and makes
one request, marked as already counted (:meth:`~bot.outlet.limiter.ChatRateLimiter.prepaid`). A
job that finds nothing to change gives its slot back. The outbox never takes a table's lock, so
it never delays a press, a private message or another table; ``min_interval`` spaces two edits
of one message (``settings.table_edit_interval``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.outlet.limiter import PREPAID, SlidingWindow, is_group

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[bool]]


class Outbox:
    """Latest-only jobs per key, each run when its chat's window has room.

    Args:
        window: the group flood window shared with the rate limiter (``None``: no budget).
        min_interval: seconds between two jobs of one key.
    """

    def __init__(self, window: SlidingWindow | None, min_interval: float = 0.0) -> None:
        self.window = window
        self.min_interval = min_interval
        self._jobs: dict[str, tuple[int, Job]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._last: dict[str, float] = {}
        self.skipped = 0  # requests replaced before they ran (for benchmarks)

    def request(self, key: str, chat_id: int, job: Job) -> None:
        """Run ``job`` for ``key`` (in chat ``chat_id``) when the window allows, replacing a
        pending job of ``key``. Never waits."""
        if key in self._jobs:
            self.skipped += 1
        self._jobs[key] = (chat_id, job)
        task = self._tasks.get(key)
        if task is None or task.done():
            self._tasks[key] = asyncio.get_running_loop().create_task(self._run(key))

    def pending(self, key: str) -> bool:
        """A job of ``key`` waits or runs."""
        task = self._tasks.get(key)
        return key in self._jobs or (task is not None and not task.done())

    async def idle(self) -> None:
        """Wait until every job ran (tests, shutdown)."""
        while any(not task.done() for task in self._tasks.values()):
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _run(self, key: str) -> None:
        while key in self._jobs:
            wait = self._last.get(key, -1e9) + self.min_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            chat_id, _ = self._jobs[key]
            group = self.window is not None and is_group(chat_id)
            if group:
                assert self.window is not None
                await self.window.acquire(chat_id)
            chat_id, job = self._jobs.pop(key)  # the latest, taken once the slot is ours
            token = PREPAID.set(chat_id) if group else None
            try:
                used = await job()
            except Exception:
                log.exception("outbox job for %s failed", key)
                used = True
            finally:
                if token is not None:
                    PREPAID.reset(token)
            if group and not used:
                assert self.window is not None
                self.window.give_back(chat_id)
            if used:
                self._last[key] = time.monotonic()

    async def close(self) -> None:
        """Cancel every pending job."""
        self._jobs.clear()
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
