"""Who sent a command: a person, or a chat speaking for itself.

Telegram delivers some group messages from accounts that are not people: an anonymous admin's
message comes from ``GroupAnonymousBot`` with ``sender_chat`` = the group; a channel's post (or
a user writing "as the channel") from ``Channel_Bot`` with ``sender_chat`` = the channel; forwards
from a linked channel from the Telegram service account. They share one Telegram id each across
every group, so they must never get a wallet: commands that need a player answer them with a
polite refusal (:func:`player`), and admin commands accept an anonymous admin because Telegram
lets only a group's admins write as the group (:func:`sender_is_admin`).

Also the parts of an update a handler is routed for (:func:`message_of`, :func:`query_of`).
"""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update, User
from telegram.ext import Application

from bot.core.i18n import t
from bot.telegram.handlers.common import chat_language, is_admin

#: ``GroupAnonymousBot``: the sender of anonymous admins' messages.
GROUP_ANONYMOUS_BOT_ID = 1087968824
#: ``Channel_Bot``: the sender of messages written as a channel.
CHANNEL_BOT_ID = 136817688
#: The Telegram service account (forwards from a linked channel, notifications).
TELEGRAM_SERVICE_ID = 777000
NOT_PEOPLE = frozenset({GROUP_ANONYMOUS_BOT_ID, CHANNEL_BOT_ID, TELEGRAM_SERVICE_ID})


def message_of(update: Update) -> Message:
    """The message of a command update (PTB's CommandHandler only routes messages).

    Raises:
        ValueError: the update carries no message.
    """
    message = update.effective_message
    if message is None:
        raise ValueError(f"update {update.update_id} carries no message")
    return message


def query_of(update: Update) -> CallbackQuery:
    """The callback query of a button update (PTB's CallbackQueryHandler only routes those).

    Raises:
        ValueError: the update carries no callback query.
    """
    query = update.callback_query
    if query is None:
        raise ValueError(f"update {update.update_id} carries no callback query")
    return query


def person(message: Message) -> User | None:
    """The person who sent ``message``; ``None`` when a chat sent it (``sender_chat``: an
    anonymous admin, a channel) or an account that is not a person (a bot, Telegram's
    service accounts)."""
    user = message.from_user
    if message.sender_chat is not None or user is None or user.is_bot or user.id in NOT_PEOPLE:
        return None
    return user


def sent_as_group(message: Message) -> bool:
    """True for an anonymous admin's message: written as the group itself."""
    return message.sender_chat is not None and message.sender_chat.id == message.chat.id


async def player(app: Application, update: Update) -> User | None:
    """The person behind a command that needs a player; otherwise answers (in the chat's
    language) that beans belong to people and returns ``None``."""
    message = message_of(update)
    user = person(message)
    if user is None:
        await message.reply_text(t("reply.not_person", await chat_language(app, update)))
    return user


async def sender_is_admin(app: Application, message: Message) -> bool:
    """Whether Telegram says the sender administers the message's group: an anonymous admin
    (only admins can write as the group) or a person whose ``getChatMember`` status is owner
    or administrator (:func:`bot.telegram.handlers.common.is_admin`). A channel or a bot is not."""
    if sent_as_group(message):
        return True
    user = person(message)
    return user is not None and await is_admin(app, message.chat.id, user.id)
