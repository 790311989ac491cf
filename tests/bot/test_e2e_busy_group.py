"""End to end, a busy group under Telegram's real flood limits (the strict fake Bot API: 20
sends, edits and deletes per group in any 60 s, 429 beyond): replies to commands go first in
the group's line, in the order asked, and a deal's first table picture is not held back by
them (a /give confirmation came 13.8 s late, after a /top asked 8 s later; the first picture
of a deal came 8.3 s after Start, so the group never saw the bidding)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest

from bot.core.i18n import t
from bot.core.settings import Settings
from bot.telegram.outlet.limiter import SlidingWindow
from bot.telegram.outlet.outbox import Outbox
from tests.bot.flow_helpers import LANG, button_data, join_answers
from tests.conftest import BotRunner
from tests.fakebot import Call, Chat, FakeMessage, User
from tests.fakebot.limits import FloodLimits, StrictFakeBotApi


@pytest.fixture
async def fake_api() -> AsyncIterator[StrictFakeBotApi]:
    api = StrictFakeBotApi(limits=FloodLimits(group_per_minute=20, overall_per_second=30))
    await api.start()
    yield api
    await api.stop()


@pytest.fixture
def bot_settings(bot_settings: Settings) -> Settings:
    return dataclasses.replace(bot_settings, group_rate_limit=20)  # Telegram's, the default


def _group_sends(api: StrictFakeBotApi, group: Chat, since: int) -> list[Call]:
    return [c for c in api.calls[since:] if c.ok and c.params.get("chat_id") == group.id
            and c.method in ("sendMessage", "sendPhoto", "editMessageMedia",
                             "editMessageCaption", "editMessageText")]


def _quoting(call: Call) -> int | None:
    quoted = (call.params.get("reply_parameters") or {}).get("message_id")
    return None if quoted is None else int(quoted)


async def _reply_to(api: StrictFakeBotApi, group: Chat, sent: FakeMessage) -> Call:
    return await api.wait_for(lambda: next(
        (c for c in _group_sends(api, group, 0) if _quoting(c) == sent.message_id), None), 10)


async def _press(api: StrictFakeBotApi, user: User, message: FakeMessage, suffix: str,
                 *said: str | None) -> None:
    """``user`` presses the button whose data ends in ``suffix``; its answer says one of
    ``said``."""
    answer = await api.wait_answer(api.press(user, message, button_data(message,
                                                                        suffix=suffix)))
    assert answer.params.get("text") in said, answer.params


async def test_in_a_busy_group_replies_go_first_and_the_first_table_picture_is_not_paced(
    fake_api: StrictFakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    api = fake_api
    game = running_bot.app.bot_data.game
    game.deal_seed, game.first_bidder = 20240601, 0
    group = api.new_group("Busy")
    ann, bob, cat = players = [api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    dan, eve = api.new_user("Dan"), api.new_user("Eve")
    for user in players:
        api.open_private_chat(user)
    api.send_text(ann, group, "/newgame")
    lobby_call = await api.wait_for("sendMessage", 10, chat_id=group)
    lobby = api.message(group, lobby_call.result["message_id"])
    for user in (bob, cat):
        await _press(api, user, lobby, ":join", *join_answers())
    for who in (dan, eve, dan):  # the group chats: its window fills with the replies
        await _reply_to(api, group, api.send_text(who, group, "/balance"))

    slots: list[tuple[bool, float, float]] = []  # per group slot asked: fresh, slot, paced slot
    slot = Outbox._slot

    def recorded(self: Outbox, window: SlidingWindow, chat_id: int, key: str) -> float:
        at = slot(self, window, chat_id, key)
        if chat_id == group.id:
            paced = window.last_start(chat_id) + self.pace(window, chat_id)
            slots.append((self._fresh(key), at, paced))
        return at

    monkeypatch.setattr(Outbox, "_slot", recorded)
    since = len(api.calls)
    await _press(api, ann, api.message(group, lobby.message_id), ":start",
                 t("lobby.starting", LANG))
    picture = await api.wait_for(lambda: next(
        (c for c in _group_sends(api, group, since)
         if c.method == "sendPhoto" and _quoting(c) is None), None), 10)
    fresh, at, paced = slots[0]  # the deal's first picture: the first group job after Start
    assert fresh and at < paced  # not held to the pace the replies stretched
    assert picture.params.get("caption") and "Ann" in picture.params["caption"]

    hand = await api.wait_for(lambda: next(
        (m for m in reversed(api.messages_in(ann)) if any(
            (b.callback_data or "").endswith(":bid1") for b in m.buttons)), None), 10)
    since = len(api.calls)
    await _press(api, ann, hand, ":bid1", None)  # the table has to show the bid: a paced edit
    asked = [api.send_text(dan, group, "/balance"), api.send_text(eve, group, "/me")]
    replies = [await _reply_to(api, group, sent) for sent in asked]
    table_edit = await api.wait_for(lambda: next(
        (c for c in _group_sends(api, group, since) if _quoting(c) is None), None), 10)
    assert replies[0].index < replies[1].index < table_edit.index  # in the order asked, first
    assert "Ann" in str(table_edit.params.get("caption") or table_edit.params.get("media"))
    assert api.rate_limited == []
