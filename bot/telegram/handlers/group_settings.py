"""/settings: a group's settings, for its admins only, anonymous admins included (the
settings are :mod:`bot.core.rooms`, the menu :mod:`bot.features.settings.menu`).

``/settings`` opens the inline menu; ``/settings <key> <value>`` sets any setting by name, also
values the menu does not offer (``/settings custom_stake 30`` — which also picks the custom stake
tier — or ``/settings timezone Europe/Berlin``). Changes are stored per group and apply from the
next deal: :func:`bot.telegram.handlers.deal.start_deal` reads the settings when it deals.

A menu press changes something only if the presser is an admin now (``getChatMember``, cached
for a minute), the data parses (:func:`bot.features.settings.menu.parse_menu_data`) and the menu
shows the group's current settings (its version); otherwise the presser gets a pop-up and nothing
changes. Presses of one group run one at a time.
"""

from __future__ import annotations

import asyncio
from typing import Any

from telegram import CallbackQuery, Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.core.i18n import t
from bot.core.rooms import (
    DEFAULT_GROUP_SETTINGS,
    INT_RANGES,
    GroupSettingError,
    parse_value,
    typed_choices,
)
from bot.features.settings import menu as menu
from bot.presentation.views import amount_text
from bot.telegram.handlers.common import (
    answer,
    chat_language,
    edit_text,
    game,
    group_language,
    is_admin,
    settings,
    store,
    user_language,
)
from bot.telegram.handlers.economy import is_group
from bot.telegram.handlers.senders import message_of, query_of, sender_is_admin
from bot.telegram.markup import to_markup
from bot.telegram.services import bot_data

#: Typed settings that choose the custom stake tier as well.
CUSTOM_STAKE_KEYS = ("custom_stake", "custom_min_balance")


def _timeouts(app: Application) -> dict[str, float]:
    bot_settings = settings(app)
    return {"play_timeout": bot_settings.play_timeout, "bid_timeout": bot_settings.bid_timeout}


def _lock(app: Application, chat_id: int) -> asyncio.Lock:
    return bot_data(app).settings_locks.setdefault(chat_id, asyncio.Lock())


def _invalid_text(key: str, name: str, lang: str) -> str:
    """Why ``/settings KEY value`` was refused, with what it takes: a number's range where it
    has one (``custom_min_balance 99999999`` is told the range, not only "not a valid value"), the
    words it takes for a flag or a choice (``auto_pass maybe``: ``开, 关`` in Chinese, ``on, off``
    in English), an example of a time zone name."""
    choices = typed_choices(key, lang)
    if choices is not None:
        return t("set.invalid_choice", lang, name=name, choices=", ".join(choices))
    if key == "timezone":
        return t("set.invalid_timezone", lang, name=name)
    low, high = (amount_text(n, lang) for n in INT_RANGES[key])
    kind = {"play_timeout": "seconds", "bid_timeout": "seconds",
            "multiplier_cap": "cap"}.get(key, "range")
    return t(f"set.invalid_{kind}", lang, name=name, low=low, high=high)


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings (group admins): the menu, or ``/settings <key> <value>`` to set one value."""
    app = context.application
    message = message_of(update)
    chat = message.chat
    lang = await chat_language(app, update)
    if not is_group(chat):
        await message.reply_text(t("reply.group_only", lang))
        return
    if not await sender_is_admin(app, message):
        await message.reply_text(t("reply.admin_only", lang))
        return
    args = context.args or []
    if not args:
        group = await store(app).get_group_settings(chat.id)
        text, markup = menu.main_page(group, lang, _timeouts(app))
        await message.reply_text(text, reply_markup=to_markup(markup))
        return
    key = args[0].lower()
    if key not in DEFAULT_GROUP_SETTINGS or len(args) < 2:
        await message.reply_text(t("set.usage", lang, keys=", ".join(DEFAULT_GROUP_SETTINGS)))
        return
    try:
        changes: dict[str, Any] = {key: parse_value(key, " ".join(args[1:]))}
    except GroupSettingError:
        name = t(f"set.name.{key}", lang)
        await message.reply_text(_invalid_text(key, name, lang))
        return
    if key in CUSTOM_STAKE_KEYS:
        changes["stake_tier"] = "custom"
    async with _lock(app, chat.id):
        group = await store(app).update_group_settings(chat.id, **changes)
        game(app).group_settings_changed(chat.id, group)
        await game(app).lobby.follow_settings(chat.id)
    lang = group_language(app, group)
    await message.reply_text(menu.saved_text(key, group, lang, _timeouts(app)))
    await bot_data(app).menus.follow(app.bot, chat.id, lang, group=True)


async def on_menu_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A press on the menu (``C:`` buttons): navigate, toggle, choose an option or close. A
    press on a menu already closed (its message has no keyboard any more: an old client's
    button) is answered that the menu is closed and opens nothing."""
    app = context.application
    query = query_of(update)
    message = query.message
    try:
        press = menu.parse_menu_data(query.data or "")
    except menu.MenuDataError:
        press = None
    if press is None or message is None or not is_group(message.chat):
        await answer(query, t("pop.invalid", user_language(app, query.from_user)), alert=True)
        return
    chat_id = message.chat.id
    group = await store(app).get_group_settings(chat_id)
    lang = user_language(app, query.from_user, group_language(app, group))  # of the pop-ups
    if not await is_admin(app, chat_id, query.from_user.id):
        await answer(query, t("set.not_admin", lang), alert=True)
        return
    if getattr(message, "reply_markup", None) is None:  # closed: its buttons are gone
        await answer(query, t("set.menu_closed", lang), alert=True)
        return
    async with _lock(app, chat_id):
        group = await store(app).get_group_settings(chat_id)
        if press.version != menu.settings_version(group):
            await _show(app, query, group, "m")
            await answer(query, t("set.stale", lang), alert=True)
            return
        if press.op == "x":
            closed = t("set.closed", group_language(app, group))
            await edit_text(app.bot, chat_id, message.message_id, closed, None)
            await answer(query)
            return
        if press.op in ("m", "o"):
            await _show(app, query, group, press.op, press.key)
            await answer(query)
            return
        value = press.value
        if press.op == "t":
            value = not menu.effective_value(press.key, group)
        group = await store(app).update_group_settings(chat_id, **{press.key: value})
        game(app).group_settings_changed(chat_id, group)
        await _show(app, query, group, "m")
    lang = user_language(app, query.from_user, group_language(app, group))
    await answer(query, menu.saved_text(press.key, group, lang, _timeouts(app)))
    await game(app).lobby.follow_settings(chat_id)
    await bot_data(app).menus.follow(app.bot, chat_id, group_language(app, group), group=True)


async def _show(app: Application, query: CallbackQuery, group: dict[str, Any], page: str,
                key: str = "") -> None:
    """Draw the main page (``m``) or the options of ``key`` (``o``) on the menu message."""
    lang = group_language(app, group)
    if page == "o":
        text, markup = menu.options_page(key, group, lang, _timeouts(app))
    else:
        text, markup = menu.main_page(group, lang, _timeouts(app))
    if query.message is not None:
        await edit_text(app.bot, query.message.chat.id, query.message.message_id, text, markup)


def register(app: Application) -> None:
    """Route /settings and its menu's buttons."""
    app.add_handler(CommandHandler("settings", cmd_settings))
    app.add_handler(CallbackQueryHandler(on_menu_press, pattern=f"^{menu.PREFIX}:"))
