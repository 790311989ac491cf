"""Hands in the group: a seat's hand message as an ephemeral message (only its player sees it),
sent, edited and withdrawn for :meth:`bot.game.outlet.Outlet.present_hand`.

Telegram lets a bot send an ephemeral message to a member within 15 s of a callback query of
theirs (naming it), or at any time when the bot is an administrator of the group
(:mod:`bot.telegram.outlet.ephemeral`); editing one needs neither. So:

- the press being handled is known to the task handling it (:func:`hold_press`, set when a
  press is parsed): a hand whose message is missing is sent with that press's id when the
  press is its own player's, in this group, less than :data:`PRESS_WINDOW` seconds old;
- otherwise it is sent only when the bot is an administrator of the group (``getChatMember``,
  remembered for :data:`ADMIN_CACHE_SECONDS`, forgotten when a ``my_chat_member`` update says
  the bot's status changed: :meth:`EphemeralHands.forget_admin`); else nothing is sent and the
  player's next press (🂠 My cards on the table) brings it;
- an edit that fails (the message expired or was deleted) sends the hand afresh where the rules
  above allow, else says that nothing shows it (``None``), so that the next press sends it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from contextvars import ContextVar
from dataclasses import dataclass

from telegram import Bot, CallbackQuery
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, TelegramError

from bot.game.drawing import Drawing
from bot.telegram import photos
from bot.telegram.markup import to_markup
from bot.telegram.outlet import ephemeral
from bot.telegram.outlet.ephemeral import EphemeralRef
from bot.telegram.outlet.send import picture_of

log = logging.getLogger(__name__)

#: Seconds after a press within which its id is used to send its presser an ephemeral message
#: (Telegram allows 15: the rest covers the way there).
PRESS_WINDOW = 13.0
#: Seconds the bot's administrator status in a group is remembered.
ADMIN_CACHE_SECONDS = 300.0
_ADMIN = frozenset({ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR})


@dataclass(frozen=True, slots=True)
class HeldPress:
    """The press the current task handles: its group (chat), presser and query id, and when
    it came (monotonic seconds)."""

    chat_id: int
    user_id: int
    query_id: str
    at: float


#: The press the current task handles (each update is handled in a task of its own).
PRESS: ContextVar[HeldPress | None] = ContextVar("held_press", default=None)


def hold_press(query: CallbackQuery) -> None:
    """Remember ``query`` as the press the current task handles: an ephemeral hand its presser
    lacks may be sent tied to it (:meth:`EphemeralHands.present`)."""
    message = query.message
    if message is None:
        return
    PRESS.set(HeldPress(message.chat.id, query.from_user.id, query.id, time.monotonic()))


def press_for(chat_id: int, user_id: int) -> str | None:
    """The id of the press of ``user_id`` in group ``chat_id`` this task handles, if it is
    recent enough to send them an ephemeral message (:data:`PRESS_WINDOW`)."""
    held = PRESS.get()
    if held is None or held.chat_id != chat_id or held.user_id != user_id:
        return None
    if time.monotonic() - held.at > PRESS_WINDOW:
        return None
    return held.query_id


class EphemeralHands:
    """Sends and edits the hands shown in groups (module docstring).

    Args:
        bot: the Application's bot. cache: uploaded pictures' ``file_id``.
    """

    def __init__(self, bot: Bot, cache: photos.PhotoCache) -> None:
        self.bot = bot
        self.cache = cache
        #: chat id → (the bot is an administrator there, when that was learned).
        self._admin: dict[int, tuple[bool, float]] = {}

    def forget_admin(self, chat_id: int) -> None:
        """The bot's status in ``chat_id`` changed (a ``my_chat_member`` update): ask again."""
        self._admin.pop(chat_id, None)

    async def is_admin(self, chat_id: int) -> bool:
        """The bot is an administrator of group ``chat_id`` (remembered for
        :data:`ADMIN_CACHE_SECONDS`, a failed ``getChatMember`` as ``False`` too, so that the
        hands of a table never ask at every step)."""
        known = self._admin.get(chat_id)
        now = time.monotonic()
        if known is not None and now - known[1] < ADMIN_CACHE_SECONDS:
            return known[0]
        try:
            member = await self.bot.get_chat_member(chat_id, self.bot.id)
        except TelegramError as exc:  # taken as no: asked again after the same while
            log.info("getChatMember of the bot in %s failed: %s", chat_id, exc)
            admin = False
        else:
            admin = member.status in _ADMIN
        self._admin[chat_id] = (admin, now)
        return admin

    async def present(self, chat_id: int, receiver_id: int, ephemeral_id: int | None,
                      is_photo: bool, shown_key: object, drawing: Drawing
                      ) -> tuple[int, bool] | None:
        """Make the ephemeral message ``ephemeral_id`` of ``receiver_id`` in group ``chat_id``
        show ``drawing`` (editing in place; a photo showing ``shown_key`` if ``is_photo``), or
        send it afresh (module docstring); ``(ephemeral_message_id, is_photo)`` of the message
        that shows it now, or ``None`` when none does (failures are logged)."""
        photo = drawing.is_photo
        markup = to_markup(drawing.markup)
        if ephemeral_id is not None and is_photo == photo:
            ref = EphemeralRef(chat_id, receiver_id, ephemeral_id)
            try:
                if not photo:
                    done = await ephemeral.edit_text(self.bot, ref, drawing.text, markup)
                elif isinstance(shown_key, Hashable) and drawing.key == shown_key:
                    done = await ephemeral.edit_caption(self.bot, ref, drawing.text, markup)
                else:
                    picture = await picture_of(drawing)
                    done = await ephemeral.edit_photo(self.bot, self.cache, ref, picture,
                                                      drawing.text, markup)
            except TelegramError as exc:
                log.warning("editing a hand in %s failed: %s", chat_id, exc)
                done = False
            if done:
                return ephemeral_id, is_photo
        sent = await self.send(chat_id, receiver_id, drawing)
        if sent is not None and ephemeral_id is not None:
            await self.withdraw(chat_id, receiver_id, ephemeral_id)
        return sent

    async def send(self, chat_id: int, receiver_id: int, drawing: Drawing
                   ) -> tuple[int, bool] | None:
        """Send ``drawing`` to ``receiver_id`` in group ``chat_id`` as a new ephemeral message,
        tied to their press in hand, or as the group's administrator; ``None`` when neither
        allows it now or Telegram refused (logged)."""
        query_id = press_for(chat_id, receiver_id)
        if query_id is None and not await self.is_admin(chat_id):
            return None
        markup = to_markup(drawing.markup)
        try:
            if drawing.render is not None:
                picture = await picture_of(drawing)
                ref = await ephemeral.send_photo(self.bot, self.cache, chat_id, receiver_id,
                                                 picture, drawing.text, markup,
                                                 callback_query_id=query_id)
            else:
                ref = await ephemeral.send_text(self.bot, chat_id, receiver_id, drawing.text,
                                                markup, callback_query_id=query_id)
        except BadRequest as exc:
            log.info("a hand could not be sent in %s: %s", chat_id, exc)
            if query_id is None:
                self.forget_admin(chat_id)  # refused as an admin: ask again next time
            return None
        except TelegramError as exc:
            log.warning("sending a hand in %s failed: %s", chat_id, exc)
            return None
        return ref.ephemeral_message_id, drawing.render is not None

    async def withdraw(self, chat_id: int, receiver_id: int, ephemeral_id: int) -> None:
        """Delete the ephemeral message ``ephemeral_id`` of ``receiver_id`` (gone already, or
        refused: logged only)."""
        await ephemeral.delete(self.bot, EphemeralRef(chat_id, receiver_id, ephemeral_id))

