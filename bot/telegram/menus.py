"""The command menus and the command list of ``/help``: which commands a chat offers (a group
or a private chat), in the chat's language.

Telegram picks a user's menu by scope (``BotCommandScopeChat`` before
``BotCommandScopeAllGroupChats`` / ``AllPrivateChats`` before ``Default``) and, within a scope,
by the two-letter ISO 639-1 ``language_code`` given to ``setMyCommands`` (its only accepted
form: ``"zh"``, not ``"zh-hant"`` or ``"zh-TW"``). So one language code, ``zh``, is every
Chinese user's, Simplified and Traditional alike: at start-up the ``zh`` menus are set in
Simplified and the others in English (:func:`set_menus`); a chat that reads Traditional Chinese
(a private chat whose user's Telegram ``language_code`` is ``zh-hant``, ``zh-tw``, ``zh-hk`` or
``zh-mo``, a group set to 繁體中文) gets its own Traditional menu in a chat scope, which wins
over the language ones, when it is first seen (:meth:`Menus.follow`: on ``/start`` and
``/help``, when the bot is added to a group, when a group's language changes).
"""

from __future__ import annotations

import logging

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeChat,
    BotCommandScopeDefault,
)
from telegram.error import TelegramError

from bot.presentation.menus import (
    CHAT_MENU_LANGUAGE,
    COMMANDS,
    GROUP_COMMANDS,
    MENU_LANGUAGES,
    PRIVATE_COMMANDS,
    commands_for,
    menu,
)

log = logging.getLogger(__name__)


def bot_commands(names: tuple[str, ...], lang: str) -> list[BotCommand]:
    """The menu of ``names`` in ``lang`` (:func:`bot.presentation.menus.menu`) as Telegram's
    ``BotCommand`` list."""
    return [BotCommand(name, description) for name, description in menu(names, lang)]


async def set_menus(bot: Bot) -> None:
    """Set the default, private-chat and group menus, Simplified Chinese for ``zh`` users and
    English for everyone else (see the module docstring)."""
    scopes: tuple[tuple[BotCommandScope, tuple[str, ...]], ...] = (
        (BotCommandScopeDefault(), COMMANDS),
        (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
        (BotCommandScopeAllGroupChats(), GROUP_COMMANDS),
    )
    for scope, names in scopes:
        for language_code, lang in MENU_LANGUAGES.items():
            await bot.set_my_commands(bot_commands(names, lang), scope=scope,
                                      language_code=language_code)


class Menus:
    """The chats given a menu of their own (:data:`CHAT_MENU_LANGUAGE`), in this process."""

    def __init__(self) -> None:
        self._own: set[int] = set()

    async def follow(self, bot: Bot, chat_id: int, lang: str, group: bool) -> None:
        """Give chat ``chat_id`` the menu in ``lang`` when the language menus cannot
        (Traditional Chinese, see the module docstring), once per chat and process; take a
        chat's own menu back when its language is no longer that. A failure is logged: the
        language menu stands in."""
        try:
            if lang == CHAT_MENU_LANGUAGE and chat_id not in self._own:
                await bot.set_my_commands(bot_commands(commands_for(group), lang),
                                          scope=BotCommandScopeChat(chat_id))
                self._own.add(chat_id)
            elif lang != CHAT_MENU_LANGUAGE and chat_id in self._own:
                await bot.delete_my_commands(scope=BotCommandScopeChat(chat_id))
                self._own.discard(chat_id)
        except TelegramError as error:
            log.warning("menu of chat %s not set: %s", chat_id, error)
