"""End to end: the four-player, two-deck game (RULES.md §11, issue 13 part 4) through the fake Bot
API, the real Application and a real SQLite file: a group set to ``players`` 4, a four-seat lobby,
25-card hands in private, the forced landlord (逼打) after four passes, the farmers' bomb
allowances shown and enforced, the 33-card landlord hand, the result and the beans among the
humans, four humans and one human with three bots, in English and in simplified Chinese, and a
restart in the middle of a deal."""

from __future__ import annotations

import pytest

from bot.core.i18n import t
from bot.core.rooms import GroupSettingError, parse_value, rules_for, with_defaults
from bot.features.settings.menu import THREE_ONLY
from bot.presentation import views
from engine import Action
from engine.ai import choose_action, hints
from engine.cards import cards_to_ranks, rank_counts
from engine.four.allowance import is_bomb
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import result_message
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 7
NAMES = ("Ann", "Bob", "Cat", "Dan")
LANGS = ("en", "zh-Hans")


def _bomb_ranks(ranks: tuple[int, ...]) -> list[int]:
    """The weakest bomb a hand of ranks holds (four of its lowest rank held four times)."""
    counts = rank_counts(ranks)
    rank = next(r for r, n in enumerate(counts) if n >= 4)
    return [rank] * 4


@pytest.mark.parametrize("lang", LANGS)
async def test_four_humans_forced_landlord_and_a_farmer_refused_a_bomb(
    fake_api: FakeBotApi, running_bot: BotRunner, lang: str
):
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    # the manual 要不起 prompt: Dan, whose only bomb is over his allowance, is prompted
    table = await FourTable.open(fake_api, app, "Four friends", NAMES, lang, auto_pass=False)
    ann, bob, cat, dan = table.users
    await table.command(ann, "/newgame")
    lobby = table.lobby()
    assert t("lobby.preset", lang, preset=t("preset.four", lang)) in lobby.text
    assert t("lobby.seat_empty", lang, n=4) in lobby.text.splitlines()
    assert t("lobby.help_four", lang) in lobby.text.splitlines()
    for user in (bob, cat):
        answer = await table.click(user, lobby, "btn.join")
        assert answer.params["text"] == t("pop.seating", lang)
    answer = await table.click(ann, lobby, "btn.start")  # three of four seats
    assert answer.params["text"] == t("pop.need_four", lang)
    assert answer.params["show_alert"] is True
    await table.click(dan, lobby, "btn.join")
    seats = [line for line in lobby.text.splitlines() if line[:2] in ("1.", "2.", "3.", "4.")]
    assert seats == ["1. Ann", "2. Bob", "3. Cat", "4. Dan"]
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("lobby.starting", lang)
    table.deal(SEED, 0)
    state = table.state
    assert state is not None and state.rules.variant == "four"
    for seat, user in enumerate(table.users):
        lines = table.hand(user).content.splitlines()
        assert lines[0] == t("hand.title", lang, n=25)
        assert lines[1] == views.cards_text(state.hands[seat], lang)

    # Bidding 1/2/3 (RULES.md §11): the first bidder sees all three bids and No bid.
    labels = [b.text for b in table.hand(ann).buttons]
    assert labels[:4] == [t(k, lang) for k in ("btn.bid_1", "btn.bid_2", "btn.bid_3",
                                                "btn.no_bid")]
    for seat in range(4):
        await table.act(Action("pass", seat))
    state = table.state
    assert state.landlord == 0 and state.base == 1 and state.phase == "playing"

    # 逼打: Ann is landlord with 33 cards; Dan (the seat before her) may play no bomb, Bob and
    # Cat one each; the table says so.
    ann_hand = table.hand(ann).content.splitlines()
    assert ann_hand[0] == t("hand.title", lang, n=33)
    assert ann_hand[1] == views.cards_text(state.hands[0], lang)
    assert not any(t("hand.bombs_left_one", lang) in line for line in ann_hand)
    assert t("hand.bombs_left_one", lang) in table.hand(bob).content
    assert t("hand.bombs_left_one", lang) in table.hand(cat).content
    assert t("hand.no_bombs_left", lang) in table.hand(dan).content
    group_table = await fake_api.wait_for(
        lambda: next((m for m in fake_api.messages_in(table.group)
                      if t("table.forced", lang) in m.content), None))
    assert t("table.kitty", lang, cards=views.cards_text(state.kitty, lang)) in \
        group_table.content
    dan_line = next(line for line in group_table.content.splitlines() if "Dan" in line)
    assert t("table.no_bombs_left", lang) in dan_line
    assert t("table.bombs_left_one", lang) in next(
        line for line in group_table.content.splitlines() if "Bob" in line)

    refused = 0
    while table.state.phase == "playing":
        state = table.state
        seat = state.to_act[0]
        view = state.view(seat)
        if seat == 3 and not refused:
            # Dan is offered no bomb (Hint never suggests one) and a bomb he selects himself is
            # refused with a clear pop-up; nothing changes.
            assert not any(is_bomb(p) for p in hints(view) + view.legal_plays())
            bomb = _bomb_ranks(view.hand_ranks)
            if not hints(view):
                # only a bomb would beat the table: the prompt offers only 要不起 (issue 10), so
                # the bomb comes as forged presses of the select buttons
                labels = [b.text for b in table.hand(dan).buttons]
                assert t("btn.cannot_beat", lang) in labels and t("btn.play", lang) not in labels
                answer = await table.forge_play(3, bomb)
            else:
                await table.tap(3, bomb)
                answer = await table.click(dan, table.hand(dan), "btn.play")
            assert answer.params["text"] == t("illegal.bomb_limit", lang)
            assert answer.params["show_alert"] is True
            served = app.bot_data.tables.table_of(dan.id).state
            assert (served.version, served.hands, served.seat_bombs) == \
                (state.version, state.hands, state.seat_bombs)
            await table.clear(3)
            refused += 1
        await table.act(choose_action(view))
    assert refused == 1

    state = table.state
    result = state.result
    assert result is not None and result.base == 1
    message = await result_message(fake_api, table.group)
    winner = "result.landlord_wins" if result.winner == "landlord" else "result.farmers_win"
    assert message.content.splitlines()[0] == t("result.title", lang, winner=t(winner, lang))
    assert t("table.forced", lang) in message.content
    assert t("result.kitty", lang, cards=views.cards_text(state.kitty, lang)) in message.content
    assert result.points[0] == -sum(result.points[1:]) and abs(result.points[0]) == 3
    balances = [await store.balance(u.id) for u in table.users]
    assert balances == [1000 + p * 10 for p in result.points]
    assert sum(balances) == 4000
    for seat, user in enumerate(table.users):
        role = t("table.role", lang, role=t("role.landlord" if seat == 0 else "role.farmer",
                                            lang))
        mark = "👑 " if seat == 0 else "🌾 "
        assert t("result.seat", lang, mark=mark, name=user.first_name, role=role,
                 points=views.points_text(result.points[seat], lang),
                 beans=views.beans_text(result.points[seat] * 10, lang)) in message.content
    # /me statistics and the group's leaderboard count the four-player deal.
    for seat, user in enumerate(table.users):
        stats = await store.player_stats(user.id, table.group.id)
        assert (stats.games, stats.landlord_games, stats.farmer_games) == \
            (1, int(seat == 0), int(seat != 0))
        assert stats.wins == int(result.points[seat] > 0)
        assert stats.bombs == state.seat_bombs[seat]  # bombs of 4–8 cards and 天尊
    top = await store.leaderboard(table.group.id, "today")
    assert sorted((row.name, row.value, row.games) for row in top) == sorted(
        (user.first_name, result.points[seat] * 10, 1) for seat, user in enumerate(table.users))
    table.assert_no_hand_in_group()


async def test_restart_in_the_middle_of_a_four_player_deal(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED + 1
    app.bot_data.game.first_bidder = 1
    lang = "en"
    table = await FourTable.open(fake_api, app, "Night owls four", NAMES, lang)
    ann = table.users[0]
    await table.command(ann, "/newgame")
    lobby = table.lobby()
    for user in table.users[1:]:
        await table.click(user, lobby, "btn.join")
    await table.click(ann, lobby, "btn.start")
    table.deal(SEED + 1, 1)
    await table.act(Action("bid", 1, value=2))
    await table.act(Action("pass", 2))
    await table.act(Action("pass", 3))
    await table.act(Action("pass", 0))
    assert table.state.landlord == 1 and table.state.bomb_limits == (1, None, 1, 1)
    for _ in range(6):
        state = table.state
        await table.act(choose_action(state.view(state.to_act[0])))
    before = app.bot_data.tables.table_of(ann.id)
    assert before.options.seat_count == 4
    version = before.state.version

    app = await running_bot.restart()
    after = app.bot_data.tables.table_of(ann.id)
    assert after is not before and after.options.seat_count == 4
    assert after.state == before.state and after.state.version == version
    assert after.state.rules.variant == "four"
    group_table = fake_api.messages_in(table.group)[0]
    await fake_api.wait_for(lambda: t("table.continues", lang) in group_table.content)
    landlord_hand = table.hand(table.users[1]).content
    assert views.cards_text(table.state.hands[1], lang) in landlord_hand

    while table.state.phase == "playing":
        state = table.state
        await table.act(choose_action(state.view(state.to_act[0])))
    await result_message(fake_api, table.group)
    store = app.bot_data.store
    points = table.state.result.points
    assert [await store.balance(u.id) for u in table.users] == [1000 + p * 10 for p in points]
    assert await store.running_deals() == []


@pytest.mark.parametrize("lang", LANGS)
async def test_one_human_and_three_bots(fake_api: FakeBotApi, running_bot: BotRunner, lang: str):
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = SEED + 2
    app.bot_data.game.first_bidder = 0
    table = await FourTable.open(fake_api, app, "Solo four", ("Eve",), lang)
    eve = table.users[0]
    await table.command(eve, "/newgame")
    lobby = table.lobby()
    for n in (2, 3, 4):
        answer = await table.click(eve, lobby, "btn.add_bot")
        assert answer.params["text"] == t("pop.bot_added", lang)
        assert t("lobby.seat", lang, n=n, name=t("seat.bot", lang, n=n)) in lobby.text
    answer = await table.click(eve, lobby, "btn.add_bot")
    assert answer.params["text"] == t("pop.table_full", lang)
    await table.click(eve, lobby, "btn.start")
    table.deal(SEED + 2, 0)
    assert table.hand(eve).content.splitlines()[0] == t("hand.title", lang, n=25)

    # Eve bids 3 at once (头撂): every farmer may bomb freely, and she is landlord.
    await table.act(Action("bid", 0, value=3))
    assert table.state.landlord == 0 and table.state.bomb_limits == (None,) * 4
    assert t("hand.bombs_any", lang) not in table.hand(eve).content  # the landlord's own
    assert table.hand(eve).content.splitlines()[0] == t("hand.title", lang, n=33)
    played = 0
    while True:
        done = await fake_api.wait_for(lambda: _eve_turn_or_result(table), timeout=15)
        if done is True:
            break
        labels = {b.text for b in done.buttons}
        if t("btn.cannot_beat", lang) in labels:  # nothing beats the table: 要不起 only
            await table.click(eve, done, "btn.cannot_beat")
            played += 1
            continue
        answer = await table.click(eve, done, "btn.hint")
        if answer.params.get("text") == t("pop.no_hint", lang):
            await table.click(eve, table.hand(eve), "btn.pass")
        else:
            await table.click(eve, table.hand(eve), "btn.play")
        played += 1
    assert played
    message = await result_message(fake_api, table.group)
    state = next(seated for seated in app.bot_data.tables
                 if seated.chat_id == table.group.id).state
    result = state.result
    assert result is not None and result.landlord == 0
    if result.winner == "landlord":
        assert result.bonus == 1
        assert t("result.head_bid", lang, n=1) in message.content
        assert result.points[0] == 3 * (3 + 1)
    else:
        assert result.bonus == 0 and result.points[0] == -9
    # Bot seats neither pay nor receive (RULES.md §8): a human among bots keeps her beans.
    assert await store.balance(eve.id) == 1000
    assert len(cards_to_ranks(state.kitty)) == 8
    assert await store.running_deals() == []
    table.assert_no_hand_in_group()


def _eve_turn_or_result(table: FourTable):
    if any(m.content.startswith("🏁") for m in table.api.messages_in(table.group)):
        return True
    message = table.hand(table.users[0])
    labels = {b.text for b in message.buttons}
    prompts = (t("btn.play", table.lang), t("btn.cannot_beat", table.lang))
    return message if labels & set(prompts) else None



def test_players_setting_chooses_the_four_player_rules():
    three = with_defaults({})
    assert three["players"] == 3 and rules_for(three).variant == "three"
    # Options the four-player game lacks are kept for three seats but not passed (the preset
    # would raise ValueError for them); the cap and the auto-play penalty are.
    four = with_defaults({"players": 4, "bidding": "rob", "doubling": True, "show_cards": True,
                          "alarm_at": 3, "rocket_kickers": True, "multiplier_cap": 8,
                          "autoplay_penalty": False})
    rules = rules_for(four)
    assert (rules.variant, rules.seats, rules.kitty_size, rules.alarm_at) == ("four", 4, 8, 10)
    assert (rules.multiplier_cap, rules.autoplay_penalty, rules.doubling) == (8, False, False)
    assert parse_value("players", "4") == 4
    for bad in ("5", "2", "four", "٤"):
        with pytest.raises(GroupSettingError):
            parse_value("players", bad)
    assert with_defaults({"players": 5})["players"] == 3  # a stored value no longer valid


async def test_players_in_the_settings_menu(fake_api: FakeBotApi, running_bot: BotRunner):
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("Settings four")
    ann = fake_api.new_user("Ann")
    fake_api.make_admin(group, ann)
    lang = "en"

    def label(key: str, value: str) -> str:
        return t("set.button", lang, name=t(f"set.name.{key}", lang), value=value)

    await reply(fake_api, ann, group, "/settings")
    message = fake_api.last_message(group)
    players = message.button(label("players", t("set.players_3", lang))).callback_data
    await fake_api.wait_settled(fake_api.press(ann, message, players))
    assert [b.text for b in message.buttons] == [
        "✅ " + t("set.players_3", lang), t("set.players_4", lang), t("set.back", lang)]
    query = fake_api.press(ann, message, message.button(t("set.players_4", lang)).callback_data)
    answer = await fake_api.wait_settled(query)
    assert answer.params["text"] == t("set.saved", lang, name=t("set.name.players", lang),
                                      value=t("set.players_4", lang))
    assert (await store.get_group_settings(group.id))["players"] == 4
    # The main page of a four-seat group hides the three-player settings and says why.
    assert message.text == t("set.title", lang) + "\n" + t("set.four_hidden", lang)
    shown = {b.callback_data.split(":")[3] for b in message.buttons
             if b.callback_data.count(":") == 3}
    assert shown and not shown & THREE_ONLY and "players" in shown
    assert message.button(label("players", t("set.players_4", lang)))
    assert message.button(label("stake_tier", t("set.tier_beginner", lang, stake=10, minimum=0)))
    # Typed: a three-player setting is stored but said to be unused; a bad count is refused.
    assert await reply(fake_api, ann, group, "/settings bidding rob") == t(
        "set.saved", lang, name=t("set.name.bidding", lang), value=t("preset.rob", lang)) + \
        " " + t("set.four_unused", lang)
    assert await reply(fake_api, ann, group, "/settings players 5") == t(
        "set.invalid_choice", lang, name=t("set.name.players", lang), choices="3, 4")
    assert (await store.get_group_settings(group.id))["players"] == 4
    assert await reply(fake_api, ann, group, "/settings players 3") == t(
        "set.saved", lang, name=t("set.name.players", lang), value=t("set.players_3", lang))


async def test_a_lobby_takes_the_seat_count_of_the_settings_at_start(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = SEED
    lang = "en"
    table = await FourTable.open(fake_api, app, "Changed minds", ("Ann", "Bob", "Cat"), lang,
                                 players=3)
    ann, bob, cat = table.users
    await table.command(ann, "/newgame")
    lobby = table.lobby()
    for user in (bob, cat):
        await table.click(user, lobby, "btn.join")
    await store.update_group_settings(table.group.id, players=4)  # not via /settings
    answer = await table.click(ann, lobby, "btn.start")  # the lobby had not shown it yet
    assert answer.params["text"] == t("pop.rules_changed", lang)
    await fake_api.wait_for(lambda: t("lobby.seat_empty", lang, n=4) in lobby.text.splitlines(),
                            timeout=5)
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("pop.need_four", lang)
    await table.click(ann, lobby, "btn.add_bot")
    await store.update_group_settings(table.group.id, players=3)
    answer = await table.click(ann, lobby, "btn.start")  # the bot seat goes
    assert answer.params["text"] == t("pop.rules_changed", lang)
    answer = await table.click(ann, lobby, "btn.start")  # three deal
    assert answer.params["text"] == t("lobby.starting", lang)
    (deal,) = await store.running_deals()
    assert len(deal.seats) == 3 and deal.rules["variant"] == "three"


async def test_a_four_seat_lobby_survives_a_restart(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    lang = "zh-Hans"
    table = await FourTable.open(fake_api, app, "Lobby four", ("Ann", "Bob"), lang)
    ann, bob = table.users
    await table.command(ann, "/newgame")
    lobby = table.lobby()
    await table.click(bob, lobby, "btn.join")
    app = await running_bot.restart()
    restored = app.bot_data.tables.table_of(ann.id)
    assert restored is not None and restored.options.seat_count == 4 and len(restored.seats) == 2
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("pop.need_four", lang)
    for _ in range(2):
        await table.click(ann, lobby, "btn.add_bot")
    answer = await table.click(ann, lobby, "btn.add_bot")
    assert answer.params["text"] == t("pop.table_full", lang)
    answer = await table.click(ann, lobby, "btn.start")
    assert answer.params["text"] == t("lobby.starting", lang)
    (deal,) = await app.bot_data.store.running_deals()
    assert len(deal.seats) == 4 and deal.rules["variant"] == "four"
    assert table.hand(bob).content.splitlines()[0] == t("hand.title", lang, n=25)


async def test_four_seats_time_out_into_autoplay_and_play_out(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(bid_timeout=0.6, play_timeout=0.6)
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    lang = "en"
    table = await FourTable.open(fake_api, app, "Slow four", NAMES, lang)
    await table.command(table.users[0], "/newgame")
    lobby = table.lobby()
    for user in table.users[1:]:
        await table.click(user, lobby, "btn.join")
    await table.click(table.users[0], lobby, "btn.start")
    # Nobody presses anything (RULES.md §9): every bid times out as a pass, so the first bidder
    # is the forced landlord (逼打), and auto-play plays the deal out.
    message = await result_message(fake_api, table.group, timeout=30)
    state = app.bot_data.tables.get(f"{table.group.id}:0").state
    assert state.phase == "finished" and all(state.autoplay)
    assert state.landlord == 0 and state.base == 1
    assert t("table.forced", lang) in message.content
    points = state.result.points
    store = app.bot_data.store
    assert [await store.balance(u.id) for u in table.users] == [1000 + p * 10 for p in points]


@pytest.mark.parametrize("lang", ("en", "zh-Hant"))
async def test_help_in_a_four_player_group_explains_the_four_player_game(
    fake_api: FakeBotApi, running_bot: BotRunner, lang: str
):
    """QA round 4, defect 7: /help follows the group's preset (RULES.md §11)."""
    table = await FourTable.open(fake_api, running_bot.app, "Rules please", ("Ann",), lang)
    (ann,) = table.users
    text = await reply(fake_api, ann, table.group, "/help")
    assert text == views.help_text(lang, 4)
    assert text.startswith(t("help.rules_four", lang) + "\n\n")
    assert len(text) <= 4096
    words = {"en": ("108 cards", "25 each", "bomb allowance", "forced", "no spring"),
             "zh-Hant": ("108 張", "25 張", "炸彈限額", "逼打", "沒有春天")}[lang]
    assert all(word in text for word in words)
    assert t("help.rules", lang) not in text
    await running_bot.app.bot_data.store.update_group_settings(table.group.id, players=3)
    assert await reply(fake_api, ann, table.group, "/help") == views.help_text(lang)
