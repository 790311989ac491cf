"""Builds the python-telegram-bot `Application`: API URLs, rate limiter, job queue, handlers and
the start-up / shut-down work.

`application.bot_data` is a typed `bot.telegram.services.BotData`: `settings` from build time;
`store` (the open `bot.store.Store`), `outlet` (`bot.telegram.outlet.telegram.TelegramOutlet`) and
`game` (`bot.features.service.Game`) from `post_init` until `post_shutdown`.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import time

from telegram.ext import ApplicationBuilder, Defaults

from bot.core.settings import Settings
from bot.features.service import Game
from bot.store import Store, open_store
from bot.telegram import handlers
from bot.telegram.inbox import InboxProcessor, InboxQueue, replay
from bot.telegram.menus import set_menus
from bot.telegram.outlet.http import UNREAD, AiohttpRequest
from bot.telegram.outlet.limiter import ChatRateLimiter
from bot.telegram.outlet.outbox import Outbox
from bot.telegram.outlet.telegram import TelegramOutlet
from bot.telegram.services import CONTEXT_TYPES, App, bot_data
from bot.telegram.workers.wiring import start_worker
from images.warm import warm_up

# Opt in to PTB 23's behaviour now: durations such as `RetryAfter.retry_after` are timedeltas.
# Without it PTB warns about the coming change on every 429 answer.
os.environ.setdefault("PTB_TIMEDELTA", "true")

# How often AIORateLimiter retries a request that Telegram answered with 429 retry_after.
RATE_LIMIT_RETRIES = 3
# Telegram's overall limit for one bot: about 30 messages per second.
OVERALL_RATE_LIMIT = 30
# Connections the bot's requests may keep open (PTB's own default).
BOT_CONNECTIONS = 256
# Updates processed at once at most (PTB's `concurrent_updates(True)`).
CONCURRENT_UPDATES = 256
# Seconds a stopping bot waits for the outbox to send what it holds.
FLUSH_SECONDS = 5.0
# Seconds a thread holding the GIL keeps it while another waits (`sys.setswitchinterval`).
SWITCH_INTERVAL = 0.001

log = logging.getLogger(__name__)


def build_application(settings: Settings) -> App:
    """A ready-to-run Application for `settings` (not initialized; nothing is sent yet).

    - Bot API URLs from `settings.bot_api_base_url` / `bot_api_file_url`.
    - Requests over aiohttp (:class:`bot.telegram.outlet.http.AiohttpRequest`, PTB's request
      interface; a third of httpx's CPU per request), long polls on a connection of their own;
      the answers to caption, text and keyboard edits are not parsed (`UNREAD`).
    - `ChatRateLimiter` (PTB's `AIORateLimiter` underneath): at most `OVERALL_RATE_LIMIT`
      requests per second overall and `settings.group_rate_limit` sends, edits and deletes per
      group in any sliding minute; a 429 pauses only its own chat for `retry_after` seconds and
      the request is sent again, up to `RATE_LIMIT_RETRIES` times.
    - Typed `bot_data` (`bot.telegram.services.BotData`) through PTB's `ContextTypes`.
    - `Defaults(allow_sending_without_reply=True)`: a reply to a command that is gone (groups
      whose moderation bots delete commands) is sent as a plain message instead of failing
      with 400 "message to be replied not found".
    - PTB's JobQueue (timers) and concurrent update processing: handlers must take the
      per-table lock, updates of different tables run side by side.
    - Polled updates go through the store's inbox (:mod:`bot.telegram.inbox`): stored before
      Telegram is told they arrived, marked done once handled, the ones not done handled at
      start-up.
    - Handlers registered by `bot.telegram.handlers.register`.
    - `post_init` opens the store, sets the command menus, restores running deals and queues
      the updates a stopped bot had not handled;
      `post_shutdown` closes the store.
    """
    application: App = (
        ApplicationBuilder()
        .token(settings.bot_token)
        .base_url(settings.bot_api_base_url)
        .base_file_url(settings.bot_api_file_url)
        .request(AiohttpRequest(BOT_CONNECTIONS, unread=UNREAD))
        .get_updates_request(AiohttpRequest(1))
        .context_types(CONTEXT_TYPES)
        .rate_limiter(
            ChatRateLimiter(
                settings.group_rate_limit,
                overall=OVERALL_RATE_LIMIT,
                max_retries=RATE_LIMIT_RETRIES,
                ephemeral=settings.ephemeral_flood,
                ephemeral_limit=settings.ephemeral_rate_limit,
            )
        )
        .defaults(Defaults(allow_sending_without_reply=True))
        .update_queue(InboxQueue())
        .concurrent_updates(InboxProcessor(CONCURRENT_UPDATES))
        .post_init(_post_init)
        .post_stop(_post_stop)
        .post_shutdown(_post_shutdown)
        .build()
    )
    bot_data(application).settings = settings
    handlers.register(application)
    return application


async def set_commands(application: App) -> None:
    """Register the command menus (:func:`bot.telegram.menus.set_menus`: a group's and a private
    chat's, Simplified Chinese for "zh" users, English for everyone else; Traditional Chinese
    chats get theirs per chat, :class:`bot.telegram.menus.Menus`)."""
    await set_menus(application.bot)


async def _post_init(application: App) -> None:
    """Open the store, build the outlet and the game, set the menus, restore the tables (as
    a webhook worker, :func:`bot.telegram.workers.wiring.start_worker` instead: the tables stay
    stored and are loaded when used)."""
    data = bot_data(application)
    settings = data.settings
    data.store = await open_store(settings.database)
    if settings.shared_workers:
        await start_worker(application)
        await set_commands(application)
        await _settle()
        data.game.deals.started = time.time()  # updates are taken from now on (RESTART_GRACE)
        return
    limiter = application.bot.rate_limiter
    window = limiter.window if isinstance(limiter, ChatRateLimiter) else None
    assert application.job_queue is not None, "python-telegram-bot[job-queue] is required"
    overall = limiter.overall if isinstance(limiter, ChatRateLimiter) else None
    data.outlet = TelegramOutlet(application.bot, application.job_queue, data.photo_cache,
                                 Outbox(window, settings.table_edit_interval, overall=overall))
    data.game = Game(data.store, settings, data.outlet, bot_username=application.bot.username)
    await set_commands(application)
    await data.game.restore()
    _take_inbox(application, data.store)
    await replay(application.update_queue, data.store, application.bot)
    await _settle()
    data.game.deals.started = time.time()  # updates are taken from now on (RESTART_GRACE)


def _take_inbox(application: App, store: Store) -> None:
    """Updates fetched from now on go through the store's inbox (:mod:`bot.telegram.inbox`)."""
    queue, processor = application.update_queue, application.update_processor
    if isinstance(queue, InboxQueue):
        queue.store = store
    if isinstance(processor, InboxProcessor):
        processor.store = store


async def _settle() -> None:
    """The last step of start-up: every card picture drawn once (:func:`images.warm.warm_up`,
    off the event loop), then what start-up built moved out of the garbage collector's sight
    (``gc.freeze``): a full collection then walks only what the deals allocate, not the
    libraries, fonts and card sprites, so it does not stall the event loop for long. The
    interpreter hands the GIL over every :data:`SWITCH_INTERVAL` seconds (5 ms by default):
    while pictures are drawn and the AI thinks in worker threads, the event loop, which answers
    the presses, waits for it at most that long each time it wakes up."""
    await asyncio.to_thread(warm_up)
    gc.collect()
    gc.freeze()
    sys.setswitchinterval(SWITCH_INTERVAL)


async def _post_stop(application: App) -> None:
    """Send what the outbox still holds (a deal's result, the last table states) while the bot
    can still reach Telegram, for at most `FLUSH_SECONDS`."""
    outlet = getattr(bot_data(application), "outlet", None)
    if outlet is not None:
        try:
            await asyncio.wait_for(outlet.caught_up(), FLUSH_SECONDS)
        except TimeoutError:
            log.warning("stopping with messages still in the outbox")


async def _post_shutdown(application: App) -> None:
    # a bot that failed to start (a wrong token, no server) is not shut down by PTB: its HTTP
    # sessions are closed here, not left to warn on the way out (a no-op once shut down)
    await application.bot.shutdown()
    gc.unfreeze()  # what start-up froze may be collected again (a process running bots anew)
    data = bot_data(application)
    outlet = getattr(data, "outlet", None)
    if outlet is not None:
        await outlet.outbox.close()
    worker = getattr(data, "worker", None)
    if worker is not None:
        await worker.close()
    game = getattr(data, "game", None)
    if game is not None:
        game.shutdown()
    store = getattr(data, "store", None)
    if store is not None:
        await store.close()
        del data.store
