"""End to end (issue 10 items 5, 6): call-outs on the group table and in the private captions, and
the result's multiplier breakdown against the engine's own result of the same deal.

Two seeded deals of the rob preset (叫地主/抢地主 with doubling) at a zh-Hans table, played by
pressing buttons with fixed choices: 王小明 calls, 李雷 robs (抢地主) and becomes the landlord,
韩梅梅 doubles (加倍). In the first deal (seed 6539) the landlord plays the rocket (王炸), a bomb
(炸弹) and a plane (飞机) and plays out while the farmers pass: 春天. In the second (seed 104)
the landlord leads one single, 韩梅梅 beats it and plays out with a plane and the rocket while
the landlord passes: 反春. In a third (seed 6539 again) 王小明 shows her cards (明牌) before she
calls."""

from __future__ import annotations

import itertools
from dataclasses import replace

from bot.core.i18n import t
from engine import ROB, Action, ComboType, DealState, Play, new_deal
from engine.ai import choose_action
from engine.cards import cards_to_ranks
from tests.bot.flow_helpers import call_text, result_message
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

ZH = "zh-Hans"
NAMES = ("王小明", "李雷", "韩梅梅")
LANDLORD, DOUBLER = 1, 2
PLANES = (ComboType.PLANE, ComboType.PLANE_SINGLE, ComboType.PLANE_PAIR)
#: How the zh-Hans call-outs of a moment in play begin (bomb, rocket, plane, rob, double, show).
CALLOUT_MARKS = ("💣", "🚀", "🛫", "🙋", "⏫", "👀")


def bidding_choice(state: DealState) -> Action:
    """Seat 0 calls, seat 1 robs, nobody else robs; in the doubling round only seat 2 doubles."""
    seat = state.to_act[0]
    kinds = {a.kind: a for a in state.view(seat).legal_actions()}
    if state.phase == "bidding":
        if seat == 0 and "call" in kinds:
            return kinds["call"]
        if seat == LANDLORD and "rob" in kinds:
            return kinds["rob"]
        return kinds.get("norob") or kinds["decline"]
    return kinds["double"] if seat == DOUBLER and "double" in kinds else kinds["nodouble"]


def first_of(plays: list[Play], *types: ComboType) -> Play | None:
    return next((p for p in plays if p.type in types), None)


def spring_choice(state: DealState) -> Action:
    """The landlord leads the rocket, a bomb, a plane (ranks apart from the bomb), then singles;
    the farmers always pass."""
    seat = state.to_act[0]
    if seat != LANDLORD:
        return Action("pass", seat)
    plays = state.view(seat).legal_plays()
    play = first_of(plays, ComboType.ROCKET) or first_of(plays, ComboType.BOMB)
    if play is None:
        play = first_of(plays, ComboType.PLANE) or min(
            (p for p in plays if p.type == ComboType.SINGLE), key=lambda p: p.cards)
    return Action("play", seat, cards=play.cards, type=play.type)


def anti_spring_choice(state: DealState) -> Action:
    """The landlord leads its lowest single once, then passes; 韩梅梅 beats it with a single she
    holds once, then leads a plane, a bomb or the rocket, then what the AI plays; 王小明
    passes."""
    seat = state.to_act[0]
    view = state.view(seat)
    plays = view.legal_plays()
    if seat == LANDLORD:
        if view.leading:
            single = min((p for p in plays if p.type == ComboType.SINGLE), key=lambda p: p.cards)
            return Action("play", seat, cards=single.cards, type=single.type)
        return Action("pass", seat)
    if seat != DOUBLER:
        return Action("pass", seat)
    ranks = cards_to_ranks(state.hands[seat])
    if not view.leading:
        lone = [p for p in plays if p.type == ComboType.SINGLE and ranks.count(p.cards[0]) == 1]
        play = min(lone or plays, key=lambda p: p.cards)
    else:
        play = first_of(plays, *PLANES) or first_of(plays, ComboType.BOMB, ComboType.ROCKET)
        if play is None:
            return choose_action(view, level="normal", seed=1)
    return Action("play", seat, cards=play.cards, type=play.type)


async def play_deal(api: FakeBotApi, app, title: str, seed: int, choose,
                    bid=bidding_choice, show_cards: bool = False) -> FourTable:
    app.bot_data.game.deal_seed = seed
    app.bot_data.game.first_bidder = 0
    table = await FourTable.open(api, app, title, NAMES, ZH, players=3, bidding="rob",
                                 show_cards=show_cards)
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.state = new_deal(replace(ROB, show_cards=show_cards), seed=seed, first_bidder=0)
    live = app.bot_data.tables.get(f"{table.group.id}:0")
    assert live.state.hands == table.state.hands  # the mirror deals what the bot dealt
    while table.state.phase != "finished":
        state = table.state
        chosen = bid(state) if state.phase != "playing" else choose(state)
        await table.act(chosen)
    return table


def called_out(table: FourTable, key: str, name: str | None = None) -> None:
    """The call-out ``key`` was on the group table and in a private caption of another seat."""
    said = t(key, ZH, name=name) if name else t(key, ZH)
    assert any(said in text for text in table.group_texts()), said
    ids = {u.id for u in table.users if u.first_name != name}
    private = [c for c in table.api.calls if c.params.get("chat_id") in ids]
    assert any(said in (c.params.get("caption") or c.params.get("text") or "")
               for c in private), said


def expected_breakdown(state: DealState) -> list[str]:
    """The caption's multiplier lines, written from the engine's result alone (RULES.md §7)."""
    result = state.result
    robs = state.bidding.robs
    bombs = result.bombs - result.rockets
    parts = [f"底分 {result.base}"]
    if robs:
        parts.append(f"抢地主 {robs} 次 ×{2 ** robs}")
    if bombs:
        parts.append(f"炸弹 {bombs} 个 ×{2 ** bombs}")
    if result.rockets:  # one rocket is just 王炸
        count = "" if result.rockets == 1 else f" {result.rockets} 个"
        parts.append(f"王炸{count} ×{2 ** result.rockets}")
    if result.spring:
        parts.append("春天 ×2")
    if result.anti_spring:
        parts.append("反春 ×2")
    parts.append(" / ".join(f"×{m}" for m in dict.fromkeys(result.multipliers)))
    lines = [" · ".join(parts)]
    for farmer, multiplier in zip(result.farmers, result.multipliers, strict=True):
        if state.doubled[farmer]:
            lines.append(f"{NAMES[farmer]}：加倍 ×2 → ×{multiplier}")
    return lines


async def check_result(table: FourTable) -> str:
    state = table.state
    result = state.result
    caption = (await result_message(table.api, table.group)).content
    assert "\n".join(expected_breakdown(state)) in caption, caption
    shared = 2 ** (state.bidding.robs + result.bombs + (result.spring or result.anti_spring))
    for farmer, multiplier in zip(result.farmers, result.multipliers, strict=True):
        assert multiplier == shared * (2 if state.doubled[farmer] else 1)
        assert abs(result.points[farmer]) == result.base * multiplier
    for seat, points in enumerate(result.points):
        assert f"{NAMES[seat]}" in caption and f"{points:+d} 分" in caption
    return caption


async def test_rob_double_rocket_bomb_plane_spring(fake_api: FakeBotApi, running_bot: BotRunner):
    table = await play_deal(fake_api, running_bot.app, "春天牌桌", 6539, spring_choice)
    result = table.state.result
    assert result.spring and result.bombs == 2 and result.rockets == 1
    called_out(table, "callout.rob", NAMES[LANDLORD])
    called_out(table, "callout.double", NAMES[DOUBLER])
    called_out(table, "callout.rocket", NAMES[LANDLORD])
    called_out(table, "callout.bomb", NAMES[LANDLORD])
    called_out(table, "callout.plane", NAMES[LANDLORD])
    called_out(table, "callout.spring")
    # the call-out names the multiplier it led to
    assert any("🙋 李雷 抢地主！倍数 ×2" in text for text in table.group_texts())
    caption = await check_result(table)
    print("\n" + caption)


async def test_anti_spring_with_a_farmers_plane_and_rocket(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    table = await play_deal(fake_api, running_bot.app, "反春牌桌", 104, anti_spring_choice)
    result = table.state.result
    assert result.anti_spring and result.winner == "farmers" and result.rockets == 1
    called_out(table, "callout.plane", NAMES[DOUBLER])
    called_out(table, "callout.rocket", NAMES[DOUBLER])
    called_out(table, "callout.anti_spring")
    caption = await check_result(table)
    print("\n" + caption)


def showing_choice(state: DealState) -> Action:
    """Seat 0 shows her cards first (RULES.md §3: a show before any call), then bids as
    :func:`bidding_choice` says."""
    if state.phase == "bidding" and state.to_act[0] == 0 and not state.shown[0]:
        shows = [a for a in state.view(0).legal_actions() if a.kind == "show"]
        if shows:
            return shows[0]
    return bidding_choice(state)


async def test_a_show_before_the_call_is_called_out(fake_api: FakeBotApi, running_bot: BotRunner):
    table = await play_deal(fake_api, running_bot.app, "明牌牌桌", 6539, spring_choice,
                            bid=showing_choice, show_cards=True)
    state = table.state
    assert state.shown[0] and state.result is not None
    called_out(table, "callout.show", NAMES[0])
    caption = (await result_message(table.api, table.group)).content
    assert "明牌" in caption, caption


def gone_callout_edits(table: FourTable) -> list[str]:
    """The private edits whose only change was a call-out line taken away (the waiting line,
    the caption's last, apart): each waiting seat's message kept its call-out instead."""
    found = []
    for user in table.users:
        edits = [c for c in table.api.calls if c.params.get("chat_id") == user.id
                 and c.method.startswith("edit") and call_text(c)]
        for before, after in itertools.pairwise(edits):
            old, new = call_text(before).split("\n")[:-1], call_text(after).split("\n")[:-1]
            gone = [line for line in old if line not in new]
            if gone and new == [line for line in old if line not in gone] \
                    and before.params.get("reply_markup") == after.params.get("reply_markup") \
                    and any(line.startswith(CALLOUT_MARKS) for line in gone):
                found.append(f"{user.first_name}: {gone}")
    return found


async def test_a_callout_edits_waiting_seats_when_it_comes_not_when_it_goes(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Issue 9: a waiting seat's message shows a call-out at once (issue 10 item 5) and keeps
    it until its next edit for another reason: the call-out's going is no edit of its own."""
    table = await play_deal(fake_api, running_bot.app, "春天牌桌", 6539, spring_choice)
    called_out(table, "callout.rocket", NAMES[LANDLORD])
    called_out(table, "callout.bomb", NAMES[LANDLORD])
    assert gone_callout_edits(table) == []
