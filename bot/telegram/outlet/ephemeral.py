"""Ephemeral messages (Bot API 10.2, reshaped in 10.3), called raw: python-telegram-bot 22.8
stops at Bot API 10.0.

An ephemeral message is a message in a group or supergroup that only one member, its
receiver, sees; the bot edits and deletes it by ``(chat_id, receiver_user_id,
ephemeral_message_id)`` (:class:`EphemeralRef`), and presses on its buttons arrive as callback
queries whose ``message`` is that message (``message_id`` 0). What Telegram documents
(core.telegram.org/bots/api#ephemeral-messages-and-commands):

- any bot may send one to a user within 15 s of a callback query of theirs, naming it
  (``callback_query_id``), or of an ephemeral message of theirs (a command the bot declared
  ``is_ephemeral``), replying to it (``reply_parameters.ephemeral_message_id``); a bot that is
  a chat administrator may send one to any non-bot member of the chat at any time;
- delivery is not guaranteed, and they may disappear after some time or when the app restarts:
  an edit that succeeds says nothing about what the user sees.

How the calls are made: sends through PTB's own ``send_message``/``send_photo`` with the
10.3 parameter ``ephemeral_message_parameters`` in ``api_kwargs`` (so they go through the
bot's rate limiter like every send into the group, and the upload is PTB's); edits and deletes
through ``Bot.do_api_request``, which answers ``true``. The fields PTB does not know
(``ephemeral_message_id``, ``receiver_user``) are in the Message's ``api_kwargs``
(:func:`ref_of`).

Errors, as :mod:`bot.telegram.outlet.edits` and :mod:`bot.telegram.photos` handle them: a send
raises what Telegram answered (``BadRequest``: refused, e.g. the 15 s are over, the bot is not an
admin, the receiver left; ``RetryAfter`` once the rate limiter's retries are spent; ``Forbidden``),
or :class:`NotEphemeral` (a ``BadRequest``) when the server sent a regular message instead
(it predates the parameters), which is deleted at once;
an edit gives ``True`` when done or "not modified", ``False`` (logged) for any other
``BadRequest`` (the message is gone or no longer editable: send it afresh), and raises every
other error.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from telegram import (
    Bot,
    BotCommand,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    MaybeInaccessibleMessage,
    Message,
)
from telegram.error import BadRequest, TelegramError

from bot.telegram import photos
from bot.telegram.outlet.edits import edited

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EphemeralRef:
    """Where an ephemeral message is: its group, its receiver (a user id) and its identifier
    inside the group (``ephemeral_message_id``; Telegram may reuse it once the message is
    deleted or expired)."""

    chat_id: int
    receiver_id: int
    ephemeral_message_id: int

    def params(self) -> dict[str, int]:
        """The three parameters every ``editEphemeralMessage…`` and ``deleteEphemeralMessage``
        call takes."""
        return {"chat_id": self.chat_id, "receiver_user_id": self.receiver_id,
                "ephemeral_message_id": self.ephemeral_message_id}


def command(name: str, description: str) -> BotCommand:
    """A command for ``setMyCommands`` that users send ephemerally (Bot API 10.2
    ``BotCommand.is_ephemeral``): only the bot receives it, as a message with
    ``ephemeral_message_id`` (:func:`ref_of`), which the bot may answer ephemerally within
    15 s (``reply_to_ephemeral``)."""
    return BotCommand(name, description, api_kwargs={"is_ephemeral": True})


def ref_of(message: MaybeInaccessibleMessage | None) -> EphemeralRef | None:
    """The :class:`EphemeralRef` of an ephemeral message (one the bot sent, or the ``message``
    of a callback query from a button on one), read from the fields PTB leaves in
    ``api_kwargs``; ``None`` for a regular message or none."""
    if message is None:
        return None
    extra = message.api_kwargs
    number = extra.get("ephemeral_message_id")
    receiver = extra.get("receiver_user")
    if number is None or not isinstance(receiver, dict) or "id" not in receiver:
        return None
    return EphemeralRef(message.chat.id, int(receiver["id"]), int(number))


def parameters(receiver_id: int, callback_query_id: str | None = None,
               replace_query_message: bool = False,
               reply_to_ephemeral: int | None = None) -> dict[str, Any]:
    """The extra parameters of an ephemeral send: ``ephemeral_message_parameters`` (Bot API
    10.3 ``EphemeralMessageParameters``: the receiver, the callback query it answers within
    its 15 s, and whether it is shown in place of the message that query came from, never for
    a press on an ephemeral message), and ``reply_parameters`` naming the receiver's own
    ephemeral message it answers within its 15 s (an ephemeral command), if given."""
    options: dict[str, Any] = {"receiver_user_id": receiver_id}
    if callback_query_id is not None:
        options["callback_query_id"] = callback_query_id
    if replace_query_message:
        options["replace_callback_query_message"] = True
    extra: dict[str, Any] = {"ephemeral_message_parameters": options}
    if reply_to_ephemeral is not None:
        extra["reply_parameters"] = {"ephemeral_message_id": reply_to_ephemeral}
    return extra


class NotEphemeral(BadRequest):
    """The Bot API server answered an ephemeral send with a regular message: it does not know
    the parameters (a server older than Bot API 10.3, e.g. a self-hosted one not updated) and
    ignored them, as it ignores any unknown parameter, so the whole group was shown the
    message. It has been deleted again (as far as Telegram let us)."""


async def _sent(bot: Bot, message: Message, chat_id: int, receiver_id: int) -> EphemeralRef:
    """The reference of a sent ephemeral message; a regular message (the parameters were
    ignored) is deleted at once and :class:`NotEphemeral` raised: a hand must not stay in the
    group for everyone to read."""
    ref = ref_of(message)
    if ref is None:
        try:
            await bot.delete_message(chat_id, message.message_id)
        except TelegramError as exc:
            log.error("a message meant for %s only is in %s and could not be deleted: %s",
                      receiver_id, chat_id, exc)
        raise NotEphemeral("the Bot API server sent a regular message instead of an ephemeral"
                           " one (it needs Bot API 10.3)")
    return EphemeralRef(chat_id, receiver_id, ref.ephemeral_message_id)


async def send_text(
    bot: Bot,
    chat_id: int,
    receiver_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    callback_query_id: str | None = None,
    replace_query_message: bool = False,
    reply_to_ephemeral: int | None = None,
) -> EphemeralRef:
    """Send ``text`` (with ``markup``) into group ``chat_id``, seen only by ``receiver_id``,
    tied to the press ``callback_query_id`` or as the answer to the receiver's ephemeral
    message (command) ``reply_to_ephemeral``, if given (one of them is required unless the
    bot is an admin of the group).

    Raises:
        telegram.error.TelegramError: as Telegram answered (module docstring).
    """
    message = await bot.send_message(
        chat_id, text, reply_markup=markup,
        api_kwargs=parameters(receiver_id, callback_query_id, replace_query_message,
                              reply_to_ephemeral))
    return await _sent(bot, message, chat_id, receiver_id)


async def send_photo(
    bot: Bot,
    cache: photos.PhotoCache,
    chat_id: int,
    receiver_id: int,
    picture: photos.Picture,
    caption: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    callback_query_id: str | None = None,
    replace_query_message: bool = False,
    reply_to_ephemeral: int | None = None,
) -> EphemeralRef:
    """Send ``picture`` with ``caption`` (cut to 1024 characters) and ``markup`` into group
    ``chat_id``, seen only by ``receiver_id`` (tied to a press or a command as for
    :func:`send_text`): by its cached ``file_id`` when it was uploaded before (a refused one is
    forgotten and the bytes sent), else the bytes, whose ``file_id`` is then cached.

    Raises:
        telegram.error.TelegramError: as Telegram answered (module docstring).
    """
    digest = picture.digest
    file_id = cache.get(digest)
    options = parameters(receiver_id, callback_query_id, replace_query_message,
                         reply_to_ephemeral)
    text = photos.fit_caption(caption)
    if file_id is not None:
        try:
            message = await bot.send_photo(chat_id, file_id, caption=text, reply_markup=markup,
                                           api_kwargs=options)
        except BadRequest as exc:
            if not photos._refused_file(exc):
                raise
            log.info("cached file_id refused (%s); uploading again", exc.message)
            cache.forget(digest)
        else:
            return await _sent(bot, message, chat_id, receiver_id)
    message = await bot.send_photo(chat_id, picture.data, caption=text, reply_markup=markup,
                                   filename=picture.filename, api_kwargs=options)
    cache.remember(digest, message)
    return await _sent(bot, message, chat_id, receiver_id)


async def _call(bot: Bot, method: str, ref: EphemeralRef, **params: Any) -> None:
    await bot.do_api_request(method, api_kwargs={
        **ref.params(), **{key: value for key, value in params.items() if value is not None}})


async def edit_text(bot: Bot, ref: EphemeralRef, text: str,
                    markup: InlineKeyboardMarkup | None = None) -> bool:
    """Replace the text and keyboard of the ephemeral text message ``ref``
    (``editEphemeralMessageText``; no ``markup`` removes the keyboard); ``False`` if it cannot
    be edited any more (module docstring)."""
    return await edited(_call(bot, "editEphemeralMessageText", ref, text=text,
                              reply_markup=markup),
                        "editEphemeralMessageText", ref.chat_id)


async def edit_caption(bot: Bot, ref: EphemeralRef, caption: str,
                       markup: InlineKeyboardMarkup | None = None) -> bool:
    """Replace the caption (cut to 1024 characters) and keyboard of the ephemeral photo
    message ``ref``, keeping its picture (``editEphemeralMessageCaption``); ``False`` if it
    cannot be edited any more."""
    return await edited(_call(bot, "editEphemeralMessageCaption", ref,
                              caption=photos.fit_caption(caption), reply_markup=markup),
                        "editEphemeralMessageCaption", ref.chat_id)


async def edit_photo(bot: Bot, cache: photos.PhotoCache, ref: EphemeralRef,
                     picture: photos.Picture, caption: str,
                     markup: InlineKeyboardMarkup | None = None) -> bool:
    """Replace the picture, caption and keyboard of the ephemeral message ``ref``
    (``editEphemeralMessageMedia``): by the picture's cached ``file_id`` when there is one,
    else by uploading it (Bot API 10.3; 10.2 took only a ``file_id`` or a URL). The answer is
    ``true``, not the message, so an upload here leaves no ``file_id`` to cache: send a
    picture with :func:`send_photo` to have it cached. ``False`` if it cannot be edited any
    more."""
    digest = picture.digest
    file_id = cache.get(digest)
    text = photos.fit_caption(caption)

    async def replace() -> None:
        if file_id is not None:
            try:
                await _call(bot, "editEphemeralMessageMedia", ref,
                            media=InputMediaPhoto(file_id, caption=text), reply_markup=markup)
                return
            except BadRequest as exc:
                if not photos._refused_file(exc):
                    raise
                log.info("cached file_id refused (%s); uploading again", exc.message)
                cache.forget(digest)
        media = InputMediaPhoto(picture.data, caption=text, filename=picture.filename)
        await _call(bot, "editEphemeralMessageMedia", ref, media=media, reply_markup=markup)

    return await edited(replace(), "editEphemeralMessageMedia", ref.chat_id)


async def edit_markup(bot: Bot, ref: EphemeralRef,
                      markup: InlineKeyboardMarkup | None = None) -> bool:
    """Replace only the keyboard of the ephemeral message ``ref`` (none removes it;
    ``editEphemeralMessageReplyMarkup``); ``False`` if it cannot be edited any more."""
    return await edited(_call(bot, "editEphemeralMessageReplyMarkup", ref, reply_markup=markup),
                        "editEphemeralMessageReplyMarkup", ref.chat_id)


async def delete(bot: Bot, ref: EphemeralRef) -> bool:
    """Delete the ephemeral message ``ref`` (``deleteEphemeralMessage``); ``False`` when
    Telegram refused (already gone, expired): failures are only logged."""
    try:
        await _call(bot, "deleteEphemeralMessage", ref)
        return True
    except TelegramError as exc:
        log.info("deleteEphemeralMessage in %s failed: %s", ref.chat_id, exc)
        return False
