"""A group upgraded to a supergroup: Telegram gives it a new chat id and tells the
bot twice, with a service message in the old group (``migrate_to_chat_id``) and one in the new
supergroup (``migrate_from_chat_id``).

On either message the group's stored data moves to the new id in one transaction
(:meth:`bot.store.Store.migrate_chat`: settings, stored tables, deals, leaderboards, holds,
post markers) and PTB's own chat data follows (``Application.migrate_chat_data``). Both steps
are safe to repeat, so whichever message comes first does the work and the second finds
nothing left. Then the tables open in memory move (their key, timers and group messages:
:meth:`bot.features.service.Game.migrate_chat`), also safe to repeat.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from bot.telegram.handlers.common import game, store
from bot.telegram.handlers.senders import message_of

log = logging.getLogger(__name__)


def migration_ids(update: Update) -> tuple[int, int] | None:
    """``(old_chat_id, new_chat_id)`` of a migration service message, else ``None``."""
    message = message_of(update)
    if message.migrate_to_chat_id is not None:
        return message.chat.id, message.migrate_to_chat_id
    if message.migrate_from_chat_id is not None:
        return message.migrate_from_chat_id, message.chat.id
    return None


async def migrate_chat(app: Application, old_chat_id: int, new_chat_id: int) -> bool:
    """Move the stored group and PTB's chat data from ``old_chat_id`` to ``new_chat_id``;
    ``True`` when the store had something to move (the first of the two messages)."""
    moved = await store(app).migrate_chat(old_chat_id, new_chat_id)
    if app.chat_data.get(old_chat_id):
        app.migrate_chat_data(old_chat_id=old_chat_id, new_chat_id=new_chat_id)
    elif old_chat_id in app.chat_data:
        app.drop_chat_data(old_chat_id)
    return moved


async def on_chat_migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The service message of a group's upgrade to a supergroup (see the module docstring)."""
    ids = migration_ids(update)
    if ids is None:
        return
    old_chat_id, new_chat_id = ids
    if await migrate_chat(context.application, old_chat_id, new_chat_id):
        log.info("group %s is now supergroup %s: its data moved", old_chat_id, new_chat_id)
    await game(context.application).migrate_chat(old_chat_id, new_chat_id)


def register(app: Application) -> None:
    """Route both migration service messages (group -2: before the other handlers)."""
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_chat_migrated), group=-2)
