"""What Telegram accepts and how it answers: error answers, text, markup and member rules."""

from __future__ import annotations

import json
import re
import struct
from html.parser import HTMLParser
from typing import Any

from .models import User

BLOCKED = "Forbidden: bot was blocked by the user"
CANNOT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
MIGRATED = "Bad Request: group chat was upgraded to a supergroup chat"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
# What `fail_next` answers when the test gives no description.
DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: failure requested by the test",
    403: BLOCKED,
    500: "Internal Server Error",
}
MEMBER_STATUSES = {"creator", "administrator", "member", "left", "kicked"}
_LANGUAGE_CODE_RE = re.compile(r"[a-z]{2}")
_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Tags Telegram accepts with parse_mode=HTML.
_HTML_TAGS = {
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "span",
    "tg-spoiler",
    "a",
    "tg-emoji",
    "code",
    "pre",
    "blockquote",
}


class ApiError(Exception):
    """An error answer: HTTP status, Telegram's description, optional `parameters`."""

    def __init__(
        self,
        status: int,
        description: str,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ):
        super().__init__(description)
        self.status = status
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        parameters = {
            key: value
            for key, value in (
                ("retry_after", self.retry_after),
                ("migrate_to_chat_id", self.migrate_to_chat_id),
            )
            if value is not None
        }
        if parameters:
            data["parameters"] = parameters
        return data


class HtmlParseError(ValueError):
    """Telegram would reject the text: "can't parse entities"."""


class _TelegramHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.open_tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _HTML_TAGS:
            raise HtmlParseError(f'unsupported start tag "{tag}"')
        self.open_tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open_tags or self.open_tags[-1] != tag:
            raise HtmlParseError(f'unexpected end tag "{tag}"')
        self.open_tags.pop()

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_to_plain(text: str) -> str:
    """Plain text of a Telegram HTML message; raises HtmlParseError where Telegram would."""
    parser = _TelegramHtml()
    parser.feed(text)
    parser.close()
    if parser.open_tags:
        tag = parser.open_tags[-1]
        raise HtmlParseError(f"can't find end tag corresponding to start tag {tag}")
    return "".join(parser.parts)


def plain_text(raw: str, parse_mode: Any) -> str:
    """The text Telegram shows for `raw` sent with `parse_mode` (only HTML is parsed)."""
    if str(parse_mode).upper() == "HTML":
        try:
            return html_to_plain(raw)
        except HtmlParseError as error:
            raise ApiError(400, f"Bad Request: can't parse entities: {error}") from None
    return raw


def caption_text(raw: str | None, parse_mode: Any) -> str | None:
    """Like `plain_text` for a photo caption (at most 1024 characters); None stays None."""
    if raw is None:
        return None
    caption = plain_text(raw, parse_mode)
    if len(caption) > 1024:
        raise ApiError(400, "Bad Request: message caption is too long")
    return caption


def checked_markup(markup: Any) -> dict[str, Any] | None:
    """The reply markup as stored (an empty inline keyboard is none, as in Telegram); raises
    Telegram's 400 for bad inline buttons."""
    if not markup or markup == {"inline_keyboard": []}:
        return None
    if not isinstance(markup, dict):
        raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    for row in markup.get("inline_keyboard", []):
        for button in row:
            if not str(button.get("text", "")).strip():
                raise ApiError(400, "Bad Request: inline keyboard button text is empty")
            data = button.get("callback_data")
            if data is not None and not 1 <= len(str(data).encode()) <= 64:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
            url = button.get("url")
            if url is not None and not str(url).startswith(("http://", "https://", "tg://")):
                raise ApiError(400, "Bad Request: BUTTON_URL_INVALID")
    return markup


def commands_key(params: dict[str, Any]) -> tuple[str, str]:
    """(scope type, language code or "") of a *MyCommands call; the code must be 2 letters.
    A scope of one chat (``chat``, ``chat_administrators``) is ``"<type>:<chat_id>"``."""
    scope = params.get("scope") or {}
    if isinstance(scope, str):
        scope = json.loads(scope)
    language = str(params.get("language_code") or "")
    if language and not _LANGUAGE_CODE_RE.fullmatch(language):
        raise ApiError(400, "Bad Request: invalid language code specified")
    kind = str(scope.get("type", "default"))
    if "chat_id" in scope:
        kind = f"{kind}:{scope['chat_id']}"
    return kind, language


def chat_member(user: User, status: str) -> dict[str, Any]:
    """The ChatMember object getChatMember answers for `user` with `status`."""
    member: dict[str, Any] = {"status": status, "user": user.to_api()}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(
            {
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
            }
        )
    elif status == "kicked":
        member["until_date"] = 0
    return member


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG (what Telegram reports for a photo); (0, 0) for other data."""
    if data.startswith(_PNG_SIGNATURE) and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    return 0, 0


def check_commands(commands: Any) -> list[dict[str, Any]]:
    """The command list of setMyCommands; raises Telegram's 400 for a bad one."""
    if not isinstance(commands, list) or not commands:
        raise ApiError(400, "Bad Request: commands must be a non-empty array")
    for command in commands:
        if not _COMMAND_RE.fullmatch(str(command.get("command", ""))):
            raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
        if not 1 <= len(str(command.get("description", ""))) <= 256:
            raise ApiError(400, "Bad Request: command description must be 1-256 characters")
    return commands
