"""End to end: a turn times out, the seat goes on auto-play (托管) until its owner presses Take
back (RULES §9, issue 3 flow step 6); timers run on PTB's JobQueue."""

from __future__ import annotations

from bot.core.i18n import t
from engine import SCORE, Action, auto_action, new_deal
from engine.ai import choose_action
from tests.bot.flow_helpers import LANG, Players, cannot_follow, hand_message, result_message
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

    notice = await fake_api.wait_for(lambda: next(  # sent after her hand was drawn
        (m for m in fake_api.messages_in(fay) if m.content == t("notice.timed_out", LANG)), None))
    assert [b.text for b in notice.buttons] == [take_back]
    answer = await players.click(fay, message, take_back)
    assert answer.params["text"] == t("pop.autoplay_off", LANG)
    assert table.state.autoplay[1] is False
    assert any(b.text == t("btn.autoplay", LANG) for b in hand_message(fake_api, fay).buttons)
    # QA: the notice's Take back stayed, live-looking, once used: it goes with the take back
    assert notice.buttons == [] and table.messages.autoplay_notices[1] is None

    # Nobody presses anything: every seat times out into auto-play and the deal plays out.
    result = await result_message(fake_api, group, timeout=20)
    assert result.content.startswith("🏁")
    balances = [await store.balance(u.id) for u in users]
    assert sum(balances) == 3000
    assert table.state.phase == "finished" and all(table.state.autoplay)
    assert sum(1 for a in table.state.history if a.kind == "timeout") >= 3
    # the notices of the seats still on auto-play lose their button once the deal is over
    # (each edit goes through the outlet after the result: waited for, not assumed)
    notices = [m for u in users for m in fake_api.messages_in(u)
               if m.content == t("notice.timed_out", LANG)]
    assert len(notices) >= 4
    await fake_api.wait_for(lambda: all(m.buttons == [] for m in notices) or None, timeout=5)
    assert table.messages.autoplay_notices == [None, None, None]


async def _ivy_bids_three(fake_api: FakeBotApi, bot_runner: BotRunner, title: str):
    """The penalty deals' start: Ivy, Jon and Kit at a table of group ``title`` with a 4 s turn,
    deal seed 4; Ivy bids 3 and is the landlord. Returns the app, the group, the users, their
    :class:`Players` and the table."""
    app = await bot_runner.start(play_timeout=4.0)
    app.bot_data.game.first_bidder = 0
    app.bot_data.game.deal_seed = 4
    group = fake_api.new_group(title)
    users = [fake_api.new_user(name) for name in ("Ivy", "Jon", "Kit")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=4, first_bidder=0)
    await players.act(Action("bid", 0, value=3))
    return app, group, users, players, app.bot_data.tables.table_of(users[0].id)


async def test_a_farmer_on_autoplay_who_wins_nothing_is_told_and_why(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    """QA round 4, defect 3: with the auto-play penalty (RULES.md §9) a farmer on auto-play wins
    0 points when the farmers win; their hand still says they won, the 0 points and beans, the
    balance and the reason; the old timeout notice's Take back then gets a polite answer."""
    app, group, users, players, table = await _ivy_bids_three(fake_api, bot_runner,
                                                              "Sleepy farmer")
    store = app.bot_data.store
    # Ivy (landlord) plays the simplest way, Kit plays well, Jon lets his turn run out.
    while table.state.phase == "playing":
        state = table.state
        seat = state.to_act[0]
        if seat == 1 or state.autoplay[seat] or cannot_follow(state, seat):  # the bot's move
            version = state.version
            await fake_api.wait_for(lambda v=version: table.state.version != v or None,
                                    timeout=10)
            continue
        user = users[seat]
        await fake_api.wait_for(lambda u=user: any(  # that hand's keyboard is drawn for the turn
            ":r" in (b.callback_data or "") or (b.callback_data or "").endswith(":pass")
            for b in hand_message(fake_api, u).buttons) or None, timeout=10)
        players.state = state
        await players.act(auto_action(state, 0) if seat == 0 else choose_action(state.view(2)))
    result = table.state.result
    assert result.winner == "farmers" and result.autoplay_penalized == (1,)
    assert result.points[1] == 0 and result.points[2] > 0
    await result_message(fake_api, group, timeout=10)
    balance = await store.balance(users[1].id)
    assert balance == 1000
    lines = hand_message(fake_api, users[1]).content.splitlines()
    assert lines[-1] == t("hand.side_won_beans", LANG,
                          points=t("unit.points", LANG, n=0, signed="0"),
                          beans=t("unit.beans", LANG, n=0, signed="0"),
                          balance="1,000") + t("hand.penalty_note", LANG)
    notice = next(m for m in fake_api.messages_in(users[1])
                  if m.content == t("notice.timed_out", LANG))
    assert notice.buttons == []  # the deal is over: no Take back that would only be refused
    assert table.state.phase == "finished" and table.state.autoplay[1] is True


TAKE_BACK = t("btn.take_back", LANG)


async def test_a_farmer_who_timed_out_and_took_back_still_bears_the_penalty(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    """RULES.md §9: Jon's first turn times out (auto-play passes for him), he presses Take back
    at once and plays the rest of the deal himself; the auto-play penalty still falls on him
    (it used to fall only on a farmer still on auto-play at the end), and the result says so."""
    app, group, users, players, table = await _ivy_bids_three(fake_api, bot_runner,
                                                              "Took back")
    store = app.bot_data.store
    took_back = False
    while table.state.phase == "playing":
        state = table.state
        seat = state.to_act[0]
        if state.autoplay[seat] or cannot_follow(state, seat) or (seat == 1 and not took_back):
            version = state.version  # the bot's move, or Jon's turn running out
            await fake_api.wait_for(lambda v=version: table.state.version != v or None,
                                    timeout=10)
            if seat == 1 and not took_back and table.state.autoplay[1]:
                assert table.state.autoplayed == (False, True, False)
                hand = await fake_api.wait_for(lambda: (m := hand_message(fake_api, users[1]))
                                               and any(b.text == TAKE_BACK for b in m.buttons)
                                               and m, timeout=5)
                answer = await players.click(users[1], hand, TAKE_BACK)
                assert answer.params["text"] == t("pop.autoplay_off", LANG)
                took_back = True
            continue
        user = users[seat]
        await fake_api.wait_for(lambda u=user: any(  # that hand's keyboard is drawn for the turn
            ":r" in (b.callback_data or "") or (b.callback_data or "").endswith(":pass")
            for b in hand_message(fake_api, u).buttons) or None, timeout=10)
        players.state = state
        await players.act(auto_action(state, 0) if seat == 0 else choose_action(state.view(seat)))
    assert took_back and table.state.autoplay == (False, False, False)
    result = table.state.result
    assert result.autoplay_penalized == (1,)
    loser_or_winner = 2 if result.winner == "landlord" else 1  # who scores 0 of the farmers
    assert result.points[loser_or_winner] == 0
    assert sum(result.points) == 0 and result.points[0] != 0
    message = await result_message(fake_api, group, timeout=10)
    assert t("result.autoplay_penalty", LANG, name="Jon") in message.content.splitlines()
    balances = [await store.balance(u.id) for u in users]
    assert balances == [1000 + p * 10 for p in result.points]
