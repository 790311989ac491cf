"""Every rule vector of ``shared/cases/*.jsonl`` through the judge, compared as the README says,
and the project's own four-seat cases of ``tests/engine/cases/`` (RULES.md §11) the same way.

``shared/`` lies beside the checkout (CI runs in a clone with a copy of it beside the clone);
``DDZ_CASES_DIR`` points elsewhere. A missing folder fails ``test_the_shared_cases_are_there``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.judge import handle

BESIDE_CHECKOUT = Path(__file__).resolve().parents[2].parent / "shared" / "cases"
CASES = Path(os.environ.get("DDZ_CASES_DIR") or BESIDE_CHECKOUT)
FILES = ("classify.jsonl", "beats.jsonl", "moves.jsonl", "replay.jsonl",
         "four_classify.jsonl", "four_beats.jsonl")
#: The project's own cases in the same format: four-seat ``moves`` and ``replay`` (RULES.md §11).
OWN_CASES = Path(__file__).resolve().parent / "cases"
OWN_FILES = ("four_moves.jsonl", "four_replay.jsonl")


def load_cases() -> list[Any]:
    params = []
    for folder, names in ((CASES, FILES), (OWN_CASES, OWN_FILES)):
        for name in names:
            path = folder / name
            if not path.exists():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip():
                    case = json.loads(line)
                    params.append(pytest.param(case["in"], case["out"], id=f"{name}:{number}"))
    return params


def test_the_shared_cases_are_there() -> None:
    for name in FILES:
        assert (CASES / name).is_file(), f"missing {CASES / name}"
    for name in OWN_FILES:
        assert (OWN_CASES / name).is_file(), f"missing {OWN_CASES / name}"
    assert len(load_cases()) >= 700


def move_set(moves: list[dict[str, str]]) -> set[tuple[str, str]]:
    return {(m["cards"], m["type"]) for m in moves}


@pytest.mark.parametrize(("request_", "expected"), load_cases())
def test_shared_case(request_: dict[str, Any], expected: Any) -> None:
    answer = handle(request_)
    if expected == "error":
        assert "error" in answer
    elif request_.get("op") == "moves":
        assert "moves" in answer, answer
        assert len(answer["moves"]) == len(move_set(answer["moves"])), "a move listed twice"
        assert move_set(answer["moves"]) == move_set(expected["moves"])
    elif request_.get("op") == "replay":
        for key, value in expected.items():
            assert key in answer, (key, answer)
            if key != "error":  # the text of an error is free, its index "at" is not
                assert answer[key] == value, (key, answer)
    else:
        assert answer == expected
