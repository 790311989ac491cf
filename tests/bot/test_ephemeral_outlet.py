"""The raw client of ephemeral messages (bot/telegram/outlet/ephemeral.py) against the fake Bot
API over real HTTP: it sends the 10.3 parameters, reads the identifiers PTB leaves in
``api_kwargs``, edits and deletes by them, and maps Telegram's answers like the other edits."""

from __future__ import annotations

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, RetryAfter

from bot.telegram import photos
from bot.telegram.outlet import ephemeral
from images import render_hand
from tests.fakebot import FakeBotApi
from tests.fakebot import ephemeral as eph

MARKUP = InlineKeyboardMarkup([[InlineKeyboardButton("Pass", callback_data="p:pass")]])


@pytest.fixture
def group(fake_api: FakeBotApi):
    return fake_api.new_group()


async def test_a_hand_sent_for_a_press_reaches_only_its_presser(
        fake_api: FakeBotApi, bot: Bot, group):
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    table = await bot.send_message(group.id, "Table", reply_markup=MARKUP)
    query = fake_api.press(ann, fake_api.message(group, table.message_id), "p:pass")

    ref = await ephemeral.send_text(bot, group.id, ann.id, "Your hand", MARKUP,
                                    callback_query_id=query)

    assert ref == ephemeral.EphemeralRef(group.id, ann.id, 1)
    call = fake_api.calls_to("sendMessage")[-1]
    assert call.params["ephemeral_message_parameters"] == {
        "receiver_user_id": ann.id, "callback_query_id": query}
    assert "receiver_user_id" not in call.params  # the 10.3 shape only
    (seen,) = fake_api.ephemeral.seen_by(ann, group)
    assert (seen.text, seen.button("Pass").callback_data) == ("Your hand", "p:pass")
    assert fake_api.ephemeral.seen_by(bob, group) == []
    assert fake_api.ephemeral.receivers() == {ann.id}


async def test_edits_and_delete_go_by_the_reference(fake_api: FakeBotApi, bot: Bot, group):
    ann = fake_api.new_user("Ann")
    fake_api.ephemeral.set_bot_admin(group)
    ref = await ephemeral.send_text(bot, group.id, ann.id, "one", MARKUP)

    assert await ephemeral.edit_text(bot, ref, "two", MARKUP)
    assert await ephemeral.edit_text(bot, ref, "two", MARKUP)  # "not modified" is success
    assert await ephemeral.edit_markup(bot, ref, None)
    (seen,) = fake_api.ephemeral.seen_by(ann)
    assert (seen.text, seen.buttons, seen.edits) == ("two", [], 2)
    edit = fake_api.calls_to("editEphemeralMessageText")[0]
    assert (edit.params["chat_id"], edit.params["receiver_user_id"],
            edit.params["ephemeral_message_id"]) == (group.id, ann.id, 1)

    assert await ephemeral.delete(bot, ref)
    assert fake_api.ephemeral.seen_by(ann) == []
    assert not await ephemeral.edit_text(bot, ref, "three")  # gone: send it afresh
    assert not await ephemeral.delete(bot, ref)


async def test_a_send_after_the_15_seconds_is_refused(fake_api: FakeBotApi, bot: Bot, group):
    ann = fake_api.new_user("Ann")
    table = await bot.send_message(group.id, "Table", reply_markup=MARKUP)
    query = fake_api.press(ann, fake_api.message(group, table.message_id), "p:pass")
    fake_api.ephemeral.advance(16)
    with pytest.raises(BadRequest):
        await ephemeral.send_text(bot, group.id, ann.id, "late", callback_query_id=query)
    with pytest.raises(BadRequest):  # and no press at all: the bot is not an admin
        await ephemeral.send_text(bot, group.id, ann.id, "push")
    assert fake_api.ephemeral.sent_to(ann) == []


async def test_a_429_on_an_edit_propagates(fake_api: FakeBotApi, bot: Bot, group):
    ann = fake_api.new_user("Ann")
    fake_api.ephemeral.set_bot_admin(group)
    ref = await ephemeral.send_text(bot, group.id, ann.id, "one")
    fake_api.fail_next("editEphemeralMessageText", 429, retry_after=3)
    with pytest.raises(RetryAfter):
        await ephemeral.edit_text(bot, ref, "two")


async def test_pictures_are_uploaded_once(fake_api: FakeBotApi, bot: Bot, group):
    ann = fake_api.new_user("Ann")
    fake_api.ephemeral.set_bot_admin(group)
    cache = photos.PhotoCache()
    first = photos.Picture(render_hand([0, 5, 53]), "hand.png")
    second = photos.Picture(render_hand([0, 5, 53], [5]), "hand.png")

    ref = await ephemeral.send_photo(bot, cache, group.id, ann.id, first, "hand", MARKUP)
    file_id = cache.get(first.digest)
    assert file_id is not None and fake_api.file(file_id) == first.data
    assert await ephemeral.edit_photo(bot, cache, ref, second, "selected", MARKUP)
    media = fake_api.calls_to("editEphemeralMessageMedia")[-1].params["media"]["media"]
    assert media.startswith("attach://")  # uploaded (Bot API 10.3)
    assert await ephemeral.edit_photo(bot, cache, ref, first, "back", MARKUP)
    assert fake_api.calls_to("editEphemeralMessageMedia")[-1].params["media"]["media"] == \
        file_id
    assert await ephemeral.edit_caption(bot, ref, "caption only", MARKUP)
    (seen,) = fake_api.ephemeral.seen_by(ann)
    assert (seen.photo, seen.caption, len(seen.buttons)) == (file_id, "caption only", 1)

    again = await ephemeral.send_photo(bot, cache, group.id, ann.id, first, "again")
    assert fake_api.calls_to("sendPhoto")[-1].params["photo"] == file_id
    assert again.ephemeral_message_id == 2


async def test_a_press_on_an_ephemeral_message_gives_its_reference(
        fake_api: FakeBotApi, bot: Bot, group):
    ann = fake_api.new_user("Ann")
    fake_api.ephemeral.set_bot_admin(group)
    await ephemeral.send_text(bot, group.id, ann.id, "hand", MARKUP)
    (seen,) = fake_api.ephemeral.seen_by(ann)
    query_id = fake_api.ephemeral.click(ann, seen, "Pass")

    (update,) = await bot.get_updates(timeout=0)
    query = update.callback_query
    assert isinstance(update, Update) and query is not None and query.id == query_id
    assert ephemeral.ref_of(query.message) == ephemeral.EphemeralRef(group.id, ann.id, 1)
    table = await bot.send_message(group.id, "Table")
    assert ephemeral.ref_of(table) is None and ephemeral.ref_of(None) is None
    # answered in the press's own window, without being an admin
    fake_api.ephemeral.set_bot_admin(group, False)
    ref = await ephemeral.send_text(bot, group.id, ann.id, "next", callback_query_id=query.id)
    assert ref.ephemeral_message_id == 2


async def test_the_running_bot_sends_through_its_rate_limiter(fake_api: FakeBotApi,
                                                              running_bot):
    ann = fake_api.new_user("Ann")
    group = fake_api.new_group()
    fake_api.ephemeral.set_bot_admin(group)
    app_bot = running_bot.app.bot
    fake_api.fail_next("sendMessage", 429, retry_after=1, chat=group)
    ref = await ephemeral.send_text(app_bot, group.id, ann.id, "hand")  # retried after 1 s
    assert [c.status for c in fake_api.calls_to("sendMessage", chat_id=group.id)] == [429, 200]
    assert await ephemeral.edit_text(app_bot, ref, "hand!")
    assert fake_api.ephemeral.seen_by(ann)[0].text == "hand!"
    assert not any(e.receiver_id not in {ann.id} for e in fake_api.ephemeral.calls())
    assert eph.WINDOW == 15.0


async def test_a_server_that_ignores_the_parameters_leaves_no_hand_in_the_group(
        fake_api: FakeBotApi, bot: Bot, group):
    ann = fake_api.new_user("Ann")
    fake_api.ephemeral.set_bot_admin(group)
    fake_api.ephemeral.supported = False  # a Bot API server older than 10.3
    with pytest.raises(ephemeral.NotEphemeral):
        await ephemeral.send_text(bot, group.id, ann.id, "Ann's hand: 3 3 4")
    (leaked,) = fake_api.messages_in(group, include_deleted=True)
    assert leaked.text == "Ann's hand: 3 3 4" and leaked.deleted  # deleted at once
    assert fake_api.messages_in(group) == []


async def test_an_ephemeral_command_is_answered_ephemerally(fake_api: FakeBotApi, bot: Bot,
                                                            group):
    ann = fake_api.new_user("Ann")
    assert await bot.set_my_commands([ephemeral.command("cards", "Your cards")])
    assert fake_api.commands[("default", "")] == [
        {"command": "cards", "description": "Your cards", "is_ephemeral": True}]
    fake_api.ephemeral.send_command(ann, group, "/cards")
    (update,) = await bot.get_updates(timeout=0)
    message = update.message
    assert message is not None and message.text == "/cards"
    command = ephemeral.ref_of(message)
    assert command == ephemeral.EphemeralRef(group.id, fake_api.bot_user.id, 1)
    assert message.from_user is not None
    ref = await ephemeral.send_text(bot, group.id, message.from_user.id, "Your hand",
                                    reply_to_ephemeral=command.ephemeral_message_id)
    assert ref == ephemeral.EphemeralRef(group.id, ann.id, 2)
    assert fake_api.calls_to("sendMessage")[-1].params["reply_parameters"] == {
        "ephemeral_message_id": 1}
    assert [m.text for m in fake_api.ephemeral.seen_by(ann)] == ["Your hand"]
