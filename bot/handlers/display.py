"""Showing a message as a picture with a caption or as text (issue 4), and the private "Your
turn" notices.

A message's look is a :class:`Drawing`: the text (the caption of a picture), the keyboard, and in
pictures mode the picture's input (``key``, any hashable value that decides the picture) with the
function that renders it. :func:`present` brings a message to a drawing with as little as
possible: a caption edit when the picture is the one shown already, ``editMessageMedia`` (with the
picture's cached ``file_id`` when it was uploaded before, :mod:`bot.photos`) when it changed, a
text edit in text mode. A text message cannot become a photo nor a photo a text message: then a
new message is sent and the old one deleted. Pictures are rendered in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import Forbidden, TelegramError
from telegram.ext import Application

from bot import photos
from bot.handlers.common import edit_text, send_text
from bot.i18n import t
from bot.table import Table

log = logging.getLogger(__name__)


def photo_cache(app: Application) -> photos.PhotoCache:
    """The ``file_id`` cache of uploaded pictures (``bot_data["photo_cache"]``)."""
    return app.bot_data["photo_cache"]


@dataclass(frozen=True, slots=True)
class Drawing:
    """What one message should show.

    Attributes:
        text: the message text, or the caption of the picture (cut to 1024 characters).
        markup: the inline keyboard, or ``None``.
        key: the picture's input (equal keys give the same picture); ``None`` for text only.
        render: gives the picture's bytes (called in a worker thread). ``None`` with a ``key``:
            keep the picture the message shows (only the caption changes), or show text if it
            shows none.
        filename: the upload's file name (``.png`` / ``.jpg``).
        data: the picture's bytes once rendered (:func:`prerendered`).
    """

    text: str
    markup: InlineKeyboardMarkup | None
    key: Hashable | None = None
    render: Callable[[], bytes] | None = None
    filename: str = "picture.png"
    data: bytes | None = None

    @property
    def is_photo(self) -> bool:
        return self.key is not None

    @property
    def signature(self) -> str:
        """Text, keyboard and picture input in one string: equal signatures, equal messages."""
        markup = self.markup.to_json() if self.markup else ""
        return f"{self.text}\n{markup}\n{self.key!r}"

    @classmethod
    def keeping_picture(cls, text: str, markup: InlineKeyboardMarkup | None) -> Drawing:
        """A new caption and keyboard under the picture the message shows now."""
        return cls(text, markup, KEPT)


#: The ``key`` of :meth:`Drawing.keeping_picture`.
KEPT = "kept picture"


async def _picture(drawing: Drawing) -> photos.Picture:
    data = drawing.data
    if data is None:
        assert drawing.render is not None
        data = await asyncio.to_thread(drawing.render)
    return photos.Picture(data, drawing.filename)


async def prerendered(drawing: Drawing, shown_key: Hashable | None) -> Drawing:
    """``drawing`` with its picture rendered if :func:`present` will need it (the message shows
    another picture or none), so that the time of the request can be known beforehand."""
    if drawing.render is None or drawing.data is not None or drawing.key == shown_key:
        return drawing
    return replace(drawing, data=await asyncio.to_thread(drawing.render))


async def delete_quietly(bot: Bot, chat_id: int, message_id: int) -> None:
    """Delete a message; a message already gone (or a chat closed to us) is no error."""
    try:
        await bot.delete_message(chat_id, message_id)
    except TelegramError as exc:
        log.info("deleteMessage in %s failed: %s", chat_id, exc)


async def present(
    app: Application,
    chat_id: int,
    message_id: int | None,
    is_photo: bool,
    shown_key: Hashable | None,
    drawing: Drawing,
    thread_id: int | None = None,
) -> tuple[int, bool]:
    """Make message ``message_id`` (a photo if ``is_photo``, showing the picture of
    ``shown_key``) show ``drawing``; returns the id of the message that shows it now and
    whether that message is a photo.

    Edits in place where Telegram allows it. A new message is sent (into forum topic
    ``thread_id``) when there is none, when the message cannot be edited any more (deleted), or
    when it changes between text and photo; the old message is then deleted.

    Raises:
        telegram.error.Forbidden, telegram.error.RetryAfter: as Telegram answered (the caller
            decides what a blocked chat or a flood wait means).
    """
    bot = app.bot
    cache = photo_cache(app)
    picture = None
    kept = drawing.is_photo and drawing.render is None  # keeps what the message shows
    photo = is_photo if kept else drawing.is_photo
    if message_id is not None and is_photo == photo:
        if not photo:
            done = await edit_text(bot, chat_id, message_id, drawing.text, drawing.markup)
        elif kept or drawing.key == shown_key:
            done = await photos.edit_caption(bot, chat_id, message_id, drawing.text,
                                             drawing.markup)
        else:
            picture = await _picture(drawing)
            done = await photos.edit_photo(bot, cache, chat_id, message_id, picture,
                                           drawing.text, drawing.markup)
        if done:
            return message_id, is_photo
    if drawing.render is not None:
        picture = picture or await _picture(drawing)
        message = await photos.send_photo(bot, cache, chat_id, picture, drawing.text,
                                          drawing.markup, thread_id)
    else:
        message = await send_text(bot, chat_id, drawing.text, drawing.markup, thread_id)
    if message_id is not None:
        await delete_quietly(bot, chat_id, message_id)
    return message.message_id, drawing.render is not None


async def set_caption(
    bot: Bot, chat_id: int, message_id: int, is_photo: bool, text: str
) -> None:
    """Replace a message's text (or a photo's caption) by ``text`` and take its keyboard away;
    failures are only logged (the message closes a table or a hand)."""
    try:
        if is_photo:
            await photos.edit_caption(bot, chat_id, message_id, text, None)
        else:
            await edit_text(bot, chat_id, message_id, text, None)
    except TelegramError as exc:
        log.info("closing message in %s failed: %s", chat_id, exc)


# --- "Your turn" notices ------------------------------------------------------------------------


def notice_text(table: Table, seat: int) -> str:
    """The private notice that ``seat`` is to act, in its player's language, naming the group
    when it has a title."""
    lang = table.seat_lang(seat)
    if table.title:
        return t("notice.your_turn_in", lang, group=table.title)
    return t("notice.your_turn", lang)


async def update_turn_notices(app: Application, table: Table, due: Sequence[int]) -> list[int]:
    """Keep one "Your turn" message in the private chat of each human seat in ``due`` (edits of
    the hand message do not notify) and delete it for every other seat (it acted, or the turn
    passed). Sends with notification on; at most one pending notice per seat
    (``table.turn_notices``). Returns the seats whose chat answered 403 (marked ``blocked``).
    """
    blocked = []
    for i, seat in table.humans():
        pending = table.turn_notices[i] if i < len(table.turn_notices) else None
        wanted = i in due and not seat.blocked and not seat.left
        if wanted and pending is None:
            try:
                message = await app.bot.send_message(seat.user_id, notice_text(table, i),
                                                     disable_notification=False)
            except Forbidden:
                seat.blocked = True
                blocked.append(i)
                continue
            except TelegramError as exc:
                log.info("turn notice for seat %s at %s failed: %s", i, table.key, exc)
                continue
            _set_notice(table, i, message.message_id)
        elif not wanted and pending is not None:
            _set_notice(table, i, None)
            await delete_quietly(app.bot, seat.user_id, pending)
    return blocked


async def clear_turn_notices(app: Application, table: Table) -> None:
    """Delete every pending "Your turn" message (the deal ended or stopped)."""
    await update_turn_notices(app, table, ())


def _set_notice(table: Table, seat: int, message_id: int | None) -> None:
    while len(table.turn_notices) <= seat:
        table.turn_notices.append(None)
    table.turn_notices[seat] = message_id

