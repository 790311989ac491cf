"""Competitions (issue 11): ``/match`` (fixed deals, 定局积分) and ``/knockout`` (打立出局) open a
match lobby; its option buttons (``O:``) let the opener or an admin set the options before the
start. Entry points into :class:`bot.game.matches.Matches`."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CallbackQueryHandler, CommandHandler, ContextTypes

from bot import callbacks as cb
from bot.game.match import FIXED, KNOCKOUT, LIMITS
from bot.handlers import senders
from bot.handlers.common import (
    GROUP_TYPES,
    answer,
    chat_language,
    game,
    locked_press,
    may_manage,
    person,
)
from bot.i18n import t
from bot.numbers import grouped, parse_whole
from bot.services import App, Context

#: The command of each format.
COMMANDS = {FIXED: "match", KNOCKOUT: "knockout"}


async def _open(update: Update, context: ContextTypes.DEFAULT_TYPE, fmt: str) -> None:
    app = context.application
    message = senders.message_of(update)
    if message.chat.type not in GROUP_TYPES:
        await message.reply_text(t("reply.group_only", await chat_language(app, update)))
        return
    user = await senders.player(app, update)
    if user is None:
        return
    args = context.args or []
    low, high = LIMITS["entry_fee"]
    fee = parse_whole(args[0], low=low, high=high) if len(args) == 1 else 0
    if fee is None or len(args) > 1:
        lang = await chat_language(app, update)
        await message.reply_text(t("match.usage", lang, command=f"/{COMMANDS[fmt]}",
                                             high=grouped(high)))
        return
    chat = message.chat
    thread = message.message_thread_id if message.is_topic_message else None
    _, text = await game(app).matches.open(chat.id, thread, chat.title or "", person(user), fmt,
                                           entry_fee=fee)
    if text is not None:
        await message.reply_text(text)


async def cmd_match(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/match [entry fee]: open a fixed-deal match (定局积分, RULES.md §10) in this group or
    topic; the fee (beans, default 0) can also be typed, any whole number up to 1,000,000."""
    await _open(update, context, FIXED)


async def cmd_knockout(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/knockout [entry fee]: open a knock-out by chips (打立出局, RULES.md §10)."""
    await _open(update, context, KNOCKOUT)


async def on_option(update: Update, context: Context) -> None:
    """A match lobby's option button: the opener or an admin steps one option."""
    app = context.application
    query = senders.query_of(update)
    async with locked_press(app, query) as press:
        if press is None:
            return
        if not await may_manage(app, press.table, query.from_user.id):
            await answer(query, t("pop.only_opener", press.lang), alert=True)
            return
        if not game(app).matches.set_option(press.table, press.data.payload):
            await answer(query, t("match.pop_limit", press.lang))
            return
        await answer(query, t("match.pop_set", press.lang))
        await game(app).lobby.refresh(press.table)


def register(app: App) -> None:
    """Route /match, /knockout and the option buttons."""
    app.add_handler(CommandHandler("match", cmd_match))
    app.add_handler(CommandHandler("knockout", cmd_knockout))
    app.add_handler(CallbackQueryHandler(on_option, pattern=cb.pattern(cb.MATCH_OPTION)))
