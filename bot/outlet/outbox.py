"""The per-chat outbox of audience messages (issue 9, item 6): only the latest state is sent.

Each table's audience message (the group's table picture) has at most one pending job. A new
request replaces the pending one — intermediate states are skipped, never queued. One task per
table runs the jobs: it waits for a slot in the chat's flood window (:class:`~bot.outlet.limiter.
SlidingWindow`, groups only), then runs the job, which reads the table's state *then* and makes
one request, marked as already counted (:data:`~bot.outlet.limiter.PREPAID`). A
job that finds nothing to change gives its slot back. The outbox never takes a table's lock, so
it never delays a press, a private message or another table; ``min_interval`` spaces two edits
of one message (``settings.table_edit_interval``).

The group's budget is spent so that the table never falls far behind: edits of a group are
paced evenly after the chat's last request, at the shortest spacing that never finds the
window full given the requests in it (:meth:`Outbox.pace`): 61 s / 20 ≈ 3.05 s, the flood
limit's own floor plus the window's margin, while the window holds only the table's edits;
longer while other messages (results, lobbies, notices) use part of the budget, and back to
the floor as they leave the window. So the budget is never spent in a burst followed by a
long silence (ten edits in the first seconds of a deal would leave the table frozen for the
rest of the minute); the table is never more than about one pace behind its state. No slots
are kept free: a message the pacing does not send (a deal's result, an announcement) takes
the chat's next free slot, before the next paced edit, which then waits one pace from it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.outlet.limiter import PREPAID, PREPAID_START, SlidingWindow, is_group

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[bool]]
#: Slots of every group window kept free of paced edits (none: other messages go first).
RESERVE = 0


class Outbox:
    """Latest-only jobs per key, each run when its chat's window has room.

    Args:
        window: the group flood window shared with the rate limiter (``None``: no budget).
        min_interval: seconds between two jobs of one key.
    """

    def __init__(self, window: SlidingWindow | None, min_interval: float = 0.0,
                 reserve: int = RESERVE) -> None:
        self.window = window
        self.min_interval = min_interval
        self.reserve = reserve
        self._jobs: dict[str, tuple[int, Job]] = {}
        self._urgent: set[str] = set()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._last: dict[str, float] = {}
        self._requested: dict[str, int] = {}  # per key, requests so far
        self._done: dict[str, int] = {}  # per key, the requests the last finished job covered
        self.skipped = 0  # requests replaced before they ran (for benchmarks)

    def request(self, key: str, chat_id: int, job: Job, *, urgent: bool = False) -> None:
        """Run ``job`` for ``key`` (in chat ``chat_id``) when the window allows, replacing a
        pending job of ``key``; ``urgent`` jobs may use the reserved slots and are not paced.
        Never waits."""
        if key in self._jobs:
            self.skipped += 1
        self._jobs[key] = (chat_id, job)
        if urgent:
            self._urgent.add(key)
        else:
            self._urgent.discard(key)
        self._requested[key] = self._requested.get(key, 0) + 1
        task = self._tasks.get(key)
        if task is None or task.done():
            self._tasks[key] = asyncio.get_running_loop().create_task(self._run(key))

    def pending(self, key: str) -> bool:
        """A job of ``key`` waits or runs."""
        task = self._tasks.get(key)
        return key in self._jobs or (task is not None and not task.done())

    async def settled(self, key: str) -> None:
        """Wait until no job of ``key`` waits or runs (at once if none does)."""
        while (task := self._tasks.get(key)) is not None and not task.done():
            await asyncio.gather(task, return_exceptions=True)

    def busy(self) -> bool:
        """Some job waits or runs."""
        return bool(self._jobs) or any(not task.done() for task in self._tasks.values())

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
            window = self.window if is_group(chat_id) else None
            group = window is not None
            start: float | None = None
            if window is not None:
                urgent = key in self._urgent
                if not urgent:
                    await self._pace(window, chat_id)
                await window.acquire(chat_id, 0 if urgent else self.reserve)
                start = window.last_start(chat_id)
            entry = self._jobs.pop(key, None)  # the latest, taken once the slot is ours
            if entry is None:  # closed meanwhile
                if window is not None:
                    window.give_back(chat_id)
                break
            chat_id, job = entry
            covered = self._requested.get(key, 0)
            token = PREPAID.set(chat_id) if group else None
            start_token = PREPAID_START.set(start) if group else None
            try:
                used = await job()
            except Exception:
                log.exception("outbox job for %s failed", key)
                used = True
            finally:
                if token is not None:
                    PREPAID.reset(token)
                if start_token is not None:
                    PREPAID_START.reset(start_token)
            if window is not None and not used:
                window.give_back(chat_id)
            if used:
                self._last[key] = time.monotonic()
            self._done[key] = covered

    def pace(self, window: SlidingWindow, chat_id: int) -> float:
        """Seconds from the chat's last request to its next paced edit: the shortest even
        spacing of the edits from then on that never finds the window full, given the
        requests in it now (edits, results, lobbies, notices, each counted until it leaves the
        window). ``window.period / limit`` (≈ 3.05 s at 20 per 61 s) when the window holds
        only evenly paced edits; longer while other messages use part of the budget, back to
        that as they leave the window. ``reserve`` slots, if any, are left out of the limit.

        With the window's requests at times ``d_1 ≥ d_2 ≥ …`` (newest first), the last one at
        ``last``, edits at ``last + p, last + 2p, …`` fit when, for each ``i``, the ``i + 1``
        edits up to ``last + (i + 1)p`` and the requests still in the window then are at most
        ``limit``: ``p ≥ (d_{limit-i} + period - last) / (i + 1)``."""
        limit = max(1, window.limit - self.reserve)
        spacing = window.period / limit
        last = window.last_start(chat_id)
        newest = window.recent(chat_id)[::-1]
        if last == float("-inf") or not newest:
            return spacing
        for i in range(max(0, limit - len(newest)), limit):
            spacing = max(spacing, (newest[limit - i - 1] + window.period - last) / (i + 1))
        return spacing

    async def _pace(self, window: SlidingWindow, chat_id: int) -> None:
        """Wait one :meth:`pace` since the chat's last request (this outbox's or any other
        that took a slot of the chat's window), and while another request of the chat waits
        for the window (it goes first)."""
        while True:
            wait = window.last_start(chat_id) + self.pace(window, chat_id) - window.now()
            if wait <= 0 and not window.waiting(chat_id):
                return
            await asyncio.sleep(max(wait, 0.01))

    async def caught_up(self) -> None:
        """Wait until every request made so far is shown (its job, or a later one, ran); later
        requests are not waited for (tests)."""
        targets = dict(self._requested)
        while any(self._done.get(key, 0) < n for key, n in targets.items()):
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        """Cancel every pending job."""
        self._jobs.clear()
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
