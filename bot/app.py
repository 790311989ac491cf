"""Builds the python-telegram-bot `Application`: API URLs, rate limiter, job queue, handlers and
the start-up / shut-down work.

`application.bot_data` holds `"settings"` (the `Settings`, from build time) and `"store"` (the open
`bot.store.Store`, from `post_init` until `post_shutdown`).
"""

from __future__ import annotations

import os

from telegram import BotCommand
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder, Defaults

from bot import handlers
from bot.i18n import t
from bot.settings import Settings
from bot.store import open_store

# Opt in to PTB 23's behaviour now: durations such as `RetryAfter.retry_after` are timedeltas.
# Without it PTB warns about the coming change on every 429 answer.
os.environ.setdefault("PTB_TIMEDELTA", "true")

# The command menu, in menu order; each has a `cmd.<name>` description in the catalogues.
COMMANDS = (
    "newgame", "join", "leave", "start", "help", "daily", "relief", "balance", "top", "me", "give",
    "settings", "stop",
)
# Telegram matches menu languages by two-letter code: "zh" covers zh-Hans and zh-Hant users.
MENU_LANGUAGES = {"zh": "zh-Hans", None: "en"}
# How often AIORateLimiter retries a request that Telegram answered with 429 retry_after.
RATE_LIMIT_RETRIES = 3
# Telegram's overall limit for one bot: about 30 messages per second.
OVERALL_RATE_LIMIT = 30


def build_application(settings: Settings) -> Application:
    """A ready-to-run Application for `settings` (not initialized; nothing is sent yet).

    - Bot API URLs from `settings.bot_api_base_url` / `bot_api_file_url`.
    - `AIORateLimiter`: at most `OVERALL_RATE_LIMIT` requests per second overall and
      `settings.group_rate_limit` per minute per group; a 429 answer pauses all requests for
      `retry_after` seconds and retries the request up to `RATE_LIMIT_RETRIES` times.
    - `Defaults(allow_sending_without_reply=True)`: a reply to a command that is gone (groups
      whose moderation bots delete commands) is sent as a plain message instead of failing
      with 400 "message to be replied not found".
    - PTB's JobQueue (timers) and concurrent update processing: handlers must take the
      per-table lock, updates of different tables run side by side.
    - Handlers registered by `bot.handlers.register`.
    - `post_init` opens the store, sets the command menus and restores running deals;
      `post_shutdown` closes the store.
    """
    application = (
        ApplicationBuilder()
        .token(settings.bot_token)
        .base_url(settings.bot_api_base_url)
        .base_file_url(settings.bot_api_file_url)
        .rate_limiter(
            AIORateLimiter(
                overall_max_rate=OVERALL_RATE_LIMIT,
                group_max_rate=settings.group_rate_limit,
                max_retries=RATE_LIMIT_RETRIES,
            )
        )
        .defaults(Defaults(allow_sending_without_reply=True))
        .concurrent_updates(True)
        .post_init(_post_init)
        .post_shutdown(_post_shutdown)
        .build()
    )
    application.bot_data["settings"] = settings
    handlers.register(application)
    return application


async def set_commands(application: Application) -> None:
    """Register the command menu: Chinese for "zh" users, English for everyone else."""
    for language_code, lang in MENU_LANGUAGES.items():
        await application.bot.set_my_commands(
            [BotCommand(name, t(f"cmd.{name}", lang)) for name in COMMANDS],
            language_code=language_code,
        )


async def _post_init(application: Application) -> None:
    settings: Settings = application.bot_data["settings"]
    application.bot_data["store"] = await open_store(settings.database)
    await set_commands(application)
    await handlers.restore(application)


async def _post_shutdown(application: Application) -> None:
    store = application.bot_data.pop("store", None)
    if store is not None:
        await store.close()
