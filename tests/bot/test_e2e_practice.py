"""End to end: /practice (练习) in a private chat, one human against two AI seats (issue 9).

The same hand picture and keyboard, the same table picture and the same result as at a group's
table, all in the player's private chat; no beans change (the deal is not settled) and nothing is
sent to any group. Play again deals the next practice deal at once.
"""

from __future__ import annotations

from bot.core.i18n import t
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    HAND_PREFIX,
    LANG,
    Players,
    button_data,
    hand_message,
    start_practice,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, FakeMessage, User

SEED = 4242


def _table(api: FakeBotApi, user: User) -> FakeMessage | None:
    """The practice table's picture in the user's private chat (caption starts 🃏)."""
    for message in reversed(api.messages_in(user)):
        if message.photo and message.content.startswith("🃏"):
            return message
    return None


def _result(api: FakeBotApi, user: User) -> FakeMessage | None:
    for message in reversed(api.messages_in(user)):
        if message.content.startswith("🏁"):
            return message
    return None


async def _play_out(players: Players, user: User) -> FakeMessage:
    """Bid 3 when asked, then Hint + Play (Pass when Hint finds nothing) until the result."""
    api = players.api
    turns = 0
    while (result := _result(api, user)) is None:
        message = await api.wait_for(lambda: _result(api, user) or _my_turn(api, user), 10)
        if message.content.startswith("🏁"):
            break
        labels = [b.text for b in message.buttons]
        if t("btn.cannot_beat", LANG) in labels:
            await players.click(user, message, t("btn.cannot_beat", LANG))
        elif t("btn.play", LANG) not in labels:
            await players.press(user, message, button_data(message, suffix=":bid3"))
        else:
            answer = await players.click(user, message, t("btn.hint", LANG))
            label = "btn.pass" if answer.params.get("text") == t("pop.no_hint", LANG) \
                else "btn.play"
            await players.click(user, hand_message(api, user), t(label, LANG))
        turns += 1
    assert turns
    return _result(api, user) or result


def _my_turn(api: FakeBotApi, user: User) -> FakeMessage | None:
    message = hand_message(api, user)
    datas = [b.callback_data or "" for b in message.buttons]
    prompts = {t("btn.play", LANG), t("btn.cannot_beat", LANG)}
    if any(d.endswith(":bid3") for d in datas) or prompts & {b.text for b in message.buttons}:
        return message
    return None


async def test_a_whole_practice_deal_in_private_against_two_bots(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    ann, hand = await start_practice(fake_api, app, SEED)
    # The hand as in a group: a picture, its text caption with 17 cards, the bidding keyboard.
    assert hand.photo and hand.caption.startswith(t("hand.title", LANG, n=17))
    assert any((b.callback_data or "").endswith(":bid3") for b in hand.buttons)
    assert t("btn.autoplay", LANG) in [b.text for b in hand.buttons]
    # The table picture in the same chat, with both bot seats and "My cards".
    table = await fake_api.wait_for(lambda: _table(fake_api, ann))
    assert t("seat.bot", LANG, n=2) in table.caption and t("seat.bot", LANG, n=3) in table.caption
    assert table.button(t("btn.my_cards", LANG))

    players = Players(fake_api, fake_api.chat(ann), [ann])
    result = await _play_out(players, ann)
    assert result.photo, "the result picture, as in a group"
    assert result.button(t("btn.play_again", LANG))
    assert await store.balance(ann.id) == 1000  # no beans change
    assert [e for e in await store.ledger(ann.id) if e.reason == "deal"] == []
    assert [c for c in fake_api.calls if isinstance(c.params.get("chat_id"), int)
            and c.params["chat_id"] < 0] == []  # nothing went to a group
    # Play again deals the next practice deal at once (no lobby, no Start).
    hands_before = len([m for m in fake_api.messages_in(ann)
                        if m.content.startswith(HAND_PREFIX)])
    answer = await players.click(ann, result, t("btn.play_again", LANG))
    assert answer.params.get("text") is None
    await fake_api.wait_for(lambda: len([m for m in fake_api.messages_in(ann)
                                         if m.content.startswith(HAND_PREFIX)]) > hands_before)
    assert not result.buttons


async def test_practice_is_private_and_one_at_a_time(fake_api: FakeBotApi, running_bot: BotRunner):
    ann = fake_api.new_user("Ann")
    group = fake_api.new_group("Cards")
    fake_api.send_text(ann, group, "/practice")
    reply = await fake_api.wait_for("sendMessage", chat_id=group)
    assert reply.params["text"] == t("reply.practice_private", LANG)
    fake_api.send_text(ann, ann, "/practice")
    await fake_api.wait_for(lambda: next(
        (m for m in fake_api.messages_in(ann) if m.content.startswith(HAND_PREFIX)), None))
    fake_api.send_text(ann, ann, "/practice")
    again = await fake_api.wait_for("sendMessage", chat_id=ann,
                                    where=lambda c: c.params.get("text") == t(
                                        "reply.practice_running", LANG))
    assert again.ok
    # Seated at the practice table, Ann cannot sit at a group's table meanwhile: she is told
    # where she plays and how to leave it.
    fake_api.send_text(ann, group, "/newgame")
    refused = await fake_api.wait_for("sendMessage", chat_id=group,
                                      where=lambda c: c.params.get("text") == t(
                                          "pop.practising", LANG))
    assert refused.ok


async def test_leave_in_the_private_chat_ends_a_practice_deal(fake_api: FakeBotApi,
                                                              running_bot: BotRunner):
    app = running_bot.app
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    fake_api.open_private_chat(bob)
    fake_api.send_text(bob, bob, "/leave")  # nothing to leave
    reply = await fake_api.wait_for("sendMessage", chat_id=bob)
    assert reply.params["text"] == t("reply.not_practising", LANG)
    fake_api.send_text(ann, ann, "/practice")
    await fake_api.wait_for(lambda: _table(fake_api, ann))
    key = app.bot_data.tables.table_of(ann.id).key
    fake_api.send_text(ann, ann, "/leave")
    prompt = await fake_api.wait_for(lambda: next(
        (m for m in reversed(fake_api.messages_in(ann))
         if m.content == t("reply.leave_practice", LANG, name="Ann")), None), 10)
    players = Players(fake_api, fake_api.chat(ann), [ann])
    await players.click(ann, prompt, t("btn.leave_practice", LANG))
    result = await fake_api.wait_for(lambda: _result(fake_api, ann), 10)
    assert result.content.splitlines()[0] == t("result.practice_left", LANG, names="Ann")
    assert " pays " not in result.content and "left the deal" not in result.content
    assert t("result.bidding_escape", LANG, n=6) not in result.content
    assert app.bot_data.tables.table_of(ann.id) is None  # free to sit down elsewhere
    assert app.bot_data.tables.get(key).phase == "result"
    assert await app.bot_data.store.balance(ann.id) == 1000  # practice: nobody pays


async def test_a_practice_deal_survives_a_restart(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    ann = fake_api.new_user("Ann")
    fake_api.send_text(ann, ann, "/practice")
    await fake_api.wait_for(lambda: _table(fake_api, ann))
    before = app.bot_data.tables.table_of(ann.id)
    app = await running_bot.restart()
    after = app.bot_data.tables.table_of(ann.id)
    assert after is not None and after.private and after.state == before.state
    players = Players(fake_api, fake_api.chat(ann), [ann])
    result = await _play_out(players, ann)
    assert result.content.startswith("🏁")
    assert await app.bot_data.store.balance(ann.id) == 1000


async def test_leave_under_a_practice_result_forgets_the_table(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    ann, _ = await start_practice(fake_api, app, SEED)
    key = app.bot_data.tables.table_of(ann.id).key
    result = await _play_out(Players(fake_api, fake_api.chat(ann), [ann]), ann)
    assert [b.text for b in result.buttons] == [t("btn.play_again", LANG), t("btn.leave", LANG)]
    assert t("result.again_note", LANG, time="5 min") not in result.content  # one human: no need
    answer = await Players(fake_api, fake_api.chat(ann), [ann]).click(ann, result,
                                                                      t("btn.leave", LANG))
    assert answer.params["text"] == t("pop.left_lobby", LANG)
    assert app.bot_data.tables.get(key) is None
    assert key not in await app.bot_data.store.load_tables()
    await fake_api.wait_for(lambda: result.buttons == [] or None)


async def test_a_practice_deal_holds_no_beans(fake_api: FakeBotApi, running_bot: BotRunner):
    """A practice deal moves no beans, so it holds none: its player may /give meanwhile (was
    refused "You sit at a running deal, which may still take your beans")."""
    app = running_bot.app
    store = app.bot_data.store
    ann, _ = await start_practice(fake_api, app, SEED)
    assert app.bot_data.tables.table_of(ann.id).practice
    assert await store.deal_hold(ann.id) is None
    market, mule = fake_api.new_group("Market"), fake_api.new_user("Mule")
    await store.update_group_settings(market.id, give_enabled=True)
    fake_api.make_admin(market, ann)
    said = fake_api.send_text(mule, market, "send me your beans")
    answer = await reply(fake_api, ann, market, "/give 300", reply_to=said)
    assert answer.startswith("🎁"), answer
    assert [await store.balance(u.id) for u in (ann, mule)] == [700, 1300]
    assert app.bot_data.tables.table_of(ann.id).practice  # still practising
