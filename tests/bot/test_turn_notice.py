"""The private "Your turn" notice (edits of the hand message do not notify): sent with
notification when a human seat is to act, deleted when it acts or the turn passes, at most one
per seat, never for seats on auto-play; kept across a restart."""

from __future__ import annotations

from bot.core.i18n import t
from engine import Action
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    hand_message,
    result_message,
    start_seeded_deal,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, FakeMessage, User

SEED = 20240601
TITLE = "Bell ringers"
NOTICE = t("notice.your_turn_in", LANG, group=TITLE)


def notices(api: FakeBotApi, user: User) -> list[FakeMessage]:
    """The user's notices still in the chat."""
    return [m for m in api.messages_in(user) if m.text == NOTICE]


def pending(api: FakeBotApi, players: Players) -> list[int]:
    """How many notices each player has in their chat now."""
    return [len(notices(api, user)) for user in players.users]


async def start(fake_api: FakeBotApi, app, first_bidder: int = 0) -> Players:
    return await start_seeded_deal(fake_api, app, TITLE, seed=SEED, first_bidder=first_bidder)


async def test_the_seat_to_act_is_notified_until_it_acts(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await start(fake_api, running_bot.app)
    ann, bob, cat = players.users
    assert NOTICE == "🔔 Your turn at Bell ringers!"
    assert pending(fake_api, players) == [1, 0, 0]
    (sent,) = fake_api.calls_to("sendMessage", chat_id=ann.id, text=NOTICE)
    assert sent.params["disable_notification"] is False
    notice = notices(fake_api, ann)[0]
    assert notice.message_id > hand_message(fake_api, ann).message_id  # below the hand

    await players.act(Action("bid", 0, value=1))
    assert notice.deleted and pending(fake_api, players) == [0, 1, 0]
    await players.act(Action("pass", 1))
    await players.act(Action("bid", 2, value=3))  # Cat is landlord and leads
    assert pending(fake_api, players) == [0, 0, 1]

    # Selecting cards redraws the hand but sends no second notice.
    message = hand_message(fake_api, cat)
    low = min(players.hand_ranks(2))
    await players.press(cat, message, button_data(message, suffix=f":r{low}"))
    await players.click(cat, hand_message(fake_api, cat), t("btn.clear", LANG))
    assert pending(fake_api, players) == [0, 0, 1]
    assert len(fake_api.calls_to("sendMessage", chat_id=cat.id, text=NOTICE)) == 1

    # On auto-play nobody is notified; at the end of the deal no notice is left.
    await players.click(cat, hand_message(fake_api, cat), t("btn.autoplay", LANG))
    assert pending(fake_api, players)[2] == 0
    for user in (ann, bob):
        await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    await result_message(fake_api, players.group)
    await fake_api.wait_for(lambda: pending(fake_api, players) == [0, 0, 0])
    for user in players.users:
        sent = fake_api.calls_to("sendMessage", chat_id=user.id, text=NOTICE)
        deleted = {c.params["message_id"] for c in fake_api.calls_to(
            "deleteMessage", chat_id=user.id) if c.ok}
        assert {c.result["message_id"] for c in sent} <= deleted


async def test_a_timeout_and_a_stop_withdraw_the_notice(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(bid_timeout=0.5)
    players = await start(fake_api, app, first_bidder=1)
    ann, bob, _ = players.users
    assert pending(fake_api, players) == [0, 1, 0]
    # Bob lets the time run out: his seat goes on auto-play, the turn passes on.
    await fake_api.wait_for(lambda: pending(fake_api, players)[1] == 0, timeout=5)
    table = app.bot_data.tables.table_of(ann.id)
    assert table.state.autoplay[1] and table.state.history[0] == Action("timeout", 1)
    await fake_api.wait_for(lambda: pending(fake_api, players) == [0, 0, 1], timeout=5)
    fake_api.make_admin(players.group, ann)
    await players.command(ann, "/stop")  # its reply, or the group's "Cat ran out of time"
    await fake_api.wait_for(lambda: app.bot_data.tables.get(table.key) is None, timeout=5)
    assert pending(fake_api, players) == [0, 0, 0]


async def test_a_pending_notice_is_withdrawn_after_a_restart(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await start(fake_api, running_bot.app)
    ann = players.users[0]
    (notice,) = notices(fake_api, ann)
    stored = await running_bot.app.bot_data.store.load_tables()
    assert [t["turn_notices"] for t in stored.values()] == [[notice.message_id, None, None]]
    await running_bot.restart()
    await fake_api.wait_for(lambda: t("table.continues", LANG) in fake_api.messages_in(
        players.group)[0].content)
    assert pending(fake_api, players) == [1, 0, 0]  # not sent twice
    await players.act(Action("bid", 0, value=2))
    assert notice.deleted and pending(fake_api, players) == [0, 1, 0]
