"""The workers' outlet: :class:`~bot.telegram.outlet.telegram.TelegramOutlet` with its timers
in the database (:class:`bot.telegram.workers.timers.DbTimers`) and each table's group message
edited by one worker at a time.

A table's group message is drawn by the outbox's job from this worker's copy of the table. The
job first claims the message (a lease ``"audience:<table key>"``, so no two workers edit it at
once: the group's flood budget is spent once per change, and edits cannot overtake each other)
and then checks that its copy shows the stored deal state: a worker whose copy another worker
already moved on draws nothing (that worker draws the newer state itself).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from telegram import Bot
from telegram.ext import JobQueue

from bot.game.outlet import OutboxJob, TimerCallback
from bot.game.timers import Stamp
from bot.telegram import photos
from bot.telegram.outlet.outbox import Outbox
from bot.telegram.outlet.telegram import TelegramOutlet
from bot.telegram.workers.shared import SharedDb
from bot.telegram.workers.timers import DbTimers

#: Seconds one edit of a group message may hold its claim (an edit waiting for a 429 takes long);
#: the worker's heartbeat keeps it to one ``WORKER_LEASE`` ahead while it lives
#: (:meth:`SharedDb.renew`), so a dead worker's claim frees the message one lease later.
CLAIM_SECONDS = 30.0
#: Seconds a job waits for another worker's claim on the same message before it gives up (that
#: worker draws the newer state).
CLAIM_WAIT = 10.0


class SharedOutlet(TelegramOutlet):
    """See the module docstring.

    Args:
        bot, job_queue, cache, outbox: as for :class:`TelegramOutlet`.
        timers: the database timers. shared: the shared rows (leases).
        is_current: whether this worker's copy of a table shows its stored deal state
            (:meth:`bot.telegram.workers.guard.StoreGuard.is_current`).
    """

    def __init__(self, bot: Bot, job_queue: JobQueue, cache: photos.PhotoCache,
                 outbox: Outbox, timers: DbTimers, shared: SharedDb,
                 is_current: Callable[[str], Awaitable[bool]]) -> None:
        super().__init__(bot, job_queue, cache, outbox)
        self.timers = timers
        self.shared = shared
        self.is_current = is_current

    def arm(self, kind: str, stamp: Stamp, at: float, callback: TimerCallback) -> None:
        # the row names the kind; whichever worker fires it calls that kind's callback
        self.timers.arm(kind, stamp, at)

    def cancel(self, kind: str, key: str) -> None:
        self.timers.cancel(kind, key)

    def update_audience(self, key: str, chat_id: int, job: OutboxJob) -> None:
        async def claimed() -> bool:
            return await self._claimed(key, job)

        self.outbox.request(key, chat_id, claimed)

    def update_seat(self, key: str, chat_id: int, job: OutboxJob) -> None:
        table_key = key.split("#", 1)[0]  # "<table key>#seat<n>"

        async def current() -> bool:
            return await self.is_current(table_key) and await job()

        self.outbox.request(key, chat_id, current, watcher=True)

    async def _claimed(self, key: str, job: OutboxJob) -> bool:
        name = f"audience:{key}"
        deadline = time.monotonic() + CLAIM_WAIT
        while not await self.shared.take_lease(name, CLAIM_SECONDS):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        try:
            if not await self.is_current(key):
                return False
            return await job()
        finally:
            await self.shared.drop_lease(name)
