"""The JSON-lines referee ``python -m engine.judge`` (shared/cases/README.md)."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest

import engine.judge
from engine.judge import answer_line, handle

ROOT = Path(__file__).resolve().parents[2]


def test_classify_lists_readings() -> None:
    assert handle({"op": "classify", "cards": "33344456"}) == {
        "readings": [{"type": "plane_single", "main": "4", "n": 2}]
    }
    assert handle({"op": "classify", "cards": "XD"}) == {
        "readings": [{"type": "rocket", "main": "D", "n": 1}]
    }
    assert handle({"op": "classify", "cards": "3344"}) == {"readings": []}


def test_classify_accepts_any_order_ten_and_lower_case() -> None:
    assert handle({"op": "classify", "cards": "q10j9k"}) == {
        "readings": [{"type": "straight", "main": "K", "n": 5}]
    }


def test_classify_with_house_options() -> None:
    request = {"op": "classify", "cards": "3333XD", "options": {"rocket_kickers": True}}
    assert handle(request) == {"readings": [{"type": "four_two_singles", "main": "3", "n": 1}]}
    request = {"op": "classify", "cards": "333345", "options": {"four_two_is_bomb": True}}
    assert handle(request) == {"readings": [{"type": "bomb", "main": "3", "n": 1}]}


def test_beats() -> None:
    assert handle({"op": "beats", "play": "4445", "prev": "3339"}) == {"beats": True}
    assert handle({"op": "beats", "play": "3339", "prev": "4445"}) == {"beats": False}
    assert handle({"op": "beats", "play": "5555", "prev": "XD"}) == {"beats": False}


def test_beats_with_cards_that_are_no_combination_is_false() -> None:
    assert handle({"op": "beats", "play": "4445", "prev": "33345"}) == {"beats": False}
    assert handle({"op": "beats", "play": "3344", "prev": "3"}) == {"beats": False}


def test_moves_leading_and_following() -> None:
    assert handle({"op": "moves", "hand": "33XD", "prev": None}) == {
        "moves": [
            {"cards": "3", "type": "single"},
            {"cards": "X", "type": "single"},
            {"cards": "D", "type": "single"},
            {"cards": "33", "type": "pair"},
            {"cards": "XD", "type": "rocket"},
        ]
    }
    assert handle({"op": "moves", "hand": "33XD"})["moves"][0] == {"cards": "3", "type": "single"}
    assert handle({"op": "moves", "hand": "ADTT752X", "prev": "34567"}) == {
        "moves": [{"cards": "XD", "type": "rocket"}]
    }
    assert handle({"op": "moves", "hand": "ADTT752X", "prev": "3344"}) == {"moves": []}


@pytest.mark.parametrize(
    ("request_", "error"),
    [
        ([1, 2], "a request must be a JSON object"),
        ("classify", "a request must be a JSON object"),
        ({}, "unknown op None"),
        ({"op": "shuffle"}, "unknown op 'shuffle'"),
        ({"op": 3}, "unknown op 3"),
        ({"op": "classify"}, "missing field 'cards'"),
        ({"op": "classify", "cards": "3Z"}, "cards: unknown card 'Z'"),
        ({"op": "classify", "cards": "33333"}, "cards: too many 3"),
        ({"op": "classify", "cards": "XX"}, "cards: too many X"),
        ({"op": "classify", "cards": ""}, "cards: no cards"),
        ({"op": "classify", "cards": 33}, "cards: a card string is expected, got int"),
        ({"op": "classify", "cards": ["3"]}, "cards: a card string is expected, got list"),
        ({"op": "beats", "play": "3"}, "missing field 'prev'"),
        ({"op": "beats", "play": "3", "prev": "1"}, "prev: unknown card '1'"),
        ({"op": "moves", "prev": "3"}, "missing field 'hand'"),
        ({"op": "moves", "hand": "33", "prev": 5}, "prev: a card string is expected"),
        ({"op": "classify", "cards": "3", "options": {"jokers": True}}, "unknown rule options"),
        ({"op": "classify", "cards": "3", "options": {"rocket_kickers": 1}}, "bool expected"),
        ({"op": "classify", "cards": "3", "options": []}, "options: an object is expected"),
        ({"op": "classify", "cards": "3", "preset": "poker"}, "unknown preset 'poker'"),
        ({"op": "classify", "cards": "3", "preset": 1}, "preset: a name is expected"),
    ],
)
def test_bad_requests_get_an_error(request_: object, error: str) -> None:
    answer = handle(request_)
    assert list(answer) == ["error"]
    assert error in answer["error"]


def test_malformed_json_gets_an_error_line() -> None:
    assert "malformed JSON" in json.loads(answer_line("{op: classify"))["error"]
    assert json.loads(answer_line('{"op": "classify", "cards": "22"}')) == {
        "readings": [{"type": "pair", "main": "2", "n": 1}]
    }


def test_replay_is_delegated_to_engine_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr(engine.judge, "run_replay",
                        lambda r, rules: seen.append((r, rules.variant)) or {"ok": True})
    request = {"op": "replay", "preset": "score"}
    assert handle(request) == {"ok": True}
    assert seen == [(request, "three")]
    assert handle({"op": "replay", "variant": "four"}) == {"ok": True}
    assert seen[-1][1] == "four"


def test_an_unexpected_failure_is_an_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(request: dict) -> dict:
        raise RuntimeError("boom")

    monkeypatch.setitem(engine.judge._OPS, "classify", broken)
    assert json.loads(answer_line('{"op": "classify"}')) == {
        "error": "internal error: RuntimeError: boom"
    }


def test_cli_answers_line_by_line_and_survives_bad_lines() -> None:
    lines = [
        '{"op": "classify", "cards": "333444555777"}',
        "not json",
        "",
        '{"op": "beats", "play": "XD", "prev": "2222"}',
        '{"op": "classify", "cards": "3Z"}',
        '["op"]',
        '{"op": "moves", "hand": "3XD", "prev": "4"}',
    ]
    done = subprocess.run(
        [sys.executable, "-m", "engine.judge"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.stderr == ""
    assert len(answers) == 6  # the blank line is skipped
    assert answers[0] == {"readings": [{"type": "plane_single", "main": "5", "n": 3}]}
    assert list(answers[1]) == ["error"] and "malformed JSON" in answers[1]["error"]
    assert answers[2] == {"beats": True}
    assert answers[3] == {"error": "cards: unknown card 'Z'"}
    assert answers[4] == {"error": "a request must be a JSON object"}
    assert answers[5] == {
        "moves": [{"cards": "X", "type": "single"}, {"cards": "D", "type": "single"},
                  {"cards": "XD", "type": "rocket"}]
    }


def test_doctests() -> None:
    assert doctest.testmod(engine.judge).failed == 0
