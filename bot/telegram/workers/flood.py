"""Flood budgets shared by every worker: a group's ~20 requests per minute and the
bot's ~30 requests per second are counted in the database (``flood_slots``,
:meth:`bot.telegram.workers.shared.SharedDb.take_slot`), so N workers spend one budget, not N.

:class:`SharedWindow` replaces the in-process :class:`~bot.telegram.outlet.limiter.SlidingWindow` of
the rate limiter and the outbox; :class:`SharedOverall` the limiter's overall window (a request
counts from its start until a period after its answer, for every worker).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

from bot.telegram.outlet.limiter import AGING, RANK, REPLY, InFlightWindow, SlidingWindow
from bot.telegram.outlet.send import ANSWER_PENDING
from bot.telegram.workers.shared import SharedDb

#: The flood key of the bot's overall budget (chat ids are never 0).
OVERALL_KEY = 0
#: Seconds an overall slot stays counted when its worker dies with the request in flight.
IN_FLIGHT_HOLD = 20.0
#: The rank of a request a press's answer waits for
#: (:data:`bot.telegram.outlet.send.ANSWER_PENDING`): #: ahead of every
#: :data:`~bot.telegram.outlet.limiter.RANK`.
ANSWERING = -1


def _chat(key: object) -> int:
    return int(key)  # type: ignore[call-overload]


class SharedWindow(SlidingWindow):
    """At most ``limit`` requests per chat in any ``period`` seconds, all workers together; a
    request counts from its start, and once answered (:meth:`finish`) from its answer, as the
    in-process :class:`~bot.telegram.outlet.limiter.SlidingWindow` counts: a request held up between
    its group slot and its sending (the token's ranked line lets more wanted requests of other
    chats go first) cannot reach Telegram in one minute with the 20 after it. ``used`` is the
    count this worker saw at its last request of that chat."""

    def __init__(self, shared: SharedDb, limit: int, period: float) -> None:
        super().__init__(limit, period)
        self.shared = shared
        self._slots: dict[object, deque[int]] = {}
        self._used: dict[object, int] = {}
        self._ending: set[asyncio.Task[None]] = set()

    async def acquire(self, key: object, reserve: int = 0, rank: int = REPLY) -> None:
        """Take a slot of ``key`` in the database, polling until one is free (the workers
        share no line: ``rank`` is not used across workers)."""
        while True:
            slot, wait, used = await self.shared.take_slot(_chat(key), self.limit, self.period,
                                                           reserve)
            self._used[key] = used
            if slot is not None:
                self._slots.setdefault(key, deque(maxlen=32)).append(slot)
                return
            await asyncio.sleep(wait)

    def finish(self, key: object, start: float) -> None:
        """A request of ``key`` was answered now: the oldest of this worker's slots of that
        chat not finished yet counts from now (any of them: the count is the same)."""
        slots = self._slots.get(key)
        if not slots:
            return
        task = asyncio.get_running_loop().create_task(self.shared.end_slot(slots.popleft()))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

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
    """The bot's overall budget, all workers together, as strict as
    :class:`~bot.telegram.outlet.limiter.InFlightWindow` is in one process: at most ``limit``
    requests in any ``period`` seconds, each counted from its start until ``period`` after its
    answer (a request held up on the way cannot arrive in the same second as later ones;
    counting starts only let a few 429s through under load).

    The requests of this worker wait in line here and one task at a time (the *pump*) asks
    the database for the next slot: with hundreds of requests waiting for the token's 30 a
    second, each polling the database itself held every connection of the worker's pool in
    the budget's row lock, and a press's own queries (its update stored, its table's mark)
    waited for a connection behind them (answers took seconds at 200 tables). The
    line is ranked as the in-process window ranks it (:data:`~bot.telegram.outlet.limiter.RANK`: a
    presser's hand and a Join's welcome, then prompts, the group's table, watchers; a request
    that waited :data:`~bot.telegram.outlet.limiter.AGING` seconds counts one rank more wanted), and
    ahead of every rank what a press's answer still waits for
    (:data:`bot.telegram.outlet.send.ANSWER_PENDING`); in the order they asked within a rank; the
    last :attr:`reserve` slots only for the most wanted (:meth:`InFlightWindow.cap`). In one
    FIFO line, at 200 tables a Join's welcome (which a Start waits for) and a presser's own
    hand waited 10–20 s behind the watchers' hands."""

    def __init__(self, shared: SharedDb, limit: int, period: float, *, reserve: int = 0
                 ) -> None:
        super().__init__(limit, period, reserve=reserve)
        self.shared = shared
        self._flying: deque[int] = deque()
        self._ending: set[asyncio.Task[None]] = set()
        #: waiting requests: (rank, when it began to wait, order, future of its slot)
        self._line: list[tuple[int, float, int, asyncio.Future[int]]] = []
        self._pump: asyncio.Task[None] | None = None
        self._used = 0

    def used(self) -> int:
        """The count this worker saw at its last request (every worker's)."""
        return self._used

    def waiting(self) -> int:
        """Requests of this worker waiting in line for a slot."""
        return sum(1 for *_, future in self._line if not future.done())

    async def acquire(self) -> None:
        """Wait until a request may start, and count it as in flight (in the database).

        Raises:
            Exception: what the database raised while taking this request's slot."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        rank = ANSWERING if ANSWER_PENDING.get() else RANK.get()
        self._line.append((rank, time.monotonic(), next(self._order), future))
        if self._pump is None or self._pump.done():
            self._pump = loop.create_task(self._run_pump())
        try:
            slot = await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled() and future.exception() is None:
                self._give_back(future.result())  # granted just as it was cancelled
            raise
        self._flying.append(slot)
        self.in_flight += 1

    async def _run_pump(self) -> None:
        while True:
            self._line = [entry for entry in self._line if not entry[3].done()]  # cancelled
            if not self._line:
                return
            best = self._most_wanted()
            reserve = self.limit - self.cap(best[1]) if best is not None else 0
            try:
                slot, wait, used = await self.shared.take_slot(
                    OVERALL_KEY, self.limit, self.period, reserve, hold=IN_FLIGHT_HOLD)
            except Exception as exc:  # noqa: BLE001 - handed to the request it was for
                head = self._first_waiting()
                if head is not None:
                    head.set_exception(exc)
                continue
            self._used = used
            if slot is None:
                await asyncio.sleep(wait)
                continue
            head = self._first_waiting()
            if head is None:
                self._give_back(slot)
            else:
                head.set_result(slot)

    def _most_wanted(self) -> tuple[int, float] | None:
        """The index in the line of the most wanted waiting request (lowest rank, aged) and
        its aged rank; ``None`` when none waits."""
        now = time.monotonic()
        best: tuple[float, int] | None = None
        index = -1
        for i, (rank, since, order, future) in enumerate(self._line):
            if future.done():
                continue
            key = (rank - (now - since) / AGING, order)
            if best is None or key < best:
                best, index = key, i
        return None if best is None else (index, best[0])

    def _first_waiting(self) -> asyncio.Future[int] | None:
        """Take the most wanted waiting request out of the line (lowest rank, aged)."""
        best = self._most_wanted()
        if best is None:
            self._line.clear()
            return None
        return self._line.pop(best[0])[3]

    def _give_back(self, slot: int) -> None:
        task = asyncio.get_running_loop().create_task(self.shared.give_back_slot(slot))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    def release(self) -> None:
        """A request that :meth:`acquire` let start was answered now: its slot counts for
        ``period`` seconds from now (any of this worker's slots in flight: the count is the
        same)."""
        if not self._flying:
            return
        self.in_flight -= 1
        task = asyncio.get_running_loop().create_task(
            self.shared.end_slot(self._flying.popleft()))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)
