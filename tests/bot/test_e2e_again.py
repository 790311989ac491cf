"""Play again keeps the table (issue 10 item 7), end to end through the fake Bot API: 再来一局 /
离开 under the result, the next deal at once when every human is ready, the lobby with the others
seated when a seat is freed (离开, the lobby timeout, too few beans), and a restart in between."""

from __future__ import annotations

from engine import Action
from tests.bot.flow_helpers import (
    LANG,
    Players,
    button_data,
    hand_message,
    play_again,
    result_message,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi
from tests.fakebot.models import FakeMessage

SEED = 11
AGAIN = "btn.play_again"


def t(key: str, lang: str = LANG, **kwargs: object) -> str:
    from bot.core.i18n import t as text
    return text(key, lang, **kwargs)


async def _table(fake_api: FakeBotApi, app, title: str, names=("Ann", "Bob", "Cat")):
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group(title)
    await app.bot_data.store.update_group_settings(group.id, pictures=False)
    users = [fake_api.new_user(name) for name in names]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start"))
    return players


async def _deal_out(players: Players, app) -> FakeMessage:
    """The deal's first bidder bids 3 and everybody goes on auto-play: the seeds' rule lets the
    landlord play out alone (as in test_economy_top); returns the result message."""
    api = players.api
    start = len(api.calls)
    table = app.bot_data.tables.table_of(players.users[0].id)
    players.state = table.state
    await players.act(Action("bid", table.state.to_act[0], value=3))
    for user in players.users:
        await players.click(user, hand_message(api, user), t("btn.autoplay"))
    return await result_message(api, players.group, 15, since=start)


def _lobbies_since(api: FakeBotApi, players: Players, message_id: int) -> list[FakeMessage]:
    return [m for m in api.messages_in(players.group) if m.message_id > message_id
            and t("btn.start") in {b.text for b in m.buttons}]


async def test_everyone_ready_deals_the_next_deal_at_the_same_table(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await _table(fake_api, app, "Again and again")
    ann, bob, cat = players.users
    key = f"{players.group.id}:0"
    result = await _deal_out(players, app)
    assert t("result.again_note", time="5 min") in result.content
    assert [b.text for b in result.buttons] == [t(AGAIN), t("btn.leave")]
    table = app.bot_data.tables.get(key)
    assert table.progress.first_bidder == 0 and table.progress.ready == [False, False, False]
    again = button_data(result, label=t(AGAIN))

    zed = fake_api.new_user("Zed")
    answer = await players.click(zed, result, t(AGAIN))  # a stranger: press Join
    assert answer.params["text"] == t("pop.again_join") and answer.params["show_alert"]
    answer = await players.click(bob, result, t(AGAIN))
    assert answer.params["text"] == t("pop.again_ready", names="Ann, Cat")
    answer = await players.click(bob, result, t(AGAIN))  # a double press changes nothing
    assert answer.params["text"] == t("pop.again_already", names="Ann, Cat")
    assert (await app.bot_data.store.load_tables())[key]["ready"] == [False, True, False]
    answer = await players.click(ann, result, t(AGAIN))
    assert answer.params["text"] == t("pop.again_ready", names="Cat")
    answer = await players.click(cat, result, t(AGAIN))
    assert answer.params["text"] == t("lobby.starting")

    # The next deal: same seats, the next first bidder (RULES.md §1.4), no lobby, no Start;
    # its table message is a new one below the result, whose keyboard went.
    table = app.bot_data.tables.get(key)
    assert table.phase == "deal" and [s.name for s in table.seats] == ["Ann", "Bob", "Cat"]
    assert table.progress.first_bidder == 1 and table.state.to_act == (1,)
    assert table.progress.ready == []
    await fake_api.wait_for(lambda: table.messages.message_id is not None
                            and table.messages.message_id > result.message_id or None)
    assert _lobbies_since(fake_api, players, result.message_id) == []
    await fake_api.wait_for(lambda: result.buttons == [] or None)
    answer = await players.press(cat, result, again)  # a stale button of the last deal
    assert answer.params["text"] == t("pop.again_started")

    second = await _deal_out(players, app)  # and once more
    answers = await play_again(players, second)
    assert answers[-1].params["text"] == t("lobby.starting")
    assert app.bot_data.tables.get(key).progress.first_bidder == 2


async def test_leave_frees_the_seat_and_the_others_wait_seated_in_the_lobby(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    players = await _table(fake_api, app, "Musical chairs")
    ann, bob, cat = players.users
    result = await _deal_out(players, app)
    again = button_data(result, label=t(AGAIN))
    answer = await players.click(ann, result, t(AGAIN))
    assert answer.params["text"] == t("pop.again_ready", names="Bob, Cat")
    answer = await players.click(bob, result, t("btn.leave"))
    assert answer.params["text"] == t("pop.left_lobby")
    lobby = await fake_api.wait_for(
        lambda: (found := _lobbies_since(fake_api, players, result.message_id)) and found[-1])
    assert t("lobby.seat", n=1, name="Ann") in lobby.text
    assert t("lobby.seat", n=2, name="Cat") in lobby.text  # Cat had not answered: still seated
    assert t("lobby.seat_empty", n=3) in lobby.text
    assert result.buttons == []
    answer = await players.press(bob, result, again)  # the old result's button
    assert answer.params["text"] == t("pop.new_game_open")

    dan = fake_api.new_user("Dan")
    fake_api.open_private_chat(dan)
    answer = await players.click(dan, lobby, t("btn.join"))
    assert answer.params["text"] == t("pop.seating")
    answer = await players.click(ann, lobby, t("btn.start"))
    assert answer.params["text"] == t("lobby.starting")
    table = app.bot_data.tables.table_of(dan.id)
    assert table.phase == "deal" and [s.name for s in table.seats] == ["Ann", "Cat", "Dan"]
    assert app.bot_data.tables.table_of(bob.id) is None


async def test_seats_that_do_not_answer_are_freed_at_the_lobby_timeout_after_a_restart(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(lobby_timeout=60.0)
    players = await _table(fake_api, app, "Slow hands")
    ann, bob, cat = players.users
    key = f"{players.group.id}:0"
    result = await _deal_out(players, app)
    again = button_data(result, label=t(AGAIN))
    await players.click(cat, result, t(AGAIN))
    stored = (await app.bot_data.store.load_tables())[key]
    assert stored["phase"] == "result" and stored["ready"] == [False, False, True]

    # Restarted: the answer is kept and the timeout armed again (the deadline is absolute).
    app = await bot_runner.restart()
    table = app.bot_data.tables.get(key)
    assert table.progress.ready == [False, False, True]
    jobs = app.job_queue.get_jobs_by_name(f"again:{key}")
    assert len(jobs) == 1
    answer = await players.click(cat, result, t(AGAIN))
    assert answer.params["text"] == t("pop.again_already", names="Ann, Bob")

    # The deadline passes: Ann and Bob are freed, Cat waits in the lobby.
    await app.bot_data.game.again.on_timeout(jobs[0].data)
    lobby = await fake_api.wait_for(
        lambda: (found := _lobbies_since(fake_api, players, result.message_id)) and found[-1])
    assert t("lobby.seat", n=1, name="Cat") in lobby.text
    assert t("lobby.seat_empty", n=2) in lobby.text
    await fake_api.wait_for("sendMessage", chat_id=players.group,
                            text=t("again.freed_timeout", names="Ann, Bob"))
    table = app.bot_data.tables.get(key)
    assert table.phase == "lobby" and table.opener_id == cat.id and table.progress.ready == []
    assert app.bot_data.tables.table_of(ann.id) is None
    await fake_api.wait_for(lambda: result.buttons == [])  # tidied up in the background
    answer = await players.press(ann, result, again)
    assert answer.params["text"] == t("pop.new_game_open")


async def test_a_seat_below_the_minimum_balance_is_freed_instead_of_dealt(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    players = await _table(fake_api, app, "Thin wallets")
    result = await _deal_out(players, app)
    balances = [await store.balance(u.id) for u in players.users]
    landlord = balances.index(max(balances))
    # The room now needs more than the farmers have left (RULES.md §8: checked as at Start).
    await store.update_group_settings(players.group.id, stake_tier="custom",
                                      custom_min_balance=max(balances))
    answers = await play_again(players, result)
    assert answers[-1].params["text"] == t("pop.again_lobby")
    farmers = [u.first_name for i, u in enumerate(players.users) if i != landlord]
    await fake_api.wait_for("sendMessage", chat_id=players.group,
                            text=t("again.freed_beans", minimum=f"{max(balances):,}",
                                   names=", ".join(farmers)))
    lobby = await fake_api.wait_for(
        lambda: (found := _lobbies_since(fake_api, players, result.message_id)) and found[-1])
    landlord_name = players.users[landlord].first_name
    assert t("lobby.seat", n=1, name=landlord_name) in lobby.text
    assert t("lobby.seat_empty", n=2) in lobby.text
    assert await store.running_deals() == []


async def test_a_four_seat_table_plays_again_with_its_four_seats(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start(bid_timeout=0.3, play_timeout=0.3)
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Four again")
    await app.bot_data.store.update_group_settings(group.id, players=4, pictures=False)
    eve = fake_api.new_user("Eve")
    players = Players(fake_api, group, [eve])
    lobby = await players.open_table(eve, [])
    for _ in range(3):
        await players.click(eve, lobby, t("btn.add_bot"))
    await players.click(eve, lobby, t("btn.start"))
    result = await result_message(fake_api, group, 60)  # Eve times out: auto-play
    assert [b.text for b in result.buttons] == [t(AGAIN), t("btn.leave")]
    answer = await players.click(eve, result, t(AGAIN))
    assert answer.params["text"] == t("lobby.starting")
    table = app.bot_data.tables.table_of(eve.id)
    assert table.phase == "deal" and table.options.seat_count == 4 and len(table.seats) == 4
    assert table.progress.first_bidder == 1 and table.state.rules.seats == 4



async def test_a_result_stored_before_play_again_was_answered_offers_it_on_the_first_press(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    app = await bot_runner.start()
    players = await _table(fake_api, app, "Upgraded")
    key = f"{players.group.id}:0"
    result = await _deal_out(players, app)
    await app.bot_data.outlet.caught_up()
    # The table as an older version stored it: no "ready" in its dict.
    data = (await app.bot_data.store.load_tables())[key]
    for field in ("ready", "result_message_id"):
        del data[field]
    await app.bot_data.store.save_table(key, data)
    app = await bot_runner.restart()
    assert app.bot_data.tables.get(key).progress.ready == []
    answers = await play_again(players, result)
    assert [a.params["text"] for a in answers] == [
        t("pop.again_ready", names="Bob, Cat"), t("pop.again_ready", names="Cat"),
        t("lobby.starting")]
    assert app.bot_data.tables.get(key).phase == "deal"


async def test_play_again_after_a_stake_change_goes_back_to_the_lobby_with_the_new_terms(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA round 5: an admin raises the stake (or changes the bidding) while a deal runs; the
    players press Play again under a result that dealt at the old terms. The next deal must not
    start on terms nobody was shown (RULES.md §8, as at Start): the table goes back to the lobby,
    every seat kept, the lobby shows the new stake and bidding, and Start deals on them."""
    app = running_bot.app
    store = app.bot_data.store
    players = await _table(fake_api, app, "Raised stakes")
    ann = players.users[0]
    key = f"{players.group.id}:0"
    fake_api.make_admin(players.group, ann)
    result = await _deal_out(players, app)
    await players.command(ann, "/settings stake_tier expert")
    await players.command(ann, "/settings bidding rob")
    answers = await play_again(players, result)
    assert answers[-1].params["text"] == t("pop.again_terms")
    assert await store.running_deals() == []
    lobby = await fake_api.wait_for(
        lambda: (found := _lobbies_since(fake_api, players, result.message_id)) and found[-1])
    lines = lobby.text.splitlines()
    assert t("lobby.stake", stake=50) in lines
    assert t("lobby.preset", preset=t("preset.rob")) in lines
    for n, name in enumerate(("Ann", "Bob", "Cat"), start=1):
        assert t("lobby.seat", n=n, name=name) in lines
    table = app.bot_data.tables.get(key)
    assert table.phase == "lobby"
    answer = await players.click(ann, lobby, t("btn.start"))
    assert answer.params["text"] == t("lobby.starting")
    (deal,) = await store.running_deals()
    assert deal.stake == 50 and deal.rules["bidding"] == "rob"


async def test_leave_command_under_a_result_frees_the_seat_like_the_leave_button(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA round 5: /leave typed while the table waits for Play again answered "You are not
    seated at a table here" and kept the seat, so the others waited for the player until the
    lobby timeout; it now frees the seat as the Leave button does."""
    app = running_bot.app
    players = await _table(fake_api, app, "Typed leave")
    ann, bob, cat = players.users
    result = await _deal_out(players, app)
    await players.click(ann, result, t(AGAIN))
    start = len(fake_api.calls)
    fake_api.send_text(bob, players.group, "/leave")
    await fake_api.wait_for("sendMessage", chat_id=players.group, since=start,
                            text=t("reply.left_lobby", name="Bob"))
    lobby = await fake_api.wait_for(
        lambda: (found := _lobbies_since(fake_api, players, result.message_id)) and found[-1])
    assert t("lobby.seat", n=1, name="Ann") in lobby.text
    assert t("lobby.seat", n=2, name="Cat") in lobby.text
    assert t("lobby.seat_empty", n=3) in lobby.text
    assert app.bot_data.tables.table_of(bob.id) is None


async def test_newgame_while_play_again_is_pending_keeps_the_table(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA round 5: anyone's /newgame (a stranger's too) while the table waited for Play again
    threw the table away: the seated players lost their seats and their ready answers, and a
    new lobby with the stranger opened. It is refused now; the table deals on once its players
    are ready."""
    app = running_bot.app
    players = await _table(fake_api, app, "Keep our table")
    ann, bob, cat = players.users
    key = f"{players.group.id}:0"
    result = await _deal_out(players, app)
    await players.click(ann, result, t(AGAIN))
    zed = fake_api.new_user("Zed")
    fake_api.open_private_chat(zed)
    start = len(fake_api.calls)
    fake_api.send_text(zed, players.group, "/newgame")
    await fake_api.wait_for("sendMessage", chat_id=players.group, since=start,
                            text=t("reply.again_pending"))
    table = app.bot_data.tables.get(key)
    assert table.phase == "result" and table.progress.ready == [True, False, False]
    assert app.bot_data.tables.table_of(zed.id) is None
    answers = await play_again(players, result, [bob, cat])
    assert answers[-1].params["text"] == t("lobby.starting")
    assert app.bot_data.tables.get(key).phase == "deal"


async def test_play_again_after_four_seats_became_three_shows_the_three_seat_lobby(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    """QA round 5: a four-seat table (one human, three bots) whose group switched to three
    players goes back to a full three-seat lobby (a bot seat goes), and the pop-up says the
    settings changed (not that a seat is free)."""
    app = await bot_runner.start(bid_timeout=0.3, play_timeout=0.3)
    app.bot_data.game.deal_seed = SEED
    group = fake_api.new_group("Four to three")
    await app.bot_data.store.update_group_settings(group.id, players=4, pictures=False)
    eve = fake_api.new_user("Eve")
    players = Players(fake_api, group, [eve])
    lobby = await players.open_table(eve, [])
    for _ in range(3):
        await players.click(eve, lobby, t("btn.add_bot"))
    await players.click(eve, lobby, t("btn.start"))
    result = await result_message(fake_api, group, 60)  # Eve times out: auto-play
    await app.bot_data.store.update_group_settings(group.id, players=3)
    answer = await players.click(eve, result, t(AGAIN))
    assert answer.params["text"] == t("pop.again_terms")
    lobby = await fake_api.wait_for(
        lambda: (found := _lobbies_since(fake_api, players, result.message_id)) and found[-1])
    table = app.bot_data.tables.table_of(eve.id)
    assert table.phase == "lobby" and table.options.seat_count == 3 and len(table.seats) == 3
    answer = await players.click(eve, lobby, t("btn.start"))
    assert answer.params["text"] == t("lobby.starting")
    assert app.bot_data.tables.table_of(eve.id).state.rules.seats == 3


async def test_a_player_practising_meanwhile_is_told_under_the_group_result(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """A new user's report: Ann practised in private after a group deal, pressed Play again
    under its result, was answered as ready and lost her seat without a word. Now the press
    tells her she is practising and leaves her seat unready (it waits, as if unanswered, till
    she presses again once free); a seat whose player sat down elsewhere after pressing goes
    with a word in the group."""
    app = running_bot.app
    players = await _table(fake_api, app, "After work")
    ann, bob, cat = players.users
    key = f"{players.group.id}:0"
    result = await _deal_out(players, app)
    fake_api.send_text(ann, ann, "/practice")
    await fake_api.wait_for(lambda: app.bot_data.tables.table_of(ann.id) is not None
                            and app.bot_data.tables.table_of(ann.id).private or None)
    answer = await players.click(ann, result, t(AGAIN))
    assert answer.params["text"] == t("pop.practising") and answer.params["show_alert"]
    assert app.bot_data.tables.get(key).progress.ready == [False, False, False]
    # Cat pressed before practising: when the others are ready, Cat's seat goes, with a word.
    await players.click(cat, result, t(AGAIN))
    fake_api.send_text(ann, ann, "/leave")  # Ann ends her practice ...
    prompt = await fake_api.wait_for(lambda: next(
        (m for m in reversed(fake_api.messages_in(ann))
         if m.content == t("reply.leave_practice", name="Ann")), None), 10)
    await Players(fake_api, fake_api.chat(ann), [ann]).click(ann, prompt,
                                                             t("btn.leave_practice"))
    await fake_api.wait_for(lambda: app.bot_data.tables.table_of(ann.id) is None or None)
    fake_api.send_text(cat, cat, "/practice")  # ... and Cat starts one
    await fake_api.wait_for(lambda: app.bot_data.tables.table_of(cat.id) is not None or None)
    answer = await players.click(ann, result, t(AGAIN))  # free now: ready
    assert answer.params["text"] == t("pop.again_ready", names="Bob")
    await players.click(bob, result, t(AGAIN))
    await fake_api.wait_for("sendMessage", chat_id=players.group.id,
                            text=t("again.freed_elsewhere", names="Cat"))
    table = app.bot_data.tables.get(key)
    assert table.phase == "lobby" and [s.name for s in table.seats] == ["Ann", "Bob"]
