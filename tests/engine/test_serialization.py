"""Action notation and lossless JSON of deal states (judge notation, shared/cases/README.md)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    ROB,
    SCORE,
    Action,
    ActionKind,
    ComboType,
    DealState,
    IllegalAction,
    apply,
    new_deal,
    preset,
)
from engine.ai.simple import choose_action
from engine.replay import apply_texts


@pytest.mark.parametrize("text", ["bid 1", "bid 3", "pass", "call", "decline", "rob", "norob",
                                  "double", "nodouble", "show", "play 33344456", "play XD",
                                  "timeout", "autoplay 1", "autoplay 0", "leave"])
def test_action_parse_and_str_round_trip(text):
    action = Action.parse(1, text)
    assert str(action) == text and action.seat == 1
    assert Action.parse(1, str(action)) == action


def test_action_parse_normalises_cards_and_reads_an_optional_type():
    assert Action.parse(0, "play 654344").cards == (0, 1, 1, 1, 2, 3)
    assert str(Action.parse(0, "PLAY 10jqka9")) == "play 9TJQKA"
    typed = Action.parse(0, "play 333444555777 plane_single")
    assert typed.type == ComboType.PLANE_SINGLE and str(typed) == "play 333444555777"
    assert Action("play", 0, cards=(3, 0, 0)).cards == (0, 0, 3)


def test_action_kinds_are_the_protocols_words_and_a_plain_word_builds_the_same_action():
    assert [str(k) for k in ActionKind] == [
        "bid", "pass", "call", "decline", "rob", "norob", "double", "nodouble", "show", "play",
        "timeout", "autoplay", "leave"]
    built = Action("bid", 2, value=3)  # a stored state's or the judge's word
    assert built == Action(ActionKind.BID, 2, value=3) == Action.parse(2, "bid 3")
    assert built.kind is ActionKind.BID and built.kind == "bid"
    state = apply(new_deal(SCORE, seed=3, first_bidder=2), built)
    assert '"history":[{"kind":"bid","seat":2,"value":3}]' in state.to_json()
    with pytest.raises(IllegalAction, match="^A 'pass' action carries no value.$"):
        Action(ActionKind.PASS, 0, value=1)
    with pytest.raises(IllegalAction, match="^Unknown action 'fly'.$"):
        Action("fly", 0)


@pytest.mark.parametrize("text", ["", "fly", "bid", "bid x", "pass 3", "play", "play 3Z",
                                  "play 333333333", "play 3 bogus_type", "autoplay 2", "leave now"])
def test_action_parse_rejects_bad_text(text):
    with pytest.raises(IllegalAction) as info:
        Action.parse(0, text)
    assert info.value.code == "bad_action"


@pytest.mark.parametrize("kwargs", [
    {"kind": "play", "seat": 0}, {"kind": "play", "seat": 0, "cards": (15,)},
    {"kind": "pass", "seat": 0, "cards": (1,)}, {"kind": "double", "seat": 0, "value": 1},
    {"kind": "bid", "seat": -1, "value": 1}, {"kind": "bid", "seat": 0, "value": "2"},
])
def test_malformed_actions_are_refused_when_built(kwargs):
    with pytest.raises(IllegalAction) as info:
        Action(**kwargs)
    assert info.value.code == "bad_action"


def test_seat_beyond_the_table_is_a_bad_action():
    with pytest.raises(IllegalAction) as info:
        apply(new_deal(SCORE, seed=1), Action("bid", 3, value=1))
    assert info.value.code == "bad_action"


RULE_SETS = [SCORE, ROB, preset("score", doubling=True, show_cards=True, multiplier_cap=32)]


def random_states(seed: int, rules_index: int) -> list[DealState]:
    """Every state of an AI-played deal with random meta actions (RULES.md §9)."""
    rng = random.Random(seed)
    state = new_deal(RULE_SETS[rules_index], seed=seed, first_bidder=seed % 3)
    states = [state]
    while state.to_act:
        seat = state.to_act[0]
        roll = rng.random()
        if roll < 0.05:
            action = Action("timeout", seat)
        elif roll < 0.08 and not state.escaped[seat]:
            action = Action("autoplay", seat, value=0 if state.autoplay[seat] else 1)
        elif roll < 0.09 and not state.escaped[seat]:
            action = Action("leave", seat)
        elif roll < 0.12 and Action("show", seat) in state.legal_actions(seat):
            action = Action("show", seat)
        else:
            action = choose_action(state.view(seat))
        state = apply(state, action)
        states.append(state)
    return states


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), rules_index=st.integers(0, len(RULE_SETS) - 1))
def test_property_json_round_trip_is_lossless(seed, rules_index):
    for state in random_states(seed, rules_index):
        text = state.to_json()
        back = DealState.from_json(text)
        assert back == state and back.to_json() == text
        assert back.view(1) == state.view(1)
        if back.to_act:
            seat = back.to_act[0]
            action = choose_action(back.view(seat))
            assert apply(back, action) == apply(state, action)


def test_json_round_trip_of_a_finished_deal_keeps_the_result():
    state = apply_texts(new_deal(SCORE, seed=3), ["bid 1", "pass", "pass"])
    while state.to_act:
        state = apply(state, choose_action(state.view(state.to_act[0])))
    back = DealState.from_json(state.to_json())
    assert back.result == state.result and sum(back.result.points) == 0


def test_from_json_reads_a_state_stored_before_last_cards_existed():
    state = apply_texts(new_deal(SCORE, seed=3), ["bid 3"])
    state = apply(state, choose_action(state.view(state.to_act[0])))
    assert state.last_cards[state.landlord] is not None
    data = json.loads(state.to_json())
    del data["last_cards"]
    old = DealState.from_json(json.dumps(data))
    assert old.last_cards == (None, None, None)
    assert old == replace(state, last_cards=(None, None, None))


def test_from_json_reads_a_state_stored_without_autoplay_marks_as_none_marked():
    """RULES.md §9: a stored state without ``autoplayed`` loads with no seat marked."""
    state = apply_texts(new_deal(SCORE, seed=3), ["bid 3"])
    state = apply(state, Action("timeout", state.landlord))
    assert state.autoplayed[state.landlord]
    data = json.loads(state.to_json())
    del data["autoplayed"]
    old = DealState.from_json(json.dumps(data))
    assert old.autoplayed == (False, False, False)
    assert old == replace(state, autoplayed=(False, False, False))


def test_from_json_refuses_other_text():
    state = new_deal(SCORE, seed=2)
    data = json.loads(state.to_json())
    with pytest.raises(ValueError):
        DealState.from_json(json.dumps({**data, "format": 99}))
    del data["hands"]
    with pytest.raises(ValueError):
        DealState.from_json(json.dumps(data))
    with pytest.raises(ValueError):
        DealState.from_json("not json")
