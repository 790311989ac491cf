"""End to end: a turn times out, the seat goes on auto-play (托管) until its owner presses Take
back (RULES §9, issue 3 flow step 6); timers run on PTB's JobQueue."""

from __future__ import annotations

from bot.i18n import t
from engine import SCORE, Action, new_deal
from tests.bot.flow_helpers import LANG, Players, hand_message, result_message
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


async def test_timeout_goes_to_autoplay_and_take_back(fake_api: FakeBotApi, bot_runner: BotRunner):
    app = await bot_runner.start(bid_timeout=0.6, play_timeout=0.6)
    app.bot_data.game.first_bidder = 1
    app.bot_data.game.deal_seed = 7
    store = app.bot_data.store
    group = fake_api.new_group("Slow hands")
    users = [fake_api.new_user(name) for name in ("Eve", "Fay", "Gus")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    fay = users[1]
    players.state = new_deal(SCORE, seed=7, first_bidder=1)
    await players.act(Action("bid", 1, value=3))
    # Fay is landlord and leads, but does nothing: after 0.6 s the engine's timeout plays her
    # smallest card and her seat goes on auto-play (RULES §9); her hand offers Take back.
    take_back = t("btn.take_back", LANG)
    message = await fake_api.wait_for(
        lambda: (m := hand_message(fake_api, fay)) and any(b.text == take_back for b in m.buttons)
        and m, timeout=5)
    assert t("hand.autoplay", LANG) in message.content
    table = app.bot_data.tables.table_of(fay.id)
    assert table.state.autoplay[1] is True
    smallest = min(players.hand_ranks(1))
    assert table.state.history[1:3] == (Action("timeout", 1), Action("play", 1, cards=(smallest,)))
    await fake_api.wait_for(
        lambda: t("table.autoplay", LANG) in fake_api.messages_in(group)[0].content, timeout=5)

    answer = await players.click(fay, message, take_back)
    assert answer.params["text"] == t("pop.autoplay_off", LANG)
    assert table.state.autoplay[1] is False
    assert any(b.text == t("btn.autoplay", LANG) for b in hand_message(fake_api, fay).buttons)

    # Nobody presses anything: every seat times out into auto-play and the deal plays out.
    result = await result_message(fake_api, group, timeout=20)
    assert result.content.startswith("🏁")
    balances = [await store.balance(u.id) for u in users]
    assert sum(balances) == 3000
    assert table.state.phase == "finished" and all(table.state.autoplay)
    assert sum(1 for a in table.state.history if a.kind == "timeout") >= 3
