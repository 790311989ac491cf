"""End to end with pictures (issue 4): hand photos with the selection keyboard in private, the
table photo edited with editMessageMedia, the result picture, file_id reuse, captions with the
same facts as the texts; the group setting ``pictures`` off gives text only, and a group may
switch in the middle of a deal."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.core.i18n import t
from bot.presentation import scenes, views
from engine import SCORE, Action, new_deal
from engine.cards import cards_to_ranks
from images import TableScene, render_hand, render_result
from tests.bot.flow_helpers import (
    LANG,
    Players,
    assert_no_hand_in_group,
    button_data,
    hand_message,
    result_message,
    start_seeded_deal,
    table_picture,
)
from tests.conftest import BotRunner
from tests.fakebot import Call, FakeBotApi

SEED = 20240601
PNG = b"\x89PNG"


async def deal_for_three(fake_api: FakeBotApi, running_bot: BotRunner, title: str) -> Players:
    return await start_seeded_deal(fake_api, running_bot.app, title, seed=SEED)


def uploaded(api: FakeBotApi, call: Call) -> bool:
    """The call uploaded bytes (rather than naming a file_id Telegram already has)."""
    value = call.params["media"]["media"] if "media" in call.params else call.params.get("photo")
    return value is None or str(value).startswith("attach://")


def media_calls(api: FakeBotApi, chat, since: int) -> list[Call]:
    return [c for c in api.calls_to("editMessageMedia", since=since, chat_id=chat.id) if c.ok]


async def test_a_deal_in_pictures(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    drawn: list[TableScene] = []

    def table_scene(*args, **kwargs) -> TableScene:
        drawn.append(scenes_table_scene(*args, **kwargs))
        return drawn[-1]

    scenes_table_scene = scenes.table_scene
    monkeypatch.setattr(scenes, "table_scene", table_scene)
    players = await deal_for_three(fake_api, running_bot, "Picture night")
    ann, bob, cat = players.users
    group, state = players.group, players.state
    table_photo = await table_picture(fake_api, group)
    assert players.lobby.deleted  # a text message cannot become a photo: sent anew
    assert fake_api.file(table_photo.photo).startswith(PNG)  # smaller than JPEG (issue 9)
    caption = table_photo.caption.splitlines()
    assert caption[0].startswith("🃏") and "▶ Ann · 17 cards" in caption
    assert table_photo.button(t("btn.my_cards", LANG))
    for seat, user in enumerate(players.users):
        message = hand_message(fake_api, user)
        assert message.photo and fake_api.file(message.photo) == render_hand(state.hands[seat])
        lines = message.caption.splitlines()
        assert lines[:2] == [t("hand.title", LANG, n=17), views.cards_text(state.hands[seat],
                                                                           LANG)]
        assert t("btn.autoplay", LANG) in [b.text for b in message.buttons]
    assert t("btn.bid_3", LANG) in [b.text for b in hand_message(fake_api, ann).buttons]

    # Ann bids 3 and takes the kitty: her picture changes, Bob's and Cat's only their captions.
    mark = fake_api.mark()
    await players.act(Action("bid", 0, value=3))
    ann_hand = hand_message(fake_api, ann)
    landlord = players.state.hands[0]
    await fake_api.wait_for(lambda: fake_api.file(ann_hand.photo) == render_hand(landlord))
    assert ann_hand.caption.splitlines()[0] == t("hand.title", LANG, n=20)
    assert media_calls(fake_api, bob, mark) == [] and media_calls(fake_api, cat, mark) == []
    assert fake_api.calls_to("editMessageCaption", since=mark, chat_id=bob.id)
    await fake_api.wait_for(lambda: media_calls(fake_api, group, mark))
    assert uploaded(fake_api, media_calls(fake_api, group, mark)[0])
    await fake_api.wait_for(lambda: t("table.kitty", LANG, cards=views.cards_text(
        state.kitty, LANG)) in table_photo.caption)

    # Selecting shows on the keyboard and in the caption, not on the picture: a caption edit
    # each, no picture sent (issue 32 item 5); Clear likewise.
    plain = ann_hand.photo
    low = min(players.hand_ranks(0))
    tapped = fake_api.mark()
    await players.press(ann, ann_hand, button_data(ann_hand, suffix=f":r{low}"))
    await fake_api.wait_for(lambda: "Selected: " in ann_hand.caption)
    await players.click(ann, ann_hand, t("btn.clear", LANG))
    await fake_api.wait_for(lambda: "Selected: " not in ann_hand.caption)
    assert media_calls(fake_api, ann, tapped) == []
    assert len(fake_api.calls_to("editMessageCaption", since=tapped, chat_id=ann.id)) == 2
    assert ann_hand.photo == plain and fake_api.file(plain) == render_hand(landlord)
    assert ann_hand.buttons

    # Everybody goes on auto-play; the result is a picture of every hand left, beans and points.
    for user in players.users:
        await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    result = await result_message(fake_api, group)
    table = running_bot.app.bot_data.tables.get(f"{group.id}:0")
    final = table.state
    store = running_bot.app.bot_data.store
    beans = [await store.balance(u.id) - 1000 for u in players.users]
    scene = scenes.result_scene(table, final.view(0), final.hands, final.result.points, beans)
    assert fake_api.file(result.photo) == render_result(scene)
    assert "\n".join(scenes.result_breakdown(scene)) in result.caption  # as the picture says
    assert result.caption.startswith("🏁") and result.button(t("btn.play_again", LANG))
    assert t("result.kitty", LANG, cards=views.cards_text(final.kitty, LANG)) in result.caption
    await fake_api.wait_for(lambda: not table_photo.buttons)  # the final table was drawn
    assert t("table.count", LANG, n=0) in table_photo.caption
    assert_no_hand_in_group(fake_api, group, players.users)
    # Every table picture showed public cards only: nobody showed a hand, the kitty once
    # revealed, and plays of ranks that were played.
    played = Counter(r for a in final.history if a.kind == "play" for r in a.cards)
    assert len(drawn) > 10
    for scene in drawn:
        assert all(seat.shown_cards is None for seat in scene.seats)
        assert scene.kitty in (None, final.kitty)
        for seat in scene.seats:
            if isinstance(seat.last_play, tuple):
                assert not Counter(cards_to_ranks(seat.last_play)) - played
    group_calls = [c for c in fake_api.calls if c.params.get("chat_id") == group.id]
    assert [c for c in group_calls if not c.ok] == []
    assert not fake_api.calls_to("sendMessage", chat_id=group.id, since=mark)  # no text table


async def test_pictures_off_gives_text_messages_as_before(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    group_settings = running_bot.app.bot_data.store.update_group_settings
    group = fake_api.new_group("Plain text")
    await group_settings(group.id, pictures=False)
    running_bot.app.bot_data.game.deal_seed = SEED
    running_bot.app.bot_data.game.first_bidder = 0
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    await players.act(Action("bid", 0, value=3))
    await fake_api.wait_for(lambda: t("btn.my_cards", LANG) in [b.text for b in lobby.buttons])
    for seat, user in enumerate(users):
        message = hand_message(fake_api, user)
        assert message.photo is None and message.text.splitlines()[1] == views.cards_text(
            players.state.hands[seat], LANG)
    for user in users:
        await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    result = await result_message(fake_api, group)
    assert result.photo is None and result.text.startswith("🏁")
    await fake_api.wait_for(lambda: not lobby.buttons)
    assert t("table.count", LANG, n=0) in lobby.text  # the lobby message became the table
    for method in ("sendPhoto", "editMessageMedia", "editMessageCaption"):
        assert fake_api.calls_to(method) == [], method
    assert_no_hand_in_group(fake_api, group, users)


async def test_a_group_switches_pictures_off_and_on_during_a_deal(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await deal_for_three(fake_api, running_bot, "Changing minds")
    ann = players.users[0]
    group = players.group
    fake_api.make_admin(group, ann)
    table_photo = await table_picture(fake_api, group)
    photos = {user.id: hand_message(fake_api, user).photo for user in players.users}
    hand_ids = {user.id: hand_message(fake_api, user).message_id for user in players.users}

    await players.command(ann, "/settings pictures off")
    assert fake_api.last_message(group).text == t(  # QA5: it says when it applies
        "set.saved_next_move", LANG, name=t("set.name.pictures", LANG), value=t("set.off", LANG))
    mark = fake_api.mark()
    await players.act(Action("bid", 0, value=1))  # the next change shows the new choice
    for user in players.users:
        message = hand_message(fake_api, user)
        assert message.photo is None and message.text.startswith(t("hand.title", LANG, n=17))
        assert fake_api.message(user, hand_ids[user.id]).deleted
    text_table = await fake_api.wait_for(lambda: newest_table(fake_api, group, photo=False))
    await fake_api.wait_for(lambda: table_photo.deleted)
    assert text_table.button(t("btn.my_cards", LANG))
    assert t("btn.bid_1", LANG) in text_table.text
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    await fake_api.wait_for(lambda: table.messages.message_id == text_table.message_id)
    assert (table.messages.message_id, table.messages.message_photo) \
        == (text_table.message_id, False)
    stored = (await running_bot.app.bot_data.store.load_tables())[table.key]
    assert (stored["message_id"], stored["message_photo"]) == (text_table.message_id, False)
    assert not fake_api.calls_to("sendPhoto", since=mark)

    await players.command(ann, "/settings pictures on")
    mark = fake_api.mark()
    await players.act(Action("pass", 1))
    for user in players.users:  # the hands did not change: re-sent by their file_id
        message = hand_message(fake_api, user)
        assert message.photo == photos[user.id]
        (sent,) = fake_api.calls_to("sendPhoto", since=mark, chat_id=user.id)
        assert sent.params["photo"] == photos[user.id]
    new_photo = await fake_api.wait_for(lambda: newest_table(fake_api, group, photo=True))
    await fake_api.wait_for(lambda: text_table.deleted)
    assert new_photo.message_id != table_photo.message_id
    assert t("btn.no_bid", LANG) in new_photo.caption


def newest_table(api: FakeBotApi, group, *, photo: bool):
    """The group's live table message (caption or text starting 🃏) if it is a photo or not."""
    for message in reversed(api.messages_in(group)):
        if message.content.startswith("🃏") and bool(message.photo) == photo:
            return message
    return None


async def test_a_deal_left_during_the_bidding_ends_with_a_result_picture(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """RULES.md §9 (QA: with pictures on, this result alone was sent as text): Bob leaves before
    anybody bid; the result is a picture of the flat payment, its caption says the same."""
    players = await deal_for_three(fake_api, running_bot, "Early leaver")
    bob, group = players.users[1], players.group
    fake_api.send_text(bob, group, "/leave")
    prompt = await fake_api.wait_for(lambda: next(
        (m for m in reversed(fake_api.messages_in(group)) if m.buttons
         and m.content == t("reply.leave_confirm", LANG, name="Bob")), None))
    await players.click(bob, prompt, t("btn.leave_confirm", LANG))
    result = await result_message(fake_api, group)
    table = running_bot.app.bot_data.tables.get(f"{group.id}:0")
    final = table.state
    assert final.result.winner is None and final.result.points == (3, -6, 3)
    beans = [p * 10 for p in final.result.points]
    scene = scenes.result_scene(table, final.view(0), final.hands, final.result.points, beans)
    assert result.photo is not None and fake_api.file(result.photo) == render_result(scene)
    assert t("result.bidding_escape", LANG, n=6) in result.caption.splitlines()
    assert result.caption.startswith("🏁") and result.button(t("btn.play_again", LANG))
