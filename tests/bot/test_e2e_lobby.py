"""End to end: the lobby (issue 3, flow steps 1–3): who may start and close it, expiry, one table
per player, one table per forum topic."""

from __future__ import annotations

from bot.core.i18n import t
from tests.bot.flow_helpers import LANG, Players, hand_message
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


async def test_lobby_expires_and_says_so(fake_api: FakeBotApi, bot_runner: BotRunner):
    app = await bot_runner.start(lobby_timeout=0.5)
    group = fake_api.new_group("Sleepy")
    ann = fake_api.new_user("Ann")
    players = Players(fake_api, group, [ann])
    lobby = await players.open_table(ann, [])
    assert lobby.button(t("btn.join", LANG))
    await fake_api.wait_for(lambda: lobby.text == t("lobby.expired", LANG), timeout=5)
    assert lobby.buttons == []
    assert len(app.bot_data.tables) == 0
    assert await app.bot_data.store.load_tables() == {}
    answer = await players.press(ann, lobby, f"L:{_token(players, ann)}:0:join")
    assert answer.params["text"] == t("pop.old_button", LANG)


async def test_the_lobby_says_the_real_lobby_timeout(fake_api: FakeBotApi,
                                                     bot_runner: BotRunner):
    """A new user's report: the lobby said 5 min whatever LOBBY_TIMEOUT was; under a minute
    it now says the seconds, above it the minutes rounded up."""
    await bot_runner.start(lobby_timeout=45)
    ann = fake_api.new_user("Ann")
    players = Players(fake_api, fake_api.new_group("Quick"), [ann])
    lobby = await players.open_table(ann, [])
    assert lobby.text.splitlines()[-1] == "The table closes in 45 s if nobody starts."
    await bot_runner.restart(lobby_timeout=150)
    bob = fake_api.new_user("Bob")
    players = Players(fake_api, fake_api.new_group("Slow"), [bob])
    lobby = await players.open_table(bob, [])
    assert lobby.text.splitlines()[-1] == t("lobby.expires", LANG, time="3 min")


def _token(players: Players, user) -> str:
    data = [c for c in players.api.calls_to("sendMessage", chat_id=players.group.id)
            if c.params.get("reply_markup")]
    return data[0].params["reply_markup"]["inline_keyboard"][0][0]["callback_data"].split(":")[1]


async def test_only_the_opener_or_an_admin_starts_and_closes(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    group = fake_api.new_group("Rules lawyers")
    ann, bob, cat = (fake_api.new_user(n) for n in ("Ann", "Bob", "Cat"))
    players = Players(fake_api, group, [ann, bob, cat])
    lobby = await players.open_table(ann, [bob])
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("pop.need_three", LANG)
    await players.click(cat, lobby, t("btn.join", LANG))
    for label in ("btn.start", "btn.close"):
        answer = await players.click(bob, lobby, t(label, LANG))
        assert answer.params["text"] == t("pop.only_opener", LANG)
        assert answer.params["show_alert"] is True
    assert "3. Cat" in lobby.text
    fake_api.make_admin(group, bob)
    answer = await players.click(bob, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("lobby.starting", LANG)
    for user in (ann, bob, cat):
        assert hand_message(fake_api, user).content.startswith(t("hand.title", LANG, n=17))

    # A second lobby: the opener closes it.
    other = fake_api.new_group("Second room")
    dan = fake_api.new_user("Dan")
    players = Players(fake_api, other, [dan])
    lobby = await players.open_table(dan, [])
    await players.click(dan, lobby, t("btn.close", LANG))
    assert lobby.text == t("lobby.closed", LANG, name="Dan")


async def test_one_table_per_player_and_per_chat(fake_api: FakeBotApi, running_bot: BotRunner):
    first, second = fake_api.new_group("One"), fake_api.new_group("Two")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    players = Players(fake_api, first, [ann, bob])
    lobby_one = await players.open_table(ann, [])
    fake_api.send_text(ann, first, "/newgame")
    reply = await fake_api.wait_for("sendMessage", chat_id=first)
    assert reply.params["text"] == t("reply.table_exists", LANG)

    elsewhere = Players(fake_api, second, [bob, ann])
    lobby_two = await elsewhere.open_table(bob, [])
    answer = await elsewhere.click(ann, lobby_two, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seated_at", LANG, group="One")  # names the table
    assert answer.params["text"] == "You sit at the table in “One”: send /leave there first."
    answer = await players.click(ann, lobby_one, t("btn.leave", LANG))
    assert answer.params["text"] == t("pop.left_lobby", LANG)
    assert lobby_one.text == t("lobby.empty", LANG)  # nobody left: the lobby closed
    answer = await elsewhere.click(ann, lobby_two, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.joined", LANG)
    answer = await elsewhere.click(ann, lobby_two, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.already_seated", LANG)
    fake_api.send_text(ann, second, "/leave")
    reply = await fake_api.wait_for("sendMessage", chat_id=second)
    assert reply.params["text"] == t("reply.left_lobby", LANG, name="Ann")
    fake_api.send_text(ann, second, "/join")
    reply = await fake_api.wait_for("sendMessage", chat_id=second)
    assert reply.params["text"] == t("pop.joined", LANG)
    assert "2. Ann" in lobby_two.text


async def test_forum_topics_have_a_table_each(fake_api: FakeBotApi, running_bot: BotRunner):
    forum = fake_api.new_group("Forum", is_forum=True)
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    for user in (ann, bob):
        fake_api.open_private_chat(user)
    for user, topic in ((ann, 5), (bob, 7)):
        fake_api.send_text(user, forum, "/newgame", thread_id=topic)
        call = await fake_api.wait_for("sendMessage", chat_id=forum)
        assert call.params["message_thread_id"] == topic
    keys = sorted(table.key for table in running_bot.app.bot_data.tables)
    assert keys == sorted([f"{forum.id}:5", f"{forum.id}:7"])
    lobbies = fake_api.messages_in(forum)
    assert [m.thread_id for m in lobbies] == [5, 7]
    assert "1. Ann" in lobbies[0].text and "1. Bob" in lobbies[1].text


async def test_start_is_refused_while_a_seated_player_is_below_the_rooms_minimum(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("Thin wallets")
    ann, bob, cat = (fake_api.new_user(n) for n in ("Ann", "Bob", "Cat"))
    players = Players(fake_api, group, [ann, bob, cat])
    lobby = await players.open_table(ann, [bob, cat])
    # After they sat down the room became a regular one (280 beans to sit, RULES §8) and Bob
    # gave away most of his beans.
    await store.update_group_settings(group.id, stake_tier="regular", give_enabled=True)
    await store.give(bob.id, ann.id, 800, group.id)
    assert await store.balance(bob.id) == 200
    answer = await players.click(ann, lobby, t("btn.start", LANG))  # the lobby showed 10
    assert answer.params["text"] == t("pop.rules_changed", LANG)
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    refusal = t("pop.start_need_beans", LANG, names="Bob", minimum=280)
    assert "/daily" in refusal and "/relief" in refusal
    assert (answer.params["text"], answer.params["show_alert"]) == (refusal, True)
    said = await fake_api.wait_for("sendMessage", chat_id=group, since=0,
                                   where=lambda c: c.params["text"] == refusal)
    assert said.ok
    table = running_bot.app.bot_data.tables.table_of(bob.id)
    assert table.phase == "lobby" and table.state is None
    assert await store.running_deals() == []
    assert lobby.button(t("btn.start", LANG)) and "3. Cat" in lobby.text

    await players.command(bob, "/daily")
    assert await store.balance(bob.id) >= 280
    answer = await players.click(ann, lobby, t("btn.start", LANG))
    assert answer.params["text"] == t("lobby.starting", LANG)
    (deal,) = await store.running_deals()
    assert deal.stake == 20
