"""Sending, editing, deleting and answering, with Telegram's harmless errors handled.

:func:`present` brings a message to a :class:`~bot.game.drawing.Drawing` with as little as
possible: a caption edit when the picture is the one shown already, ``editMessageMedia`` (with
the picture's cached ``file_id`` when it was uploaded before, :mod:`bot.telegram.photos`) when it
changed, a text edit in text mode. A text message cannot become a photo nor a photo a text message:
then a new message is sent and the old one deleted. Pictures are rendered in a worker thread, once
per picture input: the last :data:`RENDERED_SIZE` pictures are kept by their drawing's ``key``
(a table message posted again, equal states at two tables).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable
from contextvars import ContextVar

from telegram import Bot, CallbackQuery, Message
from telegram.error import TelegramError

from bot.game.drawing import Drawing
from bot.presentation.keyboards import Keyboard
from bot.telegram import photos
from bot.telegram.markup import to_markup
from bot.telegram.outlet.edits import edited

log = logging.getLogger(__name__)

#: How many rendered pictures are kept (20–50 KB each).
RENDERED_SIZE = 256
_rendered: OrderedDict[tuple[str, Hashable], bytes] = OrderedDict()


#: Set while a press's block runs whose answer is still to come (``bot.telegram.handlers.common.
#: locked_press``): what it sends meanwhile (a Join's welcome, which decides the answer) is
#: what the press waits for, so it goes ahead of the requests already waiting for the token's
#: budget (:class:`bot.telegram.workers.flood.SharedOverall`). Cleared by :func:`answer`.
ANSWER_PENDING: ContextVar[bool] = ContextVar("answer_pending", default=False)


async def answer(query: CallbackQuery, text: str | None = None, alert: bool = False,
                 url: str | None = None) -> None:
    """Answer a button press (every press gets exactly one answer); errors are only logged.
    ``url``: a ``t.me/<bot>?start=<payload>`` link the presser's app opens (the bot's private
    chat, which a Start there sends ``/start <payload>`` to)."""
    ANSWER_PENDING.set(False)
    try:
        await query.answer(text, show_alert=alert, url=url)
    except TelegramError as exc:
        log.info("answerCallbackQuery failed: %s", exc)


async def edit_text(
    bot: Bot, chat_id: int, message_id: int, text: str, markup: Keyboard | None
) -> bool:
    """Edit a message's text and keyboard; ``False`` if the message cannot be edited any more.

    "Message is not modified" counts as success; other ``BadRequest`` answers (message deleted,
    not found) are logged and give ``False``. Every other Telegram error propagates: the caller
    decides what ``Forbidden`` (a blocked private chat) or ``RetryAfter`` means.
    """
    return await edited(
        bot.edit_message_text(text, chat_id, message_id, reply_markup=to_markup(markup)),
        "editMessageText", chat_id,
    )


async def send_text(
    bot: Bot,
    chat_id: int,
    text: str,
    markup: Keyboard | None = None,
    thread_id: int | None = None,
    *,
    notify: bool | None = None,
) -> Message:
    """Send a plain-text message (into forum topic ``thread_id`` if given); ``notify=True``
    asks for a notification even in a chat muted by default (``disable_notification=False``)."""
    return await bot.send_message(
        chat_id, text, reply_markup=to_markup(markup), message_thread_id=thread_id,
        disable_notification=None if notify is None else not notify,
    )


async def delete_quietly(bot: Bot, chat_id: int, message_id: int) -> None:
    """Delete a message; a message already gone (or a chat closed to us) is no error."""
    try:
        await bot.delete_message(chat_id, message_id)
    except TelegramError as exc:
        log.info("deleteMessage in %s failed: %s", chat_id, exc)


async def set_caption(bot: Bot, chat_id: int, message_id: int, is_photo: bool, text: str) -> bool:
    """Replace a message's text (or a photo's caption) by ``text`` and take its keyboard away;
    ``False`` when it cannot be edited any more (failures are only logged)."""
    try:
        if is_photo:
            return await photos.edit_caption(bot, chat_id, message_id, text, None)
        return await edit_text(bot, chat_id, message_id, text, None)
    except TelegramError as exc:
        log.info("closing message in %s failed: %s", chat_id, exc)
        return False


async def picture_of(drawing: Drawing) -> photos.Picture:
    """The drawing's picture, rendered in a worker thread unless it was already (for this
    drawing or an earlier one with an equal ``key`` and file name)."""
    data = drawing.data
    if data is None:
        assert drawing.render is not None and drawing.key is not None
        slot = (drawing.filename, drawing.key)
        data = _rendered.get(slot)
        if data is None:
            data = await asyncio.to_thread(drawing.render)
            _rendered[slot] = data
            while len(_rendered) > RENDERED_SIZE:
                _rendered.popitem(last=False)
        else:
            _rendered.move_to_end(slot)
    return photos.Picture(data, drawing.filename)


async def present(
    bot: Bot,
    cache: photos.PhotoCache,
    chat_id: int,
    message_id: int | None,
    is_photo: bool,
    shown_key: Hashable | None,
    drawing: Drawing,
    thread_id: int | None = None,
    discard: Callable[[int], None] | None = None,
) -> tuple[int, bool]:
    """Make message ``message_id`` (a photo if ``is_photo``, showing the picture of
    ``shown_key``) show ``drawing``; returns the id of the message that shows it now and
    whether that message is a photo.

    Edits in place where Telegram allows it. A new message is sent (into forum topic
    ``thread_id``) when there is none, when the message cannot be edited any more (deleted), or
    when it changes between text and photo; the old message is then deleted (handed to
    ``discard`` instead when given, e.g. to delete it when the chat's budget has room).

    Raises:
        telegram.error.TelegramError: as Telegram answered to a send (the caller decides what
            a blocked chat means).
    """
    picture = None
    photo = drawing.is_photo
    if message_id is not None and is_photo == photo:
        if not photo:
            done = await edit_text(bot, chat_id, message_id, drawing.text, drawing.markup)
        elif drawing.key == shown_key:
            done = await photos.edit_caption(bot, chat_id, message_id, drawing.text,
                                             drawing.markup)
        else:
            picture = await picture_of(drawing)
            done = await photos.edit_photo(bot, cache, chat_id, message_id, picture,
                                           drawing.text, drawing.markup)
        if done:
            return message_id, is_photo
    if drawing.render is not None:
        picture = picture or await picture_of(drawing)
        message = await photos.send_photo(bot, cache, chat_id, picture, drawing.text,
                                          drawing.markup, thread_id)
    else:
        message = await send_text(bot, chat_id, drawing.text, drawing.markup, thread_id)
    if message_id is not None and discard is not None:
        discard(message_id)
    elif message_id is not None:
        await delete_quietly(bot, chat_id, message_id)
    return message.message_id, drawing.render is not None
