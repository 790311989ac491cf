"""End to end, issue 14 defect 1: a seated player cannot move away the beans their running deal
may still take (RULES.md §8), neither before losing nor before escaping (RULES.md §9)."""

from __future__ import annotations

from bot.core.i18n import t
from bot.core.table import LOBBY, Seat, table_key
from bot.store import LedgerReason
from engine import Action
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    LANG,
    Players,
    hand_message,
    result_message,
    start_seeded_deal,
)
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


async def test_a_player_who_left_a_deal_cannot_stake_its_beans_at_another_table(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Attack: Ann leaves her deal in one group (she no longer sits), joins an accomplice's
    table at 10,000 beans a point in another, and loses her 1,000 beans there first; her
    first deal then found nothing to pay its winners with. While that deal holds her beans,
    a table for beans elsewhere refuses her Join (and a Start with her seat) and says why;
    the deal she left is then paid in full."""
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Escrow", seed=5150)
    ann, bob, cat = players.users
    store = app.bot_data.store
    await players.act(Action("bid", 0, value=3))  # Ann is the landlord at 3 points
    table = app.bot_data.tables.table_of(ann.id)
    await reply(fake_api, ann, players.group, "/leave")
    prompt = fake_api.last_message(players.group)
    await players.click(ann, prompt, t("btn.leave_confirm", LANG))
    assert app.bot_data.tables.table_of(ann.id) is None

    den = fake_api.new_group("Den")
    await store.update_group_settings(den.id, stake_tier="custom", custom_stake=10_000)
    mule, crony = fake_api.new_user("Mule"), fake_api.new_user("Crony")
    accomplices = Players(fake_api, den, [mule, crony, ann])
    lobby = await accomplices.open_table(mule, [crony])
    answer = await accomplices.click(ann, lobby, t("btn.join", LANG))
    assert answer.params.get("text") == t("pop.beans_held", LANG, group="Escrow")
    assert answer.params.get("show_alert") is True
    den_table = app.bot_data.tables.get(table_key(den.id, None))
    assert den_table.seat_of(ann.id) is None and len(den_table.seats) == 2
    # /newgame elsewhere opens a lobby, but she is not seated at it either
    back_room = fake_api.new_group("Back room")
    fake_api.send_text(ann, back_room, "/newgame")
    held = t("pop.beans_held", LANG, group="Escrow")
    await fake_api.wait_for(lambda: any(m.content == held
                                        for m in fake_api.messages_in(back_room)), 5)
    assert app.bot_data.tables.get(table_key(back_room.id, None)).seats == []
    # A Start with her seat (a worker's older copy of the lobby seated her) is refused too.
    async with app.bot_data.tables.lock(den_table.key):
        den_table.seats.append(Seat(ann.id, "Ann"))
    answer = await accomplices.click(mule, lobby, t("btn.start", LANG))
    assert answer.params.get("text") == t("pop.start_beans_held", LANG, names="Ann")
    assert den_table.phase == LOBBY and len(await store.running_deals()) == 1
    await accomplices.click(ann, lobby, t("btn.leave", LANG))
    assert den_table.seat_of(ann.id) is None

    for user in (bob, cat):
        await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    await result_message(fake_api, players.group)
    points = table.state.result.points
    assert points[0] < 0 and sum(points) == 0
    deal_id = table.progress.deal_id
    # Paid in full: every seat's ledger row of that deal is its points × 10 beans.
    for user, won in zip((ann, bob, cat), points, strict=True):
        (row, *_) = await store.ledger(user.id)
        assert (row.reason, row.deal_id, row.amount, row.balance_after) == (
            LedgerReason.DEAL, deal_id, won * 10, 1000 + won * 10)
    assert (await store.totals()).conserved
    # Settled: her beans are free, and she may sit at the table for beans now.
    answer = await accomplices.click(ann, lobby, t("btn.join", LANG))
    assert answer.params.get("text") == t("pop.joined", LANG)
