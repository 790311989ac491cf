"""The last resorts: button data no other handler routes, and exceptions nobody handled.

Errors are logged without the update's content (a private message or callback could carry a
hand), and a button press that would otherwise spin forever is answered.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot.handlers.common import answer, not_modified, user_language
from bot.i18n import t

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


async def on_unknown_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Button data that matches no kind of button (forged): a pop-up, nothing else."""
    query = update.callback_query
    if query is None:
        return
    lang = user_language(context.application, query.from_user)
    await answer(query, t("pop.invalid", lang), alert=True)


def register(app: Application) -> None:
    """Install the catch-all button handler (after every other) and the error handler."""
    app.add_handler(CallbackQueryHandler(on_unknown_button))
    app.add_error_handler(on_error)
