"""Putting a webhook worker together: the shared rows, the shared flood budgets, the
database timers and their callbacks, the workers' outlet, the game with its guarded registry, and
the lookups that bring the registry up to date before the handlers read it.

Called by ``bot.telegram.app``'s ``post_init`` when ``Settings.shared_workers``;
:mod:`bot.telegram.workers.run` then serves the webhook.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable
from dataclasses import dataclass

from telegram import Update
from telegram.ext import TypeHandler

from bot.core import callbacks as cb
from bot.core.table import table_key
from bot.features.service import Game
from bot.game import timers
from bot.telegram.outlet.limiter import ChatRateLimiter, SlidingWindow
from bot.telegram.outlet.outbox import Outbox
from bot.telegram.services import App, BotData, Context, bot_data
from bot.telegram.workers.flood import SharedOverall, SharedWindow
from bot.telegram.workers.guard import StoreGuard
from bot.telegram.workers.outlet import SharedOutlet
from bot.telegram.workers.resume import Resumer
from bot.telegram.workers.shared import SharedDb
from bot.telegram.workers.timers import WATCH, DbTimers

log = logging.getLogger(__name__)

#: Presses that act on one table only: the registry is brought up to date for that table
#: alone. Every other update (commands, lobby buttons: whoever sits elsewhere) brings the
#: tables of its user and its chat up to date as well.
ONE_TABLE_KINDS = frozenset({cb.ACTION, cb.SELECT, cb.MY_CARDS, cb.CONFIRM_LEAVE})
#: The handler group of the registry's update, before every other handler.
SYNC_GROUP = -100
#: A watchdog fires this many leases after its worker stopped renewing it.
WATCH_LEASES = 3


@dataclass
class Worker:
    """One worker's parts (``BotData.worker``)."""

    shared: SharedDb
    guard: StoreGuard
    timers: DbTimers
    resumer: Resumer

    async def close(self) -> None:
        """Stop the timers and close the shared rows' pool."""
        await self.timers.stop()
        await self.shared.close()


def worker_name(data: BotData) -> str:
    """``Settings.worker_name``, else ``"<host>:<pid>"``."""
    return data.settings.worker_name or f"{socket.gethostname()}:{os.getpid()}"


async def start_worker(application: App) -> Worker:
    """Build the worker's game and outlet into ``bot_data`` (the store is open) and start its
    timers, after resuming the stored tables that no timer will move on."""
    data = bot_data(application)
    settings = data.settings
    assert settings.database_url is not None
    shared = await SharedDb.open(settings.database_url, worker_name(data))
    limiter = application.bot.rate_limiter
    window: SlidingWindow | None = None
    if isinstance(limiter, ChatRateLimiter):
        limiter.window = window = SharedWindow(shared, limiter.window.limit,
                                               limiter.start_period)
        limiter.overall = SharedOverall(shared, limiter.overall.limit, limiter.overall.period,
                                        reserve=limiter.overall.reserve)
    lease = settings.worker_lease
    db_timers = DbTimers(data.store, shared, lease=lease, watch=lease * WATCH_LEASES)
    assert application.job_queue is not None, "python-telegram-bot[job-queue] is required"
    guard_box: list[StoreGuard] = []

    async def is_current(key: str) -> bool:
        return await guard_box[0].is_current(key)

    outlet = SharedOutlet(application.bot, application.job_queue, data.photo_cache,
                          Outbox(window, settings.table_edit_interval), db_timers, shared,
                          is_current)
    game = Game(data.store, settings, outlet, bot_username=application.bot.username)

    game.ctx.seat_claims = shared
    guard = StoreGuard(shared, game.tables, save=data.store.save_table)
    guard_box.append(guard)
    game.tables.guard = guard
    guard.watchdog = db_timers
    db_timers.presync = guard.presync
    resumer = Resumer(game.ctx, game.lobby, game.deals, game.matches, game.challenges,
                      game.tournaments)
    db_timers.callbacks = {
        timers.TURN: game.deals.on_turn_timeout,
        timers.BOT_MOVE: game.deals.on_bot_move,
        timers.NOTICE: game.deals.on_notice,
        timers.LOBBY: game.lobby.on_expired,
        timers.RESULT: resumer.retry_result,
        timers.CLOCK: game.deals.on_clock,
        timers.AGAIN: game.again.on_timeout,
        WATCH: resumer.resume,
        **game.challenges.timer_callbacks(),
        **game.tournaments.timer_callbacks(),
    }
    data.outlet, data.game = outlet, game
    worker = data.worker = Worker(shared, guard, db_timers, resumer)

    async def sync(update: object, context: Context) -> None:
        if isinstance(update, Update):
            await bring_up_to_date(worker, update)

    application.add_handler(TypeHandler(object, sync), group=SYNC_GROUP)
    await sweep(worker)
    db_timers.start()
    return worker


async def bring_up_to_date(worker: Worker, update: Update) -> None:
    """Before the handlers: the table a press acts on (found by its token here, else in the
    store) and the group's table it was pressed in, and for every update but the presses of
    :data:`ONE_TABLE_KINDS` the tables where its user sits and those of its chat
    (:meth:`StoreGuard.sync_for`). A press whose token no table
    has yet (the lobby or deal it belongs to is being stored by another worker right now, or
    it is old) waits for the group's table to be free first."""
    query = update.callback_query
    user, chat = update.effective_user, update.effective_chat
    user_id = user.id if user is not None else None
    if query is None or not query.data:
        text = update.message.text if update.message is not None else None
        if text and text.startswith("/start ") and cb.JOIN_LINK in text:
            # a lobby's join link: the lobby is in another chat
            token = text.split(cb.JOIN_LINK, 1)[1].strip()
            joined = await worker.shared.key_of_token(token)
            if joined is not None:
                await worker.guard.presync(joined)
        await worker.guard.sync_for(user_id, chat.id if chat is not None else None)
        return
    try:
        data = cb.parse_callback(query.data)
    except cb.CallbackError:
        return  # refused by the handlers, whatever the tables say
    message = query.message
    here = None
    if message is not None and message.chat.id < 0:
        thread = getattr(message, "message_thread_id", None) \
            if getattr(message, "is_topic_message", False) else None
        here = table_key(message.chat.id, thread)
    known = worker.guard.tables.by_token(data.token)
    key = known.key if known is not None else await worker.shared.key_of_token(data.token)
    steps: list[Awaitable[None]] = []  # at once: each is a round trip before the answer
    if key is None and here is not None:
        async with worker.guard.tables.lock(here):
            pass  # held by whoever stores it: then it is up to date here
    elif key is not None:
        steps.append(worker.guard.presync(key))
    if here is not None and here != key:
        steps.append(worker.guard.presync(here))
    if data.kind not in ONE_TABLE_KINDS:
        steps.append(worker.guard.sync_for(user_id,
                                           message.chat.id if message is not None else None))
    await asyncio.gather(*steps)


async def sweep(worker: Worker) -> None:
    """Resume every stored table that has no timer and no watchdog (its worker stopped
    between storing a step and arming what comes next, or the bot ran without workers
    before: a competition's table between two deals among them), then the running matches
    (:meth:`Matches.restore`: one whose table is gone is cancelled), the duplicate
    challenges' windows and final posts, and the live tournaments (:meth:`Tournaments.restore`:
    timed starts armed, tables between two deals dealt on, a stage whose tables all finished
    decided); one starting worker at a time."""
    async with worker.shared.locked("sweep"):
        async with worker.shared.pool.acquire() as conn:
            keys = await conn.fetch(
                "SELECT t.table_key FROM tables t"
                " WHERE (t.data::jsonb ->> 'phase' IN ('deal', 'lobby')"
                " OR t.data::jsonb ->> 'result_due' = 'true'"
                " OR t.data::jsonb ->> 'match_id' IS NOT NULL"
                " OR t.data::jsonb ->> 'challenge_id' IS NOT NULL"
                " OR t.data::jsonb ->> 'tournament' IS NOT NULL"
                " OR jsonb_array_length(COALESCE(t.data::jsonb -> 'ready', '[]')) > 0)"
                " AND NOT EXISTS (SELECT 1 FROM timers m"
                " WHERE m.key = ANY(ARRAY[" + ", ".join(
                    f"'{kind}:' || t.table_key" for kind in timers.KINDS) + "])"
                f" OR m.key LIKE '{WATCH}:' || t.table_key || '@%')")
        for row in keys:
            await worker.resumer.resume(timers.Stamp(row["table_key"], ""))
        await worker.resumer.matches.restore()
        await worker.resumer.challenges.restore()  # windows armed again, or closed if passed
        await worker.resumer.tournaments.restore()
