"""Result (images/result.py) and leaderboard (images/leaderboard.py) pictures."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import ImageChops

from images import (
    LeaderboardRow,
    RenderError,
    ResultScene,
    ResultSeat,
    render_leaderboard,
    render_result,
)
from images.leaderboard import leaderboard_image
from images.result import breakdown, result_image
from tests.images import scenes


def test_breakdown_lists_every_factor() -> None:
    """RULES.md §7: base × 2^bombs × spring; the last tag is the final multiplier."""
    assert breakdown(scenes.RESULT) == ["BASE 3", "BOMBS 2 = x4", "SPRING x2", "x16"]
    plain = dataclasses.replace(scenes.RESULT, bombs=0, spring=False, anti_spring=True,
                                multiplier=2)
    assert breakdown(plain) == ["BASE 3", "ANTI-SPRING x2", "x2"]


def test_result_picture() -> None:
    data = render_result(scenes.RESULT)
    assert data.startswith(b"\x89PNG") and len(data) < 150 * 1024
    assert len(render_result(scenes.RESULT, fmt="JPEG")) < 150 * 1024
    im = result_image(scenes.RESULT)
    assert im.width == 1280
    farmers = result_image(dataclasses.replace(scenes.RESULT, winner="farmers"))
    title = (0, 0, 1280, 110)
    assert ImageChops.difference(im.crop(title), farmers.crop(title)).getbbox() is not None
    four = dataclasses.replace(scenes.RESULT, seats=scenes.RESULT.seats + (
        ResultSeat("P4", "farmer", 0, 0, tuple(range(33))),))
    assert result_image(four).height > im.height


def test_leaderboard_picture() -> None:
    data = render_leaderboard(scenes.LEADERBOARD, "LEADERBOARD")
    assert data.startswith(b"\x89PNG") and len(data) < 150 * 1024
    short = leaderboard_image(scenes.LEADERBOARD[:2], "LEADERBOARD")
    assert leaderboard_image(scenes.LEADERBOARD, "LEADERBOARD").height > short.height
    empty = leaderboard_image([], "LEADERBOARD")
    assert empty.width == 1280
    assert LeaderboardRow(1, "A", 0, 8, 2).win_rate == 0.25
    assert LeaderboardRow(1, "A", 0, 0, 0).win_rate == 0.0


def test_leaderboard_rows_without_wins_draw_no_rate() -> None:
    """A board whose wins are not known (the bot's /top today) draws "-" for the rate."""
    unknown = [dataclasses.replace(row, wins=None) for row in scenes.LEADERBOARD]
    assert unknown[0].win_rate is None
    known_im = leaderboard_image(scenes.LEADERBOARD, "LEADERBOARD")
    unknown_im = leaderboard_image(unknown, "LEADERBOARD")
    assert unknown_im.size == known_im.size
    rate_column = (950, 150, 1280, unknown_im.height)
    assert unknown_im.crop(rate_column).tobytes() != known_im.crop(rate_column).tobytes()
    names = (0, 0, 900, unknown_im.height)
    assert unknown_im.crop(names).tobytes() == known_im.crop(names).tobytes()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: render_leaderboard([], "排行榜"), "ASCII"),
        (lambda: render_leaderboard([LeaderboardRow(1, "A", 0, 0, 0)] * 26, "T"), "at most 25"),
        (lambda: render_leaderboard([("A", 1)], "T"), "LeaderboardRow"),
        (lambda: LeaderboardRow(1, "A", 0, 1, 2), "cannot exceed"),
        (lambda: LeaderboardRow(0, "A", 0, 1, 1), "rank"),
        (lambda: LeaderboardRow(1, "张三", 0, 1, 1), "ASCII"),
        (lambda: ResultScene("draw", scenes.RESULT.seats, 1, 1), "winner"),
        (lambda: ResultScene("landlord", scenes.RESULT.seats[:2], 1, 1), "3 or 4"),
        (lambda: ResultScene("landlord", scenes.RESULT.seats, 0, 1), "base"),
        (lambda: ResultSeat("A", "landlord", 1.5, 0), "points"),
        (lambda: ResultSeat("A", None, 1, 0), "role"),
        (lambda: ResultSeat("A", "farmer", 1, 0, (54,)), "unknown card 54"),
    ],
)
def test_bad_input_raises_a_clear_error(make, message) -> None:
    with pytest.raises(RenderError, match=message):
        make()
