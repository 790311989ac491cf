"""Telegram handlers: commands, the lobby, the deal's buttons, timers' jobs, errors.

``register(application)`` installs every handler and the shared in-memory state
(``bot_data["tables"]``, ``bot_data["edit_throttle"]``, ``bot_data["photo_cache"]``);
``restore(application)`` (from ``post_init``) reloads stored tables and running deals after a
start.
"""

from __future__ import annotations

from telegram.ext import Application

from bot.handlers import (
    commands,
    daily_post,
    deal,
    economy,
    errors,
    group_settings,
    lobby,
    migration,
)
from bot.photos import PhotoCache
from bot.table import Tables
from bot.timers import EditThrottle


def register(application: Application) -> None:
    """Install the handlers and the tables registry (``bot_data["settings"]`` must be set)."""
    application.bot_data["tables"] = Tables()
    interval = application.bot_data["settings"].table_edit_interval
    application.bot_data["edit_throttle"] = EditThrottle(interval)
    application.bot_data["photo_cache"] = PhotoCache()
    migration.register(application)
    commands.register(application)
    lobby.register(application)
    deal.register(application)
    economy.register(application)
    group_settings.register(application)
    daily_post.register(application)
    errors.register(application)


async def restore(application: Application) -> None:
    """Reload stored tables and running deals (see :func:`bot.handlers.deal.restore`)."""
    await deal.restore(application)
