"""Timers as rows in the database, fired by whichever worker is alive.

:class:`DbTimers` is the timer half of the workers' outlet (:class:`bot.telegram.workers.outlet.
SharedOutlet`): ``arm``/``cancel`` store ``store.schedule_timer``/``cancel_timer`` rows named
``"<kind>:<table key>"`` with the :class:`~bot.game.timers.Stamp` as payload, in the order they
were asked for (the table's lock waits for them, :meth:`flush`, before it is let go). Every
worker polls for due timers (``store.claim_timers``: ``FOR UPDATE SKIP LOCKED``, so two workers
never claim the same row) and fires each claimed one by its kind's callback
(:attr:`DbTimers.callbacks`, the game's methods: a timer names no code).

A timer (each schedule has an ``id`` of its own in its payload) fires at most once: the claiming
worker deletes its row (``store.finish_timer``, which only the claim on this generation can)
*before* it calls the callback. What a worker killed after that would have done is done by the
table's **watchdog** (``"watch:<table key>@<worker>"``, one per table and worker), armed before
the row is deleted and by every locked block (:class:`bot.telegram.workers.guard.StoreGuard`),
disarmed when the callback or block finished, and kept due ``watch`` seconds ahead while its worker
lives (:meth:`DbTimers.heartbeat`): it fires only for a worker that died in the middle, and resumes
the table on another (:class:`bot.telegram.workers.resume.Resumer`: draw it again and arm what its
state needs). The callbacks check the stamp against the stored state, so a resumed table never takes
a step twice.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from bot.game import timers
from bot.game.outlet import TimerCallback
from bot.store import Store, TimerRecord
from bot.telegram.workers.shared import SharedDb

log = logging.getLogger(__name__)

#: The watchdog's kind (see the module docstring).
WATCH = "watch"
#: Seconds between two polls for due timers.
POLL = 0.05
#: Timers claimed per poll.
CLAIM = 20


def timer_key(kind: str, key: str) -> str:
    """The row name of the one timer of ``kind`` for table ``key``."""
    return f"{kind}:{key}"


class DbTimers:
    """See the module docstring.

    Args:
        store: the store (its ``timers`` rows). shared: the worker's shared rows.
        lease: seconds a claim on a timer lasts (renewed while the worker lives).
        watch: seconds after which a table whose worker stopped renewing its watchdog is
            resumed by another worker.
    """

    def __init__(self, store: Store, shared: SharedDb, *, lease: float, watch: float) -> None:
        self.store = store
        self.shared = shared
        self.lease = lease
        self.watch_seconds = watch
        #: What fires each kind (set by the wiring): ``callback(stamp)``.
        self.callbacks: dict[str, TimerCallback] = {}
        #: Called with a timer's table key before its callback (brings the table up to date).
        self.presync: Callable[[str], Awaitable[None]] | None = None
        self._writes: dict[str, asyncio.Task[None]] = {}
        self._watched: dict[str, int] = {}
        self._firing: set[asyncio.Task[None]] = set()
        self._loop: asyncio.Task[None] | None = None
        #: Timers this worker fired, by kind (benchmarks, tests).
        self.fired: dict[str, int] = {}

    # --- Arming ---------------------------------------------------------------------------------

    def arm(self, kind: str, stamp: timers.Stamp, at: float) -> None:
        """Store the timer of ``kind`` for ``stamp.key``, due at UTC time ``at`` (replacing the
        earlier one), in the background and in order."""
        payload = {"kind": kind, "key": stamp.key, "token": stamp.token,
                   "version": stamp.version, "id": uuid.uuid4().hex[:16]}
        due = datetime.fromtimestamp(at, UTC)
        self._chain(stamp.key, lambda: self.store.schedule_timer(
            timer_key(kind, stamp.key), due, payload))

    def cancel(self, kind: str, key: str) -> None:
        """Remove the timer of ``kind`` for table ``key`` (in the background, in order)."""
        self._chain(key, lambda: self.store.cancel_timer(timer_key(kind, key)))

    def _chain(self, key: str, write: Callable[[], Awaitable[Any]]) -> None:
        previous = self._writes.get(key)

        async def run() -> None:
            if previous is not None:
                await asyncio.gather(previous, return_exceptions=True)
            try:
                await write()
            except Exception:
                log.exception("storing a timer of %s failed", key)

        task = asyncio.get_running_loop().create_task(run())
        self._writes[key] = task
        task.add_done_callback(lambda done: self._forget_write(key, done))

    def _forget_write(self, key: str, task: asyncio.Task[None]) -> None:
        if self._writes.get(key) is task:
            del self._writes[key]

    async def flush(self, key: str) -> None:
        """Wait until every timer write asked for table ``key`` so far is stored."""
        task = self._writes.get(key)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    # --- The watchdog ---------------------------------------------------------------------------

    async def watch(self, key: str) -> None:
        """Arm table ``key``'s watchdog (nested: disarmed by the last :meth:`unwatch`)."""
        self._watched[key] = self._watched.get(key, 0) + 1
        await self._arm_watch(key)

    def _watch_key(self, key: str) -> str:
        # one watchdog per table and worker: another worker's done never disarms this one's
        return timer_key(WATCH, f"{key}@{self.shared.worker}")

    async def _arm_watch(self, key: str) -> None:
        due = datetime.fromtimestamp(time.time() + self.watch_seconds, UTC)
        await self.store.schedule_timer(self._watch_key(key), due, {
            "kind": WATCH, "key": key, "token": "", "version": 0, "id": uuid.uuid4().hex[:16]})

    async def unwatch(self, key: str) -> None:
        """Disarm what :meth:`watch` armed once the last watcher of ``key`` is done."""
        left = self._watched.get(key, 0) - 1
        if left > 0:
            self._watched[key] = left
            return
        self._watched.pop(key, None)
        await self.store.cancel_timer(self._watch_key(key))

    def abandon(self, key: str) -> None:
        """Stop keeping table ``key``'s watchdog ahead without disarming it (a block failed
        half-way): it fires and resumes the table."""
        left = self._watched.get(key, 0) - 1
        if left > 0:
            self._watched[key] = left
        else:
            self._watched.pop(key, None)

    async def heartbeat(self) -> None:
        """Keep this worker's leases and watchdogs running (called every third of a lease)."""
        await self.shared.renew(self.lease, [self._watch_key(key) for key in self._watched],
                                self.watch_seconds)

    # --- Firing -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Start polling for due timers."""
        self._loop = asyncio.get_running_loop().create_task(self._poll())

    async def stop(self) -> None:
        """Stop polling and wait for the timers firing now."""
        if self._loop is not None:
            self._loop.cancel()
            await asyncio.gather(self._loop, return_exceptions=True)
            self._loop = None
        await asyncio.gather(*self._firing, return_exceptions=True)
        await asyncio.gather(*self._writes.values(), return_exceptions=True)

    async def _poll(self) -> None:
        beat = time.monotonic()
        while True:
            claimed: list[TimerRecord] = []
            try:
                claimed = await self.store.claim_timers(self.shared.worker, limit=CLAIM,
                                                        lease=self.lease)
                for timer in claimed:
                    task = asyncio.get_running_loop().create_task(self.fire(timer))
                    self._firing.add(task)
                    task.add_done_callback(self._firing.discard)
                if time.monotonic() - beat >= self.lease / 3:
                    beat = time.monotonic()
                    await self.heartbeat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("polling for timers failed")
                await asyncio.sleep(1.0)
            if len(claimed) < CLAIM:
                await asyncio.sleep(POLL)

    async def fire(self, timer: TimerRecord) -> None:
        """Fire one claimed timer (see the module docstring); a timer rescheduled or cancelled
        since it was claimed does not fire (its new schedule will)."""
        payload = timer.payload
        kind, key = str(payload["kind"]), str(payload["key"])
        stamp = timers.Stamp(key, str(payload["token"]), int(payload["version"]))
        callback = self.callbacks.get(kind)
        if callback is None:
            log.warning("timer %s of unknown kind dropped", timer.key)
            await self.store.finish_timer(timer)
            return
        if timer.key == self._watch_key(key):
            # this worker's own watchdog (a block of its own failed half-way): arming the
            # new watchdog first would renew this very row, and it would never fire
            if not await self.store.finish_timer(timer):  # a block here renewed it
                return
            await self.watch(key)
        else:
            await self.watch(key)
            if not await self.store.finish_timer(timer):  # a live watcher renewed its watchdog
                await self.unwatch(key)
                return
        if kind == WATCH:
            log.warning("table %s: worker %s stopped in the middle; resuming it", key,
                        timer.key.rsplit("@", 1)[-1])
        log.info("timer %s #%s fired", timer.key, payload.get("id", timer.generation))
        self.fired[kind] = self.fired.get(kind, 0) + 1
        try:
            if self.presync is not None:
                await self.presync(key)
            await callback(stamp)
        except Exception:
            log.exception("timer %s failed", timer.key)
            self.abandon(key)
            return
        await self.unwatch(key)
