"""The fake Bot API server answers PTB like Telegram does (tests/fakebot)."""

from __future__ import annotations

import asyncio
import struct
import time
import zlib
from datetime import timedelta

import pytest
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
)
from telegram.error import BadRequest, ChatMigrated, Forbidden, InvalidToken, RetryAfter
from telegram.request import HTTPXRequest

from tests.fakebot import FakeBotApi, User
from tests.fakebot.limits import FloodLimits, StrictFakeBotApi


def png(width: int, height: int) -> bytes:
    """A tiny valid PNG, so the server can read its size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x00\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=f"d:{label}") for label in labels]]
    )


@pytest.fixture
def alice(fake_api: FakeBotApi) -> User:
    return fake_api.new_user("Alice", language_code="zh-hans")


async def test_get_me_and_wrong_token(fake_api: FakeBotApi, bot: Bot) -> None:
    assert bot.username == "ddz_test_bot"
    assert bot.id == fake_api.bot_user.id
    request = HTTPXRequest()
    other = Bot(
        "1:AAH-fake-token-for-the-tests-only_02", base_url=fake_api.base_url, request=request
    )
    try:
        with pytest.raises(InvalidToken):
            await other.get_me()
    finally:
        await request.shutdown()


async def test_group_command_update_parses_with_entity(
    fake_api: FakeBotApi, bot: Bot, alice: User
) -> None:
    group = fake_api.new_group("Friends", type="group")
    fake_api.send_text(alice, group, "/newgame@ddz_test_bot now")
    (update,) = await bot.get_updates(timeout=1)
    message = update.message
    assert message.chat.type == "group" and message.chat.title == "Friends"
    assert message.from_user.language_code == "zh-hans"
    assert message.parse_entities() == {message.entities[0]: "/newgame@ddz_test_bot"}
    assert message.entities[0].type == "bot_command"


async def test_long_poll_waits_for_an_update_and_offsets_confirm(
    fake_api: FakeBotApi, bot: Bot, alice: User
) -> None:
    async def inject_later() -> None:
        await asyncio.sleep(0.2)
        fake_api.send_text(alice, alice, "/start")

    started = time.monotonic()
    task = asyncio.create_task(inject_later())
    updates = await bot.get_updates(timeout=5)
    await task
    assert 0.15 < time.monotonic() - started < 2
    assert [u.message.text for u in updates] == ["/start"]
    assert await bot.get_updates(timeout=0) == updates  # not confirmed yet
    fake_api.send_text(alice, alice, "hello")
    later = await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0)
    assert [u.message.text for u in later] == ["hello"]
    assert fake_api.pending_updates == 1
    started = time.monotonic()
    assert await bot.get_updates(offset=later[-1].update_id + 1, timeout=0.3) == ()
    assert time.monotonic() - started >= 0.25


async def test_messages_buttons_and_edits(fake_api: FakeBotApi, bot: Bot, alice: User) -> None:
    group = fake_api.new_group()
    sent = await bot.send_message(group.id, "Lobby", reply_markup=keyboard("Join", "Start"))
    table = fake_api.last_message(group)
    assert (table.message_id, table.text) == (sent.message_id, "Lobby")
    assert [(b.text, b.callback_data) for b in fake_api.buttons(table)] == [
        ("Join", "d:Join"),
        ("Start", "d:Start"),
    ]
    assert table.button("Start").col == 1
    with pytest.raises(LookupError, match="Join"):
        table.button("Leave")

    await bot.edit_message_text(
        "Lobby 1/3", group.id, sent.message_id, reply_markup=keyboard("Join")
    )
    assert (table.text, [b.text for b in table.buttons], table.edits) == ("Lobby 1/3", ["Join"], 1)
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "Lobby 1/3", group.id, sent.message_id, reply_markup=keyboard("Join")
        )
    await bot.edit_message_text("Lobby 1/3", group.id, sent.message_id)
    assert table.buttons == []  # no reply_markup: Telegram drops the keyboard
    await bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=keyboard("Go"))
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=keyboard("Go"))
    await bot.edit_message_reply_markup(
        group.id, sent.message_id, reply_markup=InlineKeyboardMarkup([])
    )
    assert table.reply_markup is None
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(group.id, sent.message_id)
    assert [c.status for c in fake_api.calls_to("editMessageReplyMarkup")] == [200, 400, 200, 400]

    await bot.delete_message(group.id, sent.message_id)
    assert fake_api.last_message(group) is None
    assert fake_api.messages_in(group, include_deleted=True) == [table]
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("again", group.id, sent.message_id)


async def test_html_is_shown_as_plain_text_and_bad_html_is_refused(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    group = fake_api.new_group()
    await bot.send_message(group.id, "<b>Alice</b> &lt;3 &amp; co", parse_mode="HTML")
    message = fake_api.last_message(group)
    assert (message.text, message.raw_text) == ("Alice <3 & co", "<b>Alice</b> &lt;3 &amp; co")
    with pytest.raises(BadRequest, match="Can't parse entities"):
        await bot.send_message(group.id, "<Bob> joined", parse_mode="HTML")
    with pytest.raises(BadRequest, match="Can't parse entities"):
        await bot.send_message(group.id, "<b>bold", parse_mode="HTML")


async def test_telegram_limits_are_enforced(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.new_group()
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(group.id, "x" * 4097)
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(group.id, "x", reply_markup=keyboard("y" * 70))
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(-42, "x")
    assert fake_api.messages_in(group) == []


async def test_private_chat_needs_start_and_blocking_forbids(
    fake_api: FakeBotApi, bot: Bot, alice: User
) -> None:
    with pytest.raises(Forbidden, match="bot can't initiate conversation"):
        await bot.send_message(alice.id, "your cards")
    assert not fake_api.is_private_chat_open(alice)
    fake_api.send_text(alice, alice, "/start join-abc")
    await bot.send_message(alice.id, "your cards")
    assert fake_api.last_message(alice).text == "your cards"
    assert [m.text for m in fake_api.messages_in(alice, include_users=True)] == [
        "/start join-abc",
        "your cards",
    ]
    fake_api.block_user(alice)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(alice.id, "more cards")
    fake_api.unblock_user(alice)
    await bot.send_message(alice.id, "more cards")


async def test_fail_next_answers_errors_once(fake_api: FakeBotApi, bot: Bot) -> None:
    group, other = fake_api.new_group(), fake_api.new_group()
    fake_api.fail_next("sendMessage", 429, retry_after=7)
    with pytest.raises(RetryAfter, match=r"Retry in (7 seconds|0:00:07)"):
        await bot.send_message(group.id, "a")
    fake_api.fail_next("sendMessage", 400, "Bad Request: custom", chat=other)
    await bot.send_message(group.id, "b")  # another chat: not affected
    with pytest.raises(BadRequest, match="Custom"):
        await bot.send_message(other.id, "c")
    fake_api.fail_next("editMessageText", 403, times=2)
    for _ in range(2):
        with pytest.raises(Forbidden, match="blocked"):
            await bot.edit_message_text("x", group.id, 1)
    assert [m.text for m in fake_api.messages_in(group)] == ["b"]
    assert [c.status for c in fake_api.calls_to("sendMessage")] == [429, 200, 400]


async def test_press_sends_the_message_and_answers_are_recorded(
    fake_api: FakeBotApi, bot: Bot, alice: User
) -> None:
    group = fake_api.new_group()
    await bot.send_message(group.id, "Lobby", reply_markup=keyboard("Join"))
    lobby = fake_api.last_message(group)
    query_id = fake_api.click(alice, lobby, "Join")
    forged = fake_api.press(alice, lobby, "d:Start")
    first, second = await bot.get_updates(timeout=1)
    assert first.callback_query.data == "d:Join" and second.callback_query.data == "d:Start"
    assert first.callback_query.from_user.id == alice.id
    assert first.callback_query.message.text == "Lobby"
    assert first.callback_query.message.reply_markup == keyboard("Join")
    await first.callback_query.answer("Seated", show_alert=True)
    answer = await fake_api.wait_answer(query_id)
    assert answer.params == {"callback_query_id": query_id, "text": "Seated", "show_alert": True}
    assert fake_api.answer_to(forged) is None
    with pytest.raises(BadRequest, match="Query is too old"):
        await first.callback_query.answer("twice")


async def test_photos_upload_reuse_and_edit(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.new_group()
    sent = await bot.send_photo(group.id, png(30, 20), caption="table")
    photo = sent.photo[-1]
    assert (photo.width, photo.height) == (30, 20)
    assert fake_api.file(photo.file_id) == png(30, 20)
    again = await bot.send_photo(group.id, photo.file_id)
    assert again.photo[-1].file_id == photo.file_id
    with pytest.raises(BadRequest, match="Wrong file identifier"):
        await bot.send_photo(group.id, "no-such-file")

    await bot.edit_message_caption(group.id, sent.message_id, caption="table 2")
    assert fake_api.message(group, sent.message_id).caption == "table 2"
    await bot.edit_message_media(
        InputMediaPhoto(png(40, 10), caption="table 3"),
        group.id,
        sent.message_id,
        reply_markup=keyboard("My cards"),
    )
    message = fake_api.message(group, sent.message_id)
    assert (message.photo_size[:2], message.content) == ((40, 10), "table 3")
    assert message.photo != photo.file_id and fake_api.file(message.photo) == png(40, 10)
    assert [b.text for b in message.buttons] == ["My cards"]
    with pytest.raises(BadRequest, match="There is no text"):
        await bot.edit_message_text("text", group.id, sent.message_id)


async def test_commands_chat_member_chat_and_unknown_methods(
    fake_api: FakeBotApi, bot: Bot, alice: User
) -> None:
    group = fake_api.new_group("Room")
    await bot.set_my_commands([("newgame", "Open a table")], language_code="zh")
    await bot.set_my_commands([("newgame", "Open a table"), ("help", "Rules")])
    assert fake_api.commands[("default", "zh")] == [
        {"command": "newgame", "description": "Open a table"}
    ]
    assert [c.command for c in await bot.get_my_commands()] == ["newgame", "help"]
    with pytest.raises(BadRequest, match="Invalid language code"):
        await bot.set_my_commands([("newgame", "x")], language_code="zh-Hans")
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([("New-Game", "x")])

    assert (await bot.get_chat_member(group.id, alice.id)).status == "member"
    fake_api.make_admin(group, alice)
    assert (await bot.get_chat_member(group.id, alice.id)).status == "administrator"
    fake_api.set_member_status(group, alice, "creator")
    assert (await bot.get_chat_member(group.id, alice.id)).status == "creator"
    assert (await bot.get_chat(group.id)).title == "Room"

    assert await bot.set_chat_title(group.id, "New title")
    assert fake_api.unknown_methods == ["setChatTitle"]


async def test_wait_for_matches_calls_after_the_mark(fake_api: FakeBotApi, bot: Bot) -> None:
    group, other = fake_api.new_group(), fake_api.new_group()
    await bot.send_message(group.id, "before")
    fake_api.mark()

    async def send_later() -> None:
        await asyncio.sleep(0.05)
        await bot.send_message(other.id, "elsewhere")
        await bot.send_message(group.id, "after")

    task = asyncio.create_task(send_later())
    call = await fake_api.wait_for("sendMessage", chat_id=group)
    await task
    assert call.params["text"] == "after" and call.result["text"] == "after"
    assert await fake_api.wait_for(lambda: fake_api.last_message(other)) is not None
    with pytest.raises(TimeoutError, match="sendPhoto"):
        await fake_api.wait_for("sendPhoto", timeout=0.1)


async def test_forum_topics_keep_their_thread(fake_api: FakeBotApi, bot: Bot, alice: User) -> None:
    forum = fake_api.new_group("Forum", is_forum=True)
    asked = fake_api.send_text(alice, forum, "/newgame", thread_id=7)
    (update,) = await bot.get_updates(timeout=1)
    assert update.message.message_thread_id == 7 and update.message.chat.is_forum
    await bot.send_message(
        forum.id, "Lobby", message_thread_id=7, reply_to_message_id=asked.message_id
    )
    lobby = fake_api.last_message(forum)
    assert (lobby.thread_id, lobby.reply_to_message_id) == (7, asked.message_id)
    fake_api.fail_next("sendMessage", 403, "Forbidden: topic closed")
    with pytest.raises(Forbidden):
        await bot.send_message(forum.id, "x", message_thread_id=7)
    failed = await fake_api.wait_for(
        "sendMessage", ok=None, where=lambda call: call.status == 403, since=0
    )
    assert failed.response["description"] == "Forbidden: topic closed"


async def test_anonymous_admins_and_channels_arrive_with_their_sender_chat(
    fake_api: FakeBotApi, bot: Bot
):
    group, channel = fake_api.new_group("Anon"), fake_api.new_channel("News")
    fake_api.send_anonymously(group, "/settings")
    fake_api.send_as_channel(channel, group, "/daily")
    anonymous, posted = [u.message for u in await bot.get_updates(timeout=0)]
    assert (anonymous.from_user.id, anonymous.from_user.is_bot) == (1087968824, True)
    assert anonymous.sender_chat.id == group.id
    assert (posted.from_user.id, posted.sender_chat.id, posted.sender_chat.type) == (
        136817688, channel.id, "channel")


async def test_an_upgraded_group_announces_its_new_id_twice_and_refuses_the_old_one(
    fake_api: FakeBotApi, bot: Bot
):
    group, ann = fake_api.new_group("Family", type="group"), fake_api.new_user("Ann")
    fake_api.make_admin(group, ann)
    supergroup = fake_api.migrate_to_supergroup(group, by=ann)
    old, new = [u.message for u in await bot.get_updates(timeout=0)]
    assert (old.chat.id, old.migrate_to_chat_id) == (group.id, supergroup.id)
    assert (new.chat.id, new.migrate_from_chat_id) == (supergroup.id, group.id)
    assert supergroup.type == "supergroup" and supergroup.title == "Family"
    assert (await bot.get_chat_member(supergroup.id, ann.id)).status == "administrator"
    with pytest.raises(ChatMigrated) as error:
        await bot.send_message(group.id, "hello?")
    assert error.value.new_chat_id == supergroup.id


class Clock:
    """A clock the test moves on by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_strict_mode_sliding_group_minute_and_overall_second() -> None:
    clock = Clock()
    api = StrictFakeBotApi(limits=FloodLimits(group_per_minute=20, overall_per_second=30),
                           clock=clock)
    await api.start()
    try:
        async with Bot(api.token, base_url=api.base_url) as bot:
            group, other = api.new_group("Busy"), api.new_group("Quiet")
            users = [api.new_user(f"P{i}") for i in range(12)]
            for user in users:
                api.open_private_chat(user)
            # 10 sends at t=0 and 10 edits at t=30 fill the group's minute.
            first = await bot.send_message(group.id, "table 0")
            for i in range(1, 10):
                await bot.send_message(group.id, f"table {i}")
            clock.now += 30
            for i in range(10):
                await bot.edit_message_text(f"edit {i}", group.id, first.message_id)
            with pytest.raises(RetryAfter) as refused:
                await bot.delete_message(group.id, first.message_id)
            assert refused.value.retry_after in (30, timedelta(seconds=30))
            # Another group and private chats have their own budgets; answers never count.
            await bot.send_message(other.id, "hello")
            await bot.send_message(users[0].id, "your hand")
            # Sliding, not a bucket: at t=60.5 only the 10 sends of t=0 have left the window.
            clock.now += 30.5
            for i in range(10):
                await bot.send_message(group.id, f"later {i}")
            with pytest.raises(RetryAfter) as refused:
                await bot.send_message(group.id, "one too many")
            assert refused.value.retry_after in (30, timedelta(seconds=30))

            # Overall: 30 requests naming a chat in any second, groups and private alike.
            clock.now += 100
            for i in range(30):
                await bot.send_message(users[i % len(users)].id, f"n{i}")
            with pytest.raises(RetryAfter) as refused:
                await bot.send_message(users[0].id, "n30")
            assert refused.value.retry_after in (1, timedelta(seconds=1))
            clock.now += 1.0
            await bot.send_message(users[0].id, "n31")
    finally:
        await api.stop()
    statuses = [c.status for c in api.calls if c.method != "getMe"]
    assert statuses.count(429) == 3 == len(api.rate_limited)
    assert [r.method for r in api.rate_limited] == ["deleteMessage", "sendMessage", "sendMessage"]
    assert api.rate_limited[0].chat_id == group.id
    assert [r.window for r in api.rate_limited] == ["group", "group", "overall"]
    assert not api.message(group, first.message_id).deleted  # a refused call changes nothing
    sent = api.calls_to("sendMessage")[0]
    assert api.uploaded(sent) > len("table 0")  # the HTTP body of the call, in bytes
