"""The bot's services, typed, for every handler: PTB's ``ContextTypes`` with
:class:`BotData` as ``bot_data``, following PTB's ``contexttypesbot.py`` example.

``context.bot_data`` (and ``application.bot_data``) is a :class:`BotData`: ``settings`` from build
time; ``store``, ``game`` and ``outlet`` (and ``worker`` in webhook worker mode) from ``post_init``
until shutdown; ``photo_cache``,
``admin_cache``, ``settings_locks``, ``refusals`` (:class:`bot.telegram.refusals.RefusalLimiter`)
and ``usernames`` (:class:`bot.store.usernames.UsernameBook`) always.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot

from bot.core.settings import Settings
from bot.store.usernames import UsernameBook
from bot.telegram.menus import Menus
from bot.telegram.photos import PhotoCache
from bot.telegram.refusals import RefusalLimiter

if TYPE_CHECKING:
    from bot.core.table import Tables
    from bot.features.service import Game
    from bot.store import Store
    from bot.telegram.outlet.telegram import TelegramOutlet
    from bot.telegram.workers.wiring import Worker


class BotData:
    """The services of one Application (see the module docstring)."""

    settings: Settings
    store: Store
    game: Game
    outlet: TelegramOutlet
    #: Only with several workers (``Settings.shared_workers``, :mod:`bot.telegram.workers`).
    worker: Worker

    def __init__(self) -> None:
        self.photo_cache = PhotoCache()
        #: (chat id, user id) → when an admin check last said yes (monotonic seconds).
        self.admin_cache: dict[tuple[int, int], float] = {}
        #: Per group chat id: one /settings change or menu press at a time.
        self.settings_locks: dict[int, asyncio.Lock] = {}
        #: Refused presses per user.
        self.refusals = RefusalLimiter()
        #: What this process last stored of each user's @username.
        self.usernames = UsernameBook()
        #: The chats given a command menu of their own (Traditional Chinese ones).
        self.menus = Menus()

    @property
    def tables(self) -> Tables:
        """The game's registry of tables."""
        return self.game.tables


#: The context of every handler and job of this bot.
Context = CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]
#: The Application of this bot (PTB's generic parameters left open: handlers typed with PTB's
#: default context reach the same helpers).
App = Application[Any, Any, Any, Any, Any, Any]
#: Passed to ``ApplicationBuilder.context_types``.
CONTEXT_TYPES = ContextTypes(context=CallbackContext, bot_data=BotData)


def bot_data(app: App) -> BotData:
    """The application's typed services (built with :data:`CONTEXT_TYPES`)."""
    return cast(BotData, app.bot_data)
