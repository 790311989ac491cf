"""Flood limits: a strict sliding window per group, Telegram's overall
rate through PTB's ``AIORateLimiter``, and a 429 that pauses only its own chat.

Telegram allows a group about 20 messages (sends, edits, deletes) per minute; a bucket that
bursts 20 and then refills one every 3 s lets 40 through in a sliding minute and earns 429s. A
:class:`SlidingWindow` lets at most ``limit`` requests start in any ``period`` seconds, never
more; a request counts from its start until it is answered (:meth:`SlidingWindow.finish`), and
from its answer on for the period (plus :data:`MARGIN`): Telegram counts it from when it
arrived there, which is somewhere between the two, so no request held up on the way
(rendering, a busy event loop, a slow network) can land in the same server minute as the 20th
after it. Counted from answers, the margin (:data:`MARGIN`) only has to cover Telegram's clock
running faster than ours over a minute: 0.02 s (330 ppm, far more than any clock's error);
a group's edits go 60.02/20 ≈ 3.001 s apart at the most, the flood limit's own floor. A window
that counts from starts only (the workers' shared window, :mod:`bot.telegram.workers.flood`) needs
:data:`START_MARGIN` instead (:attr:`ChatRateLimiter.start_period`). Private
chats have no group budget (Telegram allows about one message per second there). The whole
bot may send about 30 requests that name a chat per second: PTB's overall limiter is a bucket
too (it lets about 60 through in a sliding second), so a strict window for the whole bot
(:class:`InFlightWindow`) keeps that limit as well. When the bot's requests outrun that limit
(many tables), they start in the order of how much a player feels them (:data:`RANK`, set by
the caller: the presser's own hand, then the prompt of the seat to act, then the group's
table, then the other seats' messages), not in the order they were asked for, and the last
:data:`PRESS_RESERVE` slots are the presser's alone ("the presser's own message is
edited next"; at 10 tables of three humans, press → own hand edit p95 240 → 30–75 ms, the next
seat's prompt p50 240 → 360 ms).

**A group's line.** Requests of one group that wait for room in its window start in one
order, kept here (:meth:`SlidingWindow.acquire`) and by the outbox
(:mod:`bot.telegram.outlet.outbox`), most wanted first:

1. :data:`RESULT`: a deal's result (and the other new messages the outbox posts: a match's
   standings), at its paced slot, before anyone waiting (at once while anyone waits);
2. :data:`REPLY`: whatever is sent straight rather than through the outbox: replies to
   commands (``/give``, ``/top``, ``/balance``), notices, a new lobby; the moment the window
   has room, first asked first sent (a busy group's ``/give`` confirmation came 13.8 s late,
   after a ``/top`` asked 8 s later: waiters polled the window and whoever woke first won);
3. :data:`TABLE`: the table's picture of the current turn (latest state only: a newer state
   replaces the pending edit); paced evenly at the share of the window the replies leave
   (:meth:`bot.telegram.outlet.outbox.Outbox._slot`), and only while nobody above waits. A deal's
   first picture is new content (the group has not seen the deal yet): it waits only for the
   replies ahead of it, room, and the floor pace after the table's last request;
4. :data:`BOARD`: a lobby's and a board's edits (latest only, paced);
5. :data:`TIDY`: tidying (a keyboard taken off an old result, a replaced lobby deleted),
   only at a slot nobody else wants.

Button presses come before all of these: ``answerCallbackQuery`` names no chat and is in no
group's budget (:meth:`ChatRateLimiter.process_request` sends it at once).

**Ephemeral messages** (a hand shown in the group, :mod:`bot.telegram.outlet.hands`): no
source says whether they count in a group's 20 a minute. ``ephemeral`` (the setting
``EPHEMERAL_FLOOD``) decides: ``"own"`` (the default) counts them in a window of their own per
group (``ephemeral_limit`` a minute) whose 429s pause only the group's ephemeral messages;
``"group"`` counts them in the group's window with its other messages; ``"none"`` only in the
bot's overall rate (a 429 still pauses them, on their own).

``AIORateLimiter`` answers a 429 by pausing *every* request of the bot; :class:`ChatRateLimiter`
pauses only the chat the 429 was for, for its ``retry_after``, and then sends the request again
(up to ``max_retries`` times), so nothing is lost and no other chat waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter

log = logging.getLogger(__name__)

#: Telegram's limit on messages, edits and deletes per group per minute.
GROUP_LIMIT = 20
#: The window of that limit, in seconds.
GROUP_PERIOD = 60.0
#: Added to the window. Here a request counts from its answer (:meth:`SlidingWindow.finish`),
#: after its arrival there (and the next one arrives after its start here), so only the
#: two clocks' rates can differ: 0.02 s a minute (330 ppm) is ample (edits 3.001 s apart).
MARGIN = 0.02
#: Added to the window of one that counts from each start only (the workers' shared window,
#: :mod:`bot.telegram.workers.flood`): a slow upload or a busy loop can leave a start a second
#: before #: the request's arrival.
START_MARGIN = 1.0
#: Overall requests per second for one bot (Telegram: about 30).
OVERALL_RATE = 30
#: Added to the overall second, for clocks that differ a little (requests that overtake each
#: other on the way are handled by :class:`InFlightWindow`).
OVERALL_MARGIN = 0.05

#: The group's line (module docstring), most wanted first: a deal's result, a request sent
#: straight (a command's reply), the table's picture, a lobby's or a board's edit, tidying.
RESULT, REPLY, TABLE, BOARD, TIDY = 0, 1, 2, 3, 4


class _QuietRetryAfter(logging.Filter):
    """``AIORateLimiter`` logs every 429 it passes on as an error with a traceback; here a 429
    is handled (the chat waits, the request is sent again), so that record is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Rate limit hit after maximum of 0 retries")


logging.getLogger("telegram.ext.AIORateLimiter").addFilter(_QuietRetryAfter())

#: Set by the outbox around its one request: the chat whose window slot it took already.
PREPAID: contextvars.ContextVar[int | None] = contextvars.ContextVar("prepaid", default=None)
#: Set with :data:`PREPAID`: when that slot was taken (:meth:`SlidingWindow.last_start`), so
#: that the request's answer can be recorded for it (:meth:`SlidingWindow.finish`).
PREPAID_START: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "prepaid_start", default=None)


#: How much a player feels the request about to be made, for the bot's overall budget: lower
#: ranks start first when requests wait for it (:class:`InFlightWindow`). The ranks the game
#: uses are :data:`bot.game.outlet.PRESSER` … :data:`bot.game.outlet.WATCHER`; unset: a
#: prompt's (1): whatever is sent under a table's lock (a notice, a lobby) goes before the
#: outbox's table edits (2) and watchers' hands (3), which wait holding nothing.
RANK: contextvars.ContextVar[int] = contextvars.ContextVar("rank", default=1)
#: Seconds of waiting that make a request one :data:`RANK` more wanted: long enough that a
#: saturated token still serves the presses first, short enough that none waits for ever.
AGING = 10.0
#: Slots of the bot's overall budget that only the most wanted requests may take (a presser's
#: own hand, :data:`RESERVE_RANK` or more wanted): everything else starts while the budget has
#: more than these left. Waiting in line is not enough: a strict window that the prompts and
#: the other seats' messages filled in a busy second keeps the next press's own edit waiting
#: until the first of them leaves it, up to a second later, whatever its rank.
PRESS_RESERVE = 4
#: The least wanted :data:`RANK` that may take the :data:`PRESS_RESERVE` slots.
RESERVE_RANK = 0
#: Set by the outbox around a job that took its overall slot already
#: (:meth:`InFlightWindow.acquire`): the limiter uses it for the job's one request (and sets
#: this back to ``False``) instead of waiting for another.
TOKEN_PREPAID: contextvars.ContextVar[bool] = contextvars.ContextVar("token_prepaid",
                                                                    default=False)


class SlidingWindow:
    """At most ``limit`` requests per key (a chat id) in any ``period`` seconds.

    A request counts from when it is taken (:meth:`take`, :meth:`acquire`); once it was answered
    (:meth:`finish`) it counts from the answer instead, for ``period`` seconds.

    Args:
        limit: requests per window (≥ 1). period: the window in seconds.
        clock: monotonic seconds (tests pass a fake one).
    """

    def __init__(self, limit: int, period: float, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.limit = max(1, limit)
        self.period = period
        self._clock = clock
        self._starts: dict[object, deque[float]] = {}  # sorted: starts, or answers once known
        self._open: dict[object, list[float]] = {}  # starts of requests not answered yet
        self._latest: dict[object, float] = {}  # the latest start per key
        #: per key, the requests waiting in :meth:`acquire`, most wanted first:
        #: (line rank, order of asking, reserve, waiter)
        self._line: dict[object, list[tuple[int, int, int, asyncio.Future[None]]]] = {}
        self._order = itertools.count()
        self._timers: dict[object, asyncio.TimerHandle] = {}

    def _recent(self, key: object) -> deque[float]:
        starts = self._starts.setdefault(key, deque())
        horizon = self._clock() - self.period
        while starts and starts[0] <= horizon:
            starts.popleft()
        return starts

    def wait_time(self, key: object) -> float:
        """Seconds until ``key`` may start a request (0: now)."""
        starts = self._recent(key)
        if len(starts) < self.limit:
            return 0.0
        return max(0.0, starts[0] + self.period - self._clock())

    def take(self, key: object, reserve: int = 0) -> bool:
        """Start a request now if the window allows it, leaving ``reserve`` slots free for
        others; ``False`` (nothing taken) if not."""
        starts = self._recent(key)
        if len(starts) >= self.limit - min(reserve, self.limit - 1):
            return False
        now = self._clock()
        starts.append(now)
        self._open.setdefault(key, []).append(now)
        self._latest[key] = now
        return True

    async def acquire(self, key: object, reserve: int = 0, rank: int = REPLY) -> None:
        """Wait until ``key`` may start a request (leaving ``reserve`` slots), and take it.

        Requests of one key that wait for room start in the group's line order (module
        docstring): lowest ``rank`` first (:data:`RESULT` … :data:`TIDY`; a request sent
        straight, such as a command's reply, is a :data:`REPLY`), in the order they were asked
        within a rank; none starts while a more wanted one waits, even if its own reserve
        would let it."""
        line = self._line.setdefault(key, [])
        if not any(not entry[3].done() for entry in line) and self.take(key, reserve):
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (rank, next(self._order), reserve, waiter)
        index = len(line)
        while index and line[index - 1][:2] > entry[:2]:
            index -= 1
        line.insert(index, entry)
        self._serve(key)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted, then cancelled: unused
                self.give_back(key)
            else:
                waiter.cancel()
                self._serve(key)
            raise

    def _serve(self, key: object) -> None:
        """Let the head of ``key``'s line start while the window has room for it; wake up
        again when the oldest request leaves the window (a slot given back calls this too)."""
        line = self._line.get(key)
        if not line:
            return
        while line:
            rank, _, reserve, waiter = line[0]
            if waiter.done():  # cancelled
                line.pop(0)
                continue
            if not self.take(key, reserve):
                break
            line.pop(0)
            waiter.set_result(None)
        if not line:
            self._line.pop(key, None)
            return
        if key not in self._timers:
            wait = self.room_in(key, line[0][2])
            self._timers[key] = asyncio.get_running_loop().call_later(
                max(0.005, wait), self._woken, key)

    def _woken(self, key: object) -> None:
        self._timers.pop(key, None)
        self._serve(key)

    def room_in(self, key: object, reserve: int = 0) -> float:
        """Seconds until ``key``'s window has room for a request leaving ``reserve`` slots,
        as far as known now (a request answered later than it started counts longer)."""
        starts = self._recent(key)
        leaving = len(starts) - (self.limit - min(reserve, self.limit - 1)) + 1
        if leaving <= 0:
            return 0.0
        return max(0.0, starts[leaving - 1] + self.period - self._clock())

    def waiting(self, key: object, before: int | None = None) -> int:
        """Requests of ``key`` waiting in :meth:`acquire` for the window to have room (only
        those of a rank more wanted than ``before``, if given)."""
        return sum(1 for entry in self._line.get(key, ()) if not entry[3].done()
                   and (before is None or entry[0] < before))

    def finish(self, key: object, start: float) -> None:
        """The request of ``key`` taken at ``start`` (:meth:`last_start` right after taking it)
        was answered now (or failed): it counts from now. Unknown starts are ignored."""
        opened = self._open.get(key)
        if not opened or start not in opened:
            return
        opened.remove(start)
        starts = self._starts.setdefault(key, deque())
        with contextlib.suppress(ValueError):
            starts.remove(start)
        now = self._clock()
        index = len(starts)
        while index and starts[index - 1] > now:
            index -= 1
        starts.insert(index, now)

    def give_back(self, key: object) -> None:
        """Return the newest slot of ``key`` (taken, then not used)."""
        starts = self._starts.get(key)
        if not starts:
            return
        opened = self._open.get(key)
        if opened:
            start = opened.pop()
            with contextlib.suppress(ValueError):
                starts.remove(start)
        else:
            starts.pop()
        if key in self._line:
            self._serve(key)

    def now(self) -> float:
        """The window's clock (seconds)."""
        return self._clock()

    def last_start(self, key: object) -> float:
        """When ``key``'s latest request in the current window started (clock seconds; minus
        infinity when there is none)."""
        latest = self._latest.get(key, float("-inf"))
        return latest if latest > self._clock() - self.period and self._recent(key) \
            else float("-inf")

    def used(self, key: object) -> int:
        """Requests of ``key`` in the current window."""
        return len(self._recent(key))

    def recent(self, key: object) -> list[float]:
        """When the requests of ``key`` in the current window count from (their start, or
        their answer once answered), oldest first."""
        return list(self._recent(key))


class InFlightWindow:
    """At most ``limit`` requests in any ``period`` seconds, however late each one arrives: a
    request counts from when it starts until ``period`` after its answer came back.

    A request reaches the server somewhere between its start here and its answer. Counting
    starts only (as :class:`SlidingWindow` does) lets a request that was held up on the way (a
    busy event loop, a slow connection) arrive in the same server second as later ones; counting
    it until its answer plus ``period`` cannot.

    Args:
        limit: requests per window (≥ 1). period: the window in seconds.
        clock: monotonic seconds (tests pass a fake one).
    """

    def __init__(self, limit: int, period: float, clock: Callable[[], float] = time.monotonic,
                 *, reserve: int = 0) -> None:
        self.limit = max(1, limit)
        self.period = period
        self._clock = clock
        #: slots only requests of :data:`RESERVE_RANK` or more wanted may take
        self.reserve = max(0, min(reserve, self.limit - 1))
        self._ends: deque[float] = deque()
        self.in_flight = 0
        #: waiting requests: (rank, when it began to wait, order, waiter)
        self._queue: list[tuple[int, float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    def _recent(self) -> deque[float]:
        horizon = self._clock() - self.period
        while self._ends and self._ends[0] <= horizon:
            self._ends.popleft()
        return self._ends

    def used(self) -> int:
        """Requests in flight plus those answered within the last ``period`` seconds."""
        return self.in_flight + len(self._recent())

    def wait_time(self) -> float:
        """Seconds until a request may start, as far as known now (0: now)."""
        ends = self._recent()
        if self.in_flight + len(ends) < self.limit:
            return 0.0
        if ends:
            return max(0.0, ends[0] + self.period - self._clock())
        return 0.01  # all in flight: one comes back soon

    def waiting(self) -> int:
        """Requests waiting for a slot."""
        return sum(1 for *_, waiter in self._queue if not waiter.done())

    def cap(self, rank: float) -> int:
        """How many slots may be in use when a request of (aged) ``rank`` starts: all of them
        for :data:`RESERVE_RANK` or more wanted, the others leave :attr:`reserve` free."""
        return self.limit if rank <= RESERVE_RANK else self.limit - self.reserve

    def _wait_for(self, cap: int) -> float | None:
        """Seconds until fewer than ``cap`` slots are in use, as far as known now; ``None``
        when requests in flight must come back first (their answers wake the line up)."""
        ends = self._recent()
        leaving = self.in_flight + len(ends) - cap + 1
        if leaving <= 0:
            return 0.0
        if leaving > len(ends):
            return None
        return max(0.0, ends[leaving - 1] + self.period - self._clock())

    async def acquire(self) -> None:
        """Wait until a request may start, and count it as in flight. Waiting requests start
        lowest :data:`RANK` first, in the order they came within a rank; a request that
        waited :data:`AGING` seconds counts one rank more wanted (so none waits for ever
        while more wanted ones keep coming). Only :data:`RESERVE_RANK` or more wanted take
        the last :attr:`reserve` slots."""
        if not self._queue and self.used() < self.cap(RANK.get()):
            self.in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((RANK.get(), time.monotonic(), next(self._order), waiter))
        self._grant()
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted, then cancelled: unused
                self.in_flight -= 1
                self._grant()
            raise

    def _grant(self) -> None:
        """Let the most wanted waiters start while there is room; wake up again when the
        oldest answer leaves the window (an answer coming back calls this too)."""
        self._queue = [entry for entry in self._queue if not entry[3].done()]  # cancelled
        if not self._queue:
            return
        now = time.monotonic()

        def aged(entry: tuple[int, float, int, asyncio.Future[None]]) -> float:
            return entry[0] - (now - entry[1]) / AGING

        self._queue.sort(key=lambda entry: (aged(entry), entry[2]))
        while self._queue and self.used() < self.cap(aged(self._queue[0])):
            waiter = self._queue.pop(0)[3]
            self.in_flight += 1
            waiter.set_result(None)
        if self._queue and self._timer is None:
            wait = self._wait_for(self.cap(aged(self._queue[0])))
            if wait is not None:
                self._timer = asyncio.get_running_loop().call_later(max(0.001, wait),
                                                                    self._woken)

    def _woken(self) -> None:
        self._timer = None
        self._grant()

    def release(self) -> None:
        """The request that :meth:`acquire` let start was answered (or failed) now."""
        self.in_flight -= 1
        self._ends.append(self._clock())
        if self._queue:
            self._grant()

    def give_back(self) -> None:
        """A slot that :meth:`acquire` gave was not used (no request was sent): it does not
        count, and the next waiter may start."""
        self.in_flight -= 1
        if self._queue:
            self._grant()


#: The methods that act on an ephemeral message (a send is one when it carries
#: ``ephemeral_message_parameters``).
EPHEMERAL_METHODS = frozenset({
    "editEphemeralMessageText", "editEphemeralMessageCaption", "editEphemeralMessageMedia",
    "editEphemeralMessageReplyMarkup", "deleteEphemeralMessage",
})
#: How ephemeral messages count in a group's flood budget (``EPHEMERAL_FLOOD``).
EPHEMERAL_MODES = ("own", "group", "none")


def is_ephemeral(endpoint: str, data: dict[str, Any]) -> bool:
    """The request sends, edits or deletes an ephemeral message."""
    return endpoint in EPHEMERAL_METHODS or "ephemeral_message_parameters" in data \
        or "receiver_user_id" in data


def is_group(chat_id: object) -> bool:
    """Group, supergroup and channel ids are negative (or @usernames); users' are positive."""
    if isinstance(chat_id, str):
        try:
            chat_id = int(chat_id)
        except ValueError:
            return True
    return isinstance(chat_id, int) and chat_id < 0


class ChatRateLimiter(AIORateLimiter):
    """PTB's ``AIORateLimiter`` without its buckets: a strict :class:`SlidingWindow` per group,
    another for the whole bot (every request that names a chat, as Telegram counts), and a 429
    that pauses only its own chat. Requests that name no chat (``answerCallbackQuery``,
    ``getFile``) are not limited here.

    Args:
        group_limit: sends, edits and deletes per group in any ``group_period`` seconds
            (plus ``margin``).
        overall: requests naming a chat for the whole bot in any 1 s (plus ``overall_margin``).
        max_retries: how often a request answered with 429 is sent again (after its
            ``retry_after``); then the ``RetryAfter`` propagates.
        ephemeral: how ephemeral messages count (:data:`EPHEMERAL_MODES`, module docstring);
            ``ephemeral_limit``: their own window's requests per group and ``group_period``.
        clock: monotonic seconds, for the windows and a 429's pause (tests pass a fake one).
    """

    def __init__(self, group_limit: int = GROUP_LIMIT, *, group_period: float = GROUP_PERIOD,
                 margin: float = MARGIN, overall: int = OVERALL_RATE,
                 overall_margin: float = OVERALL_MARGIN, max_retries: int = 3,
                 clock: Callable[[], float] = time.monotonic, ephemeral: str = "own",
                 ephemeral_limit: int = 180) -> None:
        super().__init__(overall_max_rate=0, group_max_rate=0, max_retries=0)
        if ephemeral not in EPHEMERAL_MODES:
            raise ValueError(f"ephemeral must be one of {EPHEMERAL_MODES}, got {ephemeral!r}")
        self.window = SlidingWindow(group_limit, group_period + margin, clock)
        self.ephemeral = ephemeral
        #: The ephemeral messages' own window per group (``ephemeral`` ``"own"``).
        self.ephemeral_window = SlidingWindow(ephemeral_limit, group_period + margin, clock)
        #: The group window's period for a window that counts from starts only (plus
        #: :data:`START_MARGIN`), e.g. the workers' shared one.
        self.start_period = group_period + START_MARGIN
        self.overall = InFlightWindow(overall, 1.0 + overall_margin, clock,
                                      reserve=PRESS_RESERVE)
        self.max_retries = max_retries
        self._clock = clock
        self._paused: dict[object, float] = {}

    def paused_for(self, chat_id: object) -> float:
        """Seconds the chat still waits for a 429's ``retry_after`` (0: none)."""
        return max(0.0, self._paused.get(chat_id, 0.0) - self._clock())

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """Send one request within the limits (see the class docstring)."""
        chat_id = data.get("chat_id")
        group = chat_id is not None and is_group(chat_id)
        key: object = chat_id
        if group and isinstance(chat_id, str):
            with contextlib.suppress(ValueError):
                key = int(chat_id)
        window = self.window
        if group and is_ephemeral(endpoint, data):
            # paused by their own 429s; counted in their own window, the group's or none
            key = ("ephemeral", key)
            window = self.ephemeral_window
            group = self.ephemeral != "none"
            if self.ephemeral == "group":
                window = self.window
                key = key[1]
        prepaid = group and PREPAID.get() == key
        prepaid_start = PREPAID_START.get()
        if prepaid:
            PREPAID.set(None)
            PREPAID_START.set(None)
        for attempt in range(self.max_retries + 1):
            pause = self.paused_for(key)
            if pause:
                await asyncio.sleep(pause)
            start: float | None = None
            if group and prepaid and attempt == 0:
                start = prepaid_start
            elif group:
                await window.acquire(key)
                start = window.last_start(key)
            counted = chat_id is not None
            if counted and attempt == 0 and TOKEN_PREPAID.get():
                TOKEN_PREPAID.set(False)
            elif counted:
                await self.overall.acquire()
            try:
                return await super().process_request(callback, args, kwargs, endpoint, data,
                                                     None)
            except RetryAfter as exc:
                if attempt == self.max_retries:
                    raise
                delay = exc.retry_after
                seconds = delay.total_seconds() if hasattr(delay, "total_seconds") \
                    else float(delay)
                self._paused[key] = max(self._paused.get(key, 0.0),
                                        self._clock() + seconds + 0.1)
                log.info("429 for chat %s: it waits %.1f s", chat_id, seconds)
            finally:
                if counted:
                    self.overall.release()
                if start is not None:
                    window.finish(key, start)
        raise AssertionError("unreachable")
