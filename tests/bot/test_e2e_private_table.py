"""End to end (issue 10 item 2): the private chat carries the table. Under each player's hand the
status line names the other seats with role and card count, ⚠️ at the alarm, the multiplier and
the kitty once shown; when the deal ends each hand message says won or lost, the points, the
beans and the new balance (the store's ledger row), a practice table says points only, and a
played-out hand's picture shows the empty hand, not its last play. A four-seat table lists
three other seats. ``SAVE_PICTURES=/some/dir`` keeps the final hand pictures there."""

from __future__ import annotations

import os
import re
from pathlib import Path

from bot.presentation import scenes
from bot.presentation.views import cards_text
from engine import FOUR, SCORE, Action, DealState, new_deal
from engine.ai import choose_action
from images import render_hand
from tests.bot.four_helpers import FourTable, hand_prefix
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, FakeMessage, User

ZH = "zh-Hans"
NAMES = ("王小明", "李雷", "韩梅梅")
SEED = 20240601
ROLES = {True: "地主", False: "农民"}


def expected_status(state: DealState, seat: int, names: tuple[str, ...]) -> str:
    """The status line ``seat`` must read, written from the mirrored deal alone."""
    seats = state.rules.seats
    parts = []
    for step in range(1, seats):
        other = (seat + step) % seats
        count = len(state.hands[other])
        alarm = "⚠️" if state.phase == "playing" and 0 < count <= 2 else ""
        if state.landlord is None:
            parts.append(f"{names[other]} {alarm}{count}张")
        else:
            parts.append(f"{names[other]}（{ROLES[other == state.landlord]}）{alarm}{count}张")
    view = state.view(seat)
    if view.base:
        values = list(dict.fromkeys(view.multipliers or (1,)))
        parts.append("倍数 " + " / ".join(f"×{m}" for m in values))
    if view.kitty is not None:
        parts.append("底牌：" + cards_text(view.kitty, ZH))
    return " · ".join(parts)


def status_of(message: FakeMessage, names: tuple[str, ...], seat: int) -> str | None:
    """The caption's status line: the line that begins with the next seat's name and its
    role or card count (not a waiting seat's line of what the others did last, ``李雷 5 · 韩梅梅
    不出``)."""
    after = re.escape(names[(seat + 1) % len(names)])
    return next((line for line in message.content.splitlines()
                 if re.match(rf"{after}(（| ⚠️|\s\d+张)", line)), None)


async def prompt(table: FourTable, user: User) -> FakeMessage:
    """The user's hand message once it asks them to decide (it has decision buttons)."""
    def asking() -> FakeMessage | None:
        message = table.hand(user)
        kinds = {(b.callback_data or "").split(":")[0] for b in message.buttons}
        decides = any((b.callback_data or "").split(":")[-1] not in ("auto1", "auto0")
                      for b in message.buttons if (b.callback_data or "").startswith("A:"))
        return message if decides or "S" in kinds else None

    return await table.api.wait_for(asking)


async def test_status_line_and_result_line_of_a_zh_hans_deal(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    # every turn prompts, 要不起 too: the alarm comes when only the others cannot follow
    table = await FourTable.open(fake_api, app, "私聊牌桌", NAMES, ZH, players=3,
                                 card_counter=False, auto_pass=False)
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    seen: list[str] = []
    alarms = 0
    while table.state.phase != "finished":
        state = table.state
        seat = state.to_act[0]
        user = table.users[seat]
        message = await prompt(table, user)
        line = expected_status(state, seat, NAMES)
        assert status_of(message, NAMES, seat) == line, (message.content, line)
        seen.append(line)
        alarms += "⚠️" in line
        if state.phase == "playing" and not state.view(seat).leading:
            by = state.trick.seat
            assert f"（{NAMES[by]}）" in message.content.splitlines()[-1]  # the play to beat
        await table.act(choose_action(state.view(seat), level="normal", seed=1))
        for waiting in range(3):  # the counter is off: a waiting seat shows no status line
            if waiting not in table.state.to_act and table.state.phase == "playing":
                assert status_of(table.hand(table.users[waiting]), NAMES, waiting) is None
    print("\nstatus lines the players saw, e.g.:", *seen[:1], *seen[-3:], sep="\n  ")
    assert alarms >= 1 and any("底牌：" in line and "倍数 ×" in line for line in seen)
    assert seen[0] == "李雷 17张 · 韩梅梅 17张"

    result = table.state.result
    store = app.bot_data.store
    stake = app.bot_data.tables.get(f"{table.group.id}:0").options.stake
    outcomes = []
    for seat, user in enumerate(table.users):
        entry = (await store.ledger(user.id, 1))[0]
        assert entry.amount == result.points[seat] * stake and entry.deal_id is not None
        assert entry.balance_after == await store.balance(user.id)
        word = "🎉 你赢了" if result.points[seat] > 0 else "😞 你输了"
        expected = (f"{word} {result.points[seat]:+d} 分 · {entry.amount:+d} 欢乐豆"
                    f"（余额 {entry.balance_after:,}）")
        final = await fake_api.wait_for(
            lambda u=user, x=expected: table.hand(u).content.splitlines()[-1] == x
            and table.hand(u))
        assert not final.buttons and status_of(final, NAMES, seat) is None
        outcomes.append(expected)
    print("result lines:", *outcomes, sep="\n  ")
    assert sum(result.points) == 0
    winner = next(s for s in range(3) if not table.state.hands[s])
    picture = fake_api.file(table.hand(table.users[winner]).photo)
    assert picture == render_hand((), (), labels=scenes.picture_labels(ZH))
    assert table.hand(table.users[winner]).content.startswith("你的手牌（0张）")
    if os.environ.get("SAVE_PICTURES"):
        out = Path(os.environ["SAVE_PICTURES"])
        out.mkdir(parents=True, exist_ok=True)
        for seat, user in enumerate(table.users):
            (out / f"final_hand{seat}.png").write_bytes(fake_api.file(table.hand(user).photo))


async def test_a_practice_deal_says_points_only(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = 4242
    app.bot_data.game.first_bidder = 0
    ann = fake_api.new_user("王小明", language_code="zh-hans")
    fake_api.open_private_chat(ann)
    fake_api.send_text(ann, ann, "/practice")
    prefix = hand_prefix(ZH)

    def hand() -> FakeMessage:
        return next(m for m in reversed(fake_api.messages_in(ann)) if m.content.startswith(prefix))

    message = await fake_api.wait_for(lambda: next(
        (m for m in fake_api.messages_in(ann) if m.content.startswith(prefix) and m.buttons),
        None))
    autoplay = next(b for b in message.buttons if (b.callback_data or "").endswith(":auto1"))
    await fake_api.wait_settled(fake_api.press(ann, message, autoplay.callback_data))
    table = app.bot_data.tables.table_of(ann.id)
    await fake_api.wait_for(lambda: table.state.phase == "finished" and not hand().buttons,
                            timeout=30)
    points = table.state.result.points[0]
    word = "🎉 你赢了" if points > 0 else "😞 你输了"
    await fake_api.wait_for(lambda: hand().content.splitlines()[-1] == f"{word} {points:+d} 分")
    assert "欢乐豆" not in hand().content


async def test_four_seats_list_three_others(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = 7
    app.bot_data.game.first_bidder = 0
    names = ("王小明", "李雷", "韩梅梅", "林涛")
    table = await FourTable.open(fake_api, app, "四人桌", names, ZH)
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.state = new_deal(FOUR, seed=7, first_bidder=0)
    await table.act(Action("bid", 0, value=3))
    for _ in range(6):
        state = table.state
        seat = state.to_act[0]
        message = await prompt(table, table.users[seat])
        line = expected_status(state, seat, names)
        assert status_of(message, names, seat) == line and line.count("张") == 3
        await table.act(choose_action(state.view(seat), level="normal", seed=1))
    # The counter is on (the default): a waiting seat's 记牌器 button shows the status line,
    # fresh, in a pop-up (its hand message shows what the others did last instead).
    for seat, user in enumerate(table.users):
        if seat in table.state.to_act:
            continue
        line = expected_status(table.state, seat, names)
        hand = await fake_api.wait_for(
            lambda u=user: table.hand(u) if "记牌器" in [b.text for b in table.hand(u).buttons]
            else None)
        assert status_of(hand, names, seat) is None
        answer = await fake_api.wait_settled(
            fake_api.press(user, hand, hand.button("记牌器").callback_data))
        assert answer.params["text"].splitlines()[1] == line
