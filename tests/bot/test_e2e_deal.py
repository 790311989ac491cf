"""End to end: three players play a whole deal in a group by pressing buttons (issue 3, flow steps
1–7), through the fake Bot API, the real Application and a real SQLite file."""

from __future__ import annotations

import logging

import pytest

from bot.core.i18n import t
from bot.core.selection import hint_order
from bot.presentation import views
from engine import SCORE, Action, apply, beat_reason, classify, new_deal
from engine.ai import choose_action, hint_advice, hints
from tests.bot.flow_helpers import (
    LANG,
    Players,
    assert_no_hand_in_group,
    button_data,
    hand_message,
    result_message,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 20240601


async def test_three_players_play_a_whole_deal(
    fake_api: FakeBotApi, running_bot: BotRunner, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG, logger="bot")
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Friday cards")
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    assert [line for line in lobby.text.splitlines() if line[:2] in ("1.", "2.", "3.")] == [
        "1. Ann", "2. Bob", "3. Cat"]

    answer = await players.click(users[0], lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("lobby.starting", LANG)
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    players.dealt = players.state.hands
    for seat, user in enumerate(users):
        lines = hand_message(fake_api, user).content.splitlines()
        assert lines[0] == t("hand.title", LANG, n=17)
        assert lines[1] == views.cards_text(players.state.hands[seat], LANG)

    # Bidding (RULES §2.1): Ann 1, Bob no bid, Cat 3 → Cat is landlord at base 3.
    bob_buttons = [b.text for b in hand_message(fake_api, users[1]).buttons]
    assert t("btn.bid_1", LANG) not in bob_buttons  # not Bob's turn: no bidding buttons
    await players.act(Action("bid", 0, value=1))
    bob_buttons = [b.text for b in hand_message(fake_api, users[1]).buttons]
    assert bob_buttons[:3] == [t("btn.bid_2", LANG), t("btn.bid_3", LANG), t("btn.no_bid", LANG)]
    await players.act(Action("pass", 1))
    await players.act(Action("bid", 2, value=3))
    assert players.state.landlord == 2 and players.state.phase == "playing"
    cat_lines = hand_message(fake_api, users[2]).content.splitlines()
    assert cat_lines[0] == t("hand.title", LANG, n=20)

    refused = hinted = cleared = cycled = 0
    while players.state.phase == "playing":
        state = players.state
        seat = state.to_act[0]
        user = users[seat]
        view = state.view(seat)
        prev = state.trick.play
        low = [r for r in view.hand_ranks if r <= (prev.main if prev else -1)]
        if prev is not None and prev.type.value == "single" and low and refused < 3:
            # An illegal selection: a pop-up says why and nothing changes (issue 3, step 5).
            message = hand_message(fake_api, user)
            await players.press(user, message, button_data(message, suffix=f":r{low[0]}"))
            answer = await players.click(user, hand_message(fake_api, user), t("btn.play", LANG))
            reading = classify((low[0],))[0]
            assert answer.params["text"] == views.beat_text(
                beat_reason(reading, prev), prev, LANG)
            assert answer.params["text"] == (
                "A single can only be beaten by a higher single (or a bomb).")
            assert answer.params["show_alert"] is True
            answer = await players.click(user, hand_message(fake_api, user), t("btn.clear", LANG))
            assert "Selected" not in hand_message(fake_api, user).content
            refused += 1
            cleared += 1
        action = choose_action(view)
        if action.kind == "play" and hints(view) and not hint_advice(view).pass_first \
                and hinted < 4:
            # Hint cycles through every legal play: the AI's best first, then from the lowest up
            # (issue 3 step 5, issue 10 item 4).
            options = hint_order(view.legal_plays(), hints(view))
            presses = 2 if hinted == 0 and len(options) >= 2 else 1
            for _ in range(presses):
                message = hand_message(fake_api, user)
                answer = await players.click(user, message, t("btn.hint", LANG))
                assert answer.params.get("text") is None
            best = options[presses - 1]
            cycled += presses == 2
            selected = t("hand.selected", LANG, cards=views.ranks_text(best.cards, LANG))
            assert selected in hand_message(fake_api, user).content
            await players.click(user, hand_message(fake_api, user), t("btn.play", LANG))
            players.state = apply(state, Action("play", seat, cards=best.cards))
            hinted += 1
        else:
            await players.act(action)
    assert refused and hinted == 4 and cleared and cycled

    state = players.state
    result = state.result
    message = await result_message(fake_api, group)
    winner = "result.landlord_wins" if result.winner == "landlord" else "result.farmers_win"
    assert message.content.splitlines()[0] == t("result.title", LANG, winner=t(winner, LANG))
    assert t("result.kitty", LANG, cards=views.cards_text(state.kitty, LANG)) in message.content
    assert message.button(t("btn.play_again", LANG))
    balances = [await store.balance(u.id) for u in users]
    assert balances == [1000 + p * 10 for p in result.points]
    for seat, user in enumerate(users):
        line = f"{user.first_name} ({t('role.landlord' if seat == 2 else 'role.farmer', LANG)})"
        points = views.points_text(result.points[seat], LANG)
        assert f"{line}: {points}, {views.beans_text(result.points[seat] * 10, LANG)}" \
            in message.content
    assert sum(balances) == 3000
    assert_no_hand_in_group(fake_api, group, users)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for hand in players.dealt:
        assert views.cards_text(hand, LANG) not in logged
    # The table message ends showing the final state, without buttons.
    table = await fake_api.wait_for(lambda: _final_table(fake_api, group))
    assert t("table.count", LANG, n=0) in table.content


def _final_table(api: FakeBotApi, group):
    table = api.messages_in(group)[0]
    return table if not table.buttons and t("table.count", LANG, n=0) in table.content else None
