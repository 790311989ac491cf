"""When things happen by themselves: turn timeouts, bot-seat moves, lobby expiry, table edits.

Everything runs on PTB's ``JobQueue``. Each kind of job has one name per table, so arming a job
replaces the previous one of that kind. Jobs carry a :class:`Stamp` (table key, token, state
version) and the handler that runs them checks it under the table's lock: a job armed for an older
deal or an older state does nothing.

Deadlines are absolute UTC timestamps (``time.time()``) kept in the table dict, so that after a
restart a turn gets exactly the time that was left (issue 3, "Survives restarts").

Table edits are coalesced (:class:`EditThrottle`): a group's table message is edited at most once
per ``settings.table_edit_interval`` seconds, and several state changes within that interval become
one edit showing the latest state (Telegram allows about 20 edits per minute in a group).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram.ext import ContextTypes, JobQueue

JobCallback = Callable[[ContextTypes.DEFAULT_TYPE], Awaitable[Any]]

TURN = "turn"
BOT_MOVE = "bot"
LOBBY = "lobby"
EDIT = "edit"

#: APScheduler skips a job that runs more than 1 s late unless told otherwise; ours must run
#: however late (e.g. jobs armed while restoring, before the JobQueue has started).
RUN_LATE = {"misfire_grace_time": None}


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a job was armed for: table ``key``, table ``token`` and deal state ``version``."""

    key: str
    token: str
    version: int = 0


def job_name(kind: str, key: str) -> str:
    """The name of the one job of ``kind`` for table ``key``."""
    return f"{kind}:{key}"


def cancel(job_queue: JobQueue, kind: str, key: str) -> None:
    """Cancel the pending job of ``kind`` for table ``key``, if any."""
    for job in job_queue.get_jobs_by_name(job_name(kind, key)):
        job.schedule_removal()


def cancel_all(job_queue: JobQueue, key: str) -> None:
    """Cancel every job of table ``key`` except a pending table edit (it shows the last state)."""
    for kind in (TURN, BOT_MOVE, LOBBY):
        cancel(job_queue, kind, key)


def seconds_left(deadline: float | None, now: float | None = None) -> float:
    """Seconds from ``now`` (default: the current UTC time) to ``deadline``, never below zero."""
    if deadline is None:
        return 0.0
    return max(0.0, deadline - (time.time() if now is None else now))


def arm(
    job_queue: JobQueue,
    kind: str,
    stamp: Stamp,
    delay: float,
    callback: JobCallback,
) -> None:
    """Run ``callback`` once after ``delay`` seconds with ``job.data = stamp``, replacing the
    pending job of the same ``kind`` for that table."""
    cancel(job_queue, kind, stamp.key)
    job_queue.run_once(callback, max(0.0, delay), data=stamp, name=job_name(kind, stamp.key),
                       job_kwargs=RUN_LATE)


def arm_at(
    job_queue: JobQueue, kind: str, stamp: Stamp, deadline: float, callback: JobCallback
) -> None:
    """Like :func:`arm`, for an absolute UTC ``deadline`` (seconds since the epoch)."""
    arm(job_queue, kind, stamp, seconds_left(deadline), callback)


class EditThrottle:
    """At most one table-message edit per ``interval`` seconds per table, coalescing requests.

    :meth:`request` schedules an edit job unless one is already pending; the job calls
    :meth:`done` when it starts, so requests arriving while it edits schedule the next one, no
    sooner than ``interval`` after this one.
    """

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._last: dict[str, float] = {}
        self._pending: set[str] = set()

    def delay(self, key: str) -> float | None:
        """Seconds until an edit for ``key`` may run, or ``None`` if one is already pending."""
        if key in self._pending:
            return None
        last = self._last.get(key)
        if last is None:
            return 0.0
        return max(0.0, last + self.interval - self._clock())

    def request(self, job_queue: JobQueue, key: str, callback: JobCallback) -> bool:
        """Schedule an edit of table ``key`` (``job.data`` is the key); ``False`` if one is
        already pending and will show the latest state anyway."""
        delay = self.delay(key)
        if delay is None:
            return False
        self._pending.add(key)
        job_queue.run_once(callback, delay, data=key, name=job_name(EDIT, key),
                           job_kwargs=RUN_LATE)
        return True

    def done(self, key: str) -> None:
        """The pending edit of ``key`` is starting now."""
        self._pending.discard(key)
        self._last[key] = self._clock()

    def forget(self, key: str) -> None:
        """Drop what is known about ``key`` (its table closed)."""
        self._pending.discard(key)
        self._last.pop(key, None)
