"""Table picture (images/table.py): seats, alarm, turn and countdown, plays, kitty, sizes."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import Image, ImageChops

from images import RenderError, SeatScene, TableScene, render_table
from images.draw import ALARM, HIGHLIGHT
from images.table import HEIGHT, LAYOUTS, PANEL_H, PANEL_W, WIDTH, table_image
from tests.images import scenes


def panel(im: Image.Image, seats: int, seat: int) -> Image.Image:
    x, y = LAYOUTS[seats][seat].panel
    return im.crop((x - 30, y - 30, x + PANEL_W + 30, y + PANEL_H + 10))


def count_colour(im: Image.Image, colour: tuple[int, int, int], tolerance: int = 24) -> int:
    """Pixels within ``tolerance`` of ``colour`` on every channel."""
    bands = [b.point(lambda v, c=c: 255 if abs(v - c) <= tolerance else 0)
             for b, c in zip(im.convert("RGB").split(), colour, strict=True)]
    mask = ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]), bands[2])
    return mask.histogram()[255]


def replace_seat(scene: TableScene, i: int, **changes) -> TableScene:
    seats = list(scene.seats)
    seats[i] = dataclasses.replace(seats[i], **changes)
    return dataclasses.replace(scene, seats=tuple(seats))


def test_size_and_formats() -> None:
    jpeg = render_table(scenes.TABLE_3)
    assert jpeg.startswith(b"\xff\xd8")
    png = render_table(scenes.TABLE_3, fmt="PNG")
    assert png.startswith(b"\x89PNG")
    assert table_image(scenes.TABLE_3).size == (WIDTH, HEIGHT) == (1280, 720)
    for data in (jpeg, png, render_table(scenes.TABLE_4)):
        assert len(data) < 150 * 1024


def test_alarm_draws_the_count_in_red() -> None:
    """RULES.md §4.5: seat 1 has 2 cards and the alarm."""
    on = table_image(scenes.TABLE_3)
    off = table_image(replace_seat(scenes.TABLE_3, 1, alarm=False))
    assert count_colour(panel(on, 3, 1), ALARM) > 150
    assert count_colour(panel(off, 3, 1), ALARM) == 0


def test_turn_frames_the_seat_and_shows_the_countdown() -> None:
    im = table_image(scenes.TABLE_3)
    assert count_colour(panel(im, 3, 2), HIGHLIGHT) > 500  # seat 2 is to act
    assert count_colour(panel(im, 3, 1), HIGHLIGHT) == 0
    other = table_image(dataclasses.replace(scenes.TABLE_3, seconds_left=3))
    assert ImageChops.difference(panel(im, 3, 2), panel(other, 3, 2)).getbbox() is not None
    assert count_colour(panel(other, 3, 2), ALARM) > 300  # 5 s or less: red badge


def test_each_seat_draws_in_its_own_place() -> None:
    base = table_image(scenes.TABLE_3)
    for i in range(3):
        changed = table_image(replace_seat(scenes.TABLE_3, i, card_count=7))
        box = ImageChops.difference(base, changed).getbbox()
        x, y = LAYOUTS[3][i].panel
        assert box is not None
        assert x <= box[0] and box[2] <= x + PANEL_W and y <= box[1] and box[3] <= y + PANEL_H


def test_kitty_face_down_until_revealed() -> None:
    hidden = table_image(dataclasses.replace(scenes.TABLE_3, kitty=None))
    shown = table_image(scenes.TABLE_3)
    none = table_image(dataclasses.replace(scenes.TABLE_3, kitty=None, kitty_size=0))
    top = (400, 0, 880, 110)
    assert hidden.crop(top).tobytes() != shown.crop(top).tobytes()
    assert count_colour(hidden.crop(top), (170, 28, 40)) > 1000  # the red backs
    assert count_colour(none.crop(top), (170, 28, 40)) == 0


def test_pass_and_plays_change_the_picture() -> None:
    played = table_image(scenes.TABLE_3)
    passed = table_image(replace_seat(scenes.TABLE_3, 0, last_play="pass"))
    nothing = table_image(replace_seat(scenes.TABLE_3, 0, last_play=None))
    assert len({played.tobytes(), passed.tobytes(), nothing.tobytes()}) == 3


def test_busiest_table_stays_under_150_kb() -> None:
    """Every hand shown (RULES.md §3), a play in front of each seat, the kitty revealed: all 54
    cards face up."""
    deck = list(range(54))
    parts = [(deck[0:8], deck[8:20]), (deck[20:26], deck[26:37]), (deck[37:43], deck[43:54])]
    seats = tuple(SeatScene(f"P{i + 1}", "farmer", len(shown), last_play=tuple(play),
                            shown_cards=tuple(shown)) for i, (play, shown) in enumerate(parts))
    scene = TableScene(seats=seats, kitty=(51, 52, 53), base=3, multiplier=64)
    assert len(render_table(scene)) < 150 * 1024
    assert len(render_table(scene, fmt="PNG")) < 150 * 1024
    long_play = TableScene(seats=(SeatScene("A", last_play=tuple(range(20))),) * 3, base=1)
    assert len(render_table(long_play)) < 150 * 1024


def test_four_seats_render() -> None:
    """RULES.md §11: the two-deck variant seats four."""
    assert table_image(scenes.TABLE_4).size == (WIDTH, HEIGHT)


def test_a_farmers_bomb_allowance_is_drawn_on_its_seat() -> None:
    """RULES.md §11: the allowance is public (QA round 4, defect 5): a tag on each farmer's
    panel, none for a seat without a limit; the alarm leaves the role word its full size."""
    im = table_image(scenes.TABLE_4)
    for seat in (0, 1, 3):  # the farmers; seat 2 is the landlord
        none = table_image(replace_seat(scenes.TABLE_4, seat, bombs_left=None))
        assert ImageChops.difference(panel(im, 4, seat), panel(none, 4, seat)).getbbox()
    other = table_image(replace_seat(scenes.TABLE_4, 0, bombs_left=2))
    assert ImageChops.difference(panel(im, 4, 0), panel(other, 4, 0)).getbbox()
    x, y = LAYOUTS[4][1].panel
    role = (x + PANEL_W - 80, y + 40, x + PANEL_W - 8, y + 74)  # the role word's place
    calm = table_image(replace_seat(scenes.TABLE_4, 1, alarm=False))
    assert ImageChops.difference(im.crop(role), calm.crop(role)).getbbox() is None


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: TableScene(seats=(SeatScene("A"), SeatScene("B"))), "3 or 4"),
        (lambda: TableScene(seats=("A", "B", "C")), "3 or 4"),
        (lambda: SeatScene(""), "non-empty"),
        (lambda: SeatScene("A\n"), "printable"),
        (lambda: SeatScene("ABCD"), "longer than 3"),
        (lambda: SeatScene("A", role="boss"), "role"),
        (lambda: SeatScene("A", card_count=-1), "card_count"),
        (lambda: SeatScene("A", last_play=(0, 60)), "unknown card 60"),
        (lambda: SeatScene("A", last_play="x" * 17), "longer than 16"),
        (lambda: SeatScene("A", shown_cards=(None,)), "unknown card None"),
        (lambda: TableScene(seats=(SeatScene("A"),) * 3, multiplier=0), "multiplier"),
        (lambda: TableScene(seats=(SeatScene("A"),) * 3, kitty=(99,)), "unknown card 99"),
        (lambda: TableScene(seats=(SeatScene("A"),) * 3, seconds_left=-2), "seconds_left"),
    ],
)
def test_bad_scenes_raise_a_clear_error(make, message) -> None:
    with pytest.raises(RenderError, match=message):
        make()


def test_a_long_play_stays_one_row_of_narrower_cards() -> None:
    """Issue 10: an 11- or 12-card straight in front of a side seat wrapped onto two overlapping
    rows; it is now one row of narrower cards, every corner index in sight, up to the longest
    play of three seats (20 cards: a plane of five trios with five kickers)."""
    from images.fan import one_row_width, rows_needed
    from images.table import NARROW_PLAY_CARDS, PLAY_CARD

    widths = (PLAY_CARD, *NARROW_PLAY_CARDS)
    for n in (11, 12, 20):
        _, _, _, room = LAYOUTS[3][1].play
        width = one_row_width(n, widths, room)
        assert width < PLAY_CARD and rows_needed(n, width, room) == 1
    assert one_row_width(8, widths, LAYOUTS[3][1].play[3]) == PLAY_CARD
    straight = table_image(scenes.TABLE_STRAIGHT)
    x, y, _, room = LAYOUTS[3][2].play
    box = ImageChops.difference(
        straight, table_image(replace_seat(scenes.TABLE_STRAIGHT, 2, last_play=None))).getbbox()
    assert box is not None
    card_height = round(NARROW_PLAY_CARDS[0] * 1.4)
    assert box[3] - box[1] <= card_height + 16  # one row (and its shadow)
    assert x - 4 <= box[0] and box[2] <= x + room + 8


@pytest.mark.parametrize(("seats", "hand"), [(3, 20), (3, 17), (4, 33), (4, 25)])
def test_a_shown_hand_stays_inside_the_picture_at_every_seat(seats: int, hand: int) -> None:
    """RULES.md §3, §11: a landlord's shown hand (20 cards, 33 with four seats) or a hand shown
    before bidding (17, 25) stays whole inside the 1280 × 720 picture at every seat (QA: the
    bottom seat's 20 cards were drawn in two rows, the second cut off by the bottom edge, 298
    card-white pixels on the last row) and clear of every seat's panel."""
    cards = tuple(i % 54 for i in range(hand))
    for seat in range(seats):
        plain = TableScene(seats=tuple(SeatScene(f"P{i}", None, hand if i == seat else 17)
                                       for i in range(seats)), kitty_size=0)
        before = table_image(plain)
        after = table_image(replace_seat(plain, seat, shown_cards=cards))
        box = ImageChops.difference(before, after).getbbox()
        assert box is not None
        assert box[0] > 0 and box[1] > 0 and box[2] < WIDTH and box[3] < HEIGHT - 2, (seat, box)
        last_row = after.crop((0, HEIGHT - 1, WIDTH, HEIGHT))
        assert count_colour(last_row, (253, 253, 250), tolerance=16) == 0
        for spot in LAYOUTS[seats]:  # the panel and its countdown (radius 26 at its corner)
            x, y = spot.panel
            assert (box[2] <= x or x + PANEL_W + 22 <= box[0] or box[3] <= y - 30
                    or y + PANEL_H <= box[1]), (seat, box, spot.panel)
