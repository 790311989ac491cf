"""Helpers for the economy tests: a clock the test moves, replies to commands, and deals settled
straight through the store (the flow tests play deals with buttons; here only their beans
matter)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from bot.store import SeatRecord, Settlement, Store
from tests.fakebot import Call, Chat, FakeBotApi, FakeMessage, User

#: Wednesday 2024-05-01 12:00 UTC = 20:00 in Shanghai.
START = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


class Clock:
    """The store's clock (``store.clock``), moved by hand."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


async def reply(api: FakeBotApi, user: User, chat: Chat | User, text: str,
                reply_to: FakeMessage | None = None) -> str:
    """``user`` sends ``text`` in ``chat``; the text of the bot's answer there: the first
    message it sends, or a picture answering the command (``/top`` in a group with pictures on),
    whose caption is the text."""
    start = len(api.calls)
    sent = api.send_text(user, chat, text, reply_to=reply_to)

    def answer() -> Call | None:
        for call in api.calls[start:]:
            if not call.ok or call.params.get("chat_id") != chat.id:
                continue
            quoted = (call.params.get("reply_parameters") or {}).get("message_id")
            if call.method == "sendMessage" or (call.method == "sendPhoto"
                                                and quoted == sent.message_id):
                return call
        return None

    call = await api.wait_for(answer)
    return call.params.get("text") or call.params["caption"]


async def settle(store: Store, chat_id: int, seats: Sequence[User | None],
                 points: Sequence[int], stake: int = 10) -> Settlement:
    """A deal at ``chat_id`` (``None`` seats are bots) settled at once with ``points``."""
    records = []
    for seat in seats:
        if seat is None:
            records.append(SeatRecord(None, "bot", is_bot=True))
        else:
            await store.ensure_player(seat.id, seat.first_name)
            records.append(SeatRecord(seat.id, seat.first_name))
    deal_id = await store.create_deal(f"{chat_id}:0", chat_id, records, {"bidding": "score"},
                                      stake, '{"version": 0}')
    return await store.settle_deal(deal_id, points, '{"version": 1}')


async def username_stored(store: Store, username: str, user: User, timeout: float = 5.0) -> None:
    """Wait until the store says ``user`` holds ``@username`` (the bot records it from the
    updates it handles, QA5 defect 7)."""
    deadline = time.monotonic() + timeout
    while True:
        owner = await store.username_owner(username)
        if owner is not None and owner.user_id == user.id:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"@{username} is {owner}, not user {user.id}")
        await asyncio.sleep(0.02)
