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
paced at one per ``window / (limit - reserve - others)`` seconds after the chat's last request,
where ``others`` are the chat's messages in the current window that the pacing does not send
(results, lobbies, notices): about 3.4 s at 20 per minute in the middle of a deal, more around
its start and end. So the budget is never spent in a burst followed by a long silence (ten
edits in the first seconds of a deal would leave the table frozen for the rest of the minute);
the table is never more than about one pace behind its state. ``reserve`` slots of
every window stay free for urgent messages (a deal's result, announcements), which skip the
pacing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable

from bot.outlet.limiter import PREPAID, SlidingWindow, is_group

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[bool]]
#: Slots of every group window kept for urgent messages.
RESERVE = 2


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
        self._paced: dict[int, deque[float]] = {}  # per group, when paced edits took a slot
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
            paced = False
            if window is not None:
                urgent = key in self._urgent
                if not urgent:
                    await self._pace(window, chat_id)
                await window.acquire(chat_id, 0 if urgent else self.reserve)
                paced = not urgent
                if paced:
                    self._paced.setdefault(chat_id, deque()).append(window.now())
            entry = self._jobs.pop(key, None)  # the latest, taken once the slot is ours
            if entry is None:  # closed meanwhile
                if window is not None:
                    self._give_back(window, chat_id, paced)
                break
            chat_id, job = entry
            covered = self._requested.get(key, 0)
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
                self._give_back(self.window, chat_id, paced)
            if used:
                self._last[key] = time.monotonic()
            self._done[key] = covered

    def _give_back(self, window: SlidingWindow, chat_id: int, paced: bool) -> None:
        window.give_back(chat_id)
        if paced:
            self._paced[chat_id].pop()

    def pace(self, window: SlidingWindow, chat_id: int) -> float:
        """Seconds between two paced edits of group ``chat_id`` now: the window divided among
        the slots that the chat's other messages (results, lobbies, notices: the requests of
        the current window not paced here) leave to the edits, reserve kept."""
        paced = self._paced.get(chat_id, deque())
        horizon = window.now() - window.period
        while paced and paced[0] <= horizon:
            paced.popleft()
        others = max(0, window.used(chat_id) - len(paced))
        return window.period / max(1, window.limit - self.reserve - others)

    async def _pace(self, window: SlidingWindow, chat_id: int) -> None:
        """Wait one :meth:`pace` since the chat's last request (this outbox's or any other
        that took a slot of the chat's window)."""
        while True:
            wait = window.last_start(chat_id) + self.pace(window, chat_id) - window.now()
            if wait <= 0:
                return
            await asyncio.sleep(wait)

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
