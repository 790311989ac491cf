"""End to end: an open lobby follows the group's settings (QA round 4, defects 1 and 2): an admin's
``/settings`` change redraws the lobby at once (stake, bidding preset, seat count, RULES.md §8,
§11), and a deal never starts on terms the lobby did not show: a change the lobby has not taken
yet refuses Start politely, then the lobby shows the new terms and the next Start deals on them."""

from __future__ import annotations

from bot.core.i18n import t
from bot.core.rooms import room_stake
from tests.bot.economy_helpers import reply
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


def _stake(tier: str) -> int:
    return room_stake({"stake_tier": tier}).stake


async def test_a_settings_change_redraws_the_open_lobby_and_the_deal_keeps_its_terms(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = 3
    table = await FourTable.open(fake_api, app, "Stakes", ("Ann", "Bob", "Cat"), LANG, players=3)
    ann, bob, cat = table.users
    fake_api.make_admin(table.group, ann)
    await table.command(ann, "/newgame")
    lobby = table.lobby()
    assert t("lobby.preset", LANG, preset=t("preset.score", LANG)) in lobby.text
    assert t("lobby.stake", LANG, stake=_stake("beginner")) in lobby.text.splitlines()
    await reply(fake_api, ann, table.group, "/settings stake_tier expert")
    await reply(fake_api, ann, table.group, "/settings bidding rob")
    lines = lobby.text.splitlines()
    assert t("lobby.stake", LANG, stake=_stake("expert")) in lines
    assert t("lobby.preset", LANG, preset=t("preset.rob", LANG)) in lines
    for user in (bob, cat):
        await table.click(user, lobby, "btn.join")
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("lobby.starting", LANG)
    (deal,) = await store.running_deals()
    assert deal.stake == _stake("expert") and deal.rules["bidding"] == "rob"


async def test_three_to_four_seats_while_the_lobby_is_open_seats_a_fourth(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    table = await FourTable.open(fake_api, running_bot.app, "Grow", ("Ann", "Bob", "Cat", "Dan"),
                                 LANG, players=3)
    ann, bob, cat, dan = table.users
    fake_api.make_admin(table.group, ann)
    await table.command(ann, "/newgame")
    lobby = table.lobby()
    for user in (bob, cat):
        await table.click(user, lobby, "btn.join")
    await reply(fake_api, ann, table.group, "/settings players 4")
    assert t("lobby.seat_empty", LANG, n=4) in lobby.text.splitlines()
    answer = await table.click(dan, lobby, "btn.join")
    assert answer.params["text"] == t("pop.seating", LANG)
    await fake_api.wait_for(lambda: "4. Dan" in lobby.text.splitlines())
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("lobby.starting", LANG)
    (deal,) = await running_bot.app.bot_data.store.running_deals()
    assert len(deal.seats) == 4 and deal.rules["variant"] == "four"


async def test_start_after_a_change_the_lobby_did_not_show_is_refused_once(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    table = await FourTable.open(fake_api, app, "Quiet change", ("Ann", "Bob", "Cat"), LANG,
                                 players=3)
    ann, bob, cat = table.users
    await table.command(ann, "/newgame")
    lobby = table.lobby()
    for user in (bob, cat):
        await table.click(user, lobby, "btn.join")
    await store.update_group_settings(table.group.id, stake_tier="expert")  # not via /settings
    assert t("lobby.stake", LANG, stake=_stake("beginner")) in lobby.text.splitlines()
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("pop.rules_changed", LANG)
    assert answer.params["show_alert"] is True
    assert await store.running_deals() == []
    await fake_api.wait_for(
        lambda: t("lobby.stake", LANG, stake=_stake("expert")) in lobby.text.splitlines(),
        timeout=5)
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("lobby.starting", LANG)
    (deal,) = await store.running_deals()
    assert deal.stake == _stake("expert")
