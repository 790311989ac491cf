"""End to end: the card counter (记牌器, issue 17) through the fake Bot API. The private prompt of
the seat to act carries the counter with the numbers of the deal so far (in the player's
language; two decks at a four-seat table; at a practice table too); a waiting seat's hand has a
记牌器 button that shows it, fresh, in a pop-up (the waiting hand follows the others' plays by
its caption, not with the counter); no group message ever carries it; the group setting
``card_counter`` (on by default, in the /settings menu) hides it when off."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

import pytest

from bot.__main__ import LIBRARY_LOG_FLOORS
from bot.core.i18n import t
from engine import SCORE, Action, ComboType, DealState, classify, new_deal
from engine.ai import choose_action
from engine.cards import RANK_LABELS, cards_to_ranks
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    HAND_PREFIX,
    LANG,
    Players,
    after_bot_passes,
    assert_no_hand_in_group,
    call_text,
    group_texts,
    hand_message,
    start_seeded_deal,
)
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, FakeMessage, User

SEED = 20240601
PREFIXES = {"en": "Card counter: ", "zh-Hans": "记牌器：", "zh-Hant": "記牌器："}
JOKERS = {"en": ("BJ×", "SJ×"), "zh-Hans": ("大王", "小王"), "zh-Hant": ("大王", "小王")}


def expected_line(state: DealState, seat: int, lang: str = LANG) -> str:
    """The counter a seat must see, from the whole mirrored deal: every card in the other seats'
    hands (and the kitty while nobody has taken it), strongest rank first."""
    out: Counter[int] = Counter()
    for other, hand in enumerate(state.hands):
        if other != seat:
            out.update(cards_to_ranks(hand))
    if state.landlord is None:
        out.update(cards_to_ranks(state.kitty))
    big, small = JOKERS[lang]
    parts = [f"{big}{out[14]}", f"{small}{out[13]}"]
    parts += [f"{RANK_LABELS[r]}×{out[r]}" for r in range(12, -1, -1)]
    return PREFIXES[lang] + " ".join(parts)


def counter_lines(message: FakeMessage) -> list[str]:
    return counter_lines_of(message.content)


def counter_lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(tuple(PREFIXES.values()))]


async def play_a_while(players: Players, actions: int) -> None:
    """The seats press what the AI would decide, ``actions`` times (plays and passes)."""
    for _ in range(actions):
        assert players.state is not None and players.state.phase == "playing"
        seat = players.state.to_act[0]
        await players.act(choose_action(players.state.view(seat), level="normal"))


async def counter_seen(api: FakeBotApi, user: User, state: DealState, seat: int,
                       lang: str = LANG,
                       hand: Callable[[], FakeMessage] | None = None) -> None:
    """The seat's player sees the counter ``expected_line`` says: on their prompt when the seat
    is to act once the bot passed for the seats that cannot follow (自动要不起, on by default;
    a pass leaves the counter as it was), else by pressing the 记牌器 button of their (waiting)
    hand message."""
    line = expected_line(state, seat, lang)
    own = hand or (lambda: hand_message(api, user))
    if seat in after_bot_passes(state).to_act:
        message = await api.wait_for(lambda: own() if line in counter_lines(own()) else None)
        assert message.photo, "the counter is part of the picture's caption"
        return
    label = t("btn.counter", lang)

    def waiting() -> FakeMessage | None:
        message = own()
        labels = [button.text for button in message.buttons]
        return message if label in labels and not counter_lines(message) else None

    message = await api.wait_for(waiting)
    answer = await api.wait_settled(api.press(user, message, message.button(label).callback_data))
    assert answer.params["show_alert"] is True
    assert answer.params["text"].splitlines()[0] == line


async def shows(api: FakeBotApi, user: User, line: str) -> FakeMessage:
    """Wait until the user's hand message carries ``line`` (the outbox redraws it soon after
    the press is answered)."""
    def drawn() -> FakeMessage | None:
        message = hand_message(api, user)
        return message if line in counter_lines(message) else None

    return await api.wait_for(drawn)


async def test_the_private_caption_counts_the_cards_out_and_no_group_message_shows_it(
    fake_api: FakeBotApi, running_bot: BotRunner, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG)  # as `LOG_LEVEL=DEBUG` logs: libraries at their floors
    for name, floor in LIBRARY_LOG_FLOORS.items():
        caplog.set_level(floor, logger=name)
    players = await start_seeded_deal(fake_api, running_bot.app, "Counting night", seed=SEED)
    group = players.group
    assert players.state is not None
    bidder = players.users[0]  # bidding: the 37 cards not in the own hand, on the prompt
    message = await shows(fake_api, bidder, expected_line(players.state, 0))
    assert message.photo and len(counter_lines(message)) == 1
    assert all(counter_lines(hand_message(fake_api, user)) == [] for user in players.users[1:])
    await players.act(Action("bid", 0, value=3))
    await play_a_while(players, 8)
    state = players.state
    assert sum(1 for a in state.history if a.kind == "play") >= 3
    for seat, user in enumerate(players.users):
        await counter_seen(fake_api, user, state, seat)
    # A counter line went only into private chats: hand messages and the 记牌器 pop-ups.
    sent = [c for c in fake_api.calls if c.ok and PREFIXES[LANG] in call_text(c)
            and c.method != "answerCallbackQuery"]
    assert sent and all(call_text(c).startswith(HAND_PREFIX) for c in sent)
    private = {u.id for u in players.users}
    assert all(c.params.get("chat_id") in private for c in sent)
    for text in group_texts(fake_api, group):
        assert PREFIXES[LANG].strip() not in text and "BJ×" not in text, text
    assert_no_hand_in_group(fake_api, group, players.users)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert PREFIXES[LANG] not in logged and "BJ×" not in logged  # nor in a log line


async def test_the_setting_off_hides_the_counter(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    store = app.bot_data.store
    group = fake_api.new_group("No counting")
    ann = fake_api.new_user("Ann")
    fake_api.make_admin(group, ann)
    assert (await store.get_group_settings(group.id))["card_counter"] is True  # on by default
    name = t("set.name.card_counter", LANG)
    await reply(fake_api, ann, group, "/settings")
    menu = fake_api.last_message(group)
    on = t("set.button", LANG, name=name, value=t("set.on", LANG))
    answer = await fake_api.wait_settled(fake_api.press(ann, menu, menu.button(on).callback_data))
    assert answer.params["text"] == t("set.saved", LANG, name=name, value=t("set.off", LANG))
    assert (await store.get_group_settings(group.id))["card_counter"] is False
    assert menu.button(t("set.button", LANG, name=name, value=t("set.off", LANG)))

    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    users = [ann, fake_api.new_user("Bob"), fake_api.new_user("Cat")]
    players = Players(fake_api, group, users)
    players.lobby = await players.open_table(ann, users[1:])
    await players.click(ann, players.lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    await players.act(Action("bid", 0, value=3))
    await play_a_while(players, 4)
    assert not [c for c in fake_api.calls if PREFIXES[LANG] in call_text(c)]
    for user in users:
        message = hand_message(fake_api, user)
        assert message.photo and counter_lines(message) == []


async def test_four_seats_count_two_decks(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = 7
    app.bot_data.game.first_bidder = 0
    table = await FourTable.open(fake_api, app, "Four counters", ("Ann", "Bob", "Cat", "Dan"),
                                 "zh-Hans")
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.deal(7, 0)
    assert table.state is not None
    await table.act(Action("bid", 0, value=3))
    for _ in range(5):
        seat = table.state.to_act[0]
        await table.act(choose_action(table.state.view(seat), level="normal"))
    for seat, user in enumerate(table.users):
        await counter_seen(fake_api, user, table.state, seat, "zh-Hans",
                           lambda u=user: table.hand(u))
    line = expected_line(table.state, 1, "zh-Hans")
    counts = [int(part.split("×")[-1].removeprefix("大王").removeprefix("小王"))
              for part in line.split("：")[1].split()]
    played = sum(len(a.cards or ()) for a in table.state.history if a.kind == "play")
    assert sum(counts) == 108 - played - len(table.state.hands[1]) and max(counts) > 4  # 2 decks
    assert all("记牌器" not in text for text in table.group_texts())


async def test_a_practice_table_shows_the_counter(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = 4242
    app.bot_data.game.first_bidder = 0
    ann = fake_api.new_user("Ann")
    fake_api.send_text(ann, ann, "/practice")
    hand = await fake_api.wait_for(lambda: next(
        (m for m in fake_api.messages_in(ann) if m.content.startswith(HAND_PREFIX)), None))
    state = new_deal(SCORE, seed=4242, first_bidder=0)
    assert hand.photo and counter_lines(hand) == [expected_line(state, 0)]


async def test_a_waiting_hand_follows_the_others_plays_by_caption_without_the_counter(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Issue 32 item 4 within issue 9's budget: a play edits the hand of a seat that only waits
    by its caption alone (what the others did last, whom it waits for; its cards did not
    change, so no picture is sent), and its counter stays behind the 记牌器 button."""
    players = await start_seeded_deal(fake_api, running_bot.app, "Quiet hands", seed=SEED)
    await players.act(Action("bid", 0, value=3))
    checked = edited = 0
    for _ in range(9):
        state = players.state
        assert state is not None
        if state.phase != "playing":
            break
        seat = state.to_act[0]
        action = choose_action(state.view(seat), level="normal")
        since = len(fake_api.calls)
        done = await players.act(action)
        if done is None:  # the bot's own pass (自动要不起): drawn with the play before it
            continue
        after = players.state
        if after.phase != "playing" or (action.kind == "play" and any(
                p.type in (ComboType.BOMB, ComboType.ROCKET)
                for p in classify(cards_to_ranks(action.cards)))):
            continue
        # the seats that cannot follow are passed by the bot: not edited either; the seat the
        # turn then comes to is prompted (an edit) once those passes are made
        prompted = after_bot_passes(after).to_act[0]
        await players.prompt(players.users[prompted], label=t("btn.play", LANG))
        for idle in (s for s in range(3) if s != seat and s != prompted):
            user = players.users[idle]
            edits = [c for c in fake_api.calls[since:] if c.params.get("chat_id") == user.id]
            assert {c.method for c in edits} <= {"editMessageCaption"}, (action, idle, edits)
            assert not any(counter_lines_of(call_text(c)) for c in edits), (action, idle)
            checked += 1
            edited += bool(edits)
    assert checked >= 6 and edited >= 1


async def test_a_long_counter_pop_up_drops_whole_parts_never_half_a_kitty(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA round 5: at a four-seat English table with long names the 记牌器 pop-up (counter and
    status line) is over Telegram's 200 characters; it was cut at character 200 and showed
    "Kitty: 4" for an eight-card kitty. It now keeps whole parts of the status line (the kitty,
    public on the table, goes first) and says with "…" that it left some out."""
    app = running_bot.app
    app.bot_data.game.deal_seed = 7
    app.bot_data.game.first_bidder = 0
    names = ("Ann", "Bartholomew Longname", "Christopher Columbus", "Dmitri Ivanovich")
    table = await FourTable.open(fake_api, app, "Long names", names, "en")
    ann, *others = table.users
    await table.command(ann, "/newgame")
    for user in others:
        await table.click(user, table.lobby(), "btn.join")
    await table.click(ann, table.lobby(), "btn.start")
    table.deal(7, 0)
    assert table.state is not None
    await table.act(Action("bid", 0, value=3))
    seat = table.state.to_act[0]
    await table.act(choose_action(table.state.view(seat), level="normal"))
    waiting = next(s for s in range(1, 4) if s not in table.state.to_act)
    user = table.users[waiting]
    label = t("btn.counter", "en")
    message = await fake_api.wait_for(
        lambda: table.hand(user) if label in [b.text for b in table.hand(user).buttons]
        else None)
    answer = await fake_api.wait_settled(
        fake_api.press(user, message, message.button(label).callback_data))
    text = answer.params["text"]
    counter, status = text.split("\n")
    assert counter == expected_line(table.state, waiting, "en")
    assert len(text) <= 200
    kitty = t("table.kitty", "en", cards="").strip()  # "Kitty:"
    assert kitty[:3] not in status  # the kitty did not fit: left out whole, not cut
    assert status.endswith(" …"), status
    for other in range(4):
        if other != waiting:
            assert names[other] in status or names[other][:23] in status
