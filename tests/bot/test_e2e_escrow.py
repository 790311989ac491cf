"""End to end, issue 14 defect 1: a seated player cannot move away the beans their running deal
may still take (RULES.md §8), neither before losing nor before escaping (RULES.md §9)."""

from __future__ import annotations

from bot.i18n import t
from bot.store import LedgerReason
from engine import Action
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import LANG, hand_message, result_message, start_seeded_deal
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


async def test_give_in_another_group_is_refused_while_seated_and_the_escape_is_paid(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await start_seeded_deal(fake_api, running_bot.app, "Escrow", seed=5150)
    ann, bob, cat = players.users
    store = running_bot.app.bot_data.store
    market = fake_api.new_group("Market")
    await store.update_group_settings(market.id, give_enabled=True)
    mule = fake_api.new_user("Mule")
    fake_api.make_admin(market, ann)
    said = fake_api.send_text(mule, market, "send me your beans")
    await players.act(Action("bid", 0, value=3))  # Ann is the landlord at 3 points

    assert await reply(fake_api, ann, market, "/give 1000", reply_to=said) == t(
        "give.in_deal", LANG)
    assert [await store.balance(u.id) for u in (ann, mule)] == [1000, 1000]
    assert [e.reason for e in await store.ledger(ann.id)] == [LedgerReason.GRANT]

    table = running_bot.app.bot_data.tables.table_of(ann.id)
    await reply(fake_api, ann, players.group, "/leave")
    prompt = fake_api.last_message(players.group)
    await players.click(ann, prompt, t("btn.leave_confirm", LANG))
    # Gone from the table, but her deal still runs and may still take her beans.
    assert running_bot.app.bot_data.tables.table_of(ann.id) is None
    assert await reply(fake_api, ann, market, "/give 1000", reply_to=said) == t(
        "give.in_deal", LANG)
    for user in (bob, cat):
        await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    await result_message(fake_api, players.group)
    points = table.state.result.points
    assert points[0] < 0 and sum(points) == 0
    # The escape is paid in full: 1000 + points × 10 beans is what Ann keeps.
    assert [await store.balance(u.id) for u in (ann, bob, cat)] == [
        1000 + p * 10 for p in points]
    assert await store.deal_hold(ann.id) is None

    answer = await reply(fake_api, ann, market, "/give 100", reply_to=said)
    assert answer.startswith("🎁")
    assert await store.balance(mule.id) == 1100
