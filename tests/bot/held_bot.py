"""``python -m tests.bot.held_bot``: ``python -m bot`` whose ``/give`` commands never reach
their handlers (a handler ahead of every other waits forever): the process holds such an update
fetched and not handled, as a bot killed right after ``getUpdates`` answered
(tests/bot/test_e2e_polling_inbox.py)."""

from __future__ import annotations

import asyncio

from telegram import Update
from telegram.ext import TypeHandler

from bot import __main__ as bot_main
from bot.telegram import handlers
from bot.telegram.services import App

_register = handlers.register
#: The handler group ahead of the bot's.
HOLD_GROUP = -1000


async def _hold(update: Update, context: object) -> None:
    message = update.effective_message
    if message is not None and (message.text or "").startswith("/give"):
        await asyncio.Event().wait()


def _register_held(application: App) -> None:
    application.add_handler(TypeHandler(Update, _hold), group=HOLD_GROUP)
    _register(application)


if __name__ == "__main__":
    handlers.register = _register_held
    bot_main.main()
