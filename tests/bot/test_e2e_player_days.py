"""End to end, issue 14 defect 10: a player's days end at midnight Beijing time in every group,
so hopping between groups in far time zones never gives two days in a minute."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.core.i18n import t
from tests.bot.economy_helpers import Clock, reply
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


async def test_daily_and_give_count_one_day_across_far_time_zones(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    store = running_bot.app.bot_data.store
    clock = store.clock = Clock(datetime(2024, 5, 1, 11, 0, tzinfo=UTC))  # 19:00 in Beijing
    west, east, shanghai = (fake_api.new_group(n) for n in ("West", "East", "Shanghai"))
    for group, zone in ((west, "Etc/GMT+12"), (east, "Etc/GMT-14"), (shanghai, None)):
        await store.update_group_settings(group.id, give_enabled=True,
                                          **({"timezone": zone} if zone else {}))
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    bob_said = fake_api.send_text(bob, west, "hi")
    bob_said_east = fake_api.send_text(bob, east, "hi")

    assert await reply(fake_api, ann, west, "/daily") == t(
        "eco.daily_ok", LANG, name="Ann", beans=200, streak=1, balance="1,200")
    assert await reply(fake_api, ann, east, "/daily") == t(
        "eco.daily_already", LANG, day="2024-05-02")
    assert (await reply(fake_api, ann, shanghai, "/daily")).startswith(
        t("eco.daily_already", LANG, day="2024-05-02"))

    assert (await reply(fake_api, ann, west, "/give 1000", reply_to=bob_said)).startswith("🎁")
    assert await reply(fake_api, ann, east, "/give 100", reply_to=bob_said_east) == t(
        "give.limit", LANG, n=0, remaining=0)
    assert [await store.balance(u.id) for u in (ann, bob)] == [200, 2000]

    clock.advance(hours=5)  # 16:00 UTC: midnight in Beijing, the next day for everyone
    assert (await reply(fake_api, ann, east, "/daily")).startswith("✅")
    assert (await reply(fake_api, ann, east, "/give 100", reply_to=bob_said_east)).startswith(
        "🎁")
