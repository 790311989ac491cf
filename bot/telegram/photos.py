"""Sending and editing photo messages, uploading each picture only once.

Telegram gives every uploaded photo a ``file_id``; sending that id again costs no upload. The
:class:`PhotoCache` (``BotData.photo_cache``) maps the sha256 of a picture's bytes to the
``file_id`` Telegram returned for it, least recently used first out. A cached ``file_id`` that
Telegram refuses is forgotten and the picture uploaded again.

Errors follow :mod:`bot.telegram.outlet.edits`: "message is not modified" is success, any
other ``BadRequest`` on an edit (message deleted, no photo in it) gives ``False``, every other
Telegram error (``Forbidden``, ``RetryAfter``) propagates to the caller.
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from dataclasses import dataclass

from telegram import Bot, InputMediaPhoto, Message, ReplyParameters
from telegram.error import BadRequest

from bot.presentation.keyboards import Keyboard
from bot.telegram.markup import to_markup
from bot.telegram.outlet.edits import edited

log = logging.getLogger(__name__)

#: Telegram's limit on a photo caption, in characters.
CAPTION_LIMIT = 1024
#: How many ``file_id`` values the cache keeps (a few hundred bytes each).
CACHE_SIZE = 2048


@dataclass(frozen=True, slots=True)
class Picture:
    """A rendered picture: its bytes, their sha256 (hex) and a file name for the upload."""

    data: bytes
    filename: str = "picture.png"

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


class PhotoCache:
    """Telegram ``file_id`` by sha256 of the picture's bytes, at most ``size`` entries (LRU)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._ids: OrderedDict[str, str] = OrderedDict()

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, digest: str) -> str | None:
        """The ``file_id`` of the picture with this digest, or ``None`` (then upload it)."""
        file_id = self._ids.get(digest)
        if file_id is not None:
            self._ids.move_to_end(digest)
        return file_id

    def put(self, digest: str, file_id: str) -> None:
        """Remember ``file_id`` for the digest; the least recently used entry goes if full."""
        self._ids[digest] = file_id
        self._ids.move_to_end(digest)
        while len(self._ids) > self.size:
            self._ids.popitem(last=False)

    def forget(self, digest: str) -> None:
        self._ids.pop(digest, None)

    def remember(self, digest: str, message: Message | bool) -> None:
        """Keep the ``file_id`` of the largest size of the photo in ``message``, if any."""
        if isinstance(message, Message) and message.photo:
            self.put(digest, message.photo[-1].file_id)


def fit_caption(text: str) -> str:
    """``text`` cut to :data:`CAPTION_LIMIT` characters (ending in ``…`` when cut)."""
    return text if len(text) <= CAPTION_LIMIT else text[: CAPTION_LIMIT - 1] + "…"


def _refused_file(exc: BadRequest) -> bool:
    """Telegram does not know (or no longer accepts) the ``file_id`` we sent."""
    text = exc.message.lower()
    return "file" in text and "message" not in text


async def send_photo(
    bot: Bot,
    cache: PhotoCache,
    chat_id: int,
    picture: Picture,
    caption: str,
    markup: Keyboard | None = None,
    thread_id: int | None = None,
    reply_to: int | None = None,
) -> Message:
    """Send ``picture`` with ``caption`` (cut to 1024 characters) and ``markup``, as a reply to
    message ``reply_to`` if given: its cached ``file_id`` if it was uploaded before, else the
    bytes."""
    digest = picture.digest
    file_id = cache.get(digest)
    quote = ReplyParameters(reply_to, allow_sending_without_reply=True) \
        if reply_to is not None else None
    if file_id is not None:
        try:
            return await bot.send_photo(chat_id, file_id, caption=fit_caption(caption),
                                        reply_markup=to_markup(markup), message_thread_id=thread_id,
                                        reply_parameters=quote)
        except BadRequest as exc:
            if not _refused_file(exc):
                raise
            log.info("cached file_id refused (%s); uploading again", exc.message)
            cache.forget(digest)
    message = await bot.send_photo(chat_id, picture.data, caption=fit_caption(caption),
                                   reply_markup=to_markup(markup), message_thread_id=thread_id,
                                   filename=picture.filename, reply_parameters=quote)
    cache.remember(digest, message)
    return message


async def edit_photo(
    bot: Bot,
    cache: PhotoCache,
    chat_id: int,
    message_id: int,
    picture: Picture,
    caption: str,
    markup: Keyboard | None,
) -> bool:
    """Replace a photo message's picture, caption and keyboard (``editMessageMedia``), with the
    cached ``file_id`` when there is one; ``False`` if the message cannot be edited any more."""
    digest = picture.digest
    file_id = cache.get(digest)
    text = fit_caption(caption)

    async def replace() -> None:
        if file_id is not None:
            try:
                await bot.edit_message_media(InputMediaPhoto(file_id, caption=text), chat_id,
                                             message_id, reply_markup=to_markup(markup))
                return
            except BadRequest as exc:
                if not _refused_file(exc):
                    raise
                log.info("cached file_id refused (%s); uploading again", exc.message)
                cache.forget(digest)
        media = InputMediaPhoto(picture.data, caption=text, filename=picture.filename)
        cache.remember(digest, await bot.edit_message_media(media, chat_id, message_id,
                                                            reply_markup=to_markup(markup)))

    return await edited(replace(), "editMessageMedia", chat_id)


async def edit_caption(
    bot: Bot, chat_id: int, message_id: int, caption: str, markup: Keyboard | None
) -> bool:
    """Edit a photo message's caption and keyboard, keeping its picture; ``False`` if the
    message cannot be edited any more."""
    return await edited(
        bot.edit_message_caption(chat_id, message_id, caption=fit_caption(caption),
                                 reply_markup=to_markup(markup)),
        "editMessageCaption", chat_id,
    )
