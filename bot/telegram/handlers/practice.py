"""/practice (练习): a deal in the player's private chat against two AI seats, no beans
(:meth:`bot.game.lobby.Lobby.open_practice`)."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import CommandHandler

from bot.core.i18n import t
from bot.telegram.handlers.common import game, person, store, user_language
from bot.telegram.services import App, Context


async def cmd_practice(update: Update, context: Context) -> None:
    """/practice: in private, deal a practice table; in a group, say it is played in private."""
    app = context.application
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    seated = person(user)
    player = await store(app).ensure_player(user.id, seated.name, seated.language)
    lang = user_language(app, user, player.language)
    if chat.type != ChatType.PRIVATE:
        await message.reply_text(t("reply.practice_private", lang))
        return
    refusal = await game(app).lobby.open_practice(seated, lang)
    if refusal is not None:
        await message.reply_text(refusal)


def register(app: App) -> None:
    """Route /practice (and /lianxi, its pinyin)."""
    app.add_handler(CommandHandler(["practice", "lianxi"], cmd_practice))
