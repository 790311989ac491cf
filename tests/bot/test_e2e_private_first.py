"""End to end: a press that needs the presser's private chat never promises what the bot cannot
keep. A player who never opened a chat with the bot presses Join: the answer does not say
"You are seated" (the bot does not know yet: "Taking your seat…"), the lobby never shows them in
a seat, and once the welcome is refused the group is told they are not seated, with the deep
link. Their next Join is answered at once with that link in the answer itself (Telegram opens
the bot's chat), and nothing is tried, seated or said in the group. A player the bot has
written to is answered "You are seated" as before. A challenge's Enter does the same: the
link in the answer, nothing entered, no fee; after Start in the private chat, Enter enters."""

from __future__ import annotations

import re

from bot.core.i18n import t
from bot.features.challenge.views import challenge_callback
from tests.bot.flow_helpers import LANG, Players, button_data, group_texts
from tests.conftest import BotRunner
from tests.fakebot import Chat, FakeBotApi, User

BOT_LINK = re.compile(r"^https://t\.me/[A-Za-z0-9_]+\?start=")


def _seat_lines(api: FakeBotApi, group: Chat, name: str) -> list[str]:
    """Every line of a group message that showed ``name`` in a seat of the lobby."""
    seats = [t("lobby.seat", LANG, n=n, name=name) for n in range(1, 5)]
    return [line for text in group_texts(api, group) for line in text.splitlines()
            if line in seats]


async def test_a_join_by_a_player_the_bot_cannot_write_to_promises_no_seat(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    group = fake_api.new_group("Closed doors")
    ann, bob, kim = (fake_api.new_user(n) for n in ("Ann", "Bob", "Kim"))
    players = Players(fake_api, group, [ann, bob])
    lobby = await players.open_table(ann, [])
    token = button_data(lobby, label=t("btn.join", LANG)).split(":")[1]

    # Kim never opened a chat with the bot; it does not know that yet.
    answer = await players.click(kim, lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seating", LANG) != t("pop.joined", LANG)
    assert not answer.params.get("url")
    told = t("lobby.unreachable", LANG, name="Kim")
    await fake_api.wait_for("sendMessage", chat_id=group, since=0,
                            where=lambda call: call.params["text"] == told)
    await fake_api.wait_for(lambda: any(b.url for b in lobby.buttons))
    assert app.bot_data.tables.table_of(kim.id) is None
    assert _seat_lines(fake_api, group, "Kim") == []  # the lobby never showed Kim seated

    # Now the bot knows: Kim's next Join carries the link to its chat, and changes nothing.
    mark = len(fake_api.calls)
    answer = await players.click(kim, lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.open_private", LANG)
    assert BOT_LINK.match(answer.params["url"])
    assert answer.params["url"].endswith(f"?start=join_{token}")
    await players.click(ann, lobby, t("btn.add_bot", LANG))  # the lock is free again after
    later = [c for c in fake_api.calls[mark:] if c.method != "getUpdates"]
    assert not [c for c in later if c.params.get("chat_id") == kim.id]  # nothing tried
    assert not [c for c in later if c.method == "sendMessage" and c.params["chat_id"] == group.id]
    assert len(fake_api.calls_to("answerCallbackQuery",
                                 callback_query_id=answer.params["callback_query_id"])) == 1
    assert app.bot_data.tables.table_of(kim.id) is None
    assert _seat_lines(fake_api, group, "Kim") == []

    # Kim follows the link (Start in the bot's chat): seated.
    fake_api.open_private_chat(kim)
    fake_api.send_text(kim, kim, f"/start join_{token}")
    reply = await fake_api.wait_for("sendMessage", chat_id=kim)
    assert reply.params["text"] == t("reply.start_joined", LANG, group="Closed doors")
    await fake_api.wait_for(lambda: "3. Kim" in lobby.text)


async def test_a_join_by_a_player_the_bot_wrote_to_says_seated_at_once(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    group = fake_api.new_group("Open doors")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    players = Players(fake_api, group, [ann, bob])
    lobby = await players.open_table(ann, [])
    answer = await players.click(bob, lobby, t("btn.join", LANG))  # not known yet: no promise
    assert answer.params["text"] == t("pop.seating", LANG)
    welcome = await fake_api.wait_for("sendMessage", chat_id=bob)
    assert welcome.params["text"] == t("hand.welcome", LANG, group="Open doors")
    await fake_api.wait_for(lambda: "2. Bob" in lobby.text)
    answer = await players.click(bob, lobby, t("btn.leave", LANG))
    assert answer.params["text"] == t("pop.left_lobby", LANG)
    answer = await players.click(bob, lobby, t("btn.join", LANG))  # welcomed before: seated
    assert answer.params["text"] == t("pop.joined", LANG)
    await fake_api.wait_for(lambda: "2. Bob" in lobby.text)


async def _press(api: FakeBotApi, user: User, group: Chat, data: str):
    message = next(m for m in reversed(api.messages_in(group)) if m.buttons)
    return await api.wait_settled(api.press(user, message, data))


async def test_an_enter_by_a_player_the_bot_cannot_write_to_carries_the_link(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    store = app.bot_data.store
    ann, kim = fake_api.new_user("Ann"), fake_api.new_user("Kim")
    group = fake_api.new_group("Cards")
    fake_api.make_admin(group, ann)
    fake_api.send_text(ann, group, "/challenge 2 1 100")
    await fake_api.wait_for(lambda: any(m.buttons for m in fake_api.messages_in(group)))
    (record,) = await store.open_challenges()
    enter = challenge_callback(record.challenge_id, "enter")
    link = f"?start=challenge_{record.challenge_id}"

    # Not known yet: the welcome is tried, refused, and the answer carries the link.
    answer = await _press(fake_api, kim, group, enter)
    assert answer.params["text"] == t("challenge.pop_open_private", LANG)
    assert BOT_LINK.match(answer.params["url"]) and answer.params["url"].endswith(link)
    assert [c.status for c in fake_api.calls_to("sendMessage", chat_id=kim.id)] == [403]
    # Known now: answered with the link at once, nothing tried.
    answer = await _press(fake_api, kim, group, enter)
    assert answer.params["text"] == t("challenge.pop_open_private", LANG)
    assert answer.params["url"].endswith(link)
    assert [c.status for c in fake_api.calls_to("sendMessage", chat_id=kim.id)] == [403]
    assert await store.challenge_entries(record.challenge_id) == []
    assert await store.get_player(kim.id) is None or await store.balance(kim.id) == 1000

    # Kim follows the link: Start in the bot's chat says to press Enter again, which enters.
    fake_api.open_private_chat(kim)
    fake_api.send_text(kim, kim, f"/start challenge_{record.challenge_id}")
    reply = await fake_api.wait_for("sendMessage", chat_id=kim, where=lambda c: c.ok)
    assert reply.params["text"] == t("reply.start_challenge", LANG)
    answer = await _press(fake_api, kim, group, enter)
    assert answer.params["text"] == t("challenge.pop_welcome", LANG)
    assert not answer.params.get("url")
    assert [e.user_id for e in await store.challenge_entries(record.challenge_id)] == [kim.id]
