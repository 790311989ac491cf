"""End to end: a group tournament's pictures and live watching (锦标赛, RULES.md §10.1) through
the fake Bot API.

In a group whose ``pictures`` setting is on (the default), the sign-up message, the board and
the final ranking are photos (drawn by :mod:`images.tournament`) with the texts as captions: the
sign-up picture is drawn again as members sign up, the board keeps its 观战 buttons, the final
crowns the champion and reveals the seed. A member who plays no table presses 观战 (Watch): a
message in his private chat shows the table's picture and is edited as the table moves, never
showing a hand (no hand picture or caption reaches him), Watch again moves it to a new message
(the old one deleted), and it stops at the end of the table's stage with its last picture.
With ``pictures`` off the same messages are text (``test_e2e_tournament.py``).
"""

from __future__ import annotations

import io

from PIL import Image

from bot.core.i18n import t
from bot.core.table import DEAL
from bot.features.tournament.views import tournament_callback
from tests.bot.flow_helpers import HAND_PREFIX, LANG, TEXT_METHODS, call_text
from tests.bot.test_e2e_tournament import autoplay_until, press, referee, signup_message
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, FakeMessage, User

FEE = 100
NAMES = ("Ann", "Bob", "Cy", "Dan")
PHOTO_METHODS = ("sendPhoto", "editMessageMedia")


def picture(api: FakeBotApi, message: FakeMessage) -> Image.Image:
    """The photo a message shows, decoded."""
    assert message.photo is not None, message
    return Image.open(io.BytesIO(api.files[message.photo]))


def sizes_sent(api: FakeBotApi, user: User) -> list[tuple[int, int]]:
    """The size of every picture the bot sent or drew in ``user``'s private chat."""
    out = []
    for call in api.calls:
        if call.method in PHOTO_METHODS and call.params.get("chat_id") == user.id and call.ok:
            photo = call.result["photo"][0]
            out.append((photo["width"], photo["height"]))
    return out


def texts_sent(api: FakeBotApi, user: User) -> list[str]:
    """Every text or caption the bot sent or drew in ``user``'s private chat."""
    return [call_text(call) for call in api.calls
            if call.method in TEXT_METHODS and call.params.get("chat_id") == user.id]


async def test_pictures_of_a_tournament_and_a_live_watch(fake_api: FakeBotApi,
                                                         running_bot: BotRunner):
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    tournaments = app.bot_data.game.tournaments
    tournaments.board_interval = 0.0
    users = [api.new_user(name) for name in NAMES]
    by_id = {u.id: u for u in users}
    ann = users[0]
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in users:
        api.open_private_chat(user)

    # The sign-up message is a picture, with the sign-up text as its caption and the buttons.
    api.send_text(ann, group, f"/tournament quick {FEE}")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    shown = signup_message(api, group)
    assert shown.caption is not None and shown.text is None
    assert shown.caption.startswith(t("tour.title", LANG, id=tid,
                                      preset=t("tour.preset_quick", LANG)))
    assert record.seed_hash in shown.caption and record.seed not in shown.caption
    first, first_id = picture(api, shown), shown.photo
    assert first.width == 1280
    for user in users:
        assert await press(api, user, signup_message(api, group),
                           tournament_callback(tid, "join")) == t("tour.pop_signed", LANG, id=tid)
    # redrawn as people sign up (in the background): the same message, a new picture, every
    # name in the caption; the members' list made the picture taller
    signed = await api.wait_for(lambda: (lambda m: m if "Dan" in m.content else None)(
        signup_message(api, group)), 15)
    assert signed.message_id == shown.message_id and signed.photo != first_id
    assert picture(api, signed).height > first.height

    # The opener starts it: the sign-up picture is closed (its buttons gone), the board is a
    # picture with the Watch buttons.
    assert await press(api, ann, signed, tournament_callback(tid, "start")) == \
        t("tour.pop_starting", LANG)
    watch = t("tour.btn_watch", LANG, n=1)
    board = await api.wait_for(lambda: next((m for m in api.messages_in(group)
                                             if any(b.text == watch for b in m.buttons)), None),
                               10)
    assert board.caption is not None and board.caption.startswith(
        t("tour.board_title", LANG, id=tid, stage=t("tour.stage_n", LANG, n=1)))
    assert picture(api, board).width == 1280
    closed = api.message(group, shown.message_id)
    assert not closed.buttons and closed.photo is not None
    assert t("tour.started", LANG, id=tid, n=4, pool="400") in closed.content

    # 观战: Kim, who plays no table, watches table 1 in his private chat: the table's picture
    # (1280 × 720, never a hand) with the table's caption, without buttons.
    kim = api.new_user("Kim")
    api.open_private_chat(kim)
    assert await press(api, kim, board, tournament_callback(tid, "watch", 1)) == \
        t("tour.pop_watching", LANG)
    # the first message to Kim, a note, tried the private chat before the pop-up
    note = t("tour.watch_private", LANG, id=tid, n=1)
    assert api.messages_in(kim)[0].content == note
    watched = await api.wait_for(lambda: (lambda m: m if m is not None and m.content != note
                                          else None)(api.last_message(kim)), 10)
    watched_id = watched.message_id
    assert watched.photo is not None and "Tournament #" in watched.content
    assert picture(api, watched).size == (1280, 720) and not watched.buttons
    # Watch again: the watch moves to a new message, the old one is deleted
    assert await press(api, kim, board, tournament_callback(tid, "watch", 1)) == \
        t("tour.pop_watching", LANG)
    moved = await api.wait_for(lambda: (lambda m: m if m is not None and m.message_id !=
                                        watched_id else None)(api.last_message(kim)),
                               10)
    await api.wait_for(lambda: api.message(kim, watched_id).deleted, 10)
    (table,) = [x for x in app.bot_data.tables
                if x.competition.tournament is not None and x.phase == DEAL]
    assert list(table.messages.watchers) == [kim.id]

    async def finished() -> bool:
        return (await store.get_tournament(tid)).status == "finished"

    await autoplay_until(api, running_bot, by_id, finished)
    await tournaments.idle()
    await app.bot_data.outlet.caught_up()

    # Kim's message was edited as the table moved, always the table's picture, never a hand;
    # it showed stage 1's table only (watching ended with the stage) and stays.
    assert api.message(kim, moved.message_id).edits >= 2
    assert not api.message(kim, moved.message_id).deleted
    assert set(sizes_sent(api, kim)) == {(1280, 720)}
    shown_to_kim = [text for text in texts_sent(api, kim) if text != note]
    assert shown_to_kim and not any(text.startswith(HAND_PREFIX) for text in shown_to_kim)
    assert all("Tournament #" in text and "stage 1 " in text for text in shown_to_kim)
    hands = [call_text(call) for call in api.calls if call.method in TEXT_METHODS
             and call.params.get("chat_id") in by_id and call_text(call).startswith(HAND_PREFIX)]
    dealt = {hand.splitlines()[1] for hand in hands if len(hand.splitlines()) > 1
             and hand.splitlines()[0] in (t("hand.title", LANG, n=17), t("hand.title", LANG, n=20))}
    assert dealt  # the seats had theirs: no dealt hand's cards ever reached Kim
    for line in dealt:
        assert line not in "\n".join(shown_to_kim)

    # The final ranking: a picture, its caption the ranking with the revealed seed and the
    # referee's commands (short enough for a caption here).
    final = next(m for m in reversed(api.messages_in(group))
                 if m.content.startswith(t("tour.final_title", LANG, id=tid)))
    assert final.photo is not None and picture(api, final).width == 1280
    record = await store.get_tournament(tid)
    assert record.seed in final.content
    commands = [line for line in final.content.splitlines() if line.startswith("echo '")]
    assert len(commands) == 2 and referee(commands[0])["sha256"] == record.seed_hash
    # the board is drawn a last time, marked over, without Watch buttons
    board = api.message(group, board.message_id)
    assert board.photo is not None and not board.buttons
    assert t("tour.board_finished", LANG) in board.content


async def test_a_watch_survives_a_restart(fake_api: FakeBotApi, running_bot: BotRunner):
    """The watchers are stored with their table: after a restart the same message goes on being
    edited as the table moves (pictures off here: the table's text)."""
    api = fake_api
    app = running_bot.app
    store = app.bot_data.store
    users = [api.new_user(name) for name in NAMES]
    by_id = {u.id: u for u in users}
    ann = users[0]
    group = api.new_group("Cards")
    api.make_admin(group, ann)
    for user in users:
        api.open_private_chat(user)
    await store.update_group_settings(group.id, pictures=False)
    api.send_text(ann, group, "/tournament quick")
    await api.wait_for(lambda: any(m.buttons for m in api.messages_in(group)))
    (record,) = await store.live_tournaments()
    tid = record.tournament_id
    for user in users:
        await press(api, user, signup_message(api, group), tournament_callback(tid, "join"))
    await press(api, ann, signup_message(api, group), tournament_callback(tid, "start"))
    watch = t("tour.btn_watch", LANG, n=1)
    board = await api.wait_for(lambda: next((m for m in api.messages_in(group)
                                             if any(b.text == watch for b in m.buttons)), None),
                               10)
    kim = api.new_user("Kim")
    api.open_private_chat(kim)
    assert await press(api, kim, board, tournament_callback(tid, "watch", 1)) == \
        t("tour.pop_watching", LANG)
    note = t("tour.watch_private", LANG, id=tid, n=1)  # tried the private chat first
    watched = await api.wait_for(lambda: (lambda m: m if m is not None and m.content != note
                                          else None)(api.last_message(kim)), 10)
    assert watched.photo is None and "Tournament #" in watched.content
    (table,) = [x for x in app.bot_data.tables
                if x.competition.tournament is not None and x.phase == DEAL]

    async def stored() -> bool:  # the table's next step stored the watcher's message
        data = (await store.load_tables()).get(table.key) or {}
        return data.get("watchers") == [[kim.id, watched.message_id, False]]

    await autoplay_until(api, running_bot, by_id, stored, timeout=60)
    edits = api.message(kim, watched.message_id).edits
    app = await running_bot.restart()
    restored = app.bot_data.tables.get(table.key)
    assert restored is not None
    assert restored.messages.watchers == {kim.id: (watched.message_id, False)}

    async def finished() -> bool:
        return (await app.bot_data.store.get_tournament(tid)).status == "finished"

    await autoplay_until(api, running_bot, by_id, finished)
    await app.bot_data.outlet.caught_up()
    assert api.message(kim, watched.message_id).edits > edits  # the same message, edited on
    assert [m.message_id for m in api.messages_in(kim) if m.from_bot and m.content != note] \
        == [watched.message_id]
