"""A fake Telegram Bot API server for tests, and the fixtures that run the real bot against it.

Modules: `server` (`FakeBotApi`: state, test helpers, the Bot API methods), `models` (users,
chats, messages, calls), `rules` (Telegram's limits and error answers), `wire` (how PTB encodes
parameters).

Fixtures (`tests/conftest.py`)
------------------------------
- `fake_api` -> `FakeBotApi`: started on 127.0.0.1 (random free port) for one test.
- `bot_settings` -> `Settings`: token and base URL of `fake_api`, database `tmp_path/ddz.sqlite3`,
  English default language, `bot_move_delay` 0.01, `table_edit_interval` 0, `group_rate_limit`
  1000, `turn_notice_delay` 0 ("your turn" at once). Override the fixture in a sub-folder
  `conftest.py` to change settings for many tests,
  or pass overrides to `bot_runner.start(play_timeout=0.5, ...)`.
- `bot_runner` -> `BotRunner` (not started): `await start(**overrides) -> Application`,
  `await stop()`, `await restart(**overrides) -> Application` (a new Application on the same
  database file), `.app` (the running Application), `.settings`, `.on_build` (functions called
  with each new Application before it starts, e.g. to add a test handler), `.errors`
  (non-Telegram exceptions raised in handlers or jobs: the fixture fails the test if there are
  any, unless `.allow_errors = True`).
- `running_bot` -> the same `BotRunner`, already started: `running_bot.app.bot_data.store`.

The bot polls with `getUpdates` (timeout 2 s; an injected update answers a pending poll at once).

Users and chats (`tests/fakebot/models.py`)
-------------------------------------------
- `User(id, first_name, username=None, language_code="en", last_name=None, is_bot=False)`,
  `Chat(id, type="group", title=None, first_name=None, username=None, is_forum=False)`,
  `Chat.private(user)`. Wherever a chat is expected you may pass a `Chat`, a `User` (meaning
  their private chat with the bot) or a known chat id.
- `api.new_user("Alice", language_code="zh-hans", username=None) -> User` (fresh id from 1001),
  `api.new_group("title", type="supergroup" | "group", is_forum=False) -> Chat` (negative id).
- `FakeMessage`: `chat`, `message_id`, `from_user`, `from_bot`, `text`, `caption` (plain text as
  Telegram shows it: HTML tags removed), `raw_text`/`raw_caption` (as sent), `parse_mode`,
  `photo` (file id), `photo_size` (width, height, bytes), `reply_markup` (dict), `thread_id`,
  `reply_to_message_id`, `edits` (how many times edited), `deleted`; `content` (text or caption),
  `buttons` (flat list of `Button(text, callback_data, url, row, col)`), `keyboard` (rows),
  `button(label) -> Button` (LookupError listing the labels if none matches).
- `Call`: `method`, `params` (decoded: ints, dicts for reply_markup/media/commands), `time`
  (`time.monotonic()` on arrival), `status`, `ok`, `response`, `result`, `index`.

Injecting updates (plain functions, no await; each queues an update and sets the wait mark)
--------------------------------------------------------------------------------------------
- `api.send_text(user, chat, text, *, thread_id=None, reply_to=None) -> FakeMessage`: a
  message; `/cmd` and `/cmd@botname` get a `bot_command` entity. Writing in the private chat
  (`chat=user`) opens it. Group chats must be `Chat` objects of type "group"/"supergroup".
- `api.press(user, message, data) -> query_id`: a callback query with exactly `data` (may be
  forged) on `message` as it is now. `api.click(user, message, "Join") -> query_id` presses
  the button with that label.
- `api.send_anonymously(group, text, reply_to=None)`: an anonymous admin writes (from
  GroupAnonymousBot 1087968824, `sender_chat` = the group); `api.new_channel(title) -> Chat`
  and `api.send_as_channel(channel, group, text)`: a message written as a channel (from
  Channel_Bot 136817688, `sender_chat` = the channel); `send_text(..., sender_chat=chat)`.
- `api.migrate_to_supergroup(group, by=user) -> Chat`: a basic group becomes a supergroup
  (two service updates, `migrate_to_chat_id` then `migrate_from_chat_id`; the old id answers
  400 "group chat was upgraded to a supergroup chat" with `parameters.migrate_to_chat_id`).
- `api.add_update({...}) -> update_id`: any other raw update.
- `api.delete(message)`: someone deletes a message (a moderation bot deleting commands): the
  bot's replies to it answer 400 "message to be replied not found" unless sent with
  `allow_sending_without_reply`.
- `api.pending_updates`: updates the bot has not confirmed yet.
- `await api.deliver_webhooks([url, ...], secret) -> WebhookDelivery` (`tests/fakebot/webhooks.py`):
  from then on every injected update is POSTed to the URLs in turn with the secret token header
  (a reverse proxy's round-robin in front of N workers), sent again to the next URL until one
  answers 200; `.deliveries` records every POST (`update_id`, `target`, `status`).

Waiting and reading
-------------------
- `await api.wait_for("sendMessage", timeout=5.0, *, since=None, where=None, ok=True,
  chat_id=chat, **params) -> Call`: first matching call since the mark (the last injected
  update, or `api.mark()`); `ok=None` matches failed calls too. `await api.wait_for(lambda:
  ..., timeout)` polls a predicate after every call and returns its first truthy value.
  Both raise TimeoutError listing the calls seen.
- `await api.wait_answer(query_id) -> Call` (the answerCallbackQuery; `params["text"]`,
  `params.get("show_alert")`), `api.answer_to(query_id) -> Call | None`.
- `await api.wait_settled(query_id) -> Call`: the answer *and* the end of the bot's handling of
  that press (the bot answers first, then redraws; the `bot_runner` fixture reports handled
  updates through `api.mark_handled`, see `api.handled_updates` / `api.handled_queries`).
- `api.messages_in(chat, *, include_users=False, include_deleted=False) -> list[FakeMessage]`,
  `api.last_message(chat) -> FakeMessage | None`, `api.message(chat, message_id)`,
  `api.buttons(message) -> list[Button]`, `api.file(file_id) -> bytes` (uploaded photos),
  `api.calls` (every call, getUpdates included), `api.calls_to(method, *, since=0, **params)`,
  `api.unknown_methods`, `api.commands[(scope_type, language_code or "")]` (from
  setMyCommands; a one-chat scope's type is ``"chat:<chat_id>"``).
- `api.set_bot_status(by, chat, status, old_status="left")`: `by` adds the bot to a group
  (status "member" or "administrator") or removes it: a ``my_chat_member`` update.

Telegram's behaviour and failures on demand
-------------------------------------------
- A user who never wrote to the bot privately (`send_text(user, user, "/start")` or
  `api.open_private_chat(user)`) cannot be written to: 403 "Forbidden: bot can't initiate
  conversation with a user". `api.is_private_chat_open(user)`.
- `api.block_user(user)` / `api.unblock_user(user)`: every call into their private chat answers
  403 "Forbidden: bot was blocked by the user".
- `api.fail_next(method, status, description=None, retry_after=None, *, chat=None, times=1)`:
  the next call(s) of `method` (into `chat`) fail: 403 blocked, 429 "Too Many Requests" with
  `parameters.retry_after` (default 1 s), 400 generic, or your own description.
- Edits that change nothing answer 400 "Bad Request: message is not modified: ..."; editing
  text without `reply_markup` removes the keyboard, as Telegram does. Other 400s like
  Telegram's: unknown chat or message, empty or too long text (4096) or caption (1024),
  HTML that Telegram cannot parse (parse_mode HTML), callback data over 64 bytes, a bad button
  URL, a callback query answered twice or unknown, a command menu language that is not a
  two-letter code.
- `api.set_member_status(chat, user, status)` / `api.make_admin(chat, user)`: what getChatMember
  answers ("member" by default; "creator", "administrator", "left", "kicked").
- Ephemeral messages (Bot API 10.2/10.3; `tests/fakebot/ephemeral.py`, `api.ephemeral`):
  sendMessage/sendPhoto with `ephemeral_message_parameters` (or the 10.2 flat
  `receiver_user_id`/`callback_query_id`) store a message only its receiver sees
  (`message_id` 0, `ephemeral_message_id`, `receiver_user`); `editEphemeralMessageText`/
  `Caption`/`Media`/`ReplyMarkup` and `deleteEphemeralMessage` by (chat, receiver, id).
  Without a callback query of the receiver (at most 15 s old: `api.ephemeral.advance(s)`) only
  an admin bot may send (`api.ephemeral.set_bot_admin(chat, True)`); refusals answer 400 (the
  constants there). Reading: `seen_by(user, chat)`, `last_seen_by`, `sent_to` (dropped ones
  too), `timeline(user, chat)` (what that member sees in the group), `calls()` (every
  ephemeral call with its receiver), `receivers()`. Presses: `api.ephemeral.press(user,
  message, data)` / `click(user, message, label)`; `send_command(user, chat, "/cards")`: an
  ephemeral command only the bot gets, answerable for 15 s with
  `reply_parameters.ephemeral_message_id`. Losses: `drop_next(user=None, times=1)`
  (the call succeeds, the user never sees it), `forget(user)` (app restart), `expire(message)`
  (edits answer "not found"), `edit_window` (seconds an ephemeral message may be edited),
  `supported = False` (a server older than 10.3: the parameters are ignored, the message is
  public).
- Methods: getMe, getUpdates (long polling, offsets, limit), deleteWebhook, setWebhook,
  getWebhookInfo, sendMessage, sendPhoto (multipart upload or a known file id), editMessageText,
  editMessageCaption, editMessageMedia (attach://), editMessageReplyMarkup, deleteMessage,
  answerCallbackQuery, setMyCommands, getMyCommands, deleteMyCommands, getChatMember, getChat,
  sendChatAction, the ephemeral methods above; any other method is recorded in
  `unknown_methods` and answers ok/true.
"""

from .models import CHANNEL_BOT, GROUP_ANONYMOUS_BOT, Button, Call, Chat, FakeMessage, User
from .rules import BLOCKED, CANNOT_INITIATE, NOT_MODIFIED
from .server import DEFAULT_TOKEN, FakeBotApi
from .wire import Upload

__all__ = [
    "BLOCKED",
    "CHANNEL_BOT",
    "GROUP_ANONYMOUS_BOT",
    "CANNOT_INITIATE",
    "DEFAULT_TOKEN",
    "NOT_MODIFIED",
    "Button",
    "Call",
    "Chat",
    "FakeBotApi",
    "FakeMessage",
    "Upload",
    "User",
]
