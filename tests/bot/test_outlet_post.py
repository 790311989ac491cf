"""TelegramOutlet.post (issue 9): a new message's picture is drawn before the chat's slot."""

from __future__ import annotations

import io
import time

from PIL import Image
from telegram import Bot

from bot.game.drawing import Drawing
from bot.telegram import photos
from bot.telegram.outlet.limiter import SlidingWindow
from bot.telegram.outlet.outbox import Outbox
from bot.telegram.outlet.telegram import TelegramOutlet
from tests.fakebot import FakeBotApi


async def test_a_posted_picture_is_drawn_before_its_slot_and_once(bot: Bot,
                                                                  fake_api: FakeBotApi) -> None:
    group = fake_api.new_group()
    window = SlidingWindow(2, 1.0)  # the outbox's pace: 0.5 s
    outbox = Outbox(window)
    outlet = TelegramOutlet(bot, None, photos.PhotoCache(), outbox)  # type: ignore[arg-type]
    await window.acquire(group.id)  # the chat's last request: the slot comes 0.5 s later
    window.finish(group.id, window.last_start(group.id))
    drawn: list[float] = []

    def render() -> bytes:
        drawn.append(time.monotonic())
        data = io.BytesIO()
        Image.new("RGB", (40, 30), "green").save(data, "PNG")
        return data.getvalue()

    outlet.post(f"{group.id}#result", group.id,
                Drawing("🏁 Result", None, ("result", 1), render, "result.png"))
    await outbox.idle()
    [sent] = fake_api.calls_to("sendPhoto")
    assert sent.ok
    assert fake_api.last_message(group).content == "🏁 Result"
    assert len(drawn) == 1  # drawn ahead, not again for the send
    assert drawn[0] < window.last_start(group.id) - 0.05  # before the slot came
