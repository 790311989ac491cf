"""Golden pictures: fixed inputs rendered and compared with the reference PNGs in golden/.

Regenerate the references after an intended change of the drawing with
``UPDATE_GOLDEN=1 pytest tests/images/test_golden.py`` and look at them before committing.
The comparison allows a small mean difference (< 1.0 per channel, on 0..255) so that another
Pillow or FreeType version does not fail the test, while a moved, missing or recoloured element
does.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from images import render_hand, render_leaderboard, render_result, render_table
from tests.images import scenes

GOLDEN = Path(__file__).parent / "golden"
TOLERANCE = 1.0

CASES: dict[str, Callable[[], bytes]] = {
    "hand_20": lambda: render_hand(scenes.HAND_20, scenes.HAND_20_SELECTED, fmt="PNG"),
    "hand_33": lambda: render_hand(scenes.HAND_33, scenes.HAND_33_SELECTED, fmt="PNG"),
    "table_3": lambda: render_table(scenes.TABLE_3, fmt="PNG"),
    "table_bidding": lambda: render_table(scenes.TABLE_BIDDING, fmt="PNG"),
    "table_4": lambda: render_table(scenes.TABLE_4, fmt="PNG"),
    "table_straight": lambda: render_table(scenes.TABLE_STRAIGHT, fmt="PNG"),
    "result": lambda: render_result(scenes.RESULT, fmt="PNG"),
    "result_escape": lambda: render_result(scenes.RESULT_ESCAPE, fmt="PNG"),
    "leaderboard": lambda: render_leaderboard(scenes.LEADERBOARD, fmt="PNG"),
    "leaderboard_balances": lambda: render_leaderboard(scenes.LEADERBOARD_BALANCES, fmt="PNG"),
    "hand_empty": lambda: render_hand((), labels=scenes.HANS, fmt="PNG"),
}


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel (0..255) of two same-size RGB images."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    return sum(ImageStat.Stat(diff).mean) / 3


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_golden(name: str) -> None:
    data = CASES[name]()
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_bytes(data)
        pytest.skip(f"wrote {path}")
    assert path.exists(), f"no reference {path}: run with UPDATE_GOLDEN=1 once"
    got = Image.open(io.BytesIO(data))
    want = Image.open(path)
    assert got.size == want.size
    assert mean_difference(got, want) < TOLERANCE


def test_difference_detects_a_changed_picture() -> None:
    """The tolerance is loose for versions, not for content: another hand fails the test."""
    want = Image.open(GOLDEN / "hand_20.png")
    other = Image.open(io.BytesIO(render_hand(scenes.HAND_20, (), fmt="PNG")))
    assert other.size == want.size
    assert mean_difference(other, want) >= TOLERANCE
