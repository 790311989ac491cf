"""End to end, issue 14 defect 12: a right-to-left override (or any bidirectional control) in
a Telegram name never reaches what the bot shows: lobby, table, result, replies, leaderboards."""

from __future__ import annotations

from bot.core.i18n import t
from bot.core.names import BIDI_CONTROLS
from engine import Action
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    LANG,
    group_texts,
    hand_message,
    private_hand_texts,
    result_message,
    start_seeded_deal,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


def _has_bidi(text: str) -> bool:
    return any(c in BIDI_CONTROLS for c in text)


async def test_bidi_controls_in_names_are_neutralised_everywhere(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await start_seeded_deal(fake_api, running_bot.app, "Mirrors", seed=5150,
                                      names=("\u202eAnn", "Bob\u2067", "\u200fCat\u202c"))
    ann, bob, cat = players.users
    group = players.group
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    assert [seat.name for seat in table.seats] == ["Ann", "Bob", "Cat"]
    await players.act(Action("bid", 0, value=2))
    await players.act(Action("pass", 1))
    await players.act(Action("pass", 2))
    await reply(fake_api, bob, group, "/leave")
    await players.click(bob, fake_api.last_message(group), t("btn.leave_confirm", LANG))
    for user in (ann, cat):
        await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    result = await result_message(fake_api, group)
    assert "Ann" in result.content and "Bob" in result.content
    balance = await running_bot.app.bot_data.store.balance(ann.id)
    answer = await reply(fake_api, ann, group, "/balance")
    assert t("eco.balance", LANG, name="Ann", beans=f"{balance:,}") == answer
    top = await reply(fake_api, ann, group, "/top")
    assert "Cat" in top
    texts = group_texts(fake_api, group) + private_hand_texts(fake_api, players.users)
    assert texts and not [text for text in texts if _has_bidi(text)]
    store = running_bot.app.bot_data.store
    assert [(await store.get_player(u.id)).name for u in players.users] == ["Ann", "Bob", "Cat"]
