"""The command menus and the command list of ``/help``: which commands a chat offers (a group
or a private chat), in the chat's language, as plain ``(command, description)`` pairs;
:mod:`bot.telegram.menus` gives them to Telegram.
"""

from __future__ import annotations

from bot.core.i18n import t

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


def menu(names: tuple[str, ...], lang: str) -> list[tuple[str, str]]:
    """The menu of ``names``: ``(command, description)`` pairs, the ``cmd.<name>`` descriptions
    in ``lang``."""
    return [(name, t(f"cmd.{name}", lang)) for name in names]


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
