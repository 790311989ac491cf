"""Result (images/result.py) and leaderboard (images/leaderboard.py) pictures."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import ImageChops

from images import (
    LeaderboardRow,
    LeaderboardScene,
    RenderError,
    ResultScene,
    ResultSeat,
    render_leaderboard,
    render_result,
)
from images.leaderboard import leaderboard_image, value_text
from images.result import (
    NAME_X,
    POINTS_X,
    ROW_GAP,
    ROW_H,
    TAG_ROOM,
    TOP,
    breakdown,
    result_image,
    seat_factors,
    tag_lines,
    title_lines,
    totals,
    won,
)
from tests.images import scenes


def test_breakdown_lists_every_factor_and_they_multiply_to_each_pair() -> None:
    """RULES.md §3, §7: 2^robs × the largest show × the landlord's doubling × 2^bombs × spring,
    then per farmer its own doubling; the last tag is the pair multipliers."""
    scene = scenes.RESULT
    assert breakdown(scene) == ["底分 1", "抢地主 2 次 ×4", "明牌 ×2", "炸弹 1 个 ×2",
                                "王炸 ×2", "春天 ×2", "×128 / ×64"]
    li, han = scene.seats[1], scene.seats[2]
    assert seat_factors(scene, li) == ["加倍 ×2"] and seat_factors(scene, han) == []
    assert seat_factors(scene, scene.landlord) == []
    assert (li.multiplier, han.multiplier) == (4 * 2 * 2 * 2 * 2 * 2, 4 * 2 * 2 * 2 * 2)
    assert scene.landlord.points == scene.base * (li.multiplier + han.multiplier)
    plain = dataclasses.replace(scene, bombs=0, rockets=0, robs=0, spring=False,
                                anti_spring=True, multiplier=2, labels=scenes.ENGLISH,
                                seats=(dataclasses.replace(scene.seats[0], shown=0),
                                       dataclasses.replace(li, doubled=False, multiplier=2),
                                       dataclasses.replace(han, multiplier=2)))
    assert breakdown(plain) == ["Base 1", "Anti-spring ×2", "×2"]
    english = dataclasses.replace(scene, labels=scenes.ENGLISH)
    assert breakdown(english)[1:5] == ["Robbed 2 times ×4", "Show ×2", "1 bomb ×2", "Rocket ×2"]
    twice = dataclasses.replace(english, bombs=4, rockets=2, robs=1)
    assert breakdown(twice)[1:5] == ["Robbed once ×2", "Show ×2", "2 bombs ×4", "2 rockets ×4"]
    assert totals(plain) == [2]


def test_a_cut_multiplier_shows_the_cap() -> None:
    capped = dataclasses.replace(
        scenes.RESULT, cap=64, multiplier=64,
        seats=(scenes.RESULT.seats[0], dataclasses.replace(scenes.RESULT.seats[1], multiplier=64),
               scenes.RESULT.seats[2]))
    assert breakdown(capped)[-2:] == ["封顶 ×64", "×64"]
    assert "封顶 ×64" not in breakdown(dataclasses.replace(scenes.RESULT, cap=256))


def test_an_escape_says_who_left_and_what_they_paid() -> None:
    """RULES.md §9: the title names the leaver, the line under it the payment; the seats that
    were paid are the winners whatever the roles."""
    scene = scenes.RESULT_ESCAPE
    assert title_lines(scene) == ("Bob left the deal", ["Bob left and pays 36 points (360 beans)"])
    assert [won(scene, s) for s in scene.seats] == [True, False, True]
    assert title_lines(scenes.RESULT) == ("地主胜", [])
    match = dataclasses.replace(scene, with_beans=False)  # points only: no beans named
    assert title_lines(match) == ("Bob left the deal", ["Bob left and pays 36 points"])
    practice = dataclasses.replace(scene, with_beans=False, practice=True)  # nobody pays
    assert title_lines(practice) == ("Bob ended the practice", [])
    assert result_image(scene).height > result_image(
        dataclasses.replace(scene, seats=tuple(dataclasses.replace(s, escaped=False)
                                               for s in scene.seats))).height


def test_an_escape_payment_groups_its_digits_as_the_rest_of_the_picture() -> None:
    """A leaver's payment of 1,000 beans or more (3 × base 3 × ×4 = 36 points at 50 beans a
    point is 1,800 beans, RULES.md §9) is written with its digits grouped, as the beans column
    under it (``-1,800``) and the caption write it, not ``1800``."""
    seats = tuple(dataclasses.replace(s, points=s.points * 40, beans=s.beans * 50)
                  for s in scenes.RESULT_ESCAPE.seats)
    scene = dataclasses.replace(scenes.RESULT_ESCAPE, seats=seats)
    assert title_lines(scene) == ("Bob left the deal",
                                  ["Bob left and pays 1,440 points (18,000 beans)"])
    match = dataclasses.replace(scene, with_beans=False)
    assert title_lines(match)[1] == ["Bob left and pays 1,440 points"]


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


def test_leaderboard_values() -> None:
    """Issue 10: "0" for zero, a sign only on beans won over a period, none on balances."""
    assert [value_text(v, False) for v in (12, 0, -3)] == ["+12", "0", "-3"]
    assert [value_text(v, True) for v in (1000, 0, -3)] == ["1,000", "0", "-3"]
    assert value_text(12400, False) == "+12,400"  # grouped as the texts write beans
    assert LeaderboardRow(1, "A", 0, 8, 2).win_rate == 0.25
    assert LeaderboardRow(1, "A", 0, 0, 0).win_rate is None  # no deal, no rate


def test_leaderboard_picture() -> None:
    data = render_leaderboard(scenes.LEADERBOARD)
    assert data.startswith(b"\x89PNG") and len(data) < 150 * 1024
    short = dataclasses.replace(scenes.LEADERBOARD, rows=scenes.LEADERBOARD_ROWS[:2])
    assert leaderboard_image(scenes.LEADERBOARD).height > leaderboard_image(short).height
    empty = leaderboard_image(LeaderboardScene("Leaderboard"))
    assert empty.width == 1280


def test_balances_and_beans_won_draw_differently() -> None:
    board = scenes.LEADERBOARD
    balances = leaderboard_image(dataclasses.replace(board, balances=True))
    won_im = leaderboard_image(board)
    values = (600, 150, 800, won_im.height)  # the value column (and its head)
    assert balances.crop(values).tobytes() != won_im.crop(values).tobytes()
    names = (0, 150, 580, won_im.height)
    assert balances.crop(names).tobytes() == won_im.crop(names).tobytes()


def test_leaderboard_rows_without_wins_draw_no_rate() -> None:
    """A board whose wins are not known draws "-" for the rate."""
    unknown = dataclasses.replace(scenes.LEADERBOARD, rows=tuple(
        dataclasses.replace(row, wins=None) for row in scenes.LEADERBOARD_ROWS))
    assert unknown.rows[0].win_rate is None
    known_im = leaderboard_image(scenes.LEADERBOARD)
    unknown_im = leaderboard_image(unknown)
    assert unknown_im.size == known_im.size
    rate_column = (950, 150, 1280, unknown_im.height)
    assert unknown_im.crop(rate_column).tobytes() != known_im.crop(rate_column).tobytes()
    names = (0, 0, 900, unknown_im.height)
    assert unknown_im.crop(names).tobytes() == known_im.crop(names).tobytes()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: LeaderboardScene(""), "title must be a non-empty"),
        (lambda: LeaderboardScene("T", (LeaderboardRow(1, "A", 0, 0, 0),) * 26), "at most 25"),
        (lambda: LeaderboardScene("T", (("A", 1),)), "LeaderboardRow"),
        (lambda: render_leaderboard([LeaderboardRow(1, "A", 0, 0, 0)]), "LeaderboardScene"),
        (lambda: LeaderboardRow(1, "A", 0, 1, 2), "cannot exceed"),
        (lambda: LeaderboardRow(0, "A", 0, 1, 1), "rank"),
        (lambda: ResultScene("draw", scenes.RESULT.seats, 1, 1), "winner"),
        (lambda: ResultScene("landlord", scenes.RESULT.seats[:2], 1, 1), "3 or 4"),
        (lambda: ResultScene("landlord", scenes.RESULT.seats[1:] * 2, 1, 1), "one landlord"),
        (lambda: ResultScene("landlord", scenes.RESULT.seats, 0, 1), "base"),
        (lambda: ResultScene("landlord", scenes.RESULT.seats, 1, 1, bombs=1, rockets=2),
         "rockets"),
        (lambda: ResultSeat("A", "landlord", 1.5, 0), "points"),
        (lambda: ResultSeat("A", "boss", 1, 0), "role"),
        (lambda: ResultScene(None, scenes.RESULT.seats, 1, 1), "a seat that left"),
        (lambda: ResultScene("farmers", tuple(dataclasses.replace(s, role=None, escaped=True)
                                              for s in scenes.RESULT.seats), 1, 1),
         "one landlord"),
        (lambda: ResultSeat("A", "farmer", 1, 0, (54,)), "unknown card 54"),
        (lambda: ResultSeat("A", "farmer", 1, 0, multiplier=0), "multiplier"),
    ],
)
def test_bad_input_raises_a_clear_error(make, message) -> None:
    with pytest.raises(RenderError, match=message):
        make()


def test_a_loser_short_of_beans_is_tagged() -> None:
    """RULES.md §8: a loser who paid every bean it held (less than points × stake) has a tag
    of its own on its row, and only there."""
    seats = list(scenes.RESULT.seats)
    seats[2] = dataclasses.replace(seats[2], beans=-50, short=True)
    short = result_image(dataclasses.replace(scenes.RESULT, seats=tuple(seats)))
    seats[2] = dataclasses.replace(seats[2], short=False)
    plain = result_image(dataclasses.replace(scenes.RESULT, seats=tuple(seats)))
    box = ImageChops.difference(short, plain).getbbox()
    assert box is not None
    top = TOP + 2 * (ROW_H + ROW_GAP)  # the third row's tag line
    assert top + 70 <= box[1] and box[3] <= top + 110 and box[0] >= NAME_X


def test_a_rows_tags_keep_clear_of_its_points() -> None:
    """QA: in English a farmer's "Lose", "Auto-play" and "Auto-play penalty" tags ended ~5 px
    from its "-8" points; tags that do not fit left of the points column go on a second line
    (smaller, in more lines, only when even two lines are not enough)."""
    from images.text import text_width

    seats = list(scenes.RESULT_ESCAPE.seats)
    seats[1] = dataclasses.replace(seats[1], points=-8, beans=-80, escaped=False,
                                   autoplay=True, penalized=True)
    seats[0] = dataclasses.replace(seats[0], points=8, beans=80)
    seats[2] = dataclasses.replace(seats[2], points=0, beans=0)
    tagged = result_image(dataclasses.replace(scenes.RESULT_ESCAPE, seats=tuple(seats)))
    seats[1] = dataclasses.replace(seats[1], autoplay=False, penalized=False)
    plain = result_image(dataclasses.replace(scenes.RESULT_ESCAPE, seats=tuple(seats)))
    box = ImageChops.difference(tagged, plain).getbbox()
    assert box is not None
    points_left = POINTS_X - text_width("-8", 40) / 2
    assert box[0] >= NAME_X and box[2] <= NAME_X + TAG_ROOM <= points_left - 40
    row = TOP + ROW_H + ROW_GAP  # the second row
    assert row + 60 <= box[1] and box[3] <= row + ROW_H
    many = [(w, (0, 0, 0)) for w in ("Lose", "Auto-play", "Auto-play penalty", "Short of beans",
                                     "Show cards", "Double ×2")]
    size, lines = tag_lines(many, "en")
    assert (size, [len(line) for line in lines]) == (12, [3, 2, 1])
    assert tag_lines(many[:2], "en") == (16, [many[:2]])
