"""End to end (issue 10 item 3): a live clock. While a human's turn runs long, the private prompt
and then the group table show the time left again at 10 s and 5 s (the group edit through the
outbox), also after a restart in the middle of the turn (the refresh is armed again from the
stored deadline); at the timeout the group is told ``{name} 超时，已托管。`` and the player's
private chat says how to take back control, with the Take back button. A refresh armed for a
turn the player already acted on does nothing, and a quick turn never reaches a mark."""

from __future__ import annotations

import asyncio

from bot.core.i18n import t
from bot.game import timers
from engine import SCORE, Action, new_deal
from tests.bot.flow_helpers import call_text
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import Call, FakeBotApi

ZH = "zh-Hans"
NAMES = ("王小明", "李雷", "韩梅梅")
SEED = 20240601
#: A bid timeout whose 10 s mark comes soon after the prompt is drawn.
BID_TIMEOUT = 10.8


async def open_table(api: FakeBotApi, app, title: str) -> FourTable:
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    table = await FourTable.open(api, app, title, NAMES, ZH, players=3)
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    return table


def edit_saying(api: FakeBotApi, chat_id: int, text: str, since: int = 0) -> Call | None:
    """The first successful call since ``since`` that drew ``text`` into chat ``chat_id``."""
    return next((c for c in api.calls[since:] if c.ok and c.params.get("chat_id") == chat_id
                 and text in call_text(c)), None)


async def test_the_clock_shows_10_and_5_seconds_then_the_timeout_is_told(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(bid_timeout=BID_TIMEOUT)
    table = await open_table(fake_api, app, "计时牌桌")
    ann = table.users[0]
    group = table.group.id
    bid = t("hand.your_bid_bid", ZH, seconds=11)
    waiting = t("table.turn", ZH, names=NAMES[0], seconds=11)
    assert bid in table.hand(ann).content
    await fake_api.wait_for(lambda: edit_saying(fake_api, group, waiting))

    # 10 s left: the private prompt first, then the group table.
    ten = t("hand.your_bid_bid", ZH, seconds=10)
    private = await fake_api.wait_for(lambda: edit_saying(fake_api, ann.id, ten), timeout=3)
    assert private.method == "editMessageCaption"  # the same picture, a new caption
    public = await fake_api.wait_for(lambda: edit_saying(
        fake_api, group, t("table.turn", ZH, names=NAMES[0], seconds=10)), timeout=3)
    assert fake_api.calls.index(private) < fake_api.calls.index(public)

    # A restart in the middle of the turn: the 5 s refresh is armed again from the deadline.
    restart_at = len(fake_api.calls)
    await bot_runner.restart()
    app = bot_runner.app
    key = f"{table.group.id}:0"
    jobs = app.job_queue.get_jobs_by_name(f"{timers.CLOCK}:{key}")
    assert len(jobs) == 1
    restored = app.bot_data.tables.get(key)
    assert abs(jobs[0].next_t.timestamp() - (restored.progress.deadline - 5)) < 0.5
    mark = len(fake_api.calls)
    five = t("hand.your_bid_bid", ZH, seconds=5)
    private = await fake_api.wait_for(lambda: edit_saying(fake_api, ann.id, five, mark),
                                      timeout=8)
    public = await fake_api.wait_for(lambda: edit_saying(
        fake_api, group, t("table.turn", ZH, names=NAMES[0], seconds=5), mark), timeout=3)
    assert fake_api.calls.index(private) < fake_api.calls.index(public)

    # The timeout: auto-play, the group told, the player told how to take back control.
    told = t("table.timeout", ZH, name=NAMES[0])
    said = await fake_api.wait_for("sendMessage", timeout=8, since=mark, chat_id=group,
                                   text=told)
    notice = await fake_api.wait_for("sendMessage", timeout=3, since=mark, chat_id=ann.id,
                                     text=t("notice.timed_out", ZH))
    assert fake_api.calls.index(notice) < fake_api.calls.index(said)  # private first
    message = fake_api.message(ann, notice.result["message_id"])
    assert [b.text for b in message.buttons] == [t("btn.take_back", ZH)]
    assert restored.state.autoplay[0] and restored.state.history[0] == Action("timeout", 0)
    answer = await fake_api.wait_settled(
        fake_api.press(ann, message, message.buttons[0].callback_data))
    assert answer.params["text"] == t("pop.autoplay_off", ZH)
    assert restored.state.autoplay[0] is False
    # Each mark was drawn once (the restart draws every hand again, with the time left then).
    for seconds, calls in ((10, fake_api.calls[:restart_at]), (5, fake_api.calls[mark:])):
        text = t("hand.your_bid_bid", ZH, seconds=seconds)
        assert sum(1 for c in calls if c.ok and c.params.get("chat_id") == ann.id
                   and text in call_text(c)) == 1


async def test_a_stale_refresh_does_nothing_and_quick_turns_cost_no_refresh(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(bid_timeout=12.0)
    table = await open_table(fake_api, app, "快手牌桌")
    key = f"{table.group.id}:0"
    game = app.bot_data.game
    live = app.bot_data.tables.get(key)
    before = timers.Stamp(key, live.token, live.state.version)
    jobs = app.job_queue.get_jobs_by_name(f"{timers.CLOCK}:{key}")
    assert [job.data for job in jobs] == [before]
    await table.act(Action("bid", 0, value=1))  # quick: long before the 10 s mark
    jobs = app.job_queue.get_jobs_by_name(f"{timers.CLOCK}:{key}")
    assert [job.data.version for job in jobs if not job.removed] == [live.state.version]
    await asyncio.sleep(1.2)  # the time left differs from the prompt's, before the 10 s mark
    mark = len(fake_api.calls)
    await game.deals.on_clock(before)  # a refresh for the turn the player just acted on
    await app.bot_data.outlet.caught_up()
    await asyncio.sleep(0.2)
    assert [c for c in fake_api.calls[mark:] if c.method != "getUpdates"] == []
    for user in table.users:  # nobody's prompt ever showed a refreshed time
        assert not any(t("hand.your_bid_bid", ZH, seconds=10) in call_text(c)
                       for c in fake_api.calls if c.params.get("chat_id") == user.id)


async def test_timeouts_of_a_four_seat_table_are_told(fake_api: FakeBotApi, bot_runner: BotRunner):
    app = await bot_runner.start(bid_timeout=0.6, play_timeout=0.6)
    app.bot_data.game.deal_seed = 7
    app.bot_data.game.first_bidder = 0
    names = ("王小明", "李雷", "韩梅梅", "林涛")
    table = await FourTable.open(fake_api, app, "四人计时", names, ZH)
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    for name, user in zip(names, table.users, strict=True):
        await fake_api.wait_for("sendMessage", timeout=10, since=0, chat_id=table.group.id,
                                text=t("table.timeout", ZH, name=name))
        await fake_api.wait_for("sendMessage", timeout=3, since=0, chat_id=user.id,
                                text=t("notice.timed_out", ZH))
