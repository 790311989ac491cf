"""End to end: pop-ups say what is true of a refused press (issue 3, "Never trust input"): a
button of an older game, Play again by someone who did not play or after a new game opened, a
button of a deal that is over."""

from __future__ import annotations

import pytest

from bot.core.i18n import CATALOGUES, LANGUAGES, t
from tests.bot.flow_helpers import LANG, Players, button_data, hand_message, result_message
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 9090
POPUPS = ("pop.old_button", "pop.again_join", "pop.new_game_open", "pop.game_started",
          "pop.again_started",
          "pop.not_over", "pop.not_started", "pop.gone")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_is_worded_in_every_language(lang):
    texts = [CATALOGUES[lang][key] for key in POPUPS]
    assert len(set(texts)) == len(texts)


async def test_refused_presses_get_accurate_popups(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Latecomers")
    ann, bob, cat = (fake_api.new_user(n) for n in ("Ann", "Bob", "Cat"))
    zed = fake_api.new_user("Zed", language_code="zh-hans")
    players = Players(fake_api, group, [ann, bob, cat])
    lobby = await players.open_table(ann, [bob, cat])
    lobby_token = button_data(lobby, label=t("btn.join", LANG)).split(":")[1]
    start = button_data(lobby, label=t("btn.start", LANG))
    await players.click(ann, lobby, t("btn.start", LANG))
    answer = await players.press(ann, lobby, start)  # a double click: nothing alarming
    assert answer.params["text"] == t("pop.game_started", LANG)
    table = app.bot_data.tables.table_of(ann.id)
    deal_token = table.token

    # A deal button drawn with another (older) token: not "the game is over".
    hand = hand_message(fake_api, ann)
    answer = await players.press(ann, hand, f"A:{lobby_token}:0:bid1")
    assert answer.params["text"] == t("pop.old_button", LANG)
    answer = await players.press(ann, lobby, f"L:{deal_token}:0:join")
    assert answer.params["text"] == t("pop.game_started", LANG)

    # Bob leaves while bidding: the deal ends at once with a result and Play again.
    fake_api.send_text(bob, group, "/leave")
    await fake_api.wait_for("sendMessage", chat_id=group)
    await players.click(bob, fake_api.last_message(group), t("btn.leave_confirm", LANG))
    result = await result_message(fake_api, group)
    table_message = fake_api.messages_in(group)[0]
    answer = await players.press(cat, table_message, f"M:{deal_token}:0:")
    assert answer.params["text"] == t("pop.gone", LANG)  # this deal is over, truly

    again = button_data(result, label=t("btn.play_again", LANG))
    answer = await players.press(zed, result, again)  # a stranger: told to press Join
    assert answer.params["text"] == t("pop.again_join", "zh-Hans")
    assert answer.params["show_alert"] is True
    answer = await players.press(bob, result, again)  # he left the deal: his seat is free
    assert answer.params["text"] == t("pop.again_join", LANG)
    answer = await players.press(ann, result, again)
    assert answer.params["text"] == t("pop.again_ready", LANG, names="Cat")
    answer = await players.press(ann, result, again)  # a double press changes nothing
    assert answer.params["text"] == t("pop.again_already", LANG, names="Cat")
    answer = await players.press(cat, result, again)  # Bob's seat is free: back to the lobby
    assert answer.params["text"] == t("pop.again_lobby", LANG)
    lobby = await fake_api.wait_for(lambda: next(
        (m for m in fake_api.messages_in(group)[::-1] if m.message_id > result.message_id
         and t("btn.start", LANG) in {b.text for b in m.buttons}), None))
    assert t("lobby.seat", LANG, n=1, name="Ann") in lobby.text
    assert t("lobby.seat", LANG, n=2, name="Cat") in lobby.text
    assert t("lobby.seat_empty", LANG, n=3) in lobby.text
    answer = await players.press(cat, result, again)  # a second time: the lobby is open
    assert answer.params["text"] == t("pop.new_game_open", LANG)
    answer = await players.press(cat, table_message, f"M:{deal_token}:0:")
    assert answer.params["text"] == t("pop.old_button", LANG)
