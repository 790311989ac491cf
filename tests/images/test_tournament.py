"""A group tournament's pictures (images/tournament.py, RULES.md §10.1): the sign-up, the board
and the final ranking.

Sizes are checked against the layout, names by what is drawn: each text goes through a spy that
compares the canvas before and after (its ink), and a name's ink is as wide as the name at its
size (a CJK name included: its characters are drawn, not left out).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image, ImageChops

import images.tournament
from images.draw import GOLD
from images.errors import RenderError
from images.text import text_width
from images.tournament import (
    HEAD_H,
    MAX_MEMBERS,
    MEMBER_H,
    ROW_H,
    BoardSeat,
    BoardTable,
    FinalRow,
    FinalScene,
    PrizeSlot,
    SignupScene,
    TournamentBoardScene,
    final_image,
    render_tournament_board,
    render_tournament_final,
    render_tournament_signup,
    signup_image,
    tournament_board_image,
)
from tests.images.scenes import HANS

Box = tuple[int, int, int, int]
PRIZES = (PrizeSlot(1, 50, 500), PrizeSlot(2, 30, 300), PrizeSlot(3, 20, 200))
MEMBERS = ("韩梅梅", "Bob", "李雷", "Annabelle-Christina Longname", "欧阳娜娜", "Eve", "Fay")


def signup(members: tuple[str, ...] = MEMBERS, mark: str = "") -> SignupScene:
    return SignupScene("🏆 锦标赛 #7 · quick (快速赛)",
                       ("第1轮：7 人，2 桌，轮空 1 人；每桌 3 局", "决赛：一桌 3 人；每桌 6 局"),
                       "报名费：100 欢乐豆", PRIZES, "满 30 人开赛", "抽签种子 SHA-256：5947d7c3…",
                       f"已报名 {len(members)}/30（至少 3 人）", members, "奖金", "{beans} 欢乐豆",
                       mark=mark, lang="zh-Hans")


def board(tag: str = "晋级区", mark: str = "") -> TournamentBoardScene:
    return TournamentBoardScene("📋 锦标赛 #7 · 第1轮", (
        BoardTable("第1桌 · 已打 3 局 · 进行中", (BoardSeat("韩梅梅", "+12 分", "胜 2 局", tag),
                                                 BoardSeat("Bob", "-4 分", "胜 1 局"),
                                                 BoardSeat("李雷", "-8 分", "胜 0 局"))),
        BoardTable("第2桌 · 已打 3 局 · 已结束", (BoardSeat("Eve", "+2 分", "胜 2 局"),
                                                 BoardSeat("Fay", "-1 分", "胜 1 局"),
                                                 BoardSeat("Gus", "-1 分", "胜 0 局", "离开",
                                                           out=True)), done=True)),
        "轮空：欧阳娜娜", mark=mark, lang="zh-Hans")


def final(rows: tuple[FinalRow, ...] | None = None) -> FinalScene:
    rows = rows or (FinalRow(1, "韩梅梅", "40", 500), FinalRow(2, "Bob", "10", 300),
                    FinalRow(3, "李雷", "-50", 200), FinalRow(None, "Fay"))
    return FinalScene("锦标赛 #7 · 最终排名", rows, "冠军",
                      "种子：00112233445566778899aabbccddeeff", "SHA-256 5947d7c33d783f94", HANS,
                      "+{beans} 欢乐豆")


def _image(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


class Ink:
    """Records what the module draws: ``(text, size, ink box)`` per :func:`draw_text` call."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, int, Box]] = []

    def spy(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(canvas: Image.Image, xy: Any, text: str, size: int, *args: Any,
                    **kwargs: Any) -> Any:
            before = canvas.copy()
            out = real(canvas, xy, text, size, *args, **kwargs)
            box = ImageChops.difference(before, canvas).getbbox()
            if box is not None:
                self.drawn.append((text, size, box))
            return out
        return wrapper

    def box(self, text: str) -> tuple[int, Box]:
        (found,) = [(size, box) for drawn, size, box in self.drawn if drawn == text]
        return found


@pytest.fixture
def ink(monkeypatch: pytest.MonkeyPatch) -> Iterator[Ink]:
    record = Ink()
    monkeypatch.setattr(images.tournament, "draw_text", record.spy(images.tournament.draw_text))
    yield record


def test_the_signup_grows_with_its_members_and_draws_the_same_bytes_for_the_same_scene():
    few, many = signup(MEMBERS[:3]), signup(MEMBERS)
    assert _image(render_tournament_signup(few)).width == 1280
    # three columns: 3 members take one row, 7 take three
    height = {name: _image(render_tournament_signup(scene)).height
              for name, scene in (("few", few), ("many", many), ("none", signup(())))}
    assert height["many"] - height["few"] == 2 * MEMBER_H
    assert height["none"] == height["few"]
    assert render_tournament_signup(many) == render_tournament_signup(many)
    assert render_tournament_signup(many, fmt="JPEG")[:2] == b"\xff\xd8"
    # past MAX_MEMBERS the rest are counted on one more row
    crowd = tuple(f"P{i}" for i in range(MAX_MEMBERS + 5))
    assert _image(render_tournament_signup(signup(crowd))).height == \
        _image(render_tournament_signup(signup(crowd[:MAX_MEMBERS]))).height + MEMBER_H
    # a closed sign-up carries its mark, the same size
    closed = signup(mark="报名已截止")
    assert render_tournament_signup(closed) != render_tournament_signup(many)
    assert _image(render_tournament_signup(closed)).size == \
        _image(render_tournament_signup(many)).size


def test_the_signup_draws_every_member_whole_or_cut_to_its_room(ink: Ink):
    signup_image(signup())
    for name in ("韩梅梅", "Bob", "李雷", "欧阳娜娜"):
        size, box = ink.box(name)
        assert box[2] - box[0] == pytest.approx(text_width(name, size, "zh-Hans"), abs=6)
    long = [text for text, _, _ in ink.drawn if text.startswith("Annabelle")]
    assert long == [long[0]] and long[0].endswith("…")  # cut to its column
    # the prize table: a share and its beans per place; the title without its emoji
    for text in ("50%", "30%", "20%", "500 欢乐豆", "200 欢乐豆", "锦标赛 #7 · quick (快速赛)"):
        ink.box(text)


def test_the_board_draws_a_panel_per_table_and_the_tags(ink: Ink):
    scene = board()
    image = tournament_board_image(scene)
    assert image.width == 1280
    for name in ("韩梅梅", "Bob", "李雷", "Eve", "Fay", "Gus"):
        size, box = ink.box(name)
        assert box[2] - box[0] == pytest.approx(text_width(name, size, "zh-Hans"), abs=6)
    # the two tables side by side: their players' names start in two columns
    left = ink.box("韩梅梅")[1][0]
    right = ink.box("Eve")[1][0]
    assert right - left > 500 and ink.box("Bob")[1][1] > ink.box("韩梅梅")[1][1]
    ink.box("轮空：欧阳娜娜")
    assert render_tournament_board(scene) == render_tournament_board(scene)
    # a through tag is drawn only where the scene has it
    assert render_tournament_board(board(tag="")) != render_tournament_board(scene)
    # three tables take a second row of panels; a closed board carries its mark
    third = BoardTable("第3桌 · 已打 0 局 · 进行中",
                       (BoardSeat("A", "0 分"), BoardSeat("B", "0 分"), BoardSeat("C", "0 分")))
    taller = TournamentBoardScene(scene.title, (*scene.tables, third), scene.byes,
                                  lang="zh-Hans")
    assert _image(render_tournament_board(taller)).height > image.height
    assert render_tournament_board(board(mark="已结束")) != render_tournament_board(scene)


def test_the_final_crowns_the_champion_and_reveals_the_seed(ink: Ink):
    image = final_image(final())
    assert image.size[0] == 1280
    # the champion is named large in the banner and in the first row; the seed at the bottom
    assert [text for text, _, _ in ink.drawn].count("韩梅梅") == 2
    banner = [box for text, size, box in ink.drawn if text == "韩梅梅" and size == 40]
    assert banner and banner[0][1] > HEAD_H
    seed = ink.box("种子：00112233445566778899aabbccddeeff")[1]
    assert seed[1] > image.height - 120
    for text in ("+500 欢乐豆", "+300 欢乐豆", "+200 欢乐豆", "冠军"):
        ink.box(text)
    # a drawn crown: gold pixels above the champion's name in the banner
    name = banner[0]
    above = image.crop((name[0], HEAD_H, name[2], name[1])).getcolors(1 << 16) or []
    assert any(color == GOLD for _, color in above)
    five = final((*final().rows, FinalRow(4, "Eve")))
    assert _image(render_tournament_final(five)).height - image.height == ROW_H
    # without a champion (everyone left) no banner is drawn
    nobody = final((FinalRow(None, "Fay"), FinalRow(None, "Gus")))
    assert _image(render_tournament_final(nobody)).height < image.height


@pytest.mark.parametrize("make", [
    lambda: PrizeSlot(0, 50),
    lambda: PrizeSlot(1, -1),
    lambda: PrizeSlot(1, 50, -3),
    lambda: BoardSeat("a", ""),
    lambda: BoardTable("t", ()),
    lambda: FinalRow(0, "a"),
    lambda: FinalRow(1, "a", prize=-1),
    lambda: SignupScene("t", (), "f", PRIZES, "s", "h", "n"),
    lambda: SignupScene("t", ("a\nb",), "f", PRIZES, "s", "h", "n"),
    lambda: SignupScene("t", ("a",), "f", (), "s", "h", "n"),
    lambda: TournamentBoardScene("t", ()),
    lambda: FinalScene("t", (), "c", "s", "h"),
])
def test_bad_scenes_are_refused(make: Callable[[], object]):
    with pytest.raises(RenderError):
        make()


def test_only_their_scenes_are_drawn():
    for render in (render_tournament_signup, render_tournament_board, render_tournament_final):
        with pytest.raises(RenderError):
            render("scene")  # type: ignore[arg-type]
