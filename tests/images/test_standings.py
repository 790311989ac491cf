"""A match's standings picture (images/standings.py, issue 11 item 3, RULES.md §10)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from images.errors import RenderError
from images.result import result_image
from images.standings import (
    NOTE_H,
    ROW_H,
    TOP,
    StandingsRow,
    StandingsScene,
    render_result_with_standings,
    render_standings,
    standings_image,
)
from tests.images.scenes import HANS, RESULT

ROWS = (StandingsRow(1, "韩梅梅", "+8 分", "第 3/3 局", prize=90),
        StandingsRow(2, "Bob", "+2 分", "第 3/3 局", prize=60),
        StandingsRow(3, "李雷", "0 筹码", "出局", out=True))


def _image(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def test_standings_grow_with_the_note_and_draw_the_same_bytes_for_the_same_scene():
    after_deal = StandingsScene("排名 · 定局积分", ROWS, labels=HANS)
    with_note = StandingsScene("排名 · 打立出局", ROWS, "每分筹码：4 个", labels=HANS)
    assert _image(render_standings(after_deal)).size == (1280, TOP + 3 * ROW_H + 24)
    assert _image(render_standings(with_note)).size == (1280, TOP + 3 * ROW_H + NOTE_H + 24)
    assert render_standings(after_deal) == render_standings(after_deal)
    assert render_standings(after_deal, fmt="JPEG")[:2] == b"\xff\xd8"


def test_a_knock_outs_standings_head_their_scores_chips():
    points = StandingsScene("排名 · 打立出局", ROWS, labels=HANS)
    chips = StandingsScene("排名 · 打立出局", ROWS, labels=HANS, chips=True)
    assert render_standings(points) != render_standings(chips)


def test_the_final_standings_differ_from_the_same_rows_after_a_deal():
    after_deal = StandingsScene("比赛结束 · 定局积分", ROWS, labels=HANS)
    final = StandingsScene("比赛结束 · 定局积分", ROWS, final=True, labels=HANS)
    # the champion's crown and the prize column are drawn only at the end
    assert render_standings(final) != render_standings(after_deal)
    no_prize = StandingsScene("比赛结束 · 定局积分",
                              tuple(StandingsRow(r.place, r.name, r.score, r.progress,
                                                 out=r.out) for r in ROWS),
                              final=True, labels=HANS)
    assert render_standings(final) != render_standings(no_prize)


def test_a_deals_result_is_drawn_above_the_standings_in_one_picture():
    standings = StandingsScene("排名 · 定局积分", ROWS, labels=HANS)
    top, bottom = result_image(RESULT), standings_image(standings)
    both = _image(render_result_with_standings(RESULT, standings)).convert("RGB")
    assert both.size == (1280, top.height + bottom.height)
    # the seam: the last row of the result, then the first of the standings (same felt)
    assert both.crop((0, 0, 1280, top.height)).getbbox() is not None
    assert _image(render_result_with_standings(RESULT, standings)).size[1] > top.height


@pytest.mark.parametrize("row", [
    dict(place=0, name="a", score="1", progress="x"),
    dict(place=True, name="a", score="1", progress="x"),
    dict(place=1, name="a", score="1", progress="x", prize=-5),
    dict(place=1, name="a", score="", progress="x"),
    dict(place=1, name="a", score="1", progress="a\nb"),
])
def test_bad_rows_are_refused(row):
    with pytest.raises(RenderError):
        StandingsRow(**row)


def test_bad_scenes_are_refused():
    with pytest.raises(RenderError):
        StandingsScene("排名", ())
    with pytest.raises(RenderError):
        StandingsScene("排名", ROWS + ROWS)
    with pytest.raises(RenderError):
        render_standings("standings")  # type: ignore[arg-type]
