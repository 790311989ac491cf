"""End to end through the fake Bot API: 上一轮 (the last trick, seed 003:
"点击“上一轮”可以查看上一轮出牌情况"). A button under each hand and under the group's table
message shows, in a pop-up (``answerCallbackQuery`` with ``show_alert``, no new message), who
played what in the last trick that is over, in order: to players and to watchers; never a
hand."""

from __future__ import annotations

from bot.core.i18n import t
from bot.presentation import views
from engine import Action
from engine.ai import choose_action
from tests.bot.flow_helpers import (
    LANG,
    after_bot_passes,
    button_data,
    hand_message,
    served,
    start_seeded_deal,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

#: Ann bids 3 and leads a straight 3…Q that neither farmer can beat: both are passed
#: (test_e2e_auto_pass).
SEED = 20240601


async def test_last_trick_pop_up_names_the_plays_in_order_for_players_and_watchers(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await start_seeded_deal(fake_api, app, "Last trick", seed=SEED)
    ann, bob, cat = players.users
    await players.act(Action("bid", 0, value=3))
    await served(fake_api, app, ann, players.state.version)
    # no trick is over yet: the button says so
    hand = await players.prompt(ann, label=t("btn.play", LANG))
    last = button_data(hand, label=t("btn.last_trick", LANG))
    calls = len(fake_api.calls)
    answer = await players.press(ann, hand, last)
    assert answer.params["text"] == t("pop.no_last_trick", LANG)
    assert answer.params["show_alert"] is True

    lead = choose_action(players.state.view(0), level="normal")
    await players.act(lead)
    players.state = after_bot_passes(players.state)  # Bob and Cat cannot beat it
    await served(fake_api, app, ann, players.state.version)
    view = players.state.view(0)
    expected = t("pop.last_trick", LANG, plays=" · ".join([
        t("pop.trick_play", LANG, name="Ann", play=views.action_label(lead, view, LANG)),
        t("pop.trick_play", LANG, name="Bob", play=t("btn.pass", LANG)),
        t("pop.trick_play", LANG, name="Cat", play=t("btn.pass", LANG)),
    ]))
    assert expected.startswith("Last trick: Ann 3 4 5 6 7 8 9 10 J Q"), expected
    assert expected.endswith("· Bob Pass · Cat Pass")

    # a player, from the button under their hand (Bob waits: his message has it too)
    calls = len(fake_api.calls)
    bob_hand = hand_message(fake_api, bob)
    answer = await players.press(bob, bob_hand, button_data(bob_hand,
                                                            label=t("btn.last_trick", LANG)))
    assert answer.params["text"] == expected and answer.params["show_alert"] is True
    # a watcher, from the group's table message
    zed = fake_api.new_user("Zed")
    group_table = players.table_message()
    assert [b.text for b in group_table.buttons] == [t("btn.my_cards", LANG),
                                                     t("btn.last_trick", LANG)]
    answer = await players.press(zed, group_table,
                                 button_data(group_table, label=t("btn.last_trick", LANG)))
    assert answer.params["text"] == expected and len(expected) <= views.POPUP_LIMIT
    # pop-ups only: no message was sent or changed for these presses, and no hand shown
    sent = [c for c in fake_api.calls[calls:] if c.method in ("sendMessage", "sendPhoto")
            and c.params.get("chat_id") in (players.group.id, bob.id, zed.id)]
    assert sent == []
    for seat in range(3):
        assert views.cards_text(players.state.hands[seat], LANG) not in expected
