"""The per-chat outbox of audience messages: only the latest state is sent.

Each table's audience message (the group's table picture) has at most one pending job. A new
request replaces the pending one — intermediate states are skipped, never queued. One task per
table runs the jobs: it waits for a slot in the chat's flood window
(:class:`~bot.telegram.outlet.limiter.SlidingWindow`, groups only), then runs the job, which reads
the table's state *then* and makes one request, marked as already counted
(:data:`~bot.telegram.outlet.limiter.PREPAID`). A job that finds nothing to change gives its slot
back. The outbox never takes a table's lock, so it never delays a press, a private message or
another table; ``min_interval`` spaces two edits of one message (``settings.table_edit_interval``).

The group's budget is spent so that the table never falls far behind: every request of a
group that goes through the outbox is paced evenly after the chat's last request, at the
shortest spacing that never finds the window full given the requests in it
(:meth:`Outbox.pace`): 60.02 s / 20 ≈ 3.001 s, the flood limit's own floor plus the window's
margin, while the window holds only paced requests; longer while other messages (sent past
the outbox) use part of the budget, and back to the floor as they leave the window. So the
budget is never spent in a burst followed by a long silence (ten edits in the first seconds of
a deal, or a result, a lobby and a new table message within a second, would leave the table
frozen for the rest of the minute); the table is never more than about one pace behind its
state.

Jobs take their place in the group's line (:mod:`bot.telegram.outlet.limiter`, "A group's line").
Each waits for its paced slot (:meth:`Outbox._slot`), and at its slot for nobody but the more
wanted requests waiting in the line: a deal's result (:data:`~bot.telegram.outlet.limiter.RESULT`,
the outbox's ``urgent`` posts) goes first, before the replies to commands sent straight past the
outbox (:data:`~bot.telegram.outlet.limiter.REPLY`; while some wait for room the result is not
paced: it takes its place at the head of the line at once); the table's picture of the current turn
(:data:`~bot.telegram.outlet.limiter.TABLE`), a lobby's or a board's edits
(:data:`~bot.telegram.outlet.limiter.BOARD`, a job whose ``board`` says so) and tidying such as
taking Play again off an old result or deleting a replaced lobby
(:data:`~bot.telegram.outlet.limiter.TIDY`, which also waits for a slot no other job of the chat
wants: a tidy-up never delays the table) go only while no reply waits. A deal's first table picture
(a job whose ``fresh()`` says so) waits for room, the replies ahead of it and the floor pace only,
not for a pace stretched by the replies. Only the latest state of each is sent: a newer request
replaces the pending one.

A group's paced slot is perishable (the pace runs from it, so a slot taken late pushes every
later edit back by as much), so the job takes its place in the bot's overall budget
:data:`TOKEN_AHEAD` before its slot, first in that line (:data:`SLOT_RANK`), and holds it until
the slot comes: with many tables the token's 30 requests a second are often all taken, and
the table's edit waited there up to 0.4 s behind the private messages after its slot came
(a table's lag 3.2 s at 10 tables, the pace then 3.005 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable

from bot.telegram.outlet.limiter import (
    BOARD,
    PREPAID,
    PREPAID_START,
    RANK,
    RESULT,
    TABLE,
    TIDY,
    TOKEN_PREPAID,
    InFlightWindow,
    SlidingWindow,
    is_group,
)

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[bool]]
#: Slots of every group window kept free of paced edits (none: other messages go first).
RESERVE = 0
#: Seconds before a group job's paced slot when its ``prepare()`` (if it has one: e.g. the
#: table's picture rendered) is called, so that the request goes when the slot comes.
PREPARE_AHEAD = 0.2
#: Seconds before a group job's paced slot when it takes its place in the bot's overall
#: budget, and holds it until the slot comes (module docstring).
TOKEN_AHEAD = 0.2
#: The overall :data:`~bot.telegram.outlet.limiter.RANK` of the audience's messages (a group's
#: table), #: and of a seat's message that only watches (:meth:`Outbox.request` ``watcher``).
AUDIENCE_RANK, WATCHER_RANK = 2, 3
#: The overall rank of a group job's place taken :data:`TOKEN_AHEAD` before its paced slot:
#: before every other request (its slot in the group's window does not wait).
SLOT_RANK = -1


class Outbox:
    """Latest-only jobs per key, each run when its chat's window has room.

    Args:
        window: the group flood window shared with the rate limiter (``None``: no budget).
        min_interval: seconds between two jobs of one key.
        overall: the bot's overall budget shared with the rate limiter: a job waits for its
            slot there (at its rank; a group's job from :data:`TOKEN_AHEAD` before its paced
            slot, at :data:`SLOT_RANK`) before it reads the state, so that what it sends is
            the latest state however long it waited (``None``: it does not).
    """

    def __init__(self, window: SlidingWindow | None, min_interval: float = 0.0,
                 reserve: int = RESERVE, overall: InFlightWindow | None = None) -> None:
        self.window = window
        self.overall = overall
        self._watchers: set[str] = set()
        self.min_interval = min_interval
        self.reserve = reserve
        self._jobs: dict[str, tuple[int, Job]] = {}
        self._rank: dict[str, tuple[int, int]] = {}  # per pending key: (line rank, order)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._last: dict[str, float] = {}
        self._requested: dict[str, int] = {}  # per key, requests so far
        self._done: dict[str, int] = {}  # per key, the requests the last finished job covered
        self._order = 0
        self._changed: dict[str, asyncio.Event] = {}  # per key, set by each request
        self.skipped = 0  # requests replaced before they ran (for benchmarks)
        self._own: dict[int, deque[float]] = {}  # per group, this outbox's recent starts
        self._own_last: dict[int, float] = {}  # per group, this outbox's last start

    def request(self, key: str, chat_id: int, job: Job, *, urgent: bool = False,
                background: bool = False, watcher: bool = False) -> None:
        """Run ``job`` for ``key`` (in chat ``chat_id``) when the window allows, replacing a
        pending job of ``key``. Its place in the group's line (module docstring): ``urgent``
        (a new message such as a deal's result): :data:`~bot.telegram.outlet.limiter.RESULT`, first
        at its paced slot (at once while replies wait for room); ``background`` (tidying):
        :data:`~bot.telegram.outlet.limiter.TIDY`, only when no other job of the chat is pending; a
        job whose ``board`` attribute is true (a lobby's or a board's message):
        :data:`~bot.telegram.outlet.limiter.BOARD`; any other:
        :data:`~bot.telegram.outlet.limiter.TABLE`. A job whose ``fresh()`` answers ``True`` when
        its turn comes (a deal's first table picture) waits for the floor pace only (:meth:`_slot`).
        A ``watcher`` job (a private message of a seat that only watches) waits for the bot's
        overall budget at the lowest rank, after the audience's messages (``overall``). A job makes
        one request. Never waits."""
        if watcher:
            self._watchers.add(key)
        else:
            self._watchers.discard(key)
        if key in self._jobs:
            self.skipped += 1
        else:
            self._order += 1
        self._jobs[key] = (chat_id, job)
        rank = RESULT if urgent else TIDY if background \
            else BOARD if getattr(job, "board", False) else TABLE
        self._rank[key] = (rank, self._rank.get(key, (rank, self._order))[1])
        self._requested[key] = self._requested.get(key, 0) + 1
        changed = self._changed.get(key)
        if changed is not None:
            changed.set()
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

    def _first(self, key: str, chat_id: int) -> bool:
        """``key`` is the most wanted pending job of its chat that may run now: no pending
        job of the chat ranks before it (a background job: no other job is pending at all),
        counting only jobs whose ``min_interval`` has passed."""
        rank, order = self._rank.get(key, (TABLE, 0))
        now = time.monotonic()
        for other, (other_chat, _) in self._jobs.items():
            if other == key or other_chat != chat_id:
                continue
            other_rank, other_order = self._rank.get(other, (TABLE, 0))
            if rank == TIDY and other_rank != TIDY:
                return False
            if self._last.get(other, -1e9) + self.min_interval > now:
                continue  # not ready yet: it does not hold this one up
            if (other_rank, other_order) < (rank, order):
                return False
        return True

    async def _run(self, key: str) -> None:
        RANK.set(WATCHER_RANK if key in self._watchers else AUDIENCE_RANK)  # this task's own
        while key in self._jobs:
            wait = self._last.get(key, -1e9) + self.min_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            chat_id, _ = self._jobs[key]
            window = self.window if is_group(chat_id) else None
            group = window is not None
            start: float | None = None
            held = False
            if window is not None:
                held = await self._pace(window, chat_id, key)  # at once for new content
                preparing = None
                if not self._paced(key):  # its place in the line now, its picture drawn meanwhile
                    preparing = asyncio.ensure_future(self._prepare(key))
                try:
                    await window.acquire(chat_id, self.reserve, self._line_rank(key))
                except BaseException:
                    if preparing is not None:
                        preparing.cancel()
                    raise
                if preparing is not None:
                    await preparing
                start = window.last_start(chat_id)
                self._own.setdefault(chat_id, deque()).append(start)
                self._own_last[chat_id] = start
            overall = self.overall
            if overall is not None and not held:  # the state is read once the request can go
                await overall.acquire()
            entry = self._jobs.pop(key, None)  # the latest, taken once the slot is ours
            self._rank.pop(key, None)
            if entry is None:  # closed meanwhile
                if window is not None:
                    window.give_back(chat_id)
                if overall is not None:
                    overall.release()
                break
            chat_id, job = entry
            covered = self._requested.get(key, 0)
            token = PREPAID.set(chat_id) if group else None
            start_token = PREPAID_START.set(start) if group else None
            prepaid = TOKEN_PREPAID.set(True) if overall is not None else None
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
                if prepaid is not None:
                    if overall is not None and TOKEN_PREPAID.get():
                        overall.release()  # not used: it counts for a second all the same
                    TOKEN_PREPAID.reset(prepaid)
            if window is not None and not used:
                window.give_back(chat_id)
            if used:
                self._last[key] = time.monotonic()
            self._done[key] = covered

    def _line_rank(self, key: str) -> int:
        """The pending job's place in the group's line (:meth:`request`)."""
        return self._rank.get(key, (TABLE, 0))[0]

    def _paced(self, key: str) -> bool:
        """Whether the pending job of ``key`` waits for its slot (:meth:`_slot`): every job
        does but a result while requests wait in the group's line for room (it goes before
        them: a pace later they would have taken the room first)."""
        entry = self._jobs.get(key)
        if entry is None:
            return True
        return not (self._line_rank(key) == RESULT and self.window is not None
                    and self.window.waiting(entry[0]))

    def _fresh(self, key: str) -> bool:
        """The pending job of ``key`` sends what the chat has not seen (its ``fresh()``: a
        deal's first table picture)."""
        entry = self._jobs.get(key)
        fresh = getattr(entry[1], "fresh", None) if entry is not None else None
        return fresh is not None and bool(fresh())

    def pace(self, window: SlidingWindow, chat_id: int) -> float:
        """Seconds from the chat's last request to its next paced edit: the shortest even
        spacing of the edits from then on that never finds the window full, given the
        requests in it now (edits, results, lobbies, notices, each counted until it leaves the
        window). ``window.period / limit`` (≈ 3.001 s at 20 per 60.02 s) when the window holds
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

    def _slot(self, window: SlidingWindow, chat_id: int, key: str) -> float:
        """When the chat's next paced edit may go (window clock), :meth:`_pace`: after this
        outbox's last request in the chat (the chat's last request if it made none yet) by
        :meth:`pace` or by the share of the window the other requests leave, whichever is
        longer, and not before the window has room.

        The share: with ``n`` requests a window that this outbox did not make (replies to
        commands, notices: their rate over the time the window holds them, half a window at
        least, so that the first minute of a busy group counts them at their rate too; a
        lone lobby or notice not at all, :meth:`pace` counts it),
        ``window.period / (limit - reserve - n)``: the paced edits take what the replies
        leave, evenly (15 replies a minute leave 5 edits a minute, one every 12 s);
        taking more would run the window dry and hold the next replies up (a reply waited
        20 s when the table's edits kept their 3 s pace among replies every 4 s).

        A deal's first picture (:meth:`_fresh`) waits neither for the pace nor for the share
        (the group has not seen the deal: it came 8.3 s after Start in a busy group), only
        for room and for the floor, ``window.period / (limit - reserve)``, after this outbox's
        last request (so that it does not bunch up with a result)."""
        now = window.now()
        if self._fresh(key):
            floor = window.period / max(1, window.limit - self.reserve)
            return max(self._own_last.get(chat_id, float("-inf")) + floor,
                       now + window.room_in(chat_id, self.reserve))
        own = self._own.setdefault(chat_id, deque())
        anchor = self._own_last.get(chat_id, window.last_start(chat_id))
        while own and own[0] <= now - window.period:
            own.popleft()
        recent = window.recent(chat_id)
        others = max(0, len(recent) - len(own))
        if others < 2:  # a lone lobby or notice: pace() counts it
            others = 0
        else:  # their rate over the time the window holds them (half a window at least)
            span = max(now - recent[0], window.period / 2)
            others = round(others * window.period / span)
        share = window.period / max(1, window.limit - self.reserve - others)
        return max(anchor + max(self.pace(window, chat_id), share),
                   now + window.room_in(chat_id, self.reserve))

    async def _pace(self, window: SlidingWindow, chat_id: int, key: str) -> bool:
        """Wait for the chat's paced slot (:meth:`_slot`: after this outbox's last request in
        the chat, at the share of the window the other requests leave), while another request
        of the chat waits for the window (it goes first: a command's reply), and while a more
        wanted job of the chat is pending (:meth:`_first`). A reply sent straight does not
        move the table's slot back (paced from the chat's last request, whoever sent it, a
        command every 4 s in a busy group kept the table from any edit for 24 s): it makes
        the table's share smaller.

        Returns at once (``False``) when the pending job is a result and replies wait
        (:meth:`_paced`).

        The job is prepared :data:`PREPARE_AHEAD` before its slot, and again at once for each
        newer request that comes after that (the state it was prepared for changed: its
        picture is then drawn before the slot comes, not when the slot has come, which would
        hold the request up by a render). Once the slot has come the job goes, drawing a state
        newer than its last prepared one itself: a state changing faster than its picture is
        drawn (bots moving every 0.05 s on a loaded machine) would otherwise be drawn ahead
        again and again, and the table showed nothing for the whole deal. With an ``overall``
        budget, the job takes its place there :data:`TOKEN_AHEAD` before its slot, at
        :data:`SLOT_RANK`, and gives it back if its slot moves further off (another request of
        the chat went first). Returns whether it holds that place (the caller uses it for the
        job's request)."""
        prepared = -1  # the request count the job was last prepared for
        changed = self._changed.setdefault(key, asyncio.Event())
        overall = self.overall
        held = False
        try:
            while True:
                if not self._paced(key):
                    if held and overall is not None:
                        overall.give_back()
                    return False
                wait = self._slot(window, chat_id, key) - window.now()
                if wait < 1e-6:  # due (a float's rounding is no reason to sleep 10 ms more)
                    wait = 0.0
                recent = window.recent(chat_id)  # the slot comes sooner as they leave
                wait_a_bit = min(wait, recent[0] + window.period - window.now()) if recent \
                    else wait
                requested = self._requested.get(key, 0)
                first = not window.waiting(chat_id, before=self._line_rank(key)) \
                    and self._first(key, chat_id)
                # Once drawn and due, it goes: the job draws the latest state itself. Drawing
                # each newer state first would never end while the state changes faster than
                # it is drawn (bots on a loaded machine: no edit for a whole deal).
                redraw = prepared < 0 or wait > 0 or not first
                if wait <= PREPARE_AHEAD and prepared != requested and redraw:
                    prepared = requested
                    await self._prepare(key)
                    continue
                if overall is not None and held != (wait <= TOKEN_AHEAD and first):
                    if held:
                        overall.give_back()
                        held = False
                    else:
                        ranked = RANK.set(SLOT_RANK)
                        try:
                            await overall.acquire()
                        finally:
                            RANK.reset(ranked)
                        held = True
                    continue
                if wait <= 0 and first:
                    return held
                if prepared < 0:  # a newer request wakes it: it may be new content
                    changed.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(changed.wait(), max(
                            min(wait - max(PREPARE_AHEAD, TOKEN_AHEAD), wait_a_bit), 0.01))
                    continue
                changed.clear()  # once prepared, a newer request wakes it to prepare that
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), max(wait_a_bit, 0.01))
        except BaseException:
            if held and overall is not None:
                overall.give_back()
            raise
        finally:
            self._changed.pop(key, None)

    async def _prepare(self, key: str) -> None:
        """Call the pending job's ``prepare()``, if it has one (failures are logged)."""
        entry = self._jobs.get(key)
        prepare = getattr(entry[1], "prepare", None) if entry is not None else None
        if prepare is None:
            return
        try:
            await prepare()
        except Exception:
            log.exception("outbox job for %s failed to prepare", key)

    async def caught_up(self) -> None:
        """Wait until every request made so far is shown (its job, or a later one, ran); later
        requests are not waited for (tests)."""
        targets = dict(self._requested)
        while any(self._done.get(key, 0) < n for key, n in targets.items()):
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        """Cancel every pending job."""
        self._jobs.clear()
        self._rank.clear()
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()

