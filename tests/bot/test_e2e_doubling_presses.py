"""End to end: the doubling round asks every seat at once (RULES.md §3), so three 加倍 / 不加倍
presses made at the same moment, each on a prompt drawn before the others' decisions, are all
taken: none is refused as out of date, each presser gets exactly one answer, and the deal goes
on to play. A seat decides once: its second press is refused politely and changes nothing; a
user who is not seated is refused as before.

The table plays the ``rob`` preset (叫地主/抢地主 with doubling) in zh-Hans, dealt from a fixed
seed: seat 0 calls, seat 1 robs and is the landlord, nobody else robs."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.game.presses import decision_current
from engine import ROB, Action, apply, new_deal
from engine.decisions import kitty_version
from tests.bot.flow_helpers import button_data
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

ZH = "zh-Hans"
NAMES = ("王小明", "李雷", "韩梅梅")
SEED = 6539
LANDLORD = 1
#: What each seat presses in the doubling round, all at once.
CHOICES = ("double", "nodouble", "double")


async def _to_doubling(api: FakeBotApi, app, title: str, *, show_cards: bool = False
                       ) -> FourTable:
    """A three-seat rob table whose bidding is over (seat 1 the landlord) and whose every seat
    shows its doubling prompt."""
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    table = await FourTable.open(api, app, title, NAMES, ZH, players=3, bidding="rob",
                                 show_cards=show_cards)
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.state = new_deal(replace(ROB, show_cards=show_cards), seed=SEED, first_bidder=0)
    while table.state.phase == "bidding":
        seat = table.state.to_act[0]
        kinds = {a.kind: a for a in table.state.view(seat).legal_actions()}
        if seat == 0 and "call" in kinds:
            await table.act(kinds["call"])
        elif seat == LANDLORD and "rob" in kinds:
            await table.act(kinds["rob"])
        else:
            await table.act(kinds.get("norob") or kinds["decline"])
    assert table.state.phase == "doubling" and table.state.landlord == LANDLORD
    for user in table.users:
        await table.prompt(user, suffix=":nodouble")
    return table


def _live(app, table: FourTable):
    return app.bot_data.tables.get(f"{table.group.id}:0")


async def _served(api: FakeBotApi, app, table: FourTable, version: int) -> None:
    """Wait until the bot's table is at ``version`` and its lock is free."""
    def done() -> bool:
        live = _live(app, table)
        return live.state.version == version \
            and not app.bot_data.tables.local_lock(live.key).locked()
    await api.wait_for(done)


async def test_three_doubling_presses_at_once_are_all_taken(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    table = await _to_doubling(fake_api, app, "加倍牌桌")
    before = _live(app, table).state.version
    pressed = []
    for seat, choice in enumerate(CHOICES):  # every prompt drawn at the same version
        hand = table.hand(table.users[seat])
        data = button_data(hand, suffix=f":{choice}")
        assert int(data.split(":")[2]) == before
        pressed.append((hand, data))
    queries = [fake_api.press(user, hand, data)  # injected together, none awaited
               for user, (hand, data) in zip(table.users, pressed, strict=True)]
    answers = await asyncio.gather(*(fake_api.wait_settled(q) for q in queries))
    for answer in answers:
        assert answer.params.get("text") is None, answer  # accepted: no pop-up, no "stale"
    for query in queries:
        assert len(fake_api.calls_to("answerCallbackQuery", callback_query_id=query)) == 1

    await _served(fake_api, app, table, before + 3)
    state = _live(app, table).state
    assert state.doubled == (True, False, True)
    assert state.phase == "playing" and state.to_act == (LANDLORD,)
    landlord_hand = await table.prompt(table.users[LANDLORD], label=t("btn.play", ZH))
    assert landlord_hand.buttons

    # The same seat again (its old button, or the other choice): refused politely, unchanged.
    for seat, choice in ((0, "double"), (1, "double"), (2, "nodouble")):
        hand, data = pressed[seat]
        other = data.rsplit(":", 1)[0] + f":{choice}"
        for again in {data, other}:
            answer = await table.press(table.users[seat], hand, again)
            assert answer.params.get("text") == t("pop.stale", ZH), answer
            assert not answer.params.get("show_alert")
    assert _live(app, table).state.doubled == (True, False, True)
    assert _live(app, table).state.version == before + 3


async def test_a_double_click_in_the_doubling_round_decides_once(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    table = await _to_doubling(fake_api, app, "双击牌桌")
    before = _live(app, table).state.version
    farmer = table.users[2]
    hand = table.hand(farmer)
    double = button_data(hand, suffix=":double")
    no_double = button_data(hand, suffix=":nodouble")
    other_farmer = table.users[0]
    other_hand = table.hand(other_farmer)
    queries = [fake_api.press(farmer, hand, double),
               fake_api.press(other_farmer, other_hand, button_data(other_hand,
                                                                    suffix=":nodouble")),
               fake_api.press(farmer, hand, no_double)]
    answers = await asyncio.gather(*(fake_api.wait_settled(q) for q in queries))
    assert answers[0].params.get("text") is None
    assert answers[1].params.get("text") is None  # another seat's decision at once: taken
    assert answers[2].params.get("text") == t("pop.stale", ZH)  # the farmer decided already
    for query in queries:
        assert len(fake_api.calls_to("answerCallbackQuery", callback_query_id=query)) == 1
    await _served(fake_api, app, table, before + 2)
    state = _live(app, table).state
    assert state.doubled == (False, None, True) and state.to_act == (LANDLORD,)

    # Someone who is not seated forges a doubling press: refused, nothing changes.
    stranger = fake_api.new_user("路人", language_code="zh-hans")
    answer = await table.press(stranger, hand, double)
    assert answer.params.get("text") == t("pop.not_seated", ZH)
    assert _live(app, table).state.version == before + 2


async def test_the_landlords_show_while_the_farmers_double_is_taken(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    table = await _to_doubling(fake_api, app, "明牌牌桌", show_cards=True)
    before = _live(app, table).state.version
    landlord = table.users[LANDLORD]
    landlord_hand = table.hand(landlord)
    show = button_data(landlord_hand, suffix=":show")
    farmer = table.users[0]
    farmer_hand = table.hand(farmer)
    queries = [fake_api.press(farmer, farmer_hand, button_data(farmer_hand, suffix=":double")),
               fake_api.press(landlord, landlord_hand, show)]
    answers = await asyncio.gather(*(fake_api.wait_settled(q) for q in queries))
    for answer in answers:
        assert answer.params.get("text") is None, answer
    await _served(fake_api, app, table, before + 2)
    state = _live(app, table).state
    assert state.doubled[0] is True and state.shown[LANDLORD] == 2
    answer = await table.press(landlord, landlord_hand, show)  # shown already
    assert answer.params.get("text") == t("pop.stale", ZH)
    assert _live(app, table).state.version == before + 2


def test_a_show_button_drawn_during_the_bidding_is_not_taken_after_the_kitty():
    """The landlord's ×2 show (RULES.md §3) is taken from a button drawn after the kitty was
    taken, not from a ×4 button drawn before the first call (a show after seeing the kitty is
    another decision); :func:`kitty_version` counts a timeout and its resolution as one."""
    state = new_deal(replace(ROB, show_cards=True), seed=SEED, first_bidder=0)
    before_the_call = state.version
    state = apply(state, Action("call", 0))
    state = apply(state, Action("timeout", 1))  # seat 1 does not rob: resolved to norob
    while state.phase == "bidding":
        seat = state.to_act[0]
        kinds = {a.kind: a for a in state.view(seat).legal_actions()}
        state = apply(state, kinds.get("norob") or kinds["decline"])
    taken = state.version
    assert state.phase == "doubling" and kitty_version(state) == taken
    state = apply(state, Action("double", 2))  # a farmer doubles: the version moves on
    landlord = state.landlord
    assert state.view(landlord).may_show() == 2

    def show(version: int) -> cb.Callback:
        return cb.parse_callback(cb.make_callback(cb.ACTION, "abcdefgh", version, "show"))

    assert decision_current(state, landlord, show(taken))
    assert not decision_current(state, landlord, show(before_the_call))
    assert not decision_current(state, landlord, show(state.version + 1))  # forged
    farmer = next(seat for seat in state.to_act if seat != landlord)
    double = cb.parse_callback(cb.make_callback(cb.ACTION, "abcdefgh", taken, "double"))
    assert decision_current(state, farmer, double)
    assert not decision_current(state, 2, double)  # decided already
