"""End to end: one human with two bot seats, the rob preset (RULES §2.2, §3), and Play again."""

from __future__ import annotations

import itertools

from bot.core.i18n import t
from tests.bot.flow_helpers import (
    LANG,
    Players,
    assert_no_hand_in_group,
    hand_message,
    result_message,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

DECISIONS = ("btn.call", "btn.rob", "btn.nodouble")


async def play_as_human(players: Players, user) -> None:
    """Play the human's turns until the result is posted: call/rob, no double, then Hint + Play
    (or 要不起 / Can't beat when nothing beats the table)."""
    api = players.api
    done = 0
    while not any(m.content.startswith("🏁") for m in api.messages_in(players.group)):
        message = await api.wait_for(lambda: _my_turn(api, players, user), timeout=10)
        if message is True:
            break
        labels = [b.text for b in message.buttons]
        choice = next((t(k, LANG) for k in DECISIONS if t(k, LANG) in labels), None)
        if choice is not None:
            await players.click(user, message, choice)
        elif t("btn.cannot_beat", LANG) in labels:  # nothing beats the table: no card keyboard
            assert t("btn.play", LANG) not in labels and t("btn.hint", LANG) not in labels
            await players.click(user, message, t("btn.cannot_beat", LANG))
        else:
            answer = await players.click(user, message, t("btn.hint", LANG))
            if answer.params.get("text") == t("pop.no_hint", LANG):
                await players.click(user, hand_message(api, user), t("btn.pass", LANG))
            else:
                await players.click(user, hand_message(api, user), t("btn.play", LANG))
        done += 1
    assert done


def _my_turn(api: FakeBotApi, players: Players, user):
    if any(m.content.startswith("🏁") for m in api.messages_in(players.group)):
        return True
    message = hand_message(api, user)
    labels = {b.text for b in message.buttons}
    wanted = {t(k, LANG) for k in DECISIONS} | {t("btn.play", LANG), t("btn.cannot_beat", LANG)}
    return message if labels & wanted else None


async def test_one_human_and_two_bots_rob_preset_then_play_again(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    group = fake_api.new_group("Lunch break")
    await store.update_group_settings(group.id, bidding="rob")
    user = fake_api.new_user("Dee")
    players = Players(fake_api, group, [user])
    lobby = await players.open_table(user, [])
    assert t("lobby.preset", LANG, preset=t("preset.rob", LANG)) in lobby.text
    for n in (2, 3):
        answer = await players.click(user, lobby, t("btn.add_bot", LANG))
        assert answer.params["text"] == t("pop.bot_added", LANG)
        assert t("lobby.seat", LANG, n=n, name=t("seat.bot", LANG, n=n)) in lobby.text
    answer = await players.click(user, lobby, t("btn.add_bot", LANG))
    assert answer.params["text"] == t("pop.table_full", LANG)
    await players.click(user, lobby, t("btn.start", LANG))

    await play_as_human(players, user)
    result = await result_message(fake_api, group)
    assert t("result.title", LANG, winner="").rstrip("!") in result.content
    deal = (await store.running_deals())
    assert deal == []
    # A human playing with two bots neither wins nor loses beans (the store's bot-seat rule).
    assert await store.balance(user.id) == 1000
    assert f"{user.first_name} (" in result.content and ", 0 beans" in result.content
    assert_no_hand_in_group(fake_api, group, [user])

    # Play again keeps the table: the one human's press deals the next deal at once, same
    # seats, no lobby and no second Start; the result's keyboard goes.
    first_hand = hand_message(fake_api, user).message_id
    messages_before = len(fake_api.messages_in(group))
    answer = await players.click(user, result, t("btn.play_again", LANG))
    assert answer.params.get("text") == t("lobby.starting", LANG)
    second = await fake_api.wait_for(
        lambda: (m := hand_message(fake_api, user)).message_id != first_hand and m)
    assert second.content.splitlines()[0] in (t("hand.title", LANG, n=17),)
    await fake_api.wait_for(lambda: result.buttons == [] or None)
    new = fake_api.messages_in(group)[messages_before - 1:]
    assert not [m for m in new if t("btn.start", LANG) in {b.text for b in m.buttons}]
    table = app.bot_data.tables.table_of(user.id)
    assert [s.name for s in table.seats][0] == "Dee" and table.seats[1].is_bot \
        and table.seats[2].is_bot


async def test_rapid_bot_moves_coalesce_into_spaced_table_edits(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(table_edit_interval=0.4, bot_move_delay=0.05)
    app.bot_data.game.deal_seed = 17  # a bot bids: no redeal
    app.bot_data.game.first_bidder = 1
    group = fake_api.new_group("Speed run")
    user = fake_api.new_user("Max")
    players = Players(fake_api, group, [user])
    lobby = await players.open_table(user, [])
    for _ in range(2):
        await players.click(user, lobby, t("btn.add_bot", LANG))
    await players.click(user, lobby, t("btn.start", LANG))
    await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    await result_message(fake_api, group, timeout=15)
    table = app.bot_data.tables.get(f"{group.id}:0")
    actions = len(table.state.history)
    picture = fake_api.message(group, table.messages.message_id)
    await fake_api.wait_for(lambda: not picture.buttons, timeout=3)  # the final state was drawn
    sent = fake_api.calls_to("sendPhoto", chat_id=group.id)[0]
    assert sent.result["message_id"] == picture.message_id
    edits = [c for method in ("editMessageMedia", "editMessageCaption")
             for c in fake_api.calls_to(method, chat_id=group.id, message_id=picture.message_id)
             if c.ok]
    times = sorted([sent.time] + [c.time for c in edits])
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert actions > 20 and len(times) < actions / 2
    assert len(gaps) >= 3 and min(gaps) >= 0.35


async def test_a_bot_keeps_its_name_when_a_player_before_it_leaves(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    group = fake_api.new_group("Musical chairs")
    ann, bob, cat = (fake_api.new_user(n) for n in ("Ann", "Bob", "Cat"))
    players = Players(fake_api, group, [ann, bob, cat])
    lobby = await players.open_table(ann, [bob])
    await players.click(ann, lobby, t("btn.add_bot", LANG))
    assert t("lobby.seat", LANG, n=3, name=t("seat.bot", LANG, n=3)) in lobby.text.splitlines()
    await players.click(ann, lobby, t("btn.leave", LANG))
    seats = [line for line in lobby.text.splitlines() if line[:2] in ("1.", "2.", "3.")]
    assert seats[:2] == [t("lobby.seat", LANG, n=1, name="Bob"),
                         t("lobby.seat", LANG, n=2, name=t("seat.bot", LANG, n=3))]
    await players.click(bob, lobby, t("btn.add_bot", LANG))  # seat 3: the next free number
    assert t("lobby.seat", LANG, n=3, name=t("seat.bot", LANG, n=4)) in lobby.text.splitlines()
