"""The last resort for exceptions a handler or job did not handle.

Logs the error without the update's content (a private message or callback could carry a hand),
and answers a button press that would otherwise spin forever.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, ContextTypes

from bot.handlers.common import answer, not_modified

log = logging.getLogger(__name__)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log ``context.error``; "message is not modified" is harmless and ignored."""
    error = context.error
    if isinstance(error, BadRequest) and not_modified(error):
        return
    where = f"update {update.update_id}" if isinstance(update, Update) else "a job"
    if isinstance(error, TelegramError):
        log.warning("Telegram error in %s: %s", where, error)
    else:
        log.error("unhandled error in %s", where, exc_info=error)
    if isinstance(update, Update) and update.callback_query is not None:
        await answer(update.callback_query)


def register(app: Application) -> None:
    """Install the error handler."""
    app.add_error_handler(on_error)
