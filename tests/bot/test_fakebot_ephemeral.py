"""The fake Bot API's ephemeral messages (tests/fakebot/ephemeral.py) answer like Telegram's
Bot API 10.2/10.3: one receiver sees each, the 15-second rule for a bot that is not an admin,
the admin rule, edits and deletes by identifier, dropped deliveries, presses on them."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from tests.fakebot import Chat, FakeBotApi, User
from tests.fakebot import ephemeral as eph
from tests.fakebot.limits import FloodLimits, StrictFakeBotApi

KEYBOARD = {"inline_keyboard": [[{"text": "Play", "callback_data": "p:1"}]]}


async def call(api: FakeBotApi, method: str, **params: Any) -> tuple[int, dict[str, Any]]:
    """One Bot API call as JSON over HTTP: (status, answer)."""
    async with aiohttp.ClientSession() as session, session.post(
            f"{api.base_url}{api.token}/{method}", json=params) as response:
        return response.status, await response.json()


@pytest.fixture
def table(fake_api: FakeBotApi) -> tuple[Chat, User, User]:
    """A supergroup with the bot's table message, and two members, Ann and Bob."""
    group = fake_api.new_group()
    return group, fake_api.new_user("Ann"), fake_api.new_user("Bob")


async def post_table(api: FakeBotApi, group: Chat) -> Any:
    status, answer = await call(api, "sendMessage", chat_id=group.id, text="Table",
                                reply_markup=KEYBOARD)
    assert status == 200
    return api.message(group, answer["result"]["message_id"])


async def test_a_press_is_answered_with_a_message_only_its_presser_sees(fake_api, table):
    group, ann, bob = table
    shown = await post_table(fake_api, group)
    query = fake_api.click(ann, shown, "Play")
    status, answer = await call(
        fake_api, "sendMessage", chat_id=group.id, text="Your hand: 3 4 5",
        reply_markup=KEYBOARD,
        ephemeral_message_parameters={"receiver_user_id": ann.id, "callback_query_id": query})
    assert status == 200
    sent = answer["result"]
    assert (sent["message_id"], sent["ephemeral_message_id"], sent["receiver_user"]["id"]) == (
        0, 1, ann.id)
    (mine,) = fake_api.ephemeral.seen_by(ann, group)
    assert mine.text == "Your hand: 3 4 5" and mine.button("Play").callback_data == "p:1"
    assert fake_api.ephemeral.seen_by(bob, group) == []
    assert [m.content for m in fake_api.ephemeral.timeline(ann, group)] == [
        "Table", "Your hand: 3 4 5"]
    assert [m.content for m in fake_api.ephemeral.timeline(bob, group)] == ["Table"]
    assert fake_api.messages_in(group) == [shown]  # not a message of the group
    assert [(e.call.method, e.receiver_id) for e in fake_api.ephemeral.calls()] == [
        ("sendMessage", ann.id)]


async def test_the_10_2_flat_parameters_are_accepted_too(fake_api, table):
    group, ann, _ = table
    query = fake_api.click(ann, await post_table(fake_api, group), "Play")
    status, answer = await call(fake_api, "sendMessage", chat_id=group.id, text="hand",
                                receiver_user_id=ann.id, callback_query_id=query)
    assert status == 200 and answer["result"]["ephemeral_message_id"] == 1
    assert fake_api.ephemeral.receivers() == {ann.id}


async def test_a_bot_that_is_not_an_admin_has_15_seconds_from_the_press(fake_api, table):
    group, ann, _ = table
    query = fake_api.click(ann, await post_table(fake_api, group), "Play")
    fake_api.ephemeral.advance(14.0)
    ok, _ = await call(fake_api, "sendMessage", chat_id=group.id, text="in time",
                       ephemeral_message_parameters={"receiver_user_id": ann.id,
                                                     "callback_query_id": query})
    fake_api.ephemeral.advance(1.5)
    status, answer = await call(fake_api, "sendMessage", chat_id=group.id, text="too late",
                                ephemeral_message_parameters={"receiver_user_id": ann.id,
                                                              "callback_query_id": query})
    assert ok == 200
    assert (status, answer["description"]) == (400, eph.QUERY_TOO_OLD)
    assert [m.text for m in fake_api.ephemeral.sent_to(ann)] == ["in time"]


async def test_without_a_press_only_an_admin_bot_may_send(fake_api, table):
    group, ann, _ = table
    status, answer = await call(fake_api, "sendMessage", chat_id=group.id, text="push",
                                ephemeral_message_parameters={"receiver_user_id": ann.id})
    assert (status, answer["description"]) == (400, eph.NO_RIGHTS)
    fake_api.ephemeral.set_bot_admin(group)
    fake_api.ephemeral.advance(3600)
    status, answer = await call(fake_api, "sendMessage", chat_id=group.id, text="push",
                                ephemeral_message_parameters={"receiver_user_id": ann.id})
    assert status == 200 and fake_api.ephemeral.seen_by(ann)[0].text == "push"
    member = await call(fake_api, "getChatMember", chat_id=group.id,
                        user_id=fake_api.bot_user.id)
    assert member[1]["result"]["status"] == "administrator"


async def test_refusals(fake_api, table):
    group, ann, bob = table
    fake_api.ephemeral.set_bot_admin(group)
    robot = fake_api.new_user("Robo")
    fake_api.users[robot.id] = User(robot.id, "Robo", is_bot=True)
    gone = fake_api.new_user("Gone")
    fake_api.set_member_status(group, gone, "left")
    fake_api.open_private_chat(ann)
    query = fake_api.click(ann, await post_table(fake_api, group), "Play")

    async def refusal(chat_id: int, **options: Any) -> str:
        status, answer = await call(fake_api, "sendMessage", chat_id=chat_id, text="x",
                                    ephemeral_message_parameters=options)
        assert status == 400
        return answer["description"]

    assert await refusal(ann.id, receiver_user_id=ann.id) == eph.NOT_A_GROUP
    assert await refusal(group.id) == eph.NO_RECEIVER
    assert await refusal(group.id, receiver_user_id=999) == eph.RECEIVER_NOT_FOUND
    assert await refusal(group.id, receiver_user_id=robot.id) == eph.RECEIVER_IS_BOT
    assert await refusal(group.id, receiver_user_id=gone.id) == eph.NOT_A_MEMBER
    assert await refusal(group.id, receiver_user_id=bob.id,
                         callback_query_id=query) == eph.OTHER_USERS_QUERY
    assert await refusal(group.id, receiver_user_id=ann.id,
                         callback_query_id="404") == eph.QUERY_TOO_OLD
    assert await refusal(group.id, receiver_user_id=ann.id,
                         replace_callback_query_message=True) == eph.CANT_REPLACE
    assert fake_api.ephemeral.sent_to(ann) == [] and fake_api.ephemeral.sent_to(bob) == []
    assert len(fake_api.ephemeral.calls()) == 8  # failed calls are listed with their receiver


async def test_edits_and_delete_by_identifier(fake_api, table):
    group, ann, bob = table
    fake_api.ephemeral.set_bot_admin(group)
    fake_api.ephemeral.drop_next(bob)  # Bob's first one never arrives
    for user in (ann, bob):
        status, _ = await call(fake_api, "sendMessage", chat_id=group.id, text="hand",
                               reply_markup=KEYBOARD,
                               ephemeral_message_parameters={"receiver_user_id": user.id})
        assert status == 200
    ref = {"chat_id": group.id, "receiver_user_id": ann.id, "ephemeral_message_id": 1}
    assert (await call(fake_api, "editEphemeralMessageText", **ref, text="new"))[1] == {
        "ok": True, "result": True}
    (mine,) = fake_api.ephemeral.seen_by(ann)
    assert (mine.text, mine.buttons, mine.edits) == ("new", [], 1)  # no markup: no keyboard
    status, answer = await call(fake_api, "editEphemeralMessageText", **ref, text="new")
    assert status == 400 and "not modified" in answer["description"]
    assert (await call(fake_api, "editEphemeralMessageReplyMarkup", **ref,
                       reply_markup=KEYBOARD))[0] == 200
    # the identifier is Ann's: Bob's message 1 does not exist, his is number 2
    status, answer = await call(fake_api, "editEphemeralMessageText", **{
        **ref, "receiver_user_id": bob.id}, text="x")
    assert (status, answer["description"]) == (400, eph.TO_EDIT_NOT_FOUND)
    bob_ref = {**ref, "receiver_user_id": bob.id, "ephemeral_message_id": 2}
    assert (await call(fake_api, "editEphemeralMessageText", **bob_ref, text="x"))[0] == 200
    assert fake_api.ephemeral.seen_by(bob) == []  # dropped: edits succeed, Bob sees nothing
    assert fake_api.ephemeral.sent_to(bob)[0].text == "x"
    assert (await call(fake_api, "deleteEphemeralMessage", **ref))[0] == 200
    assert fake_api.ephemeral.seen_by(ann) == []
    for method in ("editEphemeralMessageText", "deleteEphemeralMessage"):
        status, answer = await call(fake_api, method, **ref, text="again")
        assert status == 400 and "not found" in answer["description"]


async def test_photos_captions_and_media(fake_api, table):
    group, ann, _ = table
    fake_api.ephemeral.set_bot_admin(group)
    fake_api.files["pic-1"] = b""
    fake_api.files["pic-2"] = b""
    status, answer = await call(fake_api, "sendPhoto", chat_id=group.id, photo="pic-1",
                                caption="<b>hand</b>", parse_mode="HTML",
                                ephemeral_message_parameters={"receiver_user_id": ann.id})
    assert status == 200 and answer["result"]["photo"][0]["file_id"] == "pic-1"
    ref = {"chat_id": group.id, "receiver_user_id": ann.id, "ephemeral_message_id": 1}
    status, answer = await call(fake_api, "editEphemeralMessageText", **ref, text="t")
    assert (status, answer["description"]) == (400, eph.NO_TEXT)
    assert (await call(fake_api, "editEphemeralMessageCaption", **ref, caption="c"))[0] == 200
    assert (await call(fake_api, "editEphemeralMessageMedia", **ref, media={
        "type": "photo", "media": "pic-2", "caption": "d"}))[0] == 200
    (mine,) = fake_api.ephemeral.seen_by(ann)
    assert (mine.photo, mine.caption, mine.edits) == ("pic-2", "d", 2)


async def test_a_lost_or_expired_message(fake_api, table):
    group, ann, _ = table
    fake_api.ephemeral.set_bot_admin(group)
    for text in ("one", "two"):
        await call(fake_api, "sendMessage", chat_id=group.id, text=text,
                   ephemeral_message_parameters={"receiver_user_id": ann.id})
    one, two = fake_api.ephemeral.sent_to(ann)
    fake_api.ephemeral.forget(ann)  # Ann restarts her app
    assert fake_api.ephemeral.seen_by(ann) == []
    ref = {"chat_id": group.id, "receiver_user_id": ann.id}
    assert (await call(fake_api, "editEphemeralMessageText", **ref, ephemeral_message_id=1,
                       text="one!"))[0] == 200
    fake_api.ephemeral.expire(two)
    status, answer = await call(fake_api, "editEphemeralMessageText", **ref,
                                ephemeral_message_id=2, text="two!")
    assert (status, answer["description"]) == (400, eph.TO_EDIT_NOT_FOUND)
    fake_api.ephemeral.edit_window = 60.0
    fake_api.ephemeral.advance(61.0)
    status, _ = await call(fake_api, "editEphemeralMessageText", **ref, ephemeral_message_id=1,
                           text="late")
    assert status == 400 and one.text == "one!"


async def test_a_press_on_an_ephemeral_message(fake_api, table):
    group, ann, bob = table
    query = fake_api.click(ann, await post_table(fake_api, group), "Play")
    await call(fake_api, "sendMessage", chat_id=group.id, text="hand", reply_markup=KEYBOARD,
               ephemeral_message_parameters={"receiver_user_id": ann.id,
                                             "callback_query_id": query})
    (mine,) = fake_api.ephemeral.seen_by(ann)
    with pytest.raises(ValueError):
        fake_api.ephemeral.click(bob, mine, "Play")  # Bob does not see it
    again = fake_api.ephemeral.click(ann, mine, "Play")
    update = fake_api.sent_updates[max(fake_api.sent_updates)]["callback_query"]
    assert update["id"] == again and update["data"] == "p:1"
    message = update["message"]
    assert (message["message_id"], message["ephemeral_message_id"],
            message["receiver_user"]["id"], message["chat"]["id"]) == (0, 1, ann.id, group.id)
    # its own window: a new ephemeral message may answer it, but not replace its message
    status, _ = await call(fake_api, "sendMessage", chat_id=group.id, text="next",
                           ephemeral_message_parameters={"receiver_user_id": ann.id,
                                                         "callback_query_id": again})
    assert status == 200
    status, answer = await call(fake_api, "sendMessage", chat_id=group.id, text="x",
                                ephemeral_message_parameters={
                                    "receiver_user_id": ann.id, "callback_query_id": again,
                                    "replace_callback_query_message": True})
    assert (status, answer["description"]) == (400, eph.CANT_REPLACE)
    assert (await call(fake_api, "answerCallbackQuery", callback_query_id=again))[0] == 200
    fake_api.ephemeral.drop_next()
    await call(fake_api, "sendMessage", chat_id=group.id, text="lost",
               ephemeral_message_parameters={"receiver_user_id": ann.id,
                                             "callback_query_id": again})
    with pytest.raises(ValueError):  # she never got it, so she cannot press it
        fake_api.ephemeral.press(ann, fake_api.ephemeral.sent_to(ann)[-1], "p:1")


async def test_replacing_the_pressed_message_for_its_presser_only(fake_api, table):
    group, ann, bob = table
    shown = await post_table(fake_api, group)
    query = fake_api.click(ann, shown, "Play")
    status, _ = await call(fake_api, "sendMessage", chat_id=group.id, text="instead",
                           ephemeral_message_parameters={
                               "receiver_user_id": ann.id, "callback_query_id": query,
                               "replace_callback_query_message": True})
    assert status == 200
    assert [m.content for m in fake_api.ephemeral.timeline(ann, group)] == ["instead"]
    assert [m.content for m in fake_api.ephemeral.timeline(bob, group)] == ["Table"]


@pytest.mark.parametrize(("counting", "refused"), [
    ("group", ["group"]), ("own", ["ephemeral"]), ("none", [])])
async def test_the_strict_server_counts_ephemeral_calls_as_told(counting, refused):
    api = StrictFakeBotApi(limits=FloodLimits(group_per_minute=2, ephemeral=counting))
    await api.start()
    try:
        group, ann = api.new_group(), api.new_user("Ann")
        api.ephemeral.set_bot_admin(group)
        statuses = []
        for text in ("a", "b"):
            statuses.append((await call(api, "sendMessage", chat_id=group.id, text=text))[0])
        for text in ("c", "d"):
            statuses.append((await call(
                api, "sendMessage", chat_id=group.id, text=text,
                ephemeral_message_parameters={"receiver_user_id": ann.id}))[0])
        ref = {"chat_id": group.id, "receiver_user_id": ann.id, "ephemeral_message_id": 1}
        statuses.append((await call(api, "editEphemeralMessageText", **ref, text="e"))[0])
        expected = {"group": [200, 200, 429, 429, 429], "own": [200, 200, 200, 200, 429],
                    "none": [200] * 5}[counting]
        assert statuses == expected
        assert sorted({r.window for r in api.rate_limited}) == refused
    finally:
        await api.stop()


async def test_an_ephemeral_command_may_be_answered_for_15_seconds(fake_api, table):
    group, ann, bob = table
    command = fake_api.ephemeral.send_command(ann, group, "/cards")
    update = fake_api.sent_updates[max(fake_api.sent_updates)]["message"]
    assert (update["message_id"], update["ephemeral_message_id"], update["text"],
            update["receiver_user"]["id"], update["entities"][0]["type"]) == (
        0, command.ephemeral_message_id, "/cards", fake_api.bot_user.id, "bot_command")
    assert fake_api.ephemeral.timeline(bob, group) == []  # only the bot gets it

    async def answer(user: User, **reply: Any) -> tuple[int, dict[str, Any]]:
        return await call(fake_api, "sendMessage", chat_id=group.id, text="hand",
                          reply_parameters=reply,
                          ephemeral_message_parameters={"receiver_user_id": user.id})

    assert (await answer(ann, ephemeral_message_id=command.ephemeral_message_id))[0] == 200
    assert (await answer(bob, ephemeral_message_id=command.ephemeral_message_id))[1][
        "description"] == eph.OTHER_USERS_MESSAGE
    assert (await answer(ann, ephemeral_message_id=99))[1]["description"] == \
        eph.REPLY_NOT_FOUND
    fake_api.ephemeral.advance(16)
    assert (await answer(ann, ephemeral_message_id=command.ephemeral_message_id))[1][
        "description"] == eph.REPLY_NOT_FOUND
    assert [m.text for m in fake_api.ephemeral.seen_by(ann)] == ["hand"]
