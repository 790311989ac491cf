"""End to end: hands as ephemeral messages in the group (the group setting ``hands`` =
``group``): three humans play whole deals in the group, one of whom never opened a private chat
with the bot, with a bot that is an admin of the group (it pushes every hand) and with one that
is not (🂠 My cards brings each hand within its press's 15 s); a dropped hand comes back with
My cards; a restart costs nothing; a player moves their hand to private and back mid-deal; and
no hand reaches anyone but its own player."""

from __future__ import annotations

from bot.core.i18n import t
from bot.presentation import views
from engine import SCORE, Action, new_deal
from engine.ai import choose_action
from tests.bot.flow_helpers import (
    GROUP_METHODS,
    LANG,
    call_text,
    hand_message,
    result_message,
)
from tests.bot.group_hands_helpers import GroupPlayers
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, User

SEED = 20261203


async def _deal(api: FakeBotApi, app, *, admin: bool, title: str
                ) -> tuple[GroupPlayers, list[User]]:
    """A table of Ann (who opened the bot's private chat), Bob and Cat (who never did) in a new
    group whose hands are in the group, dealt with :data:`SEED`, Ann bidding first."""
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    users = [api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    players = GroupPlayers(api, api.new_group(title), users, admin=admin)
    lobby = await players.open_group_table(app.bot_data.store, users[0], users[1:],
                                           private=users[:1])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    return players, users


async def _play_out(players: GroupPlayers) -> None:
    """Ann bids 3 (landlord), then every seat plays the AI's choice to the end."""
    assert players.state is not None
    if players.state.phase == "bidding":
        await players.act(Action("bid", 0, value=3))
    while players.state.phase == "playing":
        state = players.state
        await players.act(choose_action(state.view(state.to_act[0])))


def _assert_private(api: FakeBotApi, players: GroupPlayers, users: list[User],
                    watcher: User) -> None:
    """No hand in any other member's view: every ephemeral call named the seat's own player
    as its receiver, none carried another seat's dealt cards, the group's own messages carry
    none, and a member who only watches sees no ephemeral message."""
    dealt = [views.cards_text(hand, LANG) for hand in players.dealt]
    calls = api.ephemeral.calls()
    assert calls
    ids = [u.id for u in users]
    for call in calls:
        assert call.receiver_id in ids, call
        seat = ids.index(call.receiver_id)
        text = str(call.call.params.get("text") or call.call.params.get("caption") or "")
        media = call.call.params.get("media")
        if isinstance(media, dict):
            text += str(media.get("caption") or "")
        for other, cards in enumerate(dealt):
            if other != seat:
                assert cards not in text, (seat, other)
    for call in api.calls:  # the group's own messages (every member sees them)
        if call.params.get("chat_id") != players.group.id or call.method not in GROUP_METHODS \
                or "ephemeral_message_parameters" in call.params:
            continue
        for cards in dealt:
            assert cards not in call_text(call)
    assert api.ephemeral.seen_by(watcher, players.group) == []


async def test_a_whole_deal_in_the_group_with_an_admin_bot(
        fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    players, users = await _deal(fake_api, app, admin=True, title="Admins")
    players.dealt = players.state.hands
    watcher = fake_api.new_user("Dan")
    # an admin bot pushes every hand at the deal's start: nobody pressed anything
    for seat, user in enumerate(users):
        hand = await fake_api.wait_for(
            lambda user=user: fake_api.ephemeral.last_seen_by(user, players.group))
        lines = hand.content.splitlines()
        assert lines[0] == t("hand.title", LANG, n=17)
        assert lines[1] == views.cards_text(players.dealt[seat], LANG)
    assert not fake_api.is_private_chat_open(users[1])
    await _play_out(players)
    result = await result_message(fake_api, players.group)
    assert result.buttons  # Play again
    table = app.bot_data.tables.get(f"{players.group.id}:0")
    assert [seat.in_group for seat in table.seats] == [True, True, True]
    assert not any(seat.blocked for seat in table.seats)
    assert table.state.autoplay == (False, False, False)
    # each player's one ephemeral message shows their outcome, edited in place
    for user in users:
        (hand,) = fake_api.ephemeral.seen_by(user, players.group)
        assert hand.edits > 0
    bob_private = [c for c in fake_api.calls if c.params.get("chat_id") == users[1].id]
    assert all(not c.ok for c in bob_private)  # nothing ever reached Bob privately
    _assert_private(fake_api, players, users, watcher)


async def test_a_whole_deal_in_the_group_with_a_bot_that_is_not_an_admin(
        fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    players, users = await _deal(fake_api, app, admin=False, title="Members")
    players.dealt = players.state.hands
    watcher = fake_api.new_user("Dan")
    await app.bot_data.outlet.caught_up()
    # not an admin: a hand goes only with its player's press: Ann's with her Start
    assert players.hand(users[0]).content.splitlines()[1] == views.cards_text(
        players.dealt[0], LANG)
    for user in users[1:]:
        assert fake_api.ephemeral.sent_to(user, players.group) == []
    table_message = players.table_message()
    assert table_message.button(t("btn.my_cards", LANG))
    assert "Ann" in table_message.content.splitlines()[-1]  # whose turn it is
    answer = await players.my_cards(users[1])
    assert answer.params.get("text") is None
    bob = players.hand(users[1])
    assert bob.content.splitlines()[1] == views.cards_text(players.dealt[1], LANG)
    send = next(c for c in fake_api.ephemeral.calls() if c.receiver_id == users[1].id)
    assert send.call.params["ephemeral_message_parameters"]["callback_query_id"]
    await _play_out(players)
    result = await result_message(fake_api, players.group)
    assert result.buttons
    # every hand came with its own player's press: the fake refuses any other
    assert all(c.call.ok for c in fake_api.ephemeral.calls())
    # whether the bot is an admin is asked once, not at every step (remembered, a no too)
    assert len(fake_api.calls_to("getChatMember")) == 1
    _assert_private(fake_api, players, users, watcher)


async def test_a_dropped_hand_comes_back_with_my_cards(
        fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    players = GroupPlayers(fake_api, fake_api.new_group("Lossy"), users, admin=True)
    lobby = await players.open_group_table(app.bot_data.store, users[0], users[1:])
    fake_api.ephemeral.drop_next(users[1])  # Bob's pushed hand never arrives
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    await fake_api.wait_for(lambda: fake_api.ephemeral.last_seen_by(users[2], players.group))
    await app.bot_data.outlet.caught_up()
    (lost,) = fake_api.ephemeral.sent_to(users[1], players.group)
    assert lost.dropped and fake_api.ephemeral.seen_by(users[1], players.group) == []
    await players.act(Action("bid", 0, value=1))  # Bob's turn: edits of the lost one succeed
    await players.my_cards(users[1])
    (hand,) = fake_api.ephemeral.seen_by(users[1], players.group)
    assert hand is not lost
    assert hand.button(t("btn.bid_2", LANG))  # with his prompt
    assert lost.deleted
    # the app restarts and forgets it too: My cards again
    fake_api.ephemeral.forget(users[1], players.group)
    await players.my_cards(users[1])
    (again,) = fake_api.ephemeral.seen_by(users[1], players.group)
    assert again.content.splitlines()[1] == views.cards_text(players.state.hands[1], LANG)
    await players.act(Action("bid", 1, value=3))
    assert players.state.landlord == 1


async def test_a_restart_mid_deal_costs_nothing(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    players, users = await _deal(fake_api, app, admin=False, title="Restart")
    players.dealt = players.state.hands
    await players.act(Action("bid", 0, value=3))
    state = players.state
    await players.act(choose_action(state.view(state.to_act[0])))
    before = {u.id: players.hand(u).ephemeral_message_id for u in users
              if fake_api.ephemeral.seen_by(u, players.group)}
    app = await running_bot.restart()
    app.bot_data.game.deal_seed = SEED
    table = app.bot_data.tables.get(f"{players.group.id}:0")
    assert table.seats[0].in_group and table.messages.hand_message_ids[0] == before[users[0].id]
    await _play_out(players)
    await result_message(fake_api, players.group)
    # Ann's hand, sent before the restart, was edited on after it: no new one
    assert players.hand(users[0]).ephemeral_message_id == before[users[0].id]


async def test_a_player_moves_the_hand_to_private_and_back_mid_deal(
        fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    store = app.bot_data.store
    players, users = await _deal(fake_api, app, admin=True, title="Switch")
    players.dealt = players.state.hands
    ann = users[0]
    hand = await fake_api.wait_for(lambda: fake_api.ephemeral.last_seen_by(ann, players.group))
    answer = await players.click(ann, hand, t("btn.hands_to_private", LANG))
    assert answer.params["text"] == t("pop.hands_private", LANG)
    private = await fake_api.wait_for(lambda: hand_message(fake_api, ann))
    assert private.content.splitlines()[1] == views.cards_text(players.dealt[0], LANG)
    assert private.button(t("btn.bid_1", LANG))
    assert fake_api.ephemeral.seen_by(ann, players.group) == []
    assert (await store.get_player(ann.id)).hands == "private"
    # back into the group: an admin bot pushes it; the private one says where it went
    answer = await players.click(ann, private, t("btn.hands_to_group", LANG))
    assert answer.params["text"] == t("pop.hands_group", LANG)
    back = await fake_api.wait_for(
        lambda: fake_api.ephemeral.last_seen_by(ann, players.group))
    assert back.button(t("btn.bid_1", LANG))
    closed = fake_api.message(ann, private.message_id)
    assert closed.content == t("hand.moved_group", LANG) and not closed.buttons
    assert (await store.get_player(ann.id)).hands == "group"
    # Bob cannot move his to a private chat he never opened
    bob_hand = players.hand(users[1])
    answer = await players.click(users[1], bob_hand, t("btn.hands_to_private", LANG))
    assert answer.params["text"] == t("pop.hands_need_private", LANG)
    assert app.bot_data.tables.get(f"{players.group.id}:0").seats[1].in_group
    assert (await store.get_player(users[1].id)).hands is None
    assert fake_api.ephemeral.seen_by(users[1], players.group) == [bob_hand]
    await _play_out(players)
    await result_message(fake_api, players.group)


async def test_a_hand_whose_edit_fails_is_sent_afresh_at_the_next_press(
        fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    players, users = await _deal(fake_api, app, admin=False, title="Expired")
    players.dealt = players.state.hands
    await players.my_cards(users[1])
    old = players.hand(users[1])
    fake_api.ephemeral.expire(old)  # gone for Telegram too: its edits answer "not found"
    await players.act(Action("bid", 0, value=1))  # Bob's turn: his hand's edit fails
    table = app.bot_data.tables.get(f"{players.group.id}:0")
    await fake_api.wait_for(lambda: table.messages.hand_message_ids[1] is None)
    assert fake_api.ephemeral.seen_by(users[1], players.group) == []
    await players.act(Action("bid", 1, value=3))  # his next press brings it, with his prompt
    (hand,) = fake_api.ephemeral.seen_by(users[1], players.group)
    assert hand is not old and table.messages.hand_message_ids[1] == hand.ephemeral_message_id
    assert players.state.landlord == 1
