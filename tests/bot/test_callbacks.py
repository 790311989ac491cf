"""Callback data: compact, round-trips, forged data is refused (issue 3, "Never trust input")."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.callbacks import (
    ACTION,
    ACTION_PAYLOADS,
    MAX_BYTES,
    PAYLOADS,
    SELECT,
    Callback,
    CallbackError,
    make_callback,
    new_token,
    parse_callback,
)

TOKEN = "k3Xq9ZpT"


def test_round_trip_every_kind_and_payload():
    for kind, payloads in PAYLOADS.items():
        for payload in payloads:
            data = make_callback(kind, TOKEN, 9_999_999, payload)
            assert len(data.encode()) <= MAX_BYTES
            assert parse_callback(data) == Callback(kind, TOKEN, 9_999_999, payload)
            assert str(parse_callback(data)) == data


def test_rank_payload():
    assert parse_callback(f"S:{TOKEN}:3:r14").rank == 14
    assert parse_callback(f"S:{TOKEN}:3:r0").rank == 0
    with pytest.raises(CallbackError):
        _ = parse_callback(f"S:{TOKEN}:3:play").rank
    with pytest.raises(CallbackError):
        _ = parse_callback(f"A:{TOKEN}:3:pass").rank


def test_leave_confirmation_names_the_seat_that_asked():
    assert parse_callback(f"Q:{TOKEN}:0:yes2").seat == 2
    assert parse_callback(f"Q:{TOKEN}:0:no0").seat == 0
    with pytest.raises(CallbackError):
        _ = parse_callback(f"S:{TOKEN}:3:r1").seat


def test_action_payloads_name_engine_actions():
    assert ACTION_PAYLOADS["bid3"] == ("bid", 3)
    assert ACTION_PAYLOADS["auto0"] == ("autoplay", 0)
    assert {kind for kind, _ in ACTION_PAYLOADS.values()} == {
        "bid", "pass", "call", "decline", "rob", "norob", "double", "nodouble", "show", "autoplay",
    }


@pytest.mark.parametrize(
    "data",
    [
        None,
        b"A:k3Xq9ZpT:1:pass",
        "",
        "A",
        f"A:{TOKEN}:1",
        f"A:{TOKEN}:1:pass:x",
        f"Z:{TOKEN}:1:pass",
        f"a:{TOKEN}:1:pass",
        f"A:{TOKEN[:-1]}:1:pass",
        f"A:{TOKEN}x:1:pass",
        "A:k3Xq9Zp-:1:pass",
        "A:k3Xq9Zpé:1:pass",
        f"A:{TOKEN}:-1:pass",
        f"A:{TOKEN}:+1:pass",
        f"A:{TOKEN}:01:pass",
        f"A:{TOKEN}:10000000:pass",
        f"A:{TOKEN}: 1:pass",
        f"A:{TOKEN}:١:pass",
        f"A:{TOKEN}:1:bid4",
        f"A:{TOKEN}:1:bid0",
        f"A:{TOKEN}:1:play",
        f"S:{TOKEN}:1:r15",
        f"S:{TOKEN}:1:r-1",
        f"S:{TOKEN}:1:r07",
        f"S:{TOKEN}:1:pass",
        f"L:{TOKEN}:0:kick",
        f"M:{TOKEN}:0:x",
        f"Q:{TOKEN}:0:",
        f"Q:{TOKEN}:0:yes",
        f"Q:{TOKEN}:0:no4",
        f"Q:{TOKEN}:0:yes-1",
        f"A:{TOKEN}:1:pass\n",
        "A:" + "k" * 70 + ":1:pass",
    ],
)
def test_forged_data_is_refused(data):
    with pytest.raises(CallbackError):
        parse_callback(data)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_random_text_never_crashes(data):
    try:
        cb = parse_callback(data)
    except CallbackError:
        return
    assert data == str(cb)
    assert cb.payload in PAYLOADS[cb.kind]


def test_new_tokens_parse_and_differ():
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert parse_callback(make_callback(SELECT, token, 0, "hint")).token == token
        assert parse_callback(make_callback(ACTION, token, 0, "pass")).token == token


def test_make_callback_refuses_what_it_could_not_parse():
    with pytest.raises(CallbackError):
        make_callback(ACTION, TOKEN, 1, "bid9")
