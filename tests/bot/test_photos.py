"""Photos through the fake Bot API: each picture is uploaded once and re-sent by its file_id
(issue 4), a refused file_id is uploaded again, captions fit Telegram's 1024 characters, and a
message becomes what it should show with the fewest calls (text and photo swap by a new
message)."""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from bot.game.drawing import Drawing
from bot.telegram import photos
from bot.telegram.outlet import send
from images import render_hand
from tests.fakebot import FakeBotApi


def test_cache_keeps_the_most_recently_used_ids():
    cache = photos.PhotoCache(size=2)
    cache.put("a", "id-a")
    cache.put("b", "id-b")
    assert cache.get("a") == "id-a"  # now "b" is the least recently used
    cache.put("c", "id-c")
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("id-a", None, "id-c")
    assert len(cache) == 2
    cache.forget("a")
    assert cache.get("a") is None


def test_captions_are_cut_to_telegrams_limit():
    assert photos.fit_caption("short") == "short"
    cut = photos.fit_caption("x" * 2000)
    assert len(cut) == photos.CAPTION_LIMIT and cut.endswith("…")


def media_of(call) -> str:
    return call.params["media"]["media"]


async def test_a_picture_is_uploaded_once_then_sent_by_file_id(fake_api: FakeBotApi, bot: Bot):
    user = fake_api.new_user("Ann")
    fake_api.open_private_chat(user)
    cache = photos.PhotoCache()
    first = photos.Picture(render_hand([0, 5, 53]), "hand.png")
    second = photos.Picture(render_hand([0, 5, 53], [5]), "hand.png")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("4", callback_data="x")]])

    message = await photos.send_photo(bot, cache, user.id, first, "one", markup)
    (upload,) = fake_api.calls_to("sendPhoto")
    assert "photo" not in upload.params  # the bytes went as a multipart file
    file_id = cache.get(first.digest)
    assert file_id == message.photo[-1].file_id and fake_api.file(file_id) == first.data

    assert await photos.edit_photo(bot, cache, user.id, message.message_id, second, "two", markup)
    assert media_of(fake_api.calls_to("editMessageMedia")[-1]).startswith("attach://")
    assert await photos.edit_photo(bot, cache, user.id, message.message_id, first, "three",
                                   markup)
    assert media_of(fake_api.calls_to("editMessageMedia")[-1]) == file_id
    shown = fake_api.message(user, message.message_id)
    assert (shown.photo, shown.caption, len(shown.buttons)) == (file_id, "three", 1)

    again = await photos.send_photo(bot, cache, user.id, first, "four")
    assert fake_api.calls_to("sendPhoto")[-1].params["photo"] == file_id
    assert fake_api.message(user, again.message_id).photo == file_id
    assert len(fake_api.files) == 2  # two different pictures, two uploads


async def test_a_refused_file_id_is_forgotten_and_the_picture_uploaded(
    fake_api: FakeBotApi, bot: Bot
):
    user = fake_api.new_user("Bob")
    fake_api.open_private_chat(user)
    cache = photos.PhotoCache()
    picture = photos.Picture(render_hand([10, 11]), "hand.png")
    cache.put(picture.digest, "expired-file-id")
    message = await photos.send_photo(bot, cache, user.id, picture, "hand")
    statuses = [c.status for c in fake_api.calls_to("sendPhoto")]
    assert statuses == [400, 200]
    assert cache.get(picture.digest) == message.photo[-1].file_id != "expired-file-id"

    cache.put(picture.digest, "expired-file-id")
    other = photos.Picture(render_hand([12]), "hand.png")
    assert await photos.edit_photo(bot, cache, user.id, message.message_id, other, "x", None)
    cache.put(other.digest, "expired-again")
    assert await photos.edit_photo(bot, cache, user.id, message.message_id, picture, "y", None)
    assert [c.status for c in fake_api.calls_to("editMessageMedia")][-2:] == [400, 200]


async def test_edits_that_change_nothing_succeed_and_deleted_messages_report_false(
    fake_api: FakeBotApi, bot: Bot
):
    user = fake_api.new_user("Cat")
    fake_api.open_private_chat(user)
    cache = photos.PhotoCache()
    picture = photos.Picture(render_hand([7]), "hand.png")
    message = await photos.send_photo(bot, cache, user.id, picture, "same")
    assert await photos.edit_caption(bot, user.id, message.message_id, "same", None)
    assert await photos.edit_photo(bot, cache, user.id, message.message_id, picture, "same",
                                   None)
    assert [c.status for c in fake_api.calls_to("editMessageCaption")] == [400]
    fake_api.message(user, message.message_id).deleted = True
    assert not await photos.edit_caption(bot, user.id, message.message_id, "new", None)
    assert not await photos.edit_photo(bot, cache, user.id, message.message_id, picture, "new",
                                       None)


async def test_present_edits_in_place_and_replaces_a_message_changing_kind(
    fake_api: FakeBotApi, bot: Bot
):
    user = fake_api.new_user("Dan")
    fake_api.open_private_chat(user)
    app = SimpleNamespace(bot=bot, photo_cache=photos.PhotoCache())

    def present(app, *args):
        return send.present(app.bot, app.photo_cache, *args)

    hand = (0, 4, 53)

    def drawing(text: str, selected=()) -> Drawing:
        return Drawing(text, None, (hand, selected), partial(render_hand, hand, selected))

    first, is_photo = await present(app, user.id, None, False, None, Drawing("text 1", None))
    assert is_photo is False and fake_api.message(user, first).text == "text 1"
    assert await present(app, user.id, first, False, None, Drawing("text 2", None)) == (first,
                                                                                      False)
    # Text to picture: a new photo, the text message deleted.
    second, is_photo = await present(app, user.id, first, False, None, drawing("pic 1"))
    assert is_photo and second != first and fake_api.message(user, first).deleted
    assert fake_api.message(user, second).caption == "pic 1"
    # Same picture: only the caption; another picture: editMessageMedia; kept: the caption.
    mark = fake_api.mark()
    shown = (hand, ())
    assert await present(app, user.id, second, True, shown, drawing("pic 2")) == (second, True)
    assert [c.method for c in fake_api.calls[mark:]] == ["editMessageCaption"]
    assert await present(app, user.id, second, True, shown, drawing("pic 3", (53,))) == (
        second, True)
    assert fake_api.calls[-1].method == "editMessageMedia"
    assert fake_api.file(fake_api.message(user, second).photo) == render_hand(hand, (53,))
    # Picture to text: a new text message, the photo deleted.
    third, is_photo = await present(app, user.id, second, True, None, Drawing("text 3", None))
    assert not is_photo and fake_api.message(user, second).deleted
    # A message deleted by someone else is posted again.
    fake_api.message(user, third).deleted = True
    fourth, _ = await present(app, user.id, third, False, None, Drawing("again", None))
    assert fourth != third and fake_api.message(user, fourth).text == "again"
