"""The table model, its dict for the store, the registry with its locks, and the edit throttle."""

from __future__ import annotations

import json

import pytest

from bot.core.table import (
    DEAL,
    LOBBY,
    RESULT,
    Competition,
    DealProgress,
    Seat,
    Table,
    TableMessages,
    TableOptions,
    Tables,
    table_key,
)
from bot.game.timers import Stamp, seconds_left


def full_table() -> Table:
    table = Table(-1001, 7, "zh-Hant", title="牌友", opener_id=11,
                  options=TableOptions(preset="rob", stake=20, play_timeout=25.0,
                                       bid_timeout=12.0, autoplay_mode="ai"))
    table.seats = [Seat(11, "Ann", lang="en"), Seat(12, "Bob", blocked=True),
                   Seat(None, "🤖 Bot 3", True)]
    table.phase = DEAL
    table.messages.message_id, table.messages.hand_message_ids = 5, [8, 9, None]
    table.options.pictures = False
    table.messages.message_photo, table.messages.hand_photos = True, [True, False, False]
    table.messages.turn_notices = [None, 12, None]
    table.messages.autoplay_notices = [None, None, 15]
    table.messages.leave_prompts = [None, 14, None]
    table.progress.deal_id, table.progress.first_bidder, table.progress.redeals = 3, 2, 1
    table.progress.deadline, table.progress.lobby_deadline = 1_900_000_000.5, None
    table.progress.selections, table.progress.hint_index = [[0, 0, 5], [], []], [2, 0, 0]
    table.messages.join_link = True
    return table


def test_key_per_chat_and_topic():
    assert table_key(-1001) == "-1001:0"
    assert table_key(-1001, 7) == "-1001:7"
    assert full_table().key == "-1001:7"


def test_dict_round_trip_through_json():
    table = full_table()
    data = json.loads(json.dumps(table.to_dict()))
    again = Table.from_dict(data)
    assert again == table
    assert again.to_dict() == table.to_dict()
    assert data["seats"][2] == {"user_id": None, "name": "🤖 Bot 3", "is_bot": True,
                                "left": False, "blocked": False, "lang": None}
    assert data["seats"][0]["lang"] == "en"
    assert data["deadline"] == 1_900_000_000.5 and data["v"] == 1
    assert (data["message_photo"], data["hand_photos"], data["turn_notices"]) == (
        True, [True, False, False], [None, 12, None])
    assert data["leave_prompts"] == [None, 14, None]


# Tables as the store kept them before a table had parts (one flat dict, every field beside
# the others), written by that code: a group's match table in a deal, a tournament's table, a
# challenge's table under its result.
FLAT_GROUP = (
    '{"v": 1, "chat_id": -1001, "thread_id": 7, "lang": "zh-Hant", "title": "牌友",'
    ' "token": "tok0", "phase": "deal", "opener_id": 11, "seats": [{"user_id": 11, "name": "Ann",'
    ' "is_bot": false,'
    ' "left": false, "blocked": false, "lang": "en", "in_group": true}, {"user_id": 12,'
    ' "name": "Bob", "is_bot": false, "left": false, "blocked": true, "lang": null,'
    ' "welcoming": 1900000000.0}, {"user_id": null, "name": "🤖 Bot 3", "is_bot": true,'
    ' "left": false, "blocked": false, "lang": null}], "seat_count": 3, "preset": "rob",'
    ' "stake": 20, "play_timeout": 25.0, "bid_timeout": 12.0, "autoplay_mode": "ai",'
    ' "bot_level": "hard", "pictures": false, "card_counter": false, "auto_pass": false,'
    ' "hands": "group", "message_id": 5, "message_photo": true, "hand_message_ids": [8, 9, null],'
    ' "hand_photos": [true, false, false], "turn_notices": [null, 12, null],'
    ' "autoplay_notices": [null, null, 15], "leave_prompts": [null, 14, null], "join_link": true,'
    ' "deal_id": 3, "first_bidder": 2, "redeals": 1, "last_winner": 0, "deadline": 1900000000.5,'
    ' "lobby_deadline": 1900000100.0, "selections": [[0, 0, 5], [], []], "hint_index": [2, 0, 0],'
    ' "private": false, "match_options": {"format": "fixed", "target": 10}, "match_id": 4,'
    ' "result_due": true, "ready": [false, true, true], "result_message_id": 21,'
    ' "challenge_id": null, "challenge_deal": null}')
FLAT_TOURNAMENT = (
    '{"v": 1, "chat_id": -1002, "thread_id": null, "lang": "en", "title": "Cup", "token": "tok1",'
    ' "phase": "deal", "opener_id": null, "seats": [{"user_id": 1, "name": "A", "is_bot": false,'
    ' "left": false, "blocked": false, "lang": null}, {"user_id": 2, "name": "B", "is_bot": false,'
    ' "left": false, "blocked": false, "lang": null}, {"user_id": 3, "name": "C", "is_bot": false,'
    ' "left": false, "blocked": false, "lang": null}], "seat_count": 3, "preset": "score",'
    ' "stake": 10, "play_timeout": 30.0, "bid_timeout": 15.0, "autoplay_mode": "simple",'
    ' "bot_level": "normal", "pictures": true, "card_counter": true, "auto_pass": true,'
    ' "hands": "private", "message_id": null, "message_photo": false,'
    ' "hand_message_ids": [31, 32, 33], "hand_photos": [], "turn_notices": [],'
    ' "autoplay_notices": [], "leave_prompts": [], "join_link": false, "deal_id": 9,'
    ' "first_bidder": 1, "redeals": 0, "last_winner": null, "deadline": null,'
    ' "lobby_deadline": null, "selections": [], "hint_index": [], "private": false,'
    ' "match_options": null, "match_id": null, "result_due": false, "ready": [],'
    ' "result_message_id": null, "challenge_id": null, "challenge_deal": null,'
    ' "tournament": {"id": 7, "stage": 2, "number": 1, "deal": 3},'
    ' "view_message_ids": [41, null, 43], "view_photos": [true, false, true],'
    ' "watchers": [[99, 51, true], [98, null, false]]}')
FLAT_CHALLENGE = (
    '{"v": 1, "chat_id": 42, "thread_id": null, "lang": "zh-Hans", "title": "", "token": "tok2",'
    ' "phase": "result", "opener_id": null, "seats": [{"user_id": 42, "name": "Ann",'
    ' "is_bot": false, "left": false, "blocked": false, "lang": null}, {"user_id": null,'
    ' "name": "机器人2", "is_bot": true, "left": false, "blocked": false, "lang": null},'
    ' {"user_id": null, "name": "机器人3", "is_bot": true, "left": false, "blocked": false,'
    ' "lang": null}], "seat_count": 3, "preset": "score", "stake": 10, "play_timeout": 30.0,'
    ' "bid_timeout": 15.0, "autoplay_mode": "simple", "bot_level": "normal", "pictures": true,'
    ' "card_counter": true, "auto_pass": true, "hands": "private", "message_id": null,'
    ' "message_photo": false, "hand_message_ids": [], "hand_photos": [], "turn_notices": [],'
    ' "autoplay_notices": [], "leave_prompts": [], "join_link": false, "deal_id": null,'
    ' "first_bidder": null, "redeals": 0, "last_winner": null, "deadline": null,'
    ' "lobby_deadline": null, "selections": [], "hint_index": [], "private": true,'
    ' "match_options": null, "match_id": null, "result_due": false, "ready": [],'
    ' "result_message_id": null, "challenge_id": 3, "challenge_deal": 2}')


def test_a_flat_dict_stored_before_the_parts_restores_to_the_same_table():
    group = Table(
        -1001, 7, "zh-Hant", title="牌友", token="tok0", phase=DEAL, opener_id=11,
        seats=[Seat(11, "Ann", lang="en", in_group=True),
               Seat(12, "Bob", blocked=True, welcoming=1_900_000_000.0),
               Seat(None, "🤖 Bot 3", True)],
        options=TableOptions(seat_count=3, preset="rob", stake=20, play_timeout=25.0,
                             bid_timeout=12.0, autoplay_mode="ai", bot_level="hard",
                             pictures=False, card_counter=False, auto_pass=False, hands="group"),
        progress=DealProgress(deal_id=3, first_bidder=2, redeals=1, last_winner=0,
                              deadline=1_900_000_000.5, lobby_deadline=1_900_000_100.0,
                              selections=[[0, 0, 5], [], []], hint_index=[2, 0, 0],
                              result_due=True, ready=[False, True, True]),
        messages=TableMessages(message_id=5, message_photo=True, hand_message_ids=[8, 9, None],
                               hand_photos=[True, False, False], turn_notices=[None, 12, None],
                               autoplay_notices=[None, None, 15], leave_prompts=[None, 14, None],
                               join_link=True, result_message_id=21),
        competition=Competition(match_options={"format": "fixed", "target": 10}, match_id=4))
    tournament = Table(
        -1002, None, "en", title="Cup", token="tok1", phase=DEAL,
        seats=[Seat(1, "A"), Seat(2, "B"), Seat(3, "C")],
        progress=DealProgress(deal_id=9, first_bidder=1),
        messages=TableMessages(hand_message_ids=[31, 32, 33], hand_photos=[False] * 3,
                               turn_notices=[None] * 3, autoplay_notices=[None] * 3,
                               leave_prompts=[None] * 3, view_message_ids=[41, None, 43],
                               view_photos=[True, False, True],
                               watchers={99: (51, True), 98: (None, False)}),
        competition=Competition(tournament={"id": 7, "stage": 2, "number": 1, "deal": 3}))
    challenge = Table(
        42, None, "zh-Hans", token="tok2", phase=RESULT, private=True,
        seats=[Seat(42, "Ann"), Seat(None, "机器人2", True), Seat(None, "机器人3", True)],
        competition=Competition(challenge_id=3, challenge_deal=2))
    for stored, table, key in ((FLAT_GROUP, group, "-1001:7"),
                               (FLAT_TOURNAMENT, tournament, "t7.2.1:tournament"),
                               (FLAT_CHALLENGE, challenge, "42:challenge")):
        data = json.loads(stored)
        restored = Table.from_dict(data)
        assert restored == table
        assert restored.key == key
        assert restored.to_dict() == table.to_dict()
    # the same flat shape is written still, field for field (the lists padded as on reading)
    assert json.loads(json.dumps(group.to_dict())) == json.loads(FLAT_GROUP)
    assert json.loads(json.dumps(challenge.to_dict())) == json.loads(FLAT_CHALLENGE)
    assert (group.competition.tournament_id, tournament.competition.tournament_id) == (None, 7)
    assert (group.plays_for_beans, tournament.plays_for_beans, challenge.plays_for_beans) == (
        False, False, False)
    assert challenge.practice is False


def test_dicts_stored_before_pictures_read_as_text_messages_without_notices():
    data = full_table().to_dict()
    for key in ("pictures", "message_photo", "hand_photos", "turn_notices", "leave_prompts"):
        del data[key]
    table = Table.from_dict(data)
    assert table.messages.message_photo is False and table.options.pictures is True
    assert table.messages.hand_photos == [False, False, False]
    assert table.messages.turn_notices == [None, None, None]
    assert table.messages.leave_prompts == [None, None, None]


def test_seats_stored_before_languages_use_the_tables_language():
    data = full_table().to_dict()
    for seat in data["seats"]:
        del seat["lang"]
    table = Table.from_dict(data)
    assert [table.seat_lang(i) for i in range(3)] == ["zh-Hant"] * 3
    assert full_table().seat_lang(0) == "en" and full_table().seat_lang(1) == "zh-Hant"


@pytest.mark.parametrize(
    "change",
    [{"v": 2}, {"phase": "dancing"}, {"v": None}],
)
def test_from_dict_refuses_unknown_shapes(change):
    with pytest.raises(ValueError):
        Table.from_dict({**full_table().to_dict(), **change})


def test_from_dict_refuses_missing_fields():
    data = full_table().to_dict()
    del data["seats"]
    with pytest.raises(ValueError, match="seats"):
        Table.from_dict(data)


def test_seats_and_turn_memory():
    table = full_table()
    assert table.seat_of(12) == 1 and table.seat_of(99) is None
    assert [i for i, _ in table.humans()] == [0, 1]
    assert table.is_full()
    table.reset_turn_memory()
    assert table.progress.selections == [[], [], []] and table.progress.hint_index == [0, 0, 0]


def test_registry_tokens_players_and_locks():
    tables = Tables()
    table = full_table()
    tables.add(table)
    old = table.token
    assert tables.by_token(old) is table and tables.get(table.key) is table
    assert tables.table_of(11) is table and tables.table_of(99) is None
    new = tables.retoken(table)
    assert new != old and tables.by_token(old) is None and tables.by_token(new) is table
    table.seats[0].left = True
    assert tables.table_of(11) is None  # left the running deal: free to sit elsewhere
    assert tables.table_of(12) is table
    table.phase = RESULT
    assert tables.table_of(12) is None  # a finished deal holds nobody
    assert tables.lock(table.key) is tables.lock(table.key)
    assert tables.lock(table.key) is not tables.lock("other")
    lock = tables.lock(table.key)
    tables.remove(table)
    assert len(tables) == 0 and tables.by_token(new) is None
    assert tables.lock(table.key) is lock
    replacement = Table(-1001, 7, "en", phase=LOBBY)
    tables.add(replacement)
    assert list(tables) == [replacement]


def test_seconds_left_and_stamp():
    assert seconds_left(None) == 0.0
    assert seconds_left(110.0, now=100.0) == 10.0
    assert seconds_left(90.0, now=100.0) == 0.0
    assert Stamp("k", "t", 3) == Stamp("k", "t", 3) != Stamp("k", "t", 4)
