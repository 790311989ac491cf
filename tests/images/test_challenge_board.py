"""The duplicate challenge's board picture (images/challenge_board.py, issue 12)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from images.challenge_board import ROW_H, TOP, BoardRow, BoardScene, render_challenge_board
from images.errors import RenderError
from tests.images.scenes import HANS


def _image(scene: BoardScene) -> Image.Image:
    return Image.open(io.BytesIO(render_challenge_board(scene)))


def test_the_board_grows_with_its_rows_and_draws_the_same_bytes_for_the_same_scene():
    rows = (BoardRow(1, "韩梅梅", 4, 2, 2), BoardRow(2, "Bob", 2, 2, 2),
            BoardRow(None, "李雷", 0, 0, 2))
    scene = BoardScene("复式挑战 #12", rows, HANS)
    image = _image(scene)
    assert image.format == "PNG" and image.size == (1280, TOP + 3 * ROW_H + 24)
    assert render_challenge_board(scene) == render_challenge_board(scene)
    empty = _image(BoardScene("复式挑战 #12", (), HANS))
    assert empty.size == (1280, TOP + ROW_H + 24)
    assert render_challenge_board(scene, fmt="JPEG")[:2] == b"\xff\xd8"


@pytest.mark.parametrize("row", [
    dict(place=0, name="a", matchpoints=1, deals=1, total=2),
    dict(place=1, name="a", matchpoints=-1, deals=1, total=2),
    dict(place=1, name="a", matchpoints=1, deals=3, total=2),
    dict(place=True, name="a", matchpoints=0, deals=0, total=2),
])
def test_bad_rows_are_refused(row):
    with pytest.raises(RenderError):
        BoardRow(**row)


def test_only_a_board_scene_is_drawn():
    with pytest.raises(RenderError):
        render_challenge_board("board")  # type: ignore[arg-type]
    with pytest.raises(RenderError):
        BoardScene("t", tuple(BoardRow(1, "a", 0, 0, 1) for _ in range(26)))


def test_a_closed_challenges_board_carries_the_final_mark():
    rows = (BoardRow(1, "韩梅梅", 4, 2, 2),)
    open_board = BoardScene("复式挑战 #12", rows, HANS)
    closed = BoardScene("复式挑战 #12", rows, HANS, mark=HANS.final)
    cancelled = BoardScene("复式挑战 #12", rows, HANS, mark=HANS.cancelled)
    drawn = {render_challenge_board(s) for s in (open_board, closed, cancelled)}
    assert len(drawn) == 3
    assert _image(closed).size == _image(open_board).size
