"""The last resorts: button data no other handler routes, and exceptions nobody handled.

Errors are logged without the update's content (a private message or callback could carry a
hand), with the traceback for errors that are not Telegram's answers. Every input still gets an
answer: a button press that would otherwise spin forever is answered, with a short
apology when our code failed; a command whose handler failed gets a short apology in its chat.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot.core.i18n import t
from bot.telegram.handlers.common import answer, chat_language, not_modified, user_language
from bot.telegram.handlers.senders import query_of

log = logging.getLogger(__name__)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log ``context.error``; "message is not modified" is harmless and ignored."""
    error = context.error
    if isinstance(error, BadRequest) and not_modified(error):
        return
    where = f"update {update.update_id}" if isinstance(update, Update) else "a job"
    ours = not isinstance(error, TelegramError)
    if ours:
        log.error("unhandled error in %s", where, exc_info=error)
    else:
        log.warning("Telegram error in %s: %s", where, error)
    if not isinstance(update, Update):
        return
    app = context.application
    query = update.callback_query
    if query is not None:
        await answer(query, t("pop.error", user_language(app, query.from_user)) if ours else None)
    elif ours and update.effective_message is not None:
        await _apologise(app, update)


async def _apologise(app: Application, update: Update) -> None:
    """Tell the sender, in the chat's language, that their command failed; failures to do so
    (Telegram, or the store that knows the group's language) are only logged."""
    try:
        lang = await chat_language(app, update)
    except Exception:  # the store may be what failed: answer in the default language
        log.exception("no language for the apology of update %s", update.update_id)
        lang = user_language(app, None)
    message = update.effective_message
    if message is None:
        return
    try:
        await message.reply_text(t("reply.error", lang))
    except TelegramError as exc:
        log.info("the apology for update %s failed: %s", update.update_id, exc)


async def on_unknown_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Button data that matches no kind of button (forged): a pop-up, nothing else."""
    query = query_of(update)
    lang = user_language(context.application, query.from_user)
    await answer(query, t("pop.invalid", lang), alert=True)


def register(app: Application) -> None:
    """Install the catch-all button handler (after every other) and the error handler."""
    app.add_handler(CallbackQueryHandler(on_unknown_button))
    app.add_error_handler(on_error)
