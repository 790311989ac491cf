"""Room in the pictures: big bean amounts clear of the cards on the result picture, names cut to
their column's room on the boards, a visible win-rate track on every leaderboard row.

The boxes are measured on the drawn picture: each text or card block is drawn through a spy that
compares the canvas before and after the drawing (its ink), not from the layout's numbers.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image, ImageChops

import images.challenge_board
import images.leaderboard
import images.result
import images.standings
import images.table
from engine.cards import parse_ranks
from images import (
    ENGLISH,
    Labels,
    LeaderboardRow,
    LeaderboardScene,
    ResultScene,
    ResultSeat,
    cards_for_ranks,
)
from images.challenge_board import BoardRow, BoardScene
from images.draw import FELT, PANEL
from images.leaderboard import COLUMNS, ROW_H, TOP, leaderboard_image
from images.result import result_image, signed
from images.standings import StandingsRow, StandingsScene, standings_image
from images.table import table_image
from tests.images import scenes

Box = tuple[int, int, int, int]
LANGS = {"en": ENGLISH, "zh-Hans": scenes.HANS, "zh-Hant": scenes.HANT}
#: Least blank room between two drawn elements of a row, in px.
CLEAR = 14


class Ink:
    """Records what a picture module draws: ``(text or "cards", ink box)`` per call."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, Box]] = []

    def spy(self, real: Callable[..., Any], what: Callable[..., str]) -> Callable[..., Any]:
        def wrapper(canvas: Image.Image, *args: Any, **kwargs: Any) -> Any:
            before = canvas.copy()
            out = real(canvas, *args, **kwargs)
            box = ImageChops.difference(before, canvas).getbbox()
            if box is not None:
                self.drawn.append((what(*args), box))
            return out
        return wrapper

    def boxes(self, text: str) -> list[Box]:
        return [box for drawn, box in self.drawn if drawn == text]


@pytest.fixture
def ink(monkeypatch: pytest.MonkeyPatch) -> Iterator[Ink]:
    record = Ink()
    for module in (images.result, images.leaderboard, images.standings,
                   images.challenge_board, images.table):
        monkeypatch.setattr(module, "draw_text",
                            record.spy(module.draw_text, lambda xy, text, *a: text))
    monkeypatch.setattr(images.result, "draw_cards_block",
                        record.spy(images.result.draw_cards_block, lambda *a: "cards"))
    yield record


def big_result(labels: Labels, landlord: int, farmer: int) -> ResultScene:
    """The landlord played out (the ``played_out`` words), the farmers keep 20 and 2 cards."""
    return ResultScene(
        winner="landlord" if landlord > 0 else "farmers",
        seats=(ResultSeat("A", "landlord", 2048 * (1 if landlord > 0 else -1), landlord,
                          name="Annabelle"),
               ResultSeat("B", "farmer", -1024 if landlord > 0 else 1024, farmer,
                          cards_for_ranks(parse_ranks("33445566778899TTJJQK")), name="Bob",
                          multiplier=1024),
               ResultSeat("C", "farmer", -1024 if landlord > 0 else 1024, farmer,
                          cards_for_ranks(parse_ranks("55")), name="韩梅梅",
                          multiplier=1024)),
        base=1, multiplier=1024, bombs=10, labels=labels)


def rows_of(ink: Ink, scene: ResultScene) -> list[tuple[Box, Box, Box]]:
    """Per seat: the ink of its points, of its beans and of its cards or ``played_out``, found
    by the row they lie in."""
    tails = ink.boxes("cards") + ink.boxes(scene.labels.played_out)
    out = []
    for i, seat in enumerate(scene.seats):
        top = images.result.TOP + i * (images.result.ROW_H + images.result.ROW_GAP)

        def inside(boxes: list[Box], top: int = top) -> Box:
            (box,) = {b for b in boxes if top <= b[1] and b[3] <= top + images.result.ROW_H}
            return box

        out.append((inside(ink.boxes(signed(seat.points))), inside(ink.boxes(signed(seat.beans))),
                    inside(tails)))
    return out


@pytest.mark.parametrize("lang", sorted(LANGS))
@pytest.mark.parametrize(("landlord", "farmer"), [
    (98_765_432, -49_382_716),        # 8 digits, a 10,000-bean stake at a ×1024 deal
    (-24_000_000, 12_000_000),        # the landlord lost: a negative 8-digit figure first
    (512_000, -256_000),              # what the newcomer saw: 10 px short of "Played out"
    (90_000_000_000, -45_000_000_000),  # beyond any balance: drawn smaller, still clear
])
def test_big_amounts_stay_clear_of_the_points_and_the_cards(
        ink: Ink, lang: str, landlord: int, farmer: int) -> None:
    scene = big_result(LANGS[lang], landlord, farmer)
    result_image(scene)
    for points, beans, tail in rows_of(ink, scene):
        assert points[2] + CLEAR <= beans[0], (points, beans)
        assert beans[2] + CLEAR <= tail[0], (beans, tail)
        assert tail[2] <= images.result.WIDTH - 24  # inside the row's panel


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_an_eight_digit_amount_keeps_its_size(ink: Ink, lang: str) -> None:
    """The column widens for it instead of drawing it a third smaller: its digits are as tall
    as the points' (drawn at the full size)."""
    scene = big_result(LANGS[lang], 98_765_432, -49_382_716)
    result_image(scene)
    for points, beans, _ in rows_of(ink, scene):
        assert beans[3] - beans[1] >= (points[3] - points[1]) - 2


def test_small_amounts_keep_the_usual_places() -> None:
    """Up to four digits the cards start where they always did."""
    assert images.result.beans_column(scenes.RESULT_ESCAPE) == (660, 150, 740)
    no_beans = dataclasses.replace(scenes.RESULT_ESCAPE, with_beans=False)
    assert images.result.beans_column(no_beans) == (660, 150, 740)


LATIN = "Annabelle-Christina Longname"
HANZI = "韩梅梅是一个很长很长的名字"
TOO_LONG_LATIN = "Catherine Zeta-Jones Douglas of Swansea and Bermuda"
TOO_LONG_HANZI = "歐陽娜娜娜娜娜娜娜娜娜娜娜娜娜娜娜娜娜娜"


def cut_names(ink: Ink) -> list[str]:
    return [text for text, _ in ink.drawn if text.endswith("…")]


def test_leaderboard_names_use_the_room_of_their_column(ink: Ink) -> None:
    rows = (LeaderboardRow(1, LATIN, 512_000, 80, 51), LeaderboardRow(2, HANZI, 9000, 60, 33),
            LeaderboardRow(3, TOO_LONG_LATIN, -99_999_999, 12, 0),
            LeaderboardRow(4, TOO_LONG_HANZI, -20, 3, 0))
    for labels in LANGS.values():
        ink.drawn.clear()
        leaderboard_image(LeaderboardScene("Top", rows, labels=labels))
        assert ink.boxes(LATIN) and ink.boxes(HANZI)  # whole, where the table cuts them
        (latin_cut, hanzi_cut) = cut_names(ink)
        assert latin_cut.startswith("Catherine Zeta-Jones") and len(latin_cut) > 24
        assert hanzi_cut.startswith("歐陽娜娜娜娜娜娜娜娜娜娜娜") and len(hanzi_cut) > 12
        values = [box for text, box in ink.drawn
                  if text in ("+512,000", "+9,000", "-99,999,999", "-20")]
        names = [box for text, box in ink.drawn
                 if text in (LATIN, HANZI, latin_cut, hanzi_cut)]
        assert len(values) == len(names) == 4
        for name, value in zip(names, values, strict=True):
            assert name[2] + CLEAR <= value[0], (name, value)


def test_standings_and_board_names_use_the_room_of_their_column(ink: Ink) -> None:
    latin = "Annabelle-Christina Long"  # 420 px of room: 24 letters, where 12 were drawn
    rows = (StandingsRow(1, TOO_LONG_LATIN, "+120", "3/9"), StandingsRow(2, latin, "+20", "3/9"),
            StandingsRow(3, HANZI, "-40", "3/9"), StandingsRow(4, TOO_LONG_HANZI, "-100", "3/9"))
    for labels in LANGS.values():
        ink.drawn.clear()
        standings_image(StandingsScene("Standings", rows, final=True, labels=labels))
        assert ink.boxes(latin) and ink.boxes(HANZI)
        (crowned, hanzi_cut) = cut_names(ink)  # the champion's crown takes some of its room
        assert crowned.startswith("Catherine Zeta") and len(crowned) > 16
        assert hanzi_cut.startswith("歐陽娜娜娜娜娜娜娜娜娜娜") and len(hanzi_cut) > 11
        names = [box for text, box in ink.drawn if text in (crowned, latin, HANZI, hanzi_cut)]
        scores = [box for text, box in ink.drawn if text in ("+120", "+20", "-40", "-100")]
        for name, score in zip(names, scores, strict=True):
            assert name[2] + CLEAR <= score[0]
    ink.drawn.clear()
    images.challenge_board.render_challenge_board(BoardScene(
        "Challenge", (BoardRow(1, LATIN, 30, 2, 6), BoardRow(2, HANZI, 20, 2, 6))))
    assert ink.boxes(LATIN) and ink.boxes(HANZI)


def test_the_table_picture_keeps_its_cut(ink: Ink) -> None:
    seats = list(scenes.TABLE_3.seats)
    seats[1] = dataclasses.replace(seats[1], name=LATIN)
    table_image(dataclasses.replace(scenes.TABLE_3, seats=tuple(seats)))
    assert "Annabelle-Ch…" in cut_names(ink)


def distance(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    return math.dist(a[:3], b[:3])


def test_an_empty_win_rate_track_shows_on_every_row() -> None:
    """A 0 % bar on the shaded rows (1, 3, 5) and on the felt (2, 4): its track differs from
    the row's background by a clear margin (RGB distance ≥ 60; the old track was 9 from the
    shaded panel)."""
    rows = tuple(LeaderboardRow(n, f"P{n}", 0, 10, 0) for n in range(1, 6))
    canvas = leaderboard_image(LeaderboardScene("Top", rows))
    for i in range(len(rows)):
        mid = TOP + i * ROW_H + (ROW_H - 6) // 2
        background = canvas.getpixel((1230, mid))
        assert background == (PANEL if i % 2 == 0 else FELT)
        track = canvas.getpixel((COLUMNS["rate"] - 110 + 70, mid))
        assert isinstance(track, tuple) and isinstance(background, tuple)
        assert distance(track, background) >= 60, (i + 1, track, background)
