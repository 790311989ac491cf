"""The table model, its dict for the store, the registry with its locks, and the edit throttle."""

from __future__ import annotations

import json

import pytest

from bot.core.table import DEAL, LOBBY, RESULT, Seat, Table, Tables, table_key
from bot.game.timers import Stamp, seconds_left


def full_table() -> Table:
    table = Table(-1001, 7, "zh-Hant", title="牌友", opener_id=11, preset="rob", stake=20,
                  play_timeout=25.0, bid_timeout=12.0, autoplay_mode="ai")
    table.seats = [Seat(11, "Ann", lang="en"), Seat(12, "Bob", blocked=True),
                   Seat(None, "🤖 Bot 3", True)]
    table.phase = DEAL
    table.message_id, table.hand_message_ids = 5, [8, 9, None]
    table.pictures, table.message_photo, table.hand_photos = False, True, [True, False, False]
    table.turn_notices = [None, 12, None]
    table.autoplay_notices = [None, None, 15]
    table.leave_prompts = [None, 14, None]
    table.deal_id, table.first_bidder, table.redeals = 3, 2, 1
    table.deadline, table.lobby_deadline = 1_900_000_000.5, None
    table.selections, table.hint_index = [[0, 0, 5], [], []], [2, 0, 0]
    table.join_link = True
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


def test_dicts_stored_before_pictures_read_as_text_messages_without_notices():
    data = full_table().to_dict()
    for key in ("pictures", "message_photo", "hand_photos", "turn_notices", "leave_prompts"):
        del data[key]
    table = Table.from_dict(data)
    assert table.message_photo is False and table.pictures is True
    assert table.hand_photos == [False, False, False]
    assert table.turn_notices == [None, None, None]
    assert table.leave_prompts == [None, None, None]


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
    assert table.selections == [[], [], []] and table.hint_index == [0, 0, 0]


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
