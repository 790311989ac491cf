"""Small value types of the fake Bot API: users, chats, messages, buttons and recorded calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class User:
    """A Telegram user (or the bot itself, with `is_bot`)."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "en"
    last_name: str | None = None
    is_bot: bool = False

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


#: Telegram's sender of anonymous admins' messages (with `sender_chat` = the group).
GROUP_ANONYMOUS_BOT = User(1087968824, "Group", "GroupAnonymousBot", None, is_bot=True)
#: Telegram's sender of messages written as a channel (with `sender_chat` = the channel).
CHANNEL_BOT = User(136817688, "Channel", "Channel_Bot", None, is_bot=True)


@dataclass(frozen=True)
class Chat:
    """A chat: `type` is "private" (id = the user's id), "group", "supergroup" or "channel"."""

    id: int
    type: str = "group"
    title: str | None = None
    first_name: str | None = None
    username: str | None = None
    is_forum: bool = False

    @classmethod
    def private(cls, user: User) -> Chat:
        """The private chat between `user` and the bot."""
        return cls(id=user.id, type="private", first_name=user.first_name, username=user.username)

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        for key in ("title", "first_name", "username"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.is_forum:
            data["is_forum"] = True
        return data


@dataclass(frozen=True)
class Button:
    """One inline keyboard button; `row`/`col` give its place in the keyboard."""

    text: str
    callback_data: str | None = None
    url: str | None = None
    row: int = 0
    col: int = 0


@dataclass
class FakeMessage:
    """A message in a chat as the fake server keeps it (the bot's and the users' alike).

    `text` and `caption` are plain text (HTML tags removed, as Telegram shows them); `raw_text`
    and `raw_caption` are what the bot sent. `photo` is the file id of a photo message.
    `deleted` messages stay in the store so tests can still look at them.
    """

    chat: Chat
    message_id: int
    from_user: User
    date: int
    text: str | None = None
    caption: str | None = None
    raw_text: str | None = None
    raw_caption: str | None = None
    parse_mode: str | None = None
    photo: str | None = None
    photo_size: tuple[int, int, int] = (0, 0, 0)
    reply_markup: dict[str, Any] | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    thread_id: int | None = None
    reply_to_message_id: int | None = None
    sender_chat: Chat | None = None
    edit_date: int | None = None
    edits: int = 0
    deleted: bool = False

    @property
    def from_bot(self) -> bool:
        return self.from_user.is_bot

    @property
    def content(self) -> str:
        """The text, or the caption of a photo ("" if neither)."""
        return self.text if self.text is not None else (self.caption or "")

    @property
    def buttons(self) -> list[Button]:
        """The inline keyboard's buttons, row by row."""
        return [button for row in self.keyboard for button in row]

    @property
    def keyboard(self) -> list[list[Button]]:
        """The inline keyboard as rows of buttons ([] if there is none)."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [
            [
                Button(
                    text=button["text"],
                    callback_data=button.get("callback_data"),
                    url=button.get("url"),
                    row=row_index,
                    col=col_index,
                )
                for col_index, button in enumerate(row)
            ]
            for row_index, row in enumerate(rows)
        ]

    def button(self, text: str) -> Button:
        """The button labelled exactly `text`; raises LookupError naming the labels there are."""
        for button in self.buttons:
            if button.text == text:
                return button
        labels = [button.text for button in self.buttons]
        raise LookupError(f"no button {text!r} on message {self.message_id}; buttons: {labels}")

    def to_api(self) -> dict[str, Any]:
        """The message as the Bot API sends it."""
        data: dict[str, Any] = {
            "message_id": self.message_id,
            "date": self.date,
            "chat": self.chat.to_api(),
            "from": self.from_user.to_api(),
        }
        if self.sender_chat is not None:
            data["sender_chat"] = self.sender_chat.to_api()
        if self.text is not None:
            data["text"] = self.text
        if self.entities:
            data["entities"] = self.entities
        if self.photo is not None:
            width, height, size = self.photo_size
            data["photo"] = [
                {
                    "file_id": self.photo,
                    "file_unique_id": "u" + self.photo,
                    "width": width,
                    "height": height,
                    "file_size": size,
                }
            ]
            if self.caption is not None:
                data["caption"] = self.caption
        if self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            data["is_topic_message"] = True
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        return data


@dataclass
class Call:
    """One request the bot made: method name as Telegram spells it, decoded parameters, the
    `time.monotonic()` it arrived, the HTTP status answered and the JSON answer.

    A call is recorded when it is answered (a getUpdates long poll when it returns).
    """

    method: str
    params: dict[str, Any]
    time: float
    status: int = 200
    response: dict[str, Any] = field(default_factory=dict)
    index: int = 0

    @property
    def ok(self) -> bool:
        return self.status == 200

    @property
    def result(self) -> Any:
        return self.response.get("result")

    def __repr__(self) -> str:  # short, for failure messages
        shown = {k: v for k, v in self.params.items() if k not in {"reply_markup", "media"}}
        return f"<Call #{self.index} {self.method} {self.status} {shown}>"
