"""The Bot API's HTTP client (bot.telegram.outlet.http.AiohttpRequest) under PTB, against the fake
Bot API: JSON parameters and keyboards, uploads, Telegram's errors, timeouts and unreachable
servers."""

from __future__ import annotations

import asyncio
import io
import socket

import pytest
from aiohttp import web
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, NetworkError, TimedOut

from bot.telegram.outlet.http import UNREAD, AiohttpRequest
from tests.fakebot import FakeBotApi


def png() -> bytes:
    data = io.BytesIO()
    Image.new("RGB", (40, 30), "red").save(data, "PNG")
    return data.getvalue()


async def test_messages_keyboards_and_uploads_go_through(bot: Bot, fake_api: FakeBotApi) -> None:
    user = fake_api.new_user("Ada")
    fake_api.open_private_chat(user)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("7×3", callback_data="S:t:4:r4")]])
    sent = await bot.send_message(user.id, "你好 · hello", reply_markup=keyboard)
    shown = fake_api.message(user.id, sent.message_id)
    assert shown.content == "你好 · hello"
    assert [b.callback_data for b in shown.buttons] == ["S:t:4:r4"]
    photo = await bot.send_photo(user.id, png(), caption="Your cards", filename="hand.png")
    assert photo.photo and photo.caption == "Your cards"
    assert fake_api.message(user.id, photo.message_id).photo == photo.photo[-1].file_id
    again = await bot.send_photo(user.id, photo.photo[-1].file_id, caption="again")
    assert again.photo[-1].file_id == photo.photo[-1].file_id
    [upload] = fake_api.calls_to("sendPhoto", caption="Your cards")
    assert upload.ok


async def test_telegram_errors_reach_ptb_as_its_own(bot: Bot, fake_api: FakeBotApi) -> None:
    user = fake_api.new_user("Bo")
    fake_api.open_private_chat(user)
    with pytest.raises(BadRequest):
        await bot.edit_message_text("nothing here", user.id, 999_999)


async def test_unread_edits_answer_true_and_fail_as_before(fake_api: FakeBotApi) -> None:
    """Edits named ``unread`` are done as usual; PTB gets ``true`` instead of the message, and
    Telegram's refusals still reach it as errors. Other methods' answers are parsed."""
    bot = Bot(fake_api.token, base_url=fake_api.base_url,
              request=AiohttpRequest(unread=UNREAD), get_updates_request=AiohttpRequest(1))
    await bot.initialize()
    try:
        user = fake_api.new_user("Cy")
        fake_api.open_private_chat(user)
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Pass", callback_data="p")]])
        sent = await bot.send_message(user.id, "first", reply_markup=keyboard)
        assert sent.text == "first"  # a send's answer is read
        assert await bot.edit_message_text("second", user.id, sent.message_id,
                                           reply_markup=keyboard) is True
        assert await bot.edit_message_reply_markup(user.id, sent.message_id) is True
        shown = fake_api.message(user.id, sent.message_id)
        assert shown.content == "second" and shown.buttons == []
        photo = await bot.send_photo(user.id, png(), caption="a", filename="hand.png")
        assert await bot.edit_message_caption(user.id, photo.message_id, caption="b") is True
        assert fake_api.message(user.id, photo.message_id).content == "b"
        with pytest.raises(BadRequest):
            await bot.edit_message_text("nothing here", user.id, 999_999)
    finally:
        await bot.shutdown()


async def test_a_server_that_is_down_is_a_network_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    request = AiohttpRequest()
    await request.initialize()
    try:
        with pytest.raises(NetworkError):
            await request.post(f"http://127.0.0.1:{port}/bot1:x/getMe")
    finally:
        await request.shutdown()


async def test_a_slow_answer_times_out() -> None:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(2)
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_post("/{tail:.*}", slow)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    request = AiohttpRequest(read_timeout=0.2)
    await request.initialize()
    try:
        with pytest.raises(TimedOut):
            await request.post(f"http://127.0.0.1:{port}/bot1:x/getMe")
        with pytest.raises(RuntimeError):
            await AiohttpRequest().do_request("http://127.0.0.1/", "POST")
    finally:
        await request.shutdown()
        await runner.cleanup()
