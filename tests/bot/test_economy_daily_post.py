"""End to end: the end-of-day post of yesterday's top 3 (issue 5) runs on PTB's JobQueue, in each
group's time zone, only where the group played and the setting is on, and once per group and day
even across a restart."""

from __future__ import annotations

from datetime import date

import pytest

from bot.core.i18n import t
from bot.telegram.handlers import daily_post
from tests.bot.economy_helpers import Clock, settle
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


def _posts(api: FakeBotApi, chat) -> list[str]:
    return [call.params["text"] for call in api.calls_to("sendMessage", chat_id=chat)]


async def _run_job(app) -> None:
    (job,) = app.job_queue.get_jobs_by_name(daily_post.JOB_NAME)
    await job.run(app)


async def test_yesterdays_top_three_is_posted_once_across_a_restart(
    fake_api: FakeBotApi, bot_runner: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    app = await bot_runner.start()
    clock = Clock()  # 2024-05-01 20:00 in Shanghai
    store = app.bot_data.store
    store.clock = clock
    played, quiet_setting, london = (fake_api.new_group(n) for n in ("Played", "Off", "London"))
    ann, bob, cat, dan = (fake_api.new_user(n) for n in ("Ann", "Bob", "Cat", "Dan"))
    await settle(store, played.id, [ann, bob, cat], [2, -1, -1])   # Ann +20, Bob -10, Cat -10
    clock.advance(minutes=5)
    await settle(store, played.id, [dan, bob, cat], [-2, 1, 1])    # Dan -20, Bob +10, Cat +10
    await store.update_group_settings(quiet_setting.id, daily_post=False)
    await settle(store, quiet_setting.id, [ann, bob, cat], [2, -1, -1])
    await store.update_group_settings(london.id, timezone="Europe/London", language="zh-Hans")
    await settle(store, london.id, [ann, bob, cat], [-2, 1, 1])

    await _run_job(app)
    assert _posts(fake_api, played) == []  # the day is not over yet

    clock.advance(hours=4)  # 2024-05-02 00:05 in Shanghai, still 2024-05-01 in London
    await _run_job(app)
    # Ann +20 (1 deal); Bob and Cat 0 with 2 deals each: same time, so the lower user id first.
    expected = "\n".join([
        t("post.daily_title", LANG, day="2024-05-01"),
        t("top.row", LANG, place="🥇", name="Ann", beans="+20 beans", games=1),
        t("top.row", LANG, place="🥈", name="Bob", beans="0 beans", games=2),
        t("top.row", LANG, place="🥉", name="Cat", beans="0 beans", games=2),
        t("post.daily_footer", LANG),
    ])
    assert _posts(fake_api, played) == [expected]
    assert _posts(fake_api, quiet_setting) == []
    assert _posts(fake_api, london) == []
    await _run_job(app)
    assert len(_posts(fake_api, played)) == 1

    # Restart with a short interval, so the scheduled job itself runs; London's day ends.
    monkeypatch.setattr(daily_post, "FIRST_CHECK", 0.05)
    monkeypatch.setattr(daily_post, "CHECK_INTERVAL", 0.1)
    app = await bot_runner.restart()
    clock.advance(hours=7)  # 2024-05-02 00:05 in London
    app.bot_data.store.clock = clock
    call = await fake_api.wait_for("sendMessage", since=0, chat_id=london, timeout=5)
    assert call.params["text"].splitlines()[0] == t("post.daily_title", "zh-Hans",
                                                    day="2024-05-01")
    assert call.params["text"].splitlines()[1] == t("top.row", "zh-Hans", place="🥇",
                                                    name="Bob", beans="+10 欢乐豆", games=1)
    await _run_job(app)
    assert len(_posts(fake_api, played)) == 1
    assert len(_posts(fake_api, london)) == 1
    assert await app.bot_data.store.daily_posts_due() == []
    assert await app.bot_data.store.mark_posted(played.id, date(2024, 5, 1)) is False
