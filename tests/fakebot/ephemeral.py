"""Ephemeral messages in the fake Bot API (Bot API 10.2, reshaped in 10.3): a message in a group
that only one member sees.

What Telegram documents (core.telegram.org/bots/api#ephemeral-messages-and-commands and the
methods' tables) and the fake does:

- ``sendMessage`` / ``sendPhoto`` with ``ephemeral_message_parameters`` =
  ``{"receiver_user_id", "callback_query_id"?, "replace_callback_query_message"?}`` (10.3), or
  the 10.2 flat parameters ``receiver_user_id`` / ``callback_query_id`` (still accepted); for
  group and supergroup chats only. The answer is a Message with ``message_id`` 0,
  ``ephemeral_message_id`` (its identifier inside the chat) and ``receiver_user``.
- Any bot may send one within 15 s of the incoming eligible action: a callback query of the
  receiver (``callback_query_id``) or an ephemeral message of theirs, e.g. a command the bot
  declared ``is_ephemeral`` (``reply_parameters.ephemeral_message_id``); a bot that is a chat
  administrator may send one to any non-bot member at any time without either.
- ``editEphemeralMessageText`` / ``…Caption`` / ``…Media`` / ``…ReplyMarkup`` and
  ``deleteEphemeralMessage`` take ``chat_id``, ``receiver_user_id`` and
  ``ephemeral_message_id`` and answer ``true``.
- Delivery is not guaranteed, and the messages may disappear after some time or when the app
  restarts: :meth:`EphemeralMessages.drop_next`, :meth:`~EphemeralMessages.forget`,
  :meth:`~EphemeralMessages.expire`.

What Telegram does not publish, and the fake assumes (stricter rather than looser):

- the error descriptions (the constants below; a bot should not match on their words);
- a ``callback_query_id`` must be the receiver's own press in this chat, at most
  :data:`WINDOW` seconds old, whether the bot is an admin or not (an admin may leave it out);
- ``replace_callback_query_message`` needs a ``callback_query_id`` of a press on a regular
  message (the official text: it must be False for presses on ephemeral messages);
- edits are not limited in time (they carry no callback query) unless a test sets
  :attr:`EphemeralMessages.edit_window`; an edit that changes nothing answers "message is not
  modified" as ``editMessage*`` does; an expired or deleted message answers "message to edit
  (delete) not found"; a message the user lost (a dropped delivery, an app restart) is still
  known to the server: its edits succeed and the user still sees nothing.

Test interface (``api.ephemeral``): :meth:`~EphemeralMessages.set_bot_admin`,
:meth:`~EphemeralMessages.seen_by`, :meth:`~EphemeralMessages.timeline`,
:meth:`~EphemeralMessages.sent_to`, :meth:`~EphemeralMessages.calls`,
:meth:`~EphemeralMessages.receivers`, :meth:`~EphemeralMessages.press`,
:meth:`~EphemeralMessages.click`, :meth:`~EphemeralMessages.send_command`,
:meth:`~EphemeralMessages.advance`,
:meth:`~EphemeralMessages.drop_next`, :meth:`~EphemeralMessages.forget`,
:meth:`~EphemeralMessages.expire`, :attr:`~EphemeralMessages.edit_window`,
:attr:`~EphemeralMessages.supported`.
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .models import Call, Chat, FakeMessage, User
from .rules import NOT_MODIFIED, QUERY_TOO_OLD, ApiError, caption_text, checked_markup, plain_text

if TYPE_CHECKING:
    from .server import FakeBotApi
    from .wire import Upload

#: Seconds after a callback query within which any bot may answer it with an ephemeral message.
WINDOW = 15.0
#: The methods that act on an ephemeral message by its identifier.
EDIT_METHODS = (
    "editEphemeralMessageText",
    "editEphemeralMessageCaption",
    "editEphemeralMessageMedia",
    "editEphemeralMessageReplyMarkup",
)
METHODS = (*EDIT_METHODS, "deleteEphemeralMessage")

# Error answers (Telegram publishes none of their words; see the module docstring).
NOT_A_GROUP = "Bad Request: ephemeral messages can be sent only to group and supergroup chats"
NO_RECEIVER = "Bad Request: receiver_user_id must be specified for an ephemeral message"
RECEIVER_NOT_FOUND = "Bad Request: user not found"
RECEIVER_IS_BOT = "Bad Request: ephemeral messages can't be sent to bots"
NOT_A_MEMBER = "Bad Request: the receiver is not a member of the chat"
NO_RIGHTS = "Bad Request: not enough rights to send ephemeral messages without a callback query"
OTHER_USERS_QUERY = "Bad Request: the callback query was sent by another user"
OTHER_USERS_MESSAGE = "Bad Request: the replied message was sent by another user"
OTHER_CHATS_QUERY = "Bad Request: the callback query was sent from another chat"
REPLY_NOT_FOUND = "Bad Request: message to be replied not found"
CANT_REPLACE = "Bad Request: the message of the callback query can't be replaced"
TO_EDIT_NOT_FOUND = "Bad Request: message to edit not found"
TO_DELETE_NOT_FOUND = "Bad Request: message to delete not found"
NO_TEXT = "Bad Request: there is no text in the message to edit"
NO_CAPTION = "Bad Request: there is no caption in the message to edit"


@dataclass
class EphemeralMessage(FakeMessage):
    """An ephemeral message as the fake keeps it: a :class:`FakeMessage` (``message_id`` 0)
    with its ``receiver``, ``ephemeral_message_id``, the press it answered, and what happened
    to it: ``dropped`` (the receiver never got it), ``lost`` (gone from the receiver's app),
    ``expired`` (gone for the server too), ``deleted``; ``replaces``: the message id of the
    regular message it is shown in place of (``replace_callback_query_message``)."""

    receiver: User | None = None
    ephemeral_message_id: int = 0
    callback_query_id: str | None = None
    replaces: int | None = None
    dropped: bool = False
    lost: bool = False
    expired: bool = False
    sent_at: float = 0.0
    #: How many regular messages the chat had when it was sent (its place in a timeline).
    position: int = 0

    @property
    def visible(self) -> bool:
        """The receiver sees it now."""
        return not (self.dropped or self.lost or self.expired or self.deleted)

    def to_api(self) -> dict[str, Any]:
        data = super().to_api()
        assert self.receiver is not None
        data["ephemeral_message_id"] = self.ephemeral_message_id
        data["receiver_user"] = self.receiver.to_api()
        return data


@dataclass(frozen=True)
class EphemeralCall:
    """A Bot API call that sent, edited or deleted an ephemeral message: the recorded
    :class:`Call` and the receiver it named (``None`` if it named none)."""

    call: Call
    chat_id: int | None
    receiver_id: int | None


@dataclass
class _Drop:
    receiver_id: int | None
    left: int


@dataclass
class EphemeralMessages:
    """The ephemeral messages of one :class:`~tests.fakebot.server.FakeBotApi` (``api.ephemeral``).
    See the module docstring."""

    api: FakeBotApi
    #: Seconds after its sending within which an ephemeral message may be edited (``None``:
    #: always, the default; Telegram publishes no such limit).
    edit_window: float | None = None
    #: ``False``: the server does not know the ephemeral parameters (older than the Bot API
    #: the bot speaks, e.g. a self-hosted server not updated): it ignores them, as it ignores
    #: any unknown parameter, and sends a regular message that the whole group sees.
    supported: bool = True
    _offset: float = 0.0
    _messages: dict[int, list[EphemeralMessage]] = field(default_factory=dict)
    _ids: dict[int, itertools.count[int]] = field(default_factory=dict)
    _drops: list[_Drop] = field(default_factory=list)
    #: Ephemeral messages users sent (commands only the bot sees), by (chat id, identifier).
    _incoming: dict[tuple[int, int], EphemeralMessage] = field(default_factory=dict)

    # ------------------------------------------------------------ the clock

    def now(self) -> float:
        """The fake's clock for the 15 s rule: ``time.monotonic()`` plus :meth:`advance`."""
        return time.monotonic() + self._offset

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass for the 15 s rule (every callback query gets that much older)."""
        self._offset += seconds

    # ------------------------------------------------------------ test controls

    def set_bot_admin(self, chat: Chat, admin: bool = True) -> None:
        """Make the bot an administrator of ``chat`` (or a plain member): getChatMember answers
        the same, and an admin bot may send ephemeral messages without a callback query."""
        bot = self.api.bot_user
        self.api.users.setdefault(bot.id, bot)  # so that getChatMember knows the bot
        self.api._members[(self.api.chat(chat).id, bot.id)] = (
            "administrator" if admin else "member")

    def bot_is_admin(self, chat_id: int) -> bool:
        return self.api._members.get((chat_id, self.api.bot_user.id)) in {
            "administrator", "creator"}

    def drop_next(self, receiver: User | None = None, times: int = 1) -> None:
        """The next ``times`` ephemeral sends (to ``receiver``, if given) succeed but are never
        delivered: the bot gets its Message, the user sees nothing (edits of it succeed too)."""
        self._drops.append(_Drop(None if receiver is None else receiver.id, times))

    def forget(self, user: User, chat: Chat | None = None) -> None:
        """``user`` restarts their app: every ephemeral message they see (in ``chat``, if
        given) disappears for them; the server still knows them (edits succeed, unseen)."""
        for message in self._all(chat):
            if message.receiver is not None and message.receiver.id == user.id:
                message.lost = True

    def expire(self, message: EphemeralMessage) -> None:
        """``message`` expires: gone for its receiver and for the server (edits and deletes
        of it answer "not found")."""
        message.expired = True

    # ------------------------------------------------------------ reading

    def sent_to(self, user: User, chat: Chat | None = None) -> list[EphemeralMessage]:
        """Every ephemeral message sent to ``user`` (in ``chat``), whatever became of it."""
        return [m for m in self._all(chat) if m.receiver is not None and m.receiver.id == user.id]

    def seen_by(self, user: User, chat: Chat | None = None) -> list[EphemeralMessage]:
        """The ephemeral messages ``user`` sees now (in ``chat``), oldest first."""
        return [m for m in self.sent_to(user, chat) if m.visible]

    def last_seen_by(self, user: User, chat: Chat) -> EphemeralMessage | None:
        """The newest ephemeral message ``user`` sees in ``chat``, or None."""
        seen = self.seen_by(user, chat)
        return seen[-1] if seen else None

    def timeline(self, user: User, chat: Chat) -> list[FakeMessage]:
        """What ``user`` sees in ``chat``: every regular message (the bot's and the users',
        not deleted, none that an ephemeral message of theirs replaces) and their own visible
        ephemeral messages, in the order they were sent."""
        mine = self.seen_by(user, chat)
        replaced = {m.replaces for m in mine if m.replaces is not None}
        regular = self.api._messages.get(chat.id, [])
        shown: list[FakeMessage] = []
        for index in range(len(regular) + 1):
            shown.extend(m for m in mine if m.position == index)
            if index < len(regular):
                message = regular[index]
                if not message.deleted and message.message_id not in replaced:
                    shown.append(message)
        return shown

    def message(self, chat: Chat, receiver: User, ephemeral_message_id: int) -> EphemeralMessage:
        """An ephemeral message by its identifier (LookupError if there is none)."""
        for message in self._messages.get(chat.id, []):
            if message.receiver is not None and message.receiver.id == receiver.id and \
                    message.ephemeral_message_id == ephemeral_message_id:
                return message
        raise LookupError(f"no ephemeral message {ephemeral_message_id} for {receiver.id} in"
                          f" {chat.id}")

    def calls(self) -> list[EphemeralCall]:
        """Every call that sent, edited or deleted an ephemeral message (failed ones too), in
        order, with the receiver it named: what a test checks so that nothing meant for one
        member reaches another."""
        found = []
        for call in self.api.calls:
            receiver = _receiver_param(call.params)
            if call.method in METHODS or (
                call.method in {"sendMessage", "sendPhoto"} and _is_ephemeral(call.params)
            ):
                found.append(EphemeralCall(call, _int(call.params.get("chat_id")), receiver))
        return found

    def receivers(self) -> set[int | None]:
        """The receivers every ephemeral call named."""
        return {entry.receiver_id for entry in self.calls()}

    # ------------------------------------------------------------ presses

    def press(self, user: User, message: EphemeralMessage, data: str) -> str:
        """``user`` presses a button with callback data ``data`` on the ephemeral ``message``
        (only its receiver sees it, so only they can; a message they do not see cannot be
        pressed: ValueError). The callback query carries the message as Telegram does
        (``message_id`` 0, ``ephemeral_message_id``, ``receiver_user``). Returns its id."""
        if message.receiver is None or message.receiver.id != user.id:
            raise ValueError("only the receiver of an ephemeral message sees its buttons")
        if not message.visible:
            raise ValueError("the receiver does not see this ephemeral message")
        return self.api.add_press(user, message.chat.id, message.to_api(), data, ephemeral=True)

    def click(self, user: User, message: EphemeralMessage, label: str) -> str:
        """:meth:`press` the button labelled exactly ``label`` (LookupError if none)."""
        button = message.button(label)
        if button.callback_data is None:
            raise LookupError(f"button {label!r} has no callback data")
        return self.press(user, message, button.callback_data)

    def send_command(self, user: User, chat: Chat, text: str) -> EphemeralMessage:
        """``user`` sends ``text`` in ``chat`` as an ephemeral message that only the bot
        receives (an ephemeral command: Telegram sends a command the bot declared with
        ``is_ephemeral`` this way): a ``message`` update with ``message_id`` 0,
        ``ephemeral_message_id`` and ``receiver_user`` = the bot. For 15 s the bot may answer
        it with an ephemeral message (``reply_parameters.ephemeral_message_id``)."""
        api = self.api
        api._remember_user(user)
        message = EphemeralMessage(
            chat=chat, message_id=0, from_user=user, date=int(time.time()), text=text,
            raw_text=text, receiver=api.bot_user,
            ephemeral_message_id=next(self._ids.setdefault(chat.id, itertools.count(1))),
            sent_at=self.now())
        command = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if command:
            message.entities = [{"type": "bot_command", "offset": 0, "length": command.end()}]
        self._incoming[(chat.id, message.ephemeral_message_id)] = message
        api.add_update({"message": message.to_api()})
        return message

    # ------------------------------------------------------------ Bot API methods

    def wanted(self, params: dict[str, Any]) -> bool:
        """The send ``params`` asks for an ephemeral message and the server knows them."""
        return self.supported and _is_ephemeral(params)

    async def send(self, params: dict[str, Any], files: dict[str, Upload], kind: str) -> Any:
        """``sendMessage`` (``kind`` "text") or ``sendPhoto`` ("photo") of an ephemeral
        message: the rules of the module docstring, then the message stored for its
        receiver."""
        api = self.api
        chat = api._target_chat(params)
        if chat.type not in {"group", "supergroup"}:
            raise ApiError(400, NOT_A_GROUP)
        options = _options(params)
        receiver_id = _int(options.get("receiver_user_id"))
        if receiver_id is None:
            raise ApiError(400, NO_RECEIVER)
        receiver = api.users.get(receiver_id)
        if receiver is None:
            raise ApiError(400, RECEIVER_NOT_FOUND)
        if receiver.is_bot:
            raise ApiError(400, RECEIVER_IS_BOT)
        if api._members.get((chat.id, receiver.id), "member") in {"left", "kicked"}:
            raise ApiError(400, NOT_A_MEMBER)
        query_id = options.get("callback_query_id")
        replace = bool(options.get("replace_callback_query_message"))
        replaces = None
        reply = params.get("reply_parameters")
        replied = reply.get("ephemeral_message_id") if isinstance(reply, dict) else None
        if replied is not None:
            self._replied(int(replied), chat, receiver)
        if query_id is not None:
            query = self._query(str(query_id), chat, receiver)
            if replace:
                if query.get("ephemeral") or query.get("message_id") is None:
                    raise ApiError(400, CANT_REPLACE)
                replaces = int(query["message_id"])
        elif replace:
            raise ApiError(400, CANT_REPLACE)
        elif replied is None and not self.bot_is_admin(chat.id):
            raise ApiError(400, NO_RIGHTS)
        message = EphemeralMessage(
            chat=chat, message_id=0, from_user=api.bot_user, date=int(time.time()),
            parse_mode=params.get("parse_mode"),
            reply_markup=checked_markup(params.get("reply_markup")),
            receiver=receiver,
            ephemeral_message_id=next(self._ids.setdefault(chat.id, itertools.count(1))),
            callback_query_id=None if query_id is None else str(query_id),
            replaces=replaces, sent_at=self.now(),
            position=len(api._messages.get(chat.id, [])),
        )
        if kind == "text":
            raw = str(params.get("text", ""))
            text = plain_text(raw, params.get("parse_mode"))
            if not text.strip():
                raise ApiError(400, "Bad Request: message text is empty")
            if len(text) > 4096:
                raise ApiError(400, "Bad Request: message is too long")
            message.text, message.raw_text = text, raw
        else:
            file_id = api._photo_file_id(params.get("photo"), files, "photo")
            message.photo, message.photo_size = file_id, api._photo_size(file_id)
            if params.get("caption") is not None:
                message.raw_caption = str(params["caption"])
                message.caption = caption_text(message.raw_caption, params.get("parse_mode"))
        message.dropped = self._dropped(receiver.id)
        self._messages.setdefault(chat.id, []).append(message)
        return message.to_api()

    async def edit_text(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._known(params, TO_EDIT_NOT_FOUND, edit=True)
        if message.text is None:
            raise ApiError(400, NO_TEXT)
        raw = str(params.get("text", ""))
        text = plain_text(raw, params.get("parse_mode"))
        if not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if len(text) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        markup = checked_markup(params.get("reply_markup"))
        if (raw, params.get("parse_mode"), markup) == (
                message.raw_text, message.parse_mode, message.reply_markup):
            raise ApiError(400, NOT_MODIFIED)
        message.text, message.raw_text, message.parse_mode = text, raw, params.get("parse_mode")
        message.reply_markup = markup
        return _edited(message)

    async def edit_caption(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._known(params, TO_EDIT_NOT_FOUND, edit=True)
        if message.photo is None:
            raise ApiError(400, NO_CAPTION)
        raw = params.get("caption")
        markup = checked_markup(params.get("reply_markup"))
        if (raw, params.get("parse_mode"), markup) == (
                message.raw_caption, message.parse_mode, message.reply_markup):
            raise ApiError(400, NOT_MODIFIED)
        message.raw_caption = None if raw is None else str(raw)
        message.caption = caption_text(message.raw_caption, params.get("parse_mode"))
        message.parse_mode, message.reply_markup = params.get("parse_mode"), markup
        return _edited(message)

    async def edit_media(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._known(params, TO_EDIT_NOT_FOUND, edit=True)
        media = params.get("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise ApiError(400, "Bad Request: the fake server only edits photo media")
        file_id = self.api._photo_file_id(media.get("media"), files, "media")
        raw_caption = media.get("caption")
        markup = checked_markup(params.get("reply_markup"))
        if (file_id, raw_caption, markup) == (
                message.photo, message.raw_caption, message.reply_markup):
            raise ApiError(400, NOT_MODIFIED)
        message.text = message.raw_text = None
        message.photo, message.photo_size = file_id, self.api._photo_size(file_id)
        message.raw_caption = raw_caption
        message.caption = caption_text(raw_caption, media.get("parse_mode"))
        message.parse_mode, message.reply_markup = media.get("parse_mode"), markup
        return _edited(message)

    async def edit_reply_markup(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._known(params, TO_EDIT_NOT_FOUND, edit=True)
        markup = checked_markup(params.get("reply_markup"))
        if markup == message.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        message.reply_markup = markup
        return _edited(message)

    async def delete(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._known(params, TO_DELETE_NOT_FOUND, edit=False)
        message.deleted = True
        return True

    def handlers(self) -> dict[str, Any]:
        """The Bot API methods this adds to the server, by name."""
        return {
            "editEphemeralMessageText": self.edit_text,
            "editEphemeralMessageCaption": self.edit_caption,
            "editEphemeralMessageMedia": self.edit_media,
            "editEphemeralMessageReplyMarkup": self.edit_reply_markup,
            "deleteEphemeralMessage": self.delete,
        }

    # ------------------------------------------------------------ helpers

    def _all(self, chat: Chat | None) -> list[EphemeralMessage]:
        if chat is not None:
            return list(self._messages.get(chat.id, []))
        return [m for messages in self._messages.values() for m in messages]

    def _dropped(self, receiver_id: int) -> bool:
        for drop in self._drops:
            if drop.receiver_id in (None, receiver_id):
                drop.left -= 1
                if drop.left <= 0:
                    self._drops.remove(drop)
                return True
        return False

    def _query(self, query_id: str, chat: Chat, receiver: User) -> dict[str, Any]:
        """The callback query ``query_id`` if an ephemeral message may answer it now."""
        query = self.api._queries.get(query_id)
        if query is None or self.now() - float(query.get("at", 0.0)) > WINDOW:
            raise ApiError(400, QUERY_TOO_OLD)
        if query["user"] != receiver.id:
            raise ApiError(400, OTHER_USERS_QUERY)
        if query.get("chat") != chat.id:
            raise ApiError(400, OTHER_CHATS_QUERY)
        return query

    def _replied(self, number: int, chat: Chat, receiver: User) -> EphemeralMessage:
        """The receiver's incoming ephemeral message ``number`` if it may be answered now."""
        incoming = self._incoming.get((chat.id, number))
        if incoming is None or self.now() - incoming.sent_at > WINDOW:
            raise ApiError(400, REPLY_NOT_FOUND)
        if incoming.from_user.id != receiver.id:
            raise ApiError(400, OTHER_USERS_MESSAGE)
        return incoming

    def _known(self, params: dict[str, Any], not_found: str, edit: bool) -> EphemeralMessage:
        """The ephemeral message an edit or delete names (chat, receiver, identifier)."""
        chat = self.api._target_chat(params)
        receiver_id = _int(params.get("receiver_user_id"))
        number = _int(params.get("ephemeral_message_id"))
        for message in self._messages.get(chat.id, []):
            if (message.receiver is not None and message.receiver.id == receiver_id
                    and message.ephemeral_message_id == number
                    and not message.expired and not message.deleted):
                if edit and self.edit_window is not None and \
                        self.now() - message.sent_at > self.edit_window:
                    break
                return message
        raise ApiError(400, not_found)


# -------------------------------------------------------------------- module helpers


def _is_ephemeral(params: dict[str, Any]) -> bool:
    """A send that asks for an ephemeral message (either shape)."""
    return any(params.get(key) is not None for key in (
        "ephemeral_message_parameters", "receiver_user_id", "callback_query_id"))


def _options(params: dict[str, Any]) -> dict[str, Any]:
    """The ephemeral options of a send: ``ephemeral_message_parameters`` (10.3) or the flat
    10.2 parameters."""
    nested = params.get("ephemeral_message_parameters")
    if isinstance(nested, dict):
        return nested
    return {key: params.get(key) for key in ("receiver_user_id", "callback_query_id")}


def _receiver_param(params: dict[str, Any]) -> int | None:
    nested = params.get("ephemeral_message_parameters")
    if isinstance(nested, dict):
        return _int(nested.get("receiver_user_id"))
    return _int(params.get("receiver_user_id"))


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _edited(message: EphemeralMessage) -> bool:
    message.edit_date = int(time.time())
    message.edits += 1
    return True
