"""Telegram handlers: commands, the lobby, the deal's buttons, /practice, errors. Entry points
only: they parse an update, take the table's lock, call the game layer (:mod:`bot.game`) and
answer.

``register(application)`` installs every handler; the services they use are typed attributes of
``application.bot_data`` (:class:`bot.telegram.services.BotData`), created in ``post_init``
(:mod:`bot.telegram.app`).
"""

from __future__ import annotations

from bot.telegram.handlers import (
    challenge,
    commands,
    daily_challenge,
    daily_post,
    deal,
    economy,
    errors,
    group_settings,
    lobby,
    match,
    migration,
    practice,
    tournament,
)
from bot.telegram.services import App


def register(application: App) -> None:
    """Install the handlers."""
    migration.register(application)
    commands.register(application)
    lobby.register(application)
    match.register(application)
    challenge.register(application)
    tournament.register(application)
    deal.register(application)
    practice.register(application)
    economy.register(application)
    group_settings.register(application)
    daily_post.register(application)
    daily_challenge.register(application)
    errors.register(application)
