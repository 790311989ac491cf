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

from bot.i18n import t

log = logging.getLogger(__name__)

#: A group's menu, in menu order; each has a ``cmd.<name>`` description in the catalogues.
GROUP_COMMANDS = (
    "newgame", "join", "leave", "match", "firstto", "knockout", "challenge", "daily", "relief",
    "balance", "give", "top", "me", "help", "settings", "stop",
)
#: A private chat's menu: practice there, the bean commands that work anywhere.
PRIVATE_COMMANDS = (
    "start", "practice", "leave", "daily", "relief", "balance", "top", "me", "help",
)
#: Every command, for the default menu (a chat neither private nor a group).
COMMANDS = tuple(dict.fromkeys(GROUP_COMMANDS + PRIVATE_COMMANDS))
#: Commands only a group's admins may use (their ``cmd.<name>`` descriptions say so).
ADMIN_COMMANDS = ("settings", "stop")
#: The menus' ``language_code`` (a two-letter ISO 639-1 code, or ``None`` for everyone else)
#: and the language they are written in.
MENU_LANGUAGES = {"zh": "zh-Hans", None: "en"}
#: The language that needs a chat-scoped menu: Telegram's language codes cannot tell it apart.
CHAT_MENU_LANGUAGE = "zh-Hant"


def commands_for(group: bool) -> tuple[str, ...]:
    """The commands a group (``group``) or a private chat offers, in menu order."""
    return GROUP_COMMANDS if group else PRIVATE_COMMANDS


def menu(names: tuple[str, ...], lang: str) -> list[BotCommand]:
    """The menu of ``names`` with their ``cmd.<name>`` descriptions in ``lang``."""
    return [BotCommand(name, t(f"cmd.{name}", lang)) for name in names]


def help_commands(lang: str, group: bool) -> str:
    """``/help``'s command list for a group or a private chat: one line per command the chat
    offers (:func:`commands_for`), ``/name — description`` as the menu says it (the admins'
    ones marked so, :data:`ADMIN_COMMANDS`); then where the cards come (a group) or where to
    play with friends (a private chat).

    >>> help_commands("en", False).splitlines()[:2]
    ['Commands here:', '/start — Start the bot (needed to get your cards)']
    """
    lines = [t("help.commands_here", lang)]
    lines += [f"/{name} — {t(f'cmd.{name}', lang)}" for name in commands_for(group)]
    lines.append(t("help.group_note" if group else "help.private_note", lang))
    return "\n".join(lines)


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
            await bot.set_my_commands(menu(names, lang), scope=scope,
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
                await bot.set_my_commands(menu(commands_for(group), lang),
                                          scope=BotCommandScopeChat(chat_id))
                self._own.add(chat_id)
            elif lang != CHAT_MENU_LANGUAGE and chat_id in self._own:
                await bot.delete_my_commands(scope=BotCommandScopeChat(chat_id))
                self._own.discard(chat_id)
        except TelegramError as error:
            log.warning("menu of chat %s not set: %s", chat_id, error)
