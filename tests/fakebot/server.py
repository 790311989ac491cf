"""The fake Bot API server: an aiohttp app on 127.0.0.1 that answers like Telegram.

See the package docstring (`tests/fakebot/__init__.py`) for the API tests use.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from aiohttp import web

from .ephemeral import EphemeralMessages
from .models import CHANNEL_BOT, GROUP_ANONYMOUS_BOT, Button, Call, Chat, FakeMessage, User
from .rules import (
    BLOCKED,
    CANNOT_INITIATE,
    DEFAULT_DESCRIPTIONS,
    MEMBER_STATUSES,
    MIGRATED,
    NOT_MODIFIED,
    QUERY_TOO_OLD,
    ApiError,
    caption_text,
    chat_member,
    check_commands,
    checked_markup,
    commands_key,
    image_size,
    plain_text,
)
from .webhooks import WebhookDelivery
from .wire import Upload, read_params

T = TypeVar("T")
ChatLike = Chat | User | int
Handler = Callable[[dict[str, Any], dict[str, "Upload"]], Awaitable[Any]]

DEFAULT_TOKEN = "123456789:AAH-fake-token-for-the-tests-only_01"
BOT_USERNAME = "ddz_test_bot"
#: Seconds between two looks of a waiter at what it waits for when nothing woke it.
POLL = 0.05
#: The same for a waiter woken by the changes of its own chats (``wait_for(chats=...)``) or
#: by its answer (``wait_answer``): those changes wake it, the look is a safety net.
WATCH_POLL = 1.0
#: How long a wait for something the bot will do gives it, in seconds, unless the test says:
#: a bound for a bot that hangs, not a speed check (speeds are measured by ``bench/``), so it
#: is generous — under a loaded CI machine a press's whole block has taken over 5 s.
WAIT = 15.0


@dataclass
class _Failure:
    method: str
    chat_id: int | None
    error: ApiError


class FakeBotApi:
    """A fake Telegram Bot API server for one test. Start it with `await api.start()`."""

    def __init__(self, token: str = DEFAULT_TOKEN, bot_username: str = BOT_USERNAME) -> None:
        self.token = token
        self.bot_user = User(
            id=int(token.split(":", 1)[0]),
            first_name="Dou Dizhu",
            username=bot_username,
            language_code=None,
            is_bot=True,
        )
        self.port = 0
        self.calls: list[Call] = []
        self.unknown_methods: list[str] = []
        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self.files: dict[str, bytes] = {}
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.webhook_url = ""
        self.handled_updates: set[int] = set()
        self.handled_queries: set[str] = set()
        self._messages: dict[int, list[FakeMessage]] = {}
        self._message_ids: dict[int, itertools.count[int]] = {}
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        #: Every update queued, by update id (:meth:`send_again`).
        self.sent_updates: dict[int, dict[str, Any]] = {}
        self._again: list[tuple[float, dict[str, Any]]] = []
        self._query_ids = itertools.count(1)
        self._file_ids = itertools.count(1)
        self._user_ids = itertools.count(1001)
        self._group_ids = itertools.count(1)
        self._queries: dict[str, dict[str, Any]] = {}
        self._opened: set[int] = set()
        self._blocked: set[int] = set()
        self._members: dict[tuple[int, int], str] = {}
        self._migrated: dict[int, int] = {}
        self._failures: list[_Failure] = []
        self._mark = 0
        self._changed = asyncio.Event()
        #: Waiters (:meth:`wait_for` with ``chats``, :meth:`wait_answer`) by what wakes them: a
        #: chat id, or ``("answer", query id)``.
        self._watchers: dict[object, set[asyncio.Event]] = {}
        #: The first answerCallbackQuery call of each callback query, by query id.
        self._answers: dict[str, Call] = {}
        #: Callback queries whose answer's HTTP response waits for its event (:meth:`hold_answer`).
        self._held_answers: dict[str, asyncio.Event] = {}
        self._closing = False
        self._runner: web.AppRunner | None = None
        self.webhooks: WebhookDelivery | None = None
        #: Ephemeral messages (Bot API 10.2/10.3): :mod:`tests.fakebot.ephemeral`.
        self.ephemeral = EphemeralMessages(self)
        self._methods: dict[str, tuple[str, Handler]] = {
            name.lower(): (name, handler)
            for name, handler in {
                "getMe": self._get_me,
                "getUpdates": self._get_updates,
                "deleteWebhook": self._delete_webhook,
                "setWebhook": self._set_webhook,
                "getWebhookInfo": self._get_webhook_info,
                "sendMessage": self._send_message,
                "sendPhoto": self._send_photo,
                "editMessageText": self._edit_message_text,
                "editMessageCaption": self._edit_message_caption,
                "editMessageMedia": self._edit_message_media,
                "editMessageReplyMarkup": self._edit_message_reply_markup,
                "deleteMessage": self._delete_message,
                "answerCallbackQuery": self._answer_callback_query,
                "setMyCommands": self._set_my_commands,
                "getMyCommands": self._get_my_commands,
                "deleteMyCommands": self._delete_my_commands,
                "getChatMember": self._get_chat_member,
                "getChat": self._get_chat,
                "sendChatAction": self._send_chat_action,
                **self.ephemeral.handlers(),
            }.items()
        }

    # ---------------------------------------------------------------- server life

    @property
    def base_url(self) -> str:
        """The value for `Settings.bot_api_base_url` (PTB appends the token)."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    async def start(self) -> None:
        """Listen on 127.0.0.1 on a free port (`self.port`)."""
        app = web.Application(client_max_size=50 * 2**20)
        app.router.add_route("*", "/{prefix}/{method}", self._handle)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def deliver_webhooks(self, urls: list[str], secret: str, **options: Any
                               ) -> WebhookDelivery:
        """From now on POST every injected update to ``urls`` in turn (Telegram's webhook
        behind a round-robin proxy, with its retries: :mod:`tests.fakebot.webhooks`) instead
        of keeping it for ``getUpdates``; ``options`` as for :class:`WebhookDelivery`."""
        self.webhooks = WebhookDelivery(urls, secret, **options)
        await self.webhooks.start()
        return self.webhooks

    async def stop(self) -> None:
        """Release long polls, stop webhook deliveries and close the server."""
        self._closing = True
        self._notify()
        for gate in self._held_answers.values():
            gate.set()
        if self.webhooks is not None:
            await self.webhooks.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---------------------------------------------------------------- users and chats

    def new_user(
        self, first_name: str, *, language_code: str | None = "en", username: str | None = None
    ) -> User:
        """A new user with a fresh id, known to the server."""
        user = User(
            id=next(self._user_ids),
            first_name=first_name,
            username=username,
            language_code=language_code,
        )
        self._remember_user(user)
        return user

    def new_group(
        self, title: str = "Dou Dizhu table", *, type: str = "supergroup", is_forum: bool = False
    ) -> Chat:
        """A new group chat ("group" or "supergroup") with a fresh negative id."""
        number = next(self._group_ids)
        chat_id = -1001000000000 - number if type == "supergroup" else -4000000000 - number
        chat = Chat(id=chat_id, type=type, title=title, is_forum=is_forum)
        self.chats[chat.id] = chat
        return chat

    def chat(self, target: ChatLike) -> Chat:
        """The chat for a Chat, a User (their private chat) or a known chat id."""
        if isinstance(target, Chat):
            self.chats.setdefault(target.id, target)
            return target
        if isinstance(target, User):
            self._remember_user(target)
            return self.chats[target.id]
        if target in self.chats:
            return self.chats[target]
        raise LookupError(f"unknown chat {target}")

    def open_private_chat(self, user: User) -> None:
        """Mark that `user` has started the bot, so the bot may write to them privately."""
        self._remember_user(user)
        self._opened.add(user.id)

    def is_private_chat_open(self, user: User | int) -> bool:
        return _id(user) in self._opened

    def block_user(self, user: User | int) -> None:
        """From now on every call into this user's private chat answers 403 (blocked)."""
        self._blocked.add(_id(user))

    def unblock_user(self, user: User | int) -> None:
        self._blocked.discard(_id(user))

    def set_member_status(self, chat: ChatLike, user: User, status: str) -> None:
        """What getChatMember answers for `user` in `chat` ("member" unless set):
        "creator", "administrator", "member", "left" or "kicked"."""
        if status not in MEMBER_STATUSES:
            raise ValueError(f"unknown member status {status!r}")
        self._remember_user(user)
        self._members[(self.chat(chat).id, user.id)] = status

    def make_admin(self, chat: ChatLike, user: User) -> None:
        self.set_member_status(chat, user, "administrator")

    # ---------------------------------------------------------------- injecting updates

    def send_text(
        self,
        user: User,
        chat: ChatLike,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: FakeMessage | None = None,
        sender_chat: Chat | None = None,
    ) -> FakeMessage:
        """`user` writes `text` in `chat` (pass the user itself for their private chat).

        A leading `/command` or `/command@botname` gets a `bot_command` entity, as Telegram
        sends it, so PTB's CommandHandler matches. Writing privately opens the private chat.
        `sender_chat` makes it a message sent on behalf of a chat (see `send_anonymously`,
        `send_as_channel`). Returns the user's message; the update is queued for getUpdates.
        """
        self._remember_user(user)
        target = self.chat(chat)
        if target.type == "private":
            if target.id != user.id:
                raise ValueError("a user can only write in their own private chat with the bot")
            self._opened.add(user.id)
        message = FakeMessage(
            chat=target,
            message_id=self._next_message_id(target.id),
            from_user=user,
            date=int(time.time()),
            text=text,
            raw_text=text,
            thread_id=thread_id,
            reply_to_message_id=reply_to.message_id if reply_to else None,
            sender_chat=sender_chat,
        )
        command = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if command:
            message.entities = [{"type": "bot_command", "offset": 0, "length": command.end()}]
        self._messages[target.id].append(message)
        payload = message.to_api()
        if reply_to is not None:
            payload["reply_to_message"] = reply_to.to_api()
        self.add_update({"message": payload})
        return message

    def send_anonymously(
        self, group: Chat, text: str, *, reply_to: FakeMessage | None = None
    ) -> FakeMessage:
        """An anonymous admin of `group` writes `text`: as Telegram delivers it, from
        GroupAnonymousBot (1087968824) with `sender_chat` = the group itself."""
        return self.send_text(GROUP_ANONYMOUS_BOT, group, text, reply_to=reply_to,
                              sender_chat=group)

    def send_as_channel(
        self, channel: Chat, group: Chat, text: str, *, reply_to: FakeMessage | None = None
    ) -> FakeMessage:
        """A message written in `group` as the channel `channel` (a linked channel's post, or a
        member posting as their channel): from Channel_Bot (136817688), `sender_chat` =
        the channel."""
        return self.send_text(CHANNEL_BOT, group, text, reply_to=reply_to, sender_chat=channel)

    def set_bot_status(self, by: User, chat: ChatLike, status: str,
                       old_status: str = "left") -> int:
        """`by` changes the bot's own membership in `chat` from `old_status` to `status`
        ("member" when added to a group, "administrator", "left", "kicked"), as Telegram tells
        the bot: a ``my_chat_member`` update (sent by default, without ``allowed_updates``).
        Returns its update_id."""
        if status not in MEMBER_STATUSES or old_status not in MEMBER_STATUSES:
            raise ValueError(f"unknown member status {status!r} or {old_status!r}")
        self._remember_user(by)
        target = self.chat(chat)
        self._members[(target.id, self.bot_user.id)] = status
        return self.add_update({"my_chat_member": {
            "chat": target.to_api(),
            "from": by.to_api(),
            "date": int(time.time()),
            "old_chat_member": chat_member(self.bot_user, old_status),
            "new_chat_member": chat_member(self.bot_user, status),
        }})

    def new_channel(self, title: str = "A channel") -> Chat:
        """A new channel with a fresh id (a possible `sender_chat`)."""
        number = next(self._group_ids)
        chat = Chat(id=-1002000000000 - number, type="channel", title=title)
        self.chats[chat.id] = chat
        return chat

    def migrate_to_supergroup(self, group: Chat, by: User) -> Chat:
        """`by` upgrades the basic group `group` to a supergroup, as Telegram does it: a new
        supergroup chat (new id, same title, members and their statuses), two service
        updates — in the old group a message with `migrate_to_chat_id`, then in the new one a
        message with `migrate_from_chat_id` — and from now on every call into the old group
        answers 400 "group chat was upgraded to a supergroup chat" with
        `parameters.migrate_to_chat_id`. Returns the new chat."""
        if group.type != "group":
            raise ValueError("only a basic group can be upgraded to a supergroup")
        self._remember_user(by)
        number = next(self._group_ids)
        new = Chat(id=-1001000000000 - number, type="supergroup", title=group.title)
        self.chats[new.id] = new
        for (chat_id, user_id), status in list(self._members.items()):
            if chat_id == group.id:
                self._members[(new.id, user_id)] = status
        for chat, key, value in ((group, "migrate_to_chat_id", new.id),
                                 (new, "migrate_from_chat_id", group.id)):
            message = FakeMessage(chat=chat, message_id=self._next_message_id(chat.id),
                                  from_user=by, date=int(time.time()))
            self._messages[chat.id].append(message)
            self.add_update({"message": {**message.to_api(), key: value}})
        self._migrated[group.id] = new.id
        return new

    def delete(self, message: FakeMessage) -> None:
        """Someone deletes ``message`` (a moderation bot tidying commands, an admin): it stays
        readable for the test but is gone for the bot (edits, deletes and replies to it)."""
        message.deleted = True

    def press(self, user: User, message: FakeMessage, data: str) -> str:
        """`user` presses a button with callback data `data` on `message`.

        `data` is sent as given, even if no such button exists (to test forged callbacks).
        The callback query carries the message as it is now, as Telegram sends it. Returns the
        callback query id (see `answer_to`).
        """
        self._remember_user(user)
        return self.add_press(user, message.chat.id, message.to_api(), data,
                              message_id=message.message_id)

    def add_press(self, user: User, chat_id: int, message: dict[str, Any], data: str,
                  **known: Any) -> str:
        """Queue the callback query of ``user`` pressing ``data`` on ``message`` (the message as
        the Bot API gives it) in chat ``chat_id``; ``known``: what the fake remembers of the
        press besides its user, chat and time. Returns the callback query id."""
        query_id = str(next(self._query_ids))
        self._queries[query_id] = {"user": user.id, "answered": False, "at": time.monotonic(),
                                   "chat": chat_id, **known}
        self.add_update({"callback_query": {
            "id": query_id,
            "from": user.to_api(),
            "message": message,
            "chat_instance": str(abs(chat_id) * 7 + 1),
            "data": data,
        }})
        return query_id

    def click(self, user: User, message: FakeMessage, label: str) -> str:
        """`press` the button labelled exactly `label` (LookupError if there is none)."""
        button = message.button(label)
        if button.callback_data is None:
            raise LookupError(f"button {label!r} has no callback data")
        return self.press(user, message, button.callback_data)

    def add_update(self, payload: dict[str, Any]) -> int:
        """Queue a raw update (`payload` without `update_id`); returns its update_id.

        Also moves the mark for `wait_for` to "now".
        """
        update_id = next(self._update_ids)
        self.sent_updates[update_id] = {"update_id": update_id, **payload}
        if self.webhooks is not None:
            self.webhooks.push({"update_id": update_id, **payload})
        else:
            self._updates.append({"update_id": update_id, **payload})
        self._mark = len(self.calls)
        self._notify()
        return update_id

    def send_again(self, update_id: int) -> None:
        """Answer the next getUpdates with update ``update_id`` once more, whatever its offset:
        as Telegram does when the bot stopped before its next getUpdates confirmed it (the
        Updater of a stopping bot confirms on its way out; a killed one does not). Only a
        getUpdates asked for after this call gets it: the long poll of a bot that stopped may
        still wait here, and nobody would read its answer."""
        self._again.append((time.monotonic(), self.sent_updates[update_id]))
        self._mark = len(self.calls)
        self._notify()

    @property
    def pending_updates(self) -> int:
        """Updates the bot has not confirmed yet (by asking for a higher offset)."""
        return len(self._updates)

    # ---------------------------------------------------------------- reading state

    def messages_in(
        self, chat: ChatLike, *, include_users: bool = False, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """The bot's messages in `chat`, oldest first (optionally also users' and deleted ones)."""
        return [
            message
            for message in self._messages.get(self.chat(chat).id, [])
            if (include_users or message.from_bot) and (include_deleted or not message.deleted)
        ]

    def last_message(self, chat: ChatLike) -> FakeMessage | None:
        """The bot's newest message in `chat` that is not deleted, or None."""
        messages = self.messages_in(chat)
        return messages[-1] if messages else None

    def message(self, chat: ChatLike, message_id: int) -> FakeMessage:
        """A message by id (LookupError if there is none)."""
        for message in self._messages.get(self.chat(chat).id, []):
            if message.message_id == message_id:
                return message
        raise LookupError(f"no message {message_id} in chat {self.chat(chat).id}")

    @staticmethod
    def buttons(message: FakeMessage) -> list[Button]:
        """The message's inline buttons, row by row."""
        return message.buttons

    def file(self, file_id: str) -> bytes:
        """The bytes uploaded for `file_id`."""
        return self.files[file_id]

    def calls_to(self, method: str, *, since: int = 0, **params: Any) -> list[Call]:
        """Recorded calls of `method` (any status) from call index `since`, matching `params`."""
        return [
            call
            for call in self.calls[since:]
            if call.method == method and _params_match(call.params, params)
        ]

    def answer_to(self, query_id: str) -> Call | None:
        """The bot's answerCallbackQuery call for a press, if it answered."""
        calls = self.calls_to("answerCallbackQuery", callback_query_id=query_id)
        return calls[0] if calls else None

    def mark(self) -> int:
        """Set the `wait_for` mark to now (only later calls count) and return it."""
        self._mark = len(self.calls)
        return self._mark

    # ---------------------------------------------------------------- waiting

    async def wait_for(
        self,
        what: str | Callable[[], T],
        timeout: float = WAIT,
        *,
        since: int | None = None,
        where: Callable[[Call], bool] | None = None,
        ok: bool | None = True,
        chats: Iterable[ChatLike] | None = None,
        **params: Any,
    ) -> Call | T:
        """Wait until the bot makes a matching call, or until a predicate holds.

        With a method name: returns the first call of that method made at or after call index
        `since` (default: the mark, i.e. the last injected update or `mark()`), whose
        parameters equal `params` (chat_id may be given as a Chat or User), for which `where`
        is true, and whose success is `ok` (None: any status). With a callable: polls it after
        every call and returns its first truthy value. Raises TimeoutError listing recent calls.

        ``chats``: the predicate reads only these chats' messages, so it is polled only after
        calls into them (and every :data:`WATCH_POLL` seconds): hundreds of waiters (the
        benchmarks' players) then cost nothing while other chats change.
        """
        start = self._mark if since is None else since
        scanned = start  # calls are only appended: each is looked at once
        deadline = time.monotonic() + timeout
        keys: list[object] | None = None if chats is None else [
            self.chat(chat).id for chat in chats]
        while True:
            if isinstance(what, str):
                calls = self.calls
                for call in calls[scanned:]:
                    if (
                        call.method == what
                        and (ok is None or call.ok == ok)
                        and _params_match(call.params, params)
                        and (where is None or where(call))
                    ):
                        return call
                scanned = len(calls)
            else:
                value = what()
                if value:
                    return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                recent = [call for call in self.calls[start:] if call.method != "getUpdates"]
                raise TimeoutError(
                    f"timed out after {timeout} s waiting for {getattr(what, '__name__', what)}"
                    f" {params or ''}; calls since #{start}: {recent[-20:]}"
                )
            await self._changes(keys, min(remaining, POLL if keys is None else WATCH_POLL))

    async def wait_answer(self, query_id: str, timeout: float = WAIT) -> Call:
        """Wait for the bot's answerCallbackQuery to the press `query_id` (its first)."""
        deadline = time.monotonic() + timeout
        key = ("answer", query_id)
        while (call := self._answers.get(query_id)) is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout} s waiting for the answer to"
                                   f" callback query {query_id}")
            await self._changes([key], min(remaining, WATCH_POLL))
        return call

    # ---------------------------------------------------------------- updates handled by the bot

    def mark_handled(self, update_id: int, query_id: str | None = None) -> None:
        """The bot finished handling update ``update_id`` (a callback query ``query_id``): its
        handlers returned. Called by the test bot (``BotRunner``), not by the bot itself."""
        self.handled_updates.add(update_id)
        if query_id is not None:
            self.handled_queries.add(query_id)
        self._notify()

    async def wait_settled(self, query_id: str, timeout: float = WAIT) -> Call:
        """Wait for the bot's answer to the press ``query_id`` *and* for its handler to finish
        (the bot answers first and redraws after); returns the answerCallbackQuery call."""
        answer = await self.wait_answer(query_id, timeout)
        await self.wait_for(lambda: query_id in self.handled_queries, timeout)
        return answer

    def hold_answer(self, query_id: str) -> asyncio.Event:
        """The bot's answer to the press ``query_id`` is recorded (and :meth:`wait_answer`
        returns it) when it arrives, but its HTTP response waits until the returned event is
        set: the bot's request stays on its way, as over a slow network. Set the event before
        the test ends."""
        gate = self._held_answers[query_id] = asyncio.Event()
        return gate

    # ---------------------------------------------------------------- failures on demand

    def fail_next(
        self,
        method: str,
        status: int,
        description: str | None = None,
        retry_after: int | None = None,
        *,
        chat: ChatLike | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` calls of `method` (into `chat`, if given) with an error.

        Defaults: 403 "Forbidden: bot was blocked by the user"; 429 "Too Many Requests: retry
        after N" with `parameters.retry_after` = `retry_after` (1 s if not given); 400 a
        generic "Bad Request". The failed calls are recorded with their status.
        """
        if status == 429:
            retry_after = 1 if retry_after is None else retry_after
            description = description or f"Too Many Requests: retry after {retry_after}"
        description = description or DEFAULT_DESCRIPTIONS.get(status, "Error")
        chat_id = None if chat is None else self.chat(chat).id
        for _ in range(times):
            self._failures.append(
                _Failure(method.lower(), chat_id, ApiError(status, description, retry_after))
            )

    # ---------------------------------------------------------------- HTTP plumbing

    async def _handle(self, request: web.Request) -> web.Response:
        arrival = time.monotonic()
        if request.match_info["prefix"] != "bot" + self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        method = request.match_info["method"]
        params, files = await read_params(request)
        name, handler = self._methods.get(method.lower(), (method, None))
        call = Call(method=name, params=params, time=arrival)
        try:
            self._raise_requested_failure(name, params)
            if handler is None:
                self.unknown_methods.append(name)
                result: Any = True
            else:
                result = await handler(params, files)
            call.response = {"ok": True, "result": result}
        except ApiError as error:
            call.status = error.status
            call.response = error.payload()
        call.index = len(self.calls)
        self.calls.append(call)
        if name == "answerCallbackQuery":
            query_id = str(params.get("callback_query_id"))
            self._answers.setdefault(query_id, call)
            self._notify(("answer", query_id))
            held = self._held_answers.get(query_id)
            if held is not None:
                await held.wait()
        else:
            self._notify(_chat_id_param(params))
        return web.json_response(call.response, status=call.status)

    def _notify(self, key: object = None) -> None:
        """Wake every waiter without ``chats``, and those watching ``key`` (a chat id, or
        ``("answer", query id)``)."""
        self._changed.set()
        self._changed = asyncio.Event()
        if key is not None:
            for event in self._watchers.pop(key, ()):
                event.set()

    async def _changes(self, keys: list[object] | None, seconds: float) -> None:
        """Return after ``seconds``, or sooner on a change (:meth:`_notify`): any change, or
        with ``keys`` a change of one of them."""
        if keys is None:
            event = self._changed
        else:
            event = asyncio.Event()
            for key in keys:
                self._watchers.setdefault(key, set()).add(event)
        try:
            async with asyncio.timeout(seconds):
                await event.wait()
        except TimeoutError:
            pass
        finally:
            for key in keys or ():
                watching = self._watchers.get(key)
                if watching is not None:
                    watching.discard(event)

    def _raise_requested_failure(self, method: str, params: dict[str, Any]) -> None:
        chat_id = _chat_id_param(params)
        for failure in self._failures:
            if failure.method == method.lower() and failure.chat_id in (None, chat_id):
                self._failures.remove(failure)
                raise failure.error

    # ---------------------------------------------------------------- helpers for methods

    def _remember_user(self, user: User) -> None:
        self.users[user.id] = user
        self.chats.setdefault(user.id, Chat.private(user))

    def _next_message_id(self, chat_id: int) -> int:
        self._messages.setdefault(chat_id, [])
        return next(self._message_ids.setdefault(chat_id, itertools.count(1)))

    def _target_chat(self, params: dict[str, Any]) -> Chat:
        """The chat a writing method addresses; raises Telegram's 400/403 answers."""
        chat_id = _chat_id_param(params)
        chat = self.chats.get(chat_id) if chat_id is not None else None
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        if chat.id in self._migrated:
            raise ApiError(400, MIGRATED, migrate_to_chat_id=self._migrated[chat.id])
        if chat.type == "private":
            if chat.id in self._blocked:
                raise ApiError(403, BLOCKED)
            if chat.id not in self._opened:
                raise ApiError(403, CANNOT_INITIATE)
        return chat

    def _live_message(self, params: dict[str, Any], verb: str) -> FakeMessage:
        """The message ``params`` name, or Telegram's 400 "message to ``verb`` not found"."""
        chat = self._target_chat(params)
        try:
            message = self.message(chat, int(params["message_id"]))
        except (KeyError, LookupError, ValueError):
            message = None
        if message is None or message.deleted:
            raise ApiError(400, f"Bad Request: message to {verb} not found")
        return message

    def _bot_message(self, params: dict[str, Any]) -> FakeMessage:
        message = self._live_message(params, "edit")
        if not message.from_bot:
            raise ApiError(400, "Bad Request: message can't be edited")
        return message

    def _store_upload(self, upload: Upload) -> str:
        file_id = f"fake-photo-{next(self._file_ids)}"
        self.files[file_id] = upload.data
        return file_id

    def _photo_file_id(self, value: Any, files: dict[str, Upload], field_name: str) -> str:
        """File id for a `photo`/`media` value: an upload, attach://name, or a known file id."""
        if value is None and field_name in files:
            return self._store_upload(files[field_name])
        if isinstance(value, str) and value.startswith("attach://"):
            upload = files.get(value[len("attach://") :])
            if upload is None:
                raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
            return self._store_upload(upload)
        if isinstance(value, str) and value in self.files:
            return value
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            self.files.setdefault(value, b"")
            return value
        raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")

    def _photo_size(self, file_id: str) -> tuple[int, int, int]:
        data = self.files.get(file_id, b"")
        return (*image_size(data), len(data))

    def _reply_target(self, chat: Chat, params: dict[str, Any]) -> int | None:
        """The message a new message replies to, as Telegram resolves it: a missing or deleted
        target answers 400 "message to be replied not found" unless the bot allowed sending
        without the reply (`allow_sending_without_reply`, in `reply_parameters` or on its own),
        in which case the message is sent as no reply."""
        reply = params.get("reply_parameters") or {}
        reply_to = reply.get("message_id", params.get("reply_to_message_id"))
        if reply_to is None:
            return None
        allowed = reply.get("allow_sending_without_reply",
                            params.get("allow_sending_without_reply"))
        try:
            target = self.message(chat, int(reply_to))
        except (LookupError, ValueError):
            target = None
        if target is not None and not target.deleted:
            return target.message_id
        if allowed:
            return None
        raise ApiError(400, "Bad Request: message to be replied not found")

    def _new_bot_message(self, chat: Chat, params: dict[str, Any]) -> FakeMessage:
        reply_to = self._reply_target(chat, params)
        thread_id = params.get("message_thread_id")
        return FakeMessage(
            chat=chat,
            message_id=self._next_message_id(chat.id),
            from_user=self.bot_user,
            date=int(time.time()),
            parse_mode=params.get("parse_mode"),
            reply_markup=checked_markup(params.get("reply_markup")),
            thread_id=int(thread_id) if thread_id is not None else None,
            reply_to_message_id=reply_to,
        )

    # ---------------------------------------------------------------- Bot API methods

    async def _get_me(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        return {
            **self.bot_user.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _get_updates(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        if offset > 0:
            self._updates = [update for update in self._updates if update["update_id"] >= offset]
        asked = time.monotonic()
        deadline = asked + timeout
        while not self._updates and not self._again_after(asked) and not self._closing:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            changed = self._changed
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except TimeoutError:
                break
        again = self._again_after(asked)
        if again:
            self._again = [(at, update) for at, update in self._again if at >= asked]
            return again
        return self._updates[:limit]

    def _again_after(self, asked: float) -> list[dict[str, Any]]:
        """The updates :meth:`send_again` queued before a getUpdates asked at ``asked``."""
        return [update for at, update in self._again if at < asked]

    async def _delete_webhook(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _set_webhook(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        self.webhook_url = str(params.get("url", ""))
        return True

    async def _get_webhook_info(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    async def _send_message(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        if self.ephemeral.wanted(params):
            return await self.ephemeral.send(params, files, "text")
        chat = self._target_chat(params)
        raw = str(params.get("text", ""))
        text = plain_text(raw, params.get("parse_mode"))
        if not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if len(text) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        message = self._new_bot_message(chat, params)
        message.text, message.raw_text = text, raw
        self._messages[chat.id].append(message)
        return message.to_api()

    async def _send_photo(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        if self.ephemeral.wanted(params):
            return await self.ephemeral.send(params, files, "photo")
        chat = self._target_chat(params)
        file_id = self._photo_file_id(params.get("photo"), files, "photo")
        message = self._new_bot_message(chat, params)
        message.photo, message.photo_size = file_id, self._photo_size(file_id)
        if params.get("caption") is not None:
            message.raw_caption = str(params["caption"])
            message.caption = caption_text(message.raw_caption, params.get("parse_mode"))
        self._messages[chat.id].append(message)
        return message.to_api()

    async def _edit_message_text(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._bot_message(params)
        if message.text is None:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        raw = str(params.get("text", ""))
        text = plain_text(raw, params.get("parse_mode"))
        if not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if len(text) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        markup = checked_markup(params.get("reply_markup"))
        if (raw, params.get("parse_mode"), markup) == (
            message.raw_text,
            message.parse_mode,
            message.reply_markup,
        ):
            raise ApiError(400, NOT_MODIFIED)
        message.text, message.raw_text, message.parse_mode = text, raw, params.get("parse_mode")
        message.reply_markup = markup
        return _edited(message)

    async def _edit_message_caption(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._bot_message(params)
        if message.photo is None:
            raise ApiError(400, "Bad Request: there is no caption in the message to edit")
        raw = params.get("caption")
        markup = checked_markup(params.get("reply_markup"))
        if (raw, params.get("parse_mode"), markup) == (
            message.raw_caption,
            message.parse_mode,
            message.reply_markup,
        ):
            raise ApiError(400, NOT_MODIFIED)
        message.raw_caption = None if raw is None else str(raw)
        message.caption = caption_text(message.raw_caption, params.get("parse_mode"))
        message.parse_mode, message.reply_markup = params.get("parse_mode"), markup
        return _edited(message)

    async def _edit_message_media(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._bot_message(params)
        media = params.get("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise ApiError(400, "Bad Request: the fake server only edits photo media")
        file_id = self._photo_file_id(media.get("media"), files, "media")
        raw_caption = media.get("caption")
        markup = checked_markup(params.get("reply_markup"))
        old = (message.photo, message.raw_caption, message.reply_markup)
        if (file_id, raw_caption, markup) == old:
            raise ApiError(400, NOT_MODIFIED)
        message.text = message.raw_text = None
        message.photo, message.photo_size = file_id, self._photo_size(file_id)
        message.raw_caption = raw_caption
        message.caption = caption_text(raw_caption, media.get("parse_mode"))
        message.parse_mode, message.reply_markup = media.get("parse_mode"), markup
        return _edited(message)

    async def _edit_message_reply_markup(
        self, params: dict[str, Any], files: dict[str, Upload]
    ) -> Any:
        message = self._bot_message(params)
        markup = checked_markup(params.get("reply_markup"))
        if markup == message.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        message.reply_markup = markup
        return _edited(message)

    async def _delete_message(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        message = self._live_message(params, "delete")
        message.deleted = True
        return True

    async def _answer_callback_query(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        query = self._queries.get(str(params.get("callback_query_id")))
        if query is None or query["answered"]:
            raise ApiError(400, QUERY_TOO_OLD)
        if len(str(params.get("text") or "")) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        query["answered"] = True
        return True

    async def _set_my_commands(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        commands = check_commands(params.get("commands"))
        self.commands[commands_key(params)] = commands
        return True

    async def _get_my_commands(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        return self.commands.get(commands_key(params), [])

    async def _delete_my_commands(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        self.commands.pop(commands_key(params), None)
        return True

    async def _get_chat_member(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        chat = self.chats.get(_chat_id_param(params) or 0)
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        user = self.users.get(int(params.get("user_id", 0)))
        if user is None:
            raise ApiError(400, "Bad Request: user not found")
        status = self._members.get((chat.id, user.id), "member")
        return chat_member(user, status)

    async def _get_chat(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        chat = self.chats.get(_chat_id_param(params) or 0)
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        return {
            **chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    async def _send_chat_action(self, params: dict[str, Any], files: dict[str, Upload]) -> Any:
        self._target_chat(params)
        return True


# -------------------------------------------------------------------- module helpers


def _id(target: User | Chat | int) -> int:
    return target if isinstance(target, int) else target.id


def _chat_id_param(params: dict[str, Any]) -> int | None:
    value = params.get("chat_id")
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _params_match(actual: dict[str, Any], wanted: dict[str, Any]) -> bool:
    for key, value in wanted.items():
        if isinstance(value, User | Chat):
            value = value.id
        if key in {"chat_id", "message_id", "user_id"}:
            try:
                if int(actual.get(key)) != int(value):
                    return False
            except (TypeError, ValueError):
                return False
        elif actual.get(key) != value:
            return False
    return True


def _edited(message: FakeMessage) -> dict[str, Any]:
    message.edit_date = int(time.time())
    message.edits += 1
    return message.to_api()
